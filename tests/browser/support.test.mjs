// support.test.mjs: a browser that lacks what the playground needs (web/support.js) gets a clear
// message in its language, never a blank widget or a raw English error. Chromium has everything,
// so each test takes a feature away before anything boots (an init script): WebAssembly SIMD (its
// probe module fails to validate) for the hosted page, DecompressionStream for the single file and
// the element, custom elements for the element's script. The expected words come from the locale
// files and support.js's versions, in English and in Chinese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, startServer, collectErrors, distDir, webDir } from './harness.mjs';
import { minimumVersions } from '../../web/support.js';

const locales = Object.fromEntries(
  ['en', 'zh'].map((l) => [
    l,
    JSON.parse(fs.readFileSync(path.join(webDir, 'locales', `${l}.json`), 'utf8')),
  ]),
);
// the message support.js composes, from the locale strings
const expected = (lang, kind, ids) => {
  const s = locales[lang];
  const params = {
    features: ids.map((id) => s[`support.feature.${id}`]).join(s['support.separator']),
    ...minimumVersions(kind),
  };
  return s['support.missing'].replace(/\{(\w+)\}/g, (m, k) => String(params[k]));
};

// what each test takes away, before any script of the page runs
const NO_SIMD = () => {
  const validate = WebAssembly.validate;
  // the SIMD probe is a tiny module with a 0xfd (SIMD prefix) opcode; the real module is large
  WebAssembly.validate = (bytes) => {
    const u = new Uint8Array(bytes.buffer || bytes);
    return u.length < 100 && u.includes(0xfd) ? false : validate(bytes);
  };
};
const NO_DECOMPRESSION = () => {
  delete window.DecompressionStream;
};
const NO_CONSTRUCTABLE_SHEETS = () => {
  delete ShadowRoot.prototype.adoptedStyleSheets;
};
const NO_CUSTOM_ELEMENTS = () => {
  Object.defineProperty(window, 'customElements', { value: undefined });
};

let browser = null;
let srv = null;
const served = []; // the paths the server was asked for

