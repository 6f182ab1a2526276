// model-src.test.mjs: a course author's converted model at an address (`model-src`), over http://
// with the strict CSP header, in the built element and the built page (dist/). The .apm is the
// one `qkv convert` makes of a Hugging Face fixture folder (tests/fixtures/hf); the numbers shown
// are compared with `qkv trace --model` on the same file. The element downloads at once, with
// modelprogress events and the bytes in its box; a link opened as a page only offers a button and
// asks for nothing until it is pressed. Cancel, a 404, a truncated body, a body that is not an
// .apm and a Content-Length over the module's limit each give one message and keep the model;
// a javascript: address is refused with a notice and never fetched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launch, startServer, distDir, collectErrors, shot } from './harness.mjs';
import { loadRealModule } from '../../web/real-model.js';
import en from '../../web/locales/en.json' with { type: 'json' };

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const QKV = process.env.AP_QKV;
assert.ok(QKV, 'AP_QKV names the qkv binary (CTest sets it)');
const TEXT = 'it was tired'; // the fixtures read at most 16 tokens
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-model-src-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

// the converted fixture, and the module's limit on a model's bytes (the core's, read here as the
// page reads it)
const APM = path.join(tmp, 'gpt2.apm');
execFileSync(QKV, [
  'convert',
  path.join(root, 'tests/fixtures/hf/gpt2_f32'),
  APM,
  '--dtype',
  'f32',
]);
const BYTES = fs.readFileSync(APM);
const realModule = await loadRealModule(path.join(root, 'web/wasm/attention-real.js'));
const MAX = realModule.realModelFileNames().max_weights_bytes;
const cli = JSON.parse(
  execFileSync(QKV, ['trace', '--model', APM, TEXT], { encoding: 'utf8', maxBuffer: 1 << 28 }),
);

let browser = null;
let srv = null;
const log = [];
/** the open requests of /m/slow.apm, closed when the page cancels */
const slow = { open: 0, closed: 0 };

