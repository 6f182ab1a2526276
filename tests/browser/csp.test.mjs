// csp.test.mjs: the built page under the strict Content-Security-Policy header
// (default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'): no violation, no
// error, nothing fetched from elsewhere; and the single file, double-clicked (file://), with every
// network request refused. Needs dist/ (scripts/build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, startServer, distDir, collectErrors, shot, CSP } from './harness.mjs';
import { BUDGETS, transferOf } from '../../scripts/budgets.mjs';
import EN from '../../web/locales/en.json' with { type: 'json' };
import ZH from '../../web/locales/zh.json' with { type: 'json' };

let browser = null;
let srv = null;
const log = [];

// every CSP violation the page reports, recorded before any page script runs
const recordViolations = () => {
  window.cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) =>
    window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
  );
};

before(async () => {
  assert.ok(
    fs.existsSync(path.join(distDir, 'site/index.html')),
    'dist/ is missing: run scripts/build dist',
  );
  srv = await startServer({
    dir: distDir,
    log,
    routes: {
      '/favicon.ico': { body: '', type: 'image/x-icon' },
      '/t/element.html': {
        body:
          '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>element under CSP</title>' +
          '<script src="/embed/attention-playground.js" defer></script></head><body>' +
          '<attention-playground sentence="我爱你" step="7"></attention-playground></body></html>',
      },
      // an inline script the CSP blocks: what collectErrors must count
      '/t/violates.html': {
        body: '<!doctype html><title>violates</title><script>document.title = "ran"</script>',
        csp: CSP,
      },
    },
  });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

test("a CSP violation is one of collectErrors' errors (the harness counts on it)", async () => {
  const page = await browser.newPage();
  const errors = collectErrors(page);
  const reported = page.waitForEvent('console', (m) => m.type() === 'error');
  await page.goto(`${srv.base}t/violates.html`);
  await reported;
  assert.equal(await page.title(), 'violates', 'the inline script was blocked');
  assert.ok(
    errors.some((e) => e.includes('Content Security Policy')),
    `the violation is an error: ${errors.join('\n')}`,
  );
  await page.close();
});

test('hosted page (dist/site) under the strict CSP: runs, no violations, only its own files', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(recordViolations);
  const page = await context.newPage();
  const errors = collectErrors(page);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  const res = await page.goto(`${srv.base}site/?step=7&causal=1`);
  assert.equal(res.headers()['content-security-policy'], CSP);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.ok((await page.locator('#stage-body td[data-matrix="weights"]').count()) > 0);
  // the first-trace mark the bench reads
  assert.equal(
    await page.evaluate(
      () => performance.getEntriesByName('attention-playground:first-trace').length,
    ),
    1,
  );
  // the script carries no strings: the shown language's are fetched, and no other until picked
  const locales = () =>
    requests.filter((u) => u.includes('/locales/')).map((u) => new URL(u).pathname);
  assert.deepEqual(locales(), ['/site/locales/en.json'], 'only the shown language is loaded');
  // use it a little: type, change language, open the share and export panels
  await page.fill('#text', 'The cat sat.');
  await page.waitForFunction(() =>
    document.getElementById('token-count').textContent.startsWith('4 '),
  );
  await page.click('#lang');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.deepEqual(
    locales(),
    ['/site/locales/en.json', '/site/locales/zh.json'],
    'the other language is fetched from the site, once',
  );
  assert.match(await page.locator('#app-version').textContent(), /^注意力游乐场 /);
  await page.click('#share summary');
  await page.click('#export summary');
  await page.click('[data-export="numpy"]');
  assert.match(await page.inputValue('#export-numpy'), /import numpy as np/);
  // the export panel's strings are the later part's, fetched with its code
  assert.deepEqual(locales().slice(2), ['/site/locales/zh.later.json']);
  assert.equal(
    await page.locator('[data-export="numpy"]').textContent(),
    ZH['export.numpy'],
    'the export panel speaks the later part',
  );
  assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
  assert.deepEqual(errors, []);
  const origin = new URL(srv.base).origin;
  assert.deepEqual(
    requests.filter((u) => !u.startsWith(origin)),
    [],
    'nothing from another origin',
  );
  await shot(page, 'csp-site-zh');
  // back to English: its first part was fetched before; its later part comes now, because the
  // export panel is drawn again in English
  await page.click('#lang');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.deepEqual(locales().slice(3), ['/site/locales/en.later.json']);
  assert.equal(await page.locator('[data-export="numpy"]').textContent(), EN['export.numpy']);
  await context.close();
});

test('hosted page: a Chinese-language browser downloads the Chinese strings and no others', async () => {
  const context = await browser.newContext({ locale: 'zh-CN' });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(`${srv.base}site/`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.match(await page.locator('#app-version').textContent(), /^注意力游乐场 /);
  assert.deepEqual(
    requests.filter((u) => u.includes('/locales/')),
    ['/site/locales/zh.json'],
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('hosted page: what a visitor downloads, gzipped, stays within the budget in either language', async (t) => {
  for (const locale of ['en-US', 'zh-CN']) {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    const asked = new Set();
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.origin === new URL(srv.base).origin) asked.add(u.pathname);
    });
    await page.goto(`${srv.base}site/`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
    const { files, gzip } = transferOf(distDir, [...asked]);
    t.diagnostic(`${locale}: ${gzip} bytes gzipped`);
    assert.ok(
      files.every((f) => f.bytes > 0 || f.path === '/favicon.ico'),
      `${locale}: every file asked for is in dist/ (${files.map((f) => f.path).join(', ')})`,
    );
    assert.ok(
      gzip < BUDGETS.hostedGzipBytes,
      `${locale}: ${gzip} bytes gzipped over ${BUDGETS.hostedGzipBytes}: ${files.map((f) => `${f.path} ${f.gzip}`).join(', ')}`,
    );
    await context.close();
  }
});

test("hosted page: when its language's strings cannot be fetched, it starts in the other and says so", async () => {
  const { default: en } = await import('../../web/locales/en.json', { with: { type: 'json' } });
  const context = await browser.newContext({ locale: 'zh-CN' });
  const page = await context.newPage();
  await context.route('**/locales/zh.json', (route) => route.abort());
  await page.goto(`${srv.base}site/?lang=zh&step=7`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  assert.ok((await page.locator('#stage-body td[data-matrix="weights"]').count()) > 0);
  assert.deepEqual(await page.locator('#messages li.notice').allTextContents(), [
    en['notice.langFallback'],
  ]);
  // the learner can still ask for Chinese; while it cannot be fetched, the page says so again
  await page.click('#lang');
  await page.waitForFunction(() => document.querySelectorAll('#messages li.notice').length === 2);
  assert.equal(
    await page.locator('#messages li.notice').last().textContent(),
    en['notice.langUnavailable'],
  );
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  await context.close();
});

test('hosted page: with no strings to be had, the boot error names the files that failed', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await context.route('**/locales/*.json', (route) =>
    route.fulfill({ status: 404, body: 'not found' }),
  );
  await page.goto(`${srv.base}site/`);
  const box = page.locator('#boot-error');
  await box.waitFor({ state: 'visible', timeout: 20000 });
  const text = await box.textContent();
  assert.match(text, /strings could not be loaded/);
  assert.match(text, /locales\/en\.json: 404/);
  assert.match(text, /locales\/zh\.json: 404/);
  assert.equal(await page.evaluate(() => document.body.dataset.ready), undefined);
  await context.close();
});

test('hosted page: a language that cannot be fetched keeps the page in its own and says so', async () => {
  const { default: en } = await import('../../web/locales/en.json', { with: { type: 'json' } });
  const context = await browser.newContext();
  const page = await context.newPage();
  await context.route('**/locales/zh.json', (route) => route.abort());
  await page.goto(`${srv.base}site/`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.click('#lang');
  await page.waitForSelector('#messages li.notice');
  assert.equal(
    await page.locator('#messages li.notice').last().textContent(),
    en['notice.langUnavailable'],
  );
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  await context.close();
});

test('custom element on a page with the same CSP', async () => {
  const context = await browser.newContext();
  await context.addInitScript(recordViolations);
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/element.html`);
  await page.waitForSelector('attention-playground[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.locator('attention-playground').getAttribute('data-stage'), 'softmax');
  // the adopted style sheet applies (buttons styled, hidden things hidden)
  assert.equal(await page.locator('attention-playground #boot-error').isVisible(), false);
  assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('single file over file:// with no network at all', async () => {
  const file = path.join(distDir, 'attention-playground.html');
  assert.ok(fs.statSync(file).size < BUDGETS.singleFileBytes, 'the single file is over its budget');
  const context = await browser.newContext({
    viewport: { width: 1100, height: 900 },
    offline: true,
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const network = [];
  await page.route(/^(https?|wss?):/, (r) => {
    network.push(r.request().url());
    r.abort();
  });
  const asked = [];
  page.on('request', (r) => asked.push(r.url()));
  await page.goto(`file://${file}?s=%E6%88%91%E7%88%B1%E4%BD%A0&step=7&seed=7`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.getAttribute('body', 'data-stage'), 'softmax');
  assert.ok((await page.locator('#stage-body td[data-matrix="weights"]').count()) >= 9);
  // it loads nothing besides itself
  assert.deepEqual(network, []);
  assert.deepEqual(
    asked.filter((u) => !u.startsWith('file://') && !u.startsWith('data:')),
    [],
  );
  assert.equal(
    new Set(asked.filter((u) => u.startsWith('file://')).map((u) => u.split('?')[0])).size,
    1,
  );
  // both languages are inside
  await page.click('#lang');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.keyboard.press('3');
  await page.waitForSelector('body[data-stage="project"]');
  assert.deepEqual(errors, []);
  await shot(page, 'single-file-zh');
  await context.close();
});