before(async () => {
  assert.ok(
    fs.existsSync(path.join(distDir, 'attention-playground.html')),
    'dist/ is missing: run scripts/build dist',
  );
  srv = await startServer({
    dir: distDir,
    routes: {
      '/favicon.ico': { body: '', type: 'image/x-icon' },
      '/element.html': {
        body: (req) => {
          const lang = new URL(req.url, 'http://x').searchParams.get('lang');
          return (
            '<!doctype html><meta charset="utf-8"><title>element</title>\n' +
            `<attention-playground sentence="小猫吃鱼" ${lang ? `lang="${lang}"` : ''}></attention-playground>\n` +
            '<script src="element-listen.js"></script>\n' +
            '<script src="site/embed/attention-playground.js"></script>'
          );
        },
      },
      '/mount.html': {
        body:
          '<!doctype html><meta charset="utf-8"><title>mount</title><div id="host"></div>\n' +
          '<script type="module" src="mount.js"></script>',
      },
      '/mount.js': {
        type: 'text/javascript',
        body:
          "import { mountPlayground } from './site/lib/playground.mjs';\n" +
          "mountPlayground(document.getElementById('host'), { state: { lang: 'zh' } }).then(\n" +
          '  () => (window.mounted = "ok"),\n' +
          '  (e) => (window.mounted = e.message),\n' +
          ');',
      },
      '/element-listen.js': {
        type: 'text/javascript',
        body:
          "window.apErrors = [];\ndocument.querySelector('attention-playground')" +
          ".addEventListener('error', (e) => window.apErrors.push(e.detail));",
      },
    },
    log: served,
  });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

async function open(url, takeAway, locale = 'en-US') {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.addInitScript(takeAway);
  await page.goto(url);
  return { page, errors, context };
}

for (const lang of ['en', 'zh']) {
  test(`hosted page without WebAssembly SIMD (${lang}): the message, and nothing traced`, async () => {
    served.length = 0;
    const { page, errors, context } = await open(`${srv.base}site/?lang=${lang}`, NO_SIMD);
    await page.waitForSelector('#boot-error:not([hidden])', { timeout: 20000 });
    assert.equal(await page.textContent('#boot-error'), expected(lang, 'page', ['wasm_simd']));
    assert.equal(await page.getAttribute('body', 'data-ready'), null);
    // nothing was traced (the page preloads its .wasm, but never instantiates it)
    assert.equal(await page.locator('#stage-body table').count(), 0);
    assert.ok(served.includes('/site/index.html') || served.includes('/site/'));
    // the failed boot is rethrown (one page error: the same message), nothing else goes wrong
    assert.ok(
      errors.every((e) => e.includes(expected(lang, 'page', ['wasm_simd']))),
      errors.join('\n'),
    );
    await context.close();
  });

  test(`single file from disk without DecompressionStream (${lang}): the message, nothing unpacked`, async () => {
    // the language from the browser's, not the URL
    const { page, errors, context } = await open(
      pathToFileURL(path.join(distDir, 'attention-playground.html')).href,
      NO_DECOMPRESSION,
      lang === 'zh' ? 'zh-CN' : 'en-GB',
    );
    await page.waitForSelector('#boot-error:not([hidden])', { timeout: 20000 });
    assert.equal(
      await page.textContent('#boot-error'),
      expected(lang, 'single', ['decompression']),
    );
    assert.equal(await page.getAttribute('html', 'data-unsupported'), '');
    assert.equal(await page.getAttribute('body', 'data-ready'), null);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test(`element without DecompressionStream (${lang}): the message in its shadow root, and an error event`, async () => {
    const { page, errors, context } = await open(
      `${srv.base}element.html${lang === 'zh' ? '?lang=zh' : ''}`,
      NO_DECOMPRESSION,
    );
    await page.waitForFunction(() => window.apErrors && window.apErrors.length > 0, null, {
      timeout: 20000,
    });
    const want = expected(lang, 'element', ['decompression']);
    assert.deepEqual(await page.evaluate(() => window.apErrors), [
      { code: 'unsupported', message: want },
    ]);
    await page.waitForFunction(
      () =>
        !document.querySelector('attention-playground').shadowRoot.getElementById('boot-error')
          .hidden,
    );
    assert.equal(
      await page.$eval(
        'attention-playground',
        (el) => el.shadowRoot.getElementById('boot-error').textContent,
      ),
      want,
    );
    // the rejected `ready` of the element is the only page error, and it says the same
    assert.ok(
      errors.every((e) => e.includes(want)),
      errors.join('\n'),
    );
    await context.close();
  });

  test(`element script without custom elements (${lang}): the element's own text says why`, async () => {
    const { page, errors, context } = await open(
      `${srv.base}element.html${lang === 'zh' ? '?lang=zh' : ''}`,
      NO_CUSTOM_ELEMENTS,
    );
    await page.waitForSelector('attention-playground[role="alert"]', { timeout: 20000 });
    assert.equal(
      await page.textContent('attention-playground'),
      expected(lang, 'element', ['shadow_dom']),
    );
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test("the package's mountPlayground without constructable style sheets (zh): the message in the host, and it rejects", async () => {
  const { page, errors, context } = await open(`${srv.base}mount.html`, NO_CONSTRUCTABLE_SHEETS);
  await page.waitForFunction(() => window.mounted !== undefined, null, { timeout: 20000 });
  const want = expected('zh', 'module', ['shadow_dom']);
  assert.equal(await page.evaluate(() => window.mounted), want);
  assert.equal(
    await page.$eval('#host', (h) => h.shadowRoot.getElementById('boot-error').textContent),
    want,
  );
  assert.deepEqual(errors, []);
  await context.close();
});