// The host page: no inline script (the same CSP); /t/listen.js records the element's events.
const HOST = (
  body,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course</title>
<script src="/t/listen.js"></script><script src="/embed/attention-playground.js" defer></script></head>
<body>${body}</body></html>`;
const LISTEN = `window.got = [];
for (const type of ['modelprogress', 'modelload', 'error'])
  document.addEventListener(type, (e) => window.got.push({ type, id: e.target.id, ...e.detail }), true);`;

const answer = (res, status, headers, body) => {
  res.writeHead(status, { 'cache-control': 'no-store', ...headers });
  res.end(body);
};

before(async () => {
  assert.ok(
    fs.existsSync(path.join(distDir, 'embed/attention-playground.js')),
    'run scripts/build',
  );
  const octets = { 'content-type': 'application/octet-stream' };
  const routes = {
    '/t/listen.js': { body: LISTEN, type: 'text/javascript' },
    '/favicon.ico': { body: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml' },
    '/m/gpt2.apm': {
      // in three parts, so the bytes arrive in more than one chunk
      handle(req, res) {
        res.writeHead(200, { ...octets, 'content-length': BYTES.length });
        const third = Math.ceil(BYTES.length / 3);
        res.write(BYTES.subarray(0, third));
        setTimeout(() => res.write(BYTES.subarray(third, 2 * third)), 20);
        setTimeout(() => res.end(BYTES.subarray(2 * third)), 40);
      },
    },
    '/m/short.apm': {
      // says its whole size, sends half, and the connection ends
      handle(req, res) {
        res.writeHead(200, { ...octets, 'content-length': BYTES.length });
        res.write(BYTES.subarray(0, BYTES.length >> 1), () => setTimeout(() => res.destroy(), 50));
      },
    },
    '/m/slow.apm': {
      // sends a first part, then nothing until the page gives up
      handle(req, res) {
        slow.open++;
        res.writeHead(200, { ...octets, 'content-length': BYTES.length });
        res.write(BYTES.subarray(0, 1000));
        req.on('close', () => slow.closed++);
      },
    },
    '/m/page.apm': {
      handle: (req, res) => answer(res, 200, { 'content-type': 'text/html' }, HOST('not a model')),
    },
    '/m/huge.apm': {
      // a Content-Length over the limit: refused before the body, which never comes
      handle(req, res) {
        res.writeHead(200, { ...octets, 'content-length': MAX + 1 });
        res.write(BYTES.subarray(0, 100));
        req.on('close', () => res.destroy());
      },
    },
    '/t/element.html': {
      body: HOST(
        `<attention-playground id="a" sentence="${TEXT}" model-src="../m/gpt2.apm"></attention-playground>`,
      ),
    },
    '/t/bad.html': {
      body: HOST(
        `<attention-playground id="a" sentence="${TEXT}" model-src="javascript:alert(1)//x.apm"></attention-playground>`,
      ),
    },
  };
  srv = await startServer({ dir: distDir, routes, log });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

const shadow = (id) => `#${id} #model-src`;
async function boxState(page, id, state) {
  await page.waitForSelector(`${shadow(id)}[data-state="${state}"]`, { timeout: 60000 });
  return page.locator(shadow(id)).textContent();
}
const elementModel = (page) =>
  page.evaluate(() => document.getElementById('a').shadowRoot.getElementById('set-model')?.value);

test('element model-src: downloads with progress, shows the model, numbers equal qkv trace --model', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/element.html`);
  const said = await boxState(page, 'a', 'loaded');
  assert.ok(said.includes('gpt2'), said);
  const got = await page.evaluate(() => window.got);
  const progress = got.filter((g) => g.type === 'modelprogress');
  assert.ok(progress.length >= 1, 'a modelprogress event');
  assert.deepEqual(progress.at(-1), {
    type: 'modelprogress',
    id: 'a',
    loaded: BYTES.length,
    total: BYTES.length,
  });
  const load = got.find((g) => g.type === 'modelload');
  assert.equal(load.address, new URL('m/gpt2.apm', srv.base).href);
  assert.equal(await page.locator(shadow('a')).getAttribute('data-loaded'), String(BYTES.length));
  assert.equal(await elementModel(page), 'real');
  // the trace the element shows is the file's, as the CLI reads it
  await page.waitForFunction(() => document.getElementById('a').trace?.tokens.length > 0);
  const trace = await page.evaluate(() => document.getElementById('a').trace);
  assert.deepEqual(trace.tokens, cli.tokens);
  trace.heads.forEach((h, k) =>
    h.weights.forEach((row, i) =>
      row.forEach((w, j) =>
        assert.ok(
          Math.abs(w - cli.heads[k].weights[i][j]) <= 1e-5,
          `head ${k} ${i},${j}: ${w} vs ${cli.heads[k].weights[i][j]}`,
        ),
      ),
    ),
  );
  await shot(page, 'model-src-element');
  assert.deepEqual(errors, []);

  // each broken address: one message in the box, an error event, and the model stays
  const cases = [
    ['../m/missing.apm', 'real_fetch_status', en['error.real_fetch_status'].split('{')[0]],
    ['../m/short.apm', 'real_truncated', en['error.real_truncated'].split('{')[0]],
    ['../m/page.apm', null, null],
    ['../m/huge.apm', 'real_too_large', null],
  ];
  for (const [src, code, words] of cases) {
    const before = (await page.evaluate(() => window.got.length)) | 0;
    await page.evaluate((src) => document.getElementById('a').setAttribute('model-src', src), src);
    // the box said `failed` for the address before: wait for this address's error event
    await page.waitForFunction((n) => window.got.slice(n).some((g) => g.type === 'error'), before);
    const text = await boxState(page, 'a', 'failed');
    const errs = (await page.evaluate(() => window.got))
      .slice(before)
      .filter((g) => g.type === 'error');
    assert.equal(errs.length, 1, `${src}: one error event`);
    if (code) assert.equal(errs[0].code, code, `${src}: ${errs[0].message}`);
    if (words) assert.ok(text.includes(words), `${src}: ${text}`);
    assert.ok(text.includes(en['real.failed'].split('{')[0]), `${src}: ${text}`);
    assert.equal(await elementModel(page), 'real', `${src}: the model stays`);
  }
  // cancel: the download stops, the request is closed, the model stays
  await page.evaluate(() =>
    document.getElementById('a').setAttribute('model-src', '../m/slow.apm'),
  );
  await boxState(page, 'a', 'loading');
  await page.waitForSelector(`${shadow('a')}[data-loaded="1000"]`);
  await page.locator(`${shadow('a')} [data-model-src="cancel"]`).click();
  const text = await boxState(page, 'a', 'cancelled');
  assert.ok(text.includes(en['real.cancelled']), text);
  assert.equal(await elementModel(page), 'real');
  await waitFor(() => slow.closed === slow.open, 'the slow request is closed');
  await context.close();
});

test('element model-src="javascript:…": refused with a notice, nothing fetched', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = collectErrors(page);
  const asked = log.length;
  await page.goto(`${srv.base}t/bad.html`);
  await page.waitForFunction(() => document.getElementById('a').dataset.ready === '1');
  const messages = await page.locator('#a #messages').textContent();
  const notice = en['notice.modelSrcRefused'].split('{raw}')[0].replace('{key}', 'model-src');
  assert.ok(messages.includes(notice), messages);
  assert.equal(await page.locator('#a #model-src').isHidden(), true);
  const got = await page.evaluate(() => window.got);
  assert.deepEqual(
    got.filter((g) => g.type === 'error').map((g) => g.code),
    ['model_src_refused'],
  );
  assert.ok(!log.slice(asked).some((p) => p.endsWith('.apm')), log.slice(asked).join(' '));
  assert.equal(await elementModel(page), 'default');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link with model-src opened as a page: a button, nothing fetched until it is pressed', async () => {
  for (const [width, lang] of [
    [1280, 'en'],
    [375, 'zh'],
  ]) {
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    const page = await context.newPage();
    const errors = collectErrors(page);
    const asked = log.length;
    await page.goto(
      `${srv.base}site/?s=${encodeURIComponent(TEXT)}&lang=${lang}&model=real&layer=0&head=1&model-src=${encodeURIComponent('/m/gpt2.apm')}`,
    );
    await page.waitForSelector('#model-src[data-state="offered"]');
    assert.ok(!log.slice(asked).includes('/m/gpt2.apm'), 'no request before the button');
    // the link's model=real waits for its model: no "loaded in another visit" notice
    assert.equal(await page.$eval('#set-model', (e) => e.value), 'default');
    await shot(page, `model-src-offer-${width}-${lang}`, '#input');
    const overflow = await page.$eval('#model-src', (e) => e.scrollWidth - e.clientWidth);
    assert.ok(overflow <= 0, `the box fits at ${width}px (${overflow})`);
    await page.click('[data-model-src="load"]');
    await page.waitForSelector('#model-src[data-state="loaded"]');
    assert.equal(await page.$eval('#set-model', (e) => e.value), 'real');
    // the link's layer and head are shown once the model has loaded, and the address stays in it
    assert.equal(await page.$eval('#layer-picker', (e) => e.value), '0');
    assert.equal(await page.$eval('#head-picker', (e) => e.value), '1');
    await page.waitForFunction(() => location.search.includes('model-src='));
    assert.equal(new URL(page.url()).searchParams.get('model-src'), '/m/gpt2.apm');
    await shot(page, `model-src-loaded-${width}-${lang}`, '#input');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

async function waitFor(check, what) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), what);
}
