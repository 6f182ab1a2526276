// embed.test.mjs: embedding, over http:// with the strict CSP header. Two <attention-playground>
// elements on one page stay independent (state, shadow DOM, attributes, events); `hide` hides
// parts; the iframe protocol: ready, resize, stepchange, setSentence/goToStep/setOptions from the
// allowed parent origin, and messages from any other origin ignored. Needs dist/ (scripts/build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, startServer, distDir, collectErrors, shot } from './harness.mjs';

let browser = null;
let srv = null;

// A course page (no inline script: it runs under the same CSP) with two elements.
const ELEMENTS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>two widgets</title>
<link rel="stylesheet" href="/t/host.css"><script src="/embed/attention-playground.js" defer></script></head><body>
<attention-playground id="a" sentence="我爱你" step="7" seed="7"></attention-playground>
<attention-playground id="b" sentence="The cat sat on the mat." model="random" heads="4" step="3" lang="zh" hide="panels,settings"></attention-playground>
</body></html>`;
// host CSS that would break the widget if it leaked in
const HOST_CSS = 'button { display: none !important; } table { display: none !important; } #stage-body { display: none; }';

// The parent side of the iframe protocol (served without CSP, from another origin than the widget).
const PARENT = (src) => `<!doctype html><meta charset="utf-8"><title>parent</title><body>
<iframe id="f" src="${src}" width="900" height="300" style="border:0"></iframe>
<script>
window.got = [];
const f = document.getElementById('f');
addEventListener('message', (e) => {
  if (e.source !== f.contentWindow) return;
  window.got.push({ origin: e.origin, ...e.data });
  if (e.data.type === 'attention-playground:resize') f.style.height = e.data.height + 'px';
});
window.send = (msg) => f.contentWindow.postMessage(msg, '*');
</script></body>`;

before(async () => {
  assert.ok(fs.existsSync(path.join(distDir, 'embed/attention-playground.js')), 'dist/ is missing: run scripts/build dist');
  const routes = {
    '/t/elements.html': { body: ELEMENTS },
    '/t/host.css': { body: HOST_CSS, type: 'text/css' },
    '/favicon.ico': { body: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml' },
  };
  srv = { ...(await startServer({ dir: distDir, routes })), routes };
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

const allReady = (page) => page.waitForFunction(
  () => [...document.querySelectorAll('attention-playground')].every((e) => e.dataset.ready === '1'), null, { timeout: 20000 });
test('two elements on one page: independent state, shadow DOM, attributes and events', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/elements.html`);
  await allReady(page);
  const a = page.locator('#a');
  const b = page.locator('#b');
  assert.equal(await a.getAttribute('data-stage'), 'softmax');
  assert.equal(await b.getAttribute('data-stage'), 'project');
  // each has its own tokens, language and hidden parts; host CSS does not reach in
  assert.deepEqual(await a.locator('#stage-body .chip, #arcs text').count() >= 0, true);
  assert.equal(await a.locator('#text').inputValue(), '我爱你');
  assert.equal(await b.locator('#text').inputValue(), 'The cat sat on the mat.');
  assert.equal(await b.locator('#ap').getAttribute('lang'), 'zh-CN');
  assert.equal(await a.locator('#ap').getAttribute('lang'), 'en');
  assert.ok(await a.locator('#panels').isVisible());
  assert.ok(!(await b.locator('#panels').isVisible()));
  assert.ok(!(await b.locator('#whatif').isVisible()));
  assert.ok(await a.locator('#stage-body table.matrix').first().isVisible(), 'host CSS leaked into the shadow root');
  assert.equal(await b.locator('#head-picker option').count(), 4);
  // ids are per shadow root: both have #walkthrough, the document has none
  assert.equal(await page.evaluate(() => document.getElementById('walkthrough')), null);

  // driving one leaves the other alone
  const bStage = await b.getAttribute('data-stage');
  await a.locator('#stage-nav li:nth-child(4) button').click();
  await page.waitForFunction(() => document.getElementById('a').dataset.stage === 'score');
  assert.equal(await b.getAttribute('data-stage'), bStage);
  const bWeights = await b.locator('td[data-matrix]').evaluateAll((l) => l.map((x) => x.dataset.value).join());
  await a.locator('#text').fill('小猫吃鱼');
  await page.waitForFunction(() => document.getElementById('a').shadowRoot.querySelector('#token-count').textContent.startsWith('3 '));
  assert.equal(await b.locator('td[data-matrix]').evaluateAll((l) => l.map((x) => x.dataset.value).join()), bWeights);
  // keyboard shortcuts act on the focused widget only
  await b.locator('#stage-nav li:nth-child(2) button').focus();
  await page.keyboard.press('5');
  await page.waitForFunction(() => document.getElementById('b').dataset.stage === 'scale');
  assert.equal(await a.getAttribute('data-stage'), 'score');

  // attributes are live; events come out of the element
  const step = page.evaluate(() => new Promise((r) => document.getElementById('b').addEventListener('stepchange', (e) => r(e.detail), { once: true })));
  await page.evaluate(() => document.getElementById('b').setAttribute('step', '8'));
  assert.deepEqual(await step, { step: 8, stage: 'mix' });
  await page.evaluate(() => { document.getElementById('b').setAttribute('sentence', '我爱你'); document.getElementById('b').setAttribute('hide', ''); });
  await page.waitForFunction(() => document.getElementById('b').shadowRoot.querySelector('#text').value === '我爱你');
  assert.ok(await b.locator('#panels').isVisible());
  // the share snippets of an element describe its own state
  const snippet = await b.locator('#share-element').inputValue();
  assert.match(snippet, /<attention-playground [^>]*sentence="我爱你"/);
  assert.match(snippet, /heads="4"/);
  assert.match(snippet, /embed\/attention-playground\.js/);
  await shot(page, 'embed-two-elements');
  assert.deepEqual(errors, []);
  await context.close();
});

