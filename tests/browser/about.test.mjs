// about.test.mjs: the licence and the version in what the build ships (dist/). The hosted page's
// footer shows the project's version and links to LICENSE.txt and THIRD_PARTY_NOTICES.txt, which
// are served next to it; the element's footer links resolve against the element's page, not the
// host page, and its ready event carries the version; every built file opens with the legal
// comment. Needs dist/ (scripts/build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, startServer, distDir, collectErrors } from './harness.mjs';
import { VERSION } from '../../web/wasm/core-facts.mjs';

let browser = null;
let srv = null;

// a host page on the same server, in another folder than the widget's page (dist/site/)
const HOST = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title>
<script src="/site/embed/attention-playground.js" defer></script></head><body>
<attention-playground id="a" lang="zh"></attention-playground></body></html>`;

before(async () => {
  assert.ok(
    fs.existsSync(path.join(distDir, 'site/app.js')),
    'dist/ is missing: run scripts/build',
  );
  srv = await startServer({
    dir: distDir,
    routes: {
      '/t/host/index.html': { body: HOST },
      '/favicon.ico': { body: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml' },
    },
  });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

const LEGAL = `Attention Playground ${VERSION} | MIT licence`;

test('every built file opens with the legal comment; the licence files sit next to each page', () => {
  const head = (f) => fs.readFileSync(path.join(distDir, f), 'utf8').slice(0, 600);
  // every script dist/ ships, the Emscripten glue and the training worker included (not the
  // examples: course authors copy them into their own pages)
  const scripts = fs
    .readdirSync(distDir, { recursive: true })
    .map(String)
    .filter((f) => /\.m?js$/.test(f) && !f.startsWith('examples'));
  for (const f of ['site/app.js', 'site/wasm/attention.js', 'site/train-worker.js'])
    assert.ok(scripts.includes(f), `dist/ has no ${f} (${scripts.length} scripts)`);
  for (const f of scripts) {
    assert.ok(head(f).startsWith(`/*! ${LEGAL}`), `${f} opens with the legal comment`);
    assert.match(head(f), /Eigen \(MPL-2\.0/, f);
  }
  for (const f of ['attention-playground.html', 'site/index.html']) {
    assert.ok(head(f).startsWith(`<!doctype html>\n<!--\n${LEGAL}`), `${f} opens with it`);
    assert.match(head(f), /Emscripten/, f);
  }
  for (const dir of ['', 'site/']) {
    assert.match(fs.readFileSync(path.join(distDir, `${dir}LICENSE.txt`), 'utf8'), /^MIT License/);
    assert.match(
      fs.readFileSync(path.join(distDir, `${dir}THIRD_PARTY_NOTICES.txt`), 'utf8'),
      /Mozilla Public License 2\.0/,
    );
  }
});

test("the page's footer: the version and working links to the licence and the notices", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}site/?lang=zh`);
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.locator('#app-version').textContent(), `注意力游乐场 ${VERSION} 版`);
  assert.equal(await page.locator('#licence-link').textContent(), '许可证：MIT');
  for (const [id, text] of [
    ['#licence-link', 'MIT License'],
    ['#notices-link', 'Third-party notices for Attention Playground'],
  ]) {
    const href = await page.locator(id).evaluate((a) => a.href);
    assert.equal(new URL(href).pathname.startsWith('/site/'), true, href);
    const res = await page.request.get(href);
    assert.equal(res.status(), 200, href);
    assert.ok((await res.text()).includes(text), href);
  }
  // the language switch keeps the version in the footer, in the other language
  await page.locator('#lang').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('#app-version').textContent(), `Attention Playground ${VERSION}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the element: ready carries the version; its footer links go to the element's page", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.addInitScript(() => {
    window.readyDetail = new Promise((r) =>
      document.addEventListener('ready', (e) => r(e.detail), { capture: true, once: true }),
    );
  });
  await page.goto(`${srv.base}t/host/index.html`);
  const detail = await page.evaluate(() => window.readyDetail);
  assert.equal(detail.appVersion, VERSION);
  const a = page.locator('#a');
  assert.equal(await a.locator('#app-version').textContent(), `注意力游乐场 ${VERSION} 版`);
  const href = await a.locator('#notices-link').evaluate((x) => x.href);
  assert.equal(href, `${srv.base}site/THIRD_PARTY_NOTICES.txt`);
  assert.equal((await page.request.get(href)).status(), 200);
  assert.deepEqual(errors, []);
  await context.close();
});