test('iframe protocol: ready, resize, stepchange, commands from the parent, wrong origin ignored', async () => {
  // the parent on http://127.0.0.1:PORT, the widget on http://localhost:PORT: two origins, one server
  const port = new URL(srv.base).port;
  const parentOrigin = `http://127.0.0.1:${port}`;
  const widget = `http://localhost:${port}/site/?s=%E6%88%91%E7%88%B1%E4%BD%A0&step=2`;
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const open = async (src) => {
    const key = `/t/parent-${Math.random().toString(36).slice(2)}.html`;
    srv.routes[key] = { body: PARENT(src) };
    await page.goto(`${parentOrigin}${key}`);
  };
  const got = (type) => page.waitForFunction((t) => window.got.find((m) => m.type === `attention-playground:${t}`), type, { timeout: 20000 })
    .then((h) => h.jsonValue());
  const frame = () => page.frame({ url: /\/site\// });

  // 1. the allowed parent: everything works
  await open(`${widget}&hide=panels,settings,share,export&parent=${encodeURIComponent(parentOrigin)}`);
  const ready = await got('ready');
  assert.equal(ready.origin, `http://localhost:${port}`);
  assert.equal(ready.version, 1);
  assert.deepEqual([ready.step, ready.stage], [2, 'embed']);
  const resize = await got('resize');
  assert.ok(resize.height > 300, `height ${resize.height}`);
  // the parent sized the iframe to what the widget asked for, so the widget needs no scrollbar
  await page.waitForFunction(() => Math.abs(document.getElementById('f').getBoundingClientRect().height - window.got.filter((m) => m.type.endsWith('resize')).at(-1).height) < 2);
  assert.ok(await frame().evaluate(() => document.documentElement.scrollHeight <= innerHeight + 2));
  await page.evaluate(() => send({ type: 'attention-playground:setSentence', sentence: 'The cat sat.' }));
  await frame().waitForFunction(() => document.getElementById('text').value === 'The cat sat.');
  await frame().waitForFunction(() => document.getElementById('token-count').textContent.startsWith('4'));
  await page.evaluate(() => { window.got = []; send({ type: 'attention-playground:goToStep', step: 7 }); });
  assert.deepEqual((({ step, stage }) => ({ step, stage }))(await got('stepchange')), { step: 7, stage: 'softmax' });
  await page.evaluate(() => send({ type: 'attention-playground:setOptions', options: { model: 'random', heads: 4, seed: 9, hide: 'panels' } }));
  await frame().waitForFunction(() => document.getElementById('head-picker').options.length === 4);
  assert.ok(await frame().locator('#whatif').isVisible());
  assert.match(frame().url(), /seed=9/);
  // garbage is ignored, never a crash
  await page.evaluate(() => { send({ type: 'attention-playground:setOptions', options: { heads: 'x<y' } }); send({ type: 'attention-playground:goToStep', step: 'nine' }); send('hello'); });
  await page.waitForTimeout(200);
  assert.equal(await frame().locator('#head-picker option').count(), 4);
  await shot(page, 'embed-iframe-parent');

  // 2. a parent at another origin than `parent=`: its commands are ignored and it hears nothing
  await open(`${widget}&parent=${encodeURIComponent('https://course.example')}`);
  await frame().waitForSelector('body[data-ready="1"]');
  await page.evaluate(() => send({ type: 'attention-playground:setSentence', sentence: 'hijacked' }));
  await frame().waitForSelector('body[data-ignored-messages="1"]');
  assert.equal(await frame().locator('#text').inputValue(), '我爱你');
  await page.waitForTimeout(200);
  assert.deepEqual(await page.evaluate(() => window.got), []);

  // 3. no `parent=`: only a same-origin parent is heard (the widget is on localhost, the parent not)
  await open(widget);
  await frame().waitForSelector('body[data-ready="1"]');
  await page.evaluate(() => send({ type: 'attention-playground:goToStep', step: 9 }));
  await frame().waitForSelector('body[data-ignored-messages="1"]');
  assert.equal(await frame().locator('body').getAttribute('data-stage'), 'embed');
  await page.goto(`http://localhost:${port}/t/none`).catch(() => {});
  srv.routes['/t/same.html'] = { body: PARENT('/site/?step=3') };
  await page.goto(`http://localhost:${port}/t/same.html`);
  assert.equal((await got('ready')).step, 3);
  await page.evaluate(() => send({ type: 'attention-playground:goToStep', step: 5 }));
  await frame().waitForSelector('body[data-stage="scale"]');
  assert.deepEqual(errors.filter((e) => !/404/.test(e)), []);
  await context.close();
});
