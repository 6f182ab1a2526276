// examples.test.mjs: the examples as a course author would use them, built into dist/examples/ and
// served with the strict CSP: a plain HTML course page with two different widgets (an element and
// an iframe that sizes itself) and a Markdown page rendered by the build (marked).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, startServer, distDir, collectErrors, shot } from './harness.mjs';

let browser = null;
let srv = null;

before(async () => {
  assert.ok(fs.existsSync(path.join(distDir, 'examples/course.html')), 'dist/examples is missing: run scripts/build dist');
  srv = await startServer({ dir: distDir, routes: { '/favicon.ico': { body: '', type: 'image/x-icon' } } });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

test('course page: an element and a self-sizing iframe, each showing the state it was given', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = collectErrors(page);
  await page.goto(`${srv.base}examples/course.html`);
  await page.waitForSelector('#zh-widget[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.getAttribute('#zh-widget', 'data-stage'), 'softmax');
  assert.ok(!(await page.locator('#zh-widget #panels').isVisible()));
  // the host page's pink buttons stay outside the shadow root
  const bg = await page.locator('#zh-widget #stage-nav button').first().evaluate((b) => getComputedStyle(b).backgroundColor);
  assert.notEqual(bg, 'rgb(255, 105, 180)');
  const frame = page.frame({ url: /\/site\// });
  await frame.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.equal(await frame.getAttribute('body', 'data-stage'), 'mask');
  assert.ok(!(await frame.locator('#top').isVisible()));
  // the iframe grew from 600 px to its content's height
  await page.waitForFunction(() => document.getElementById('en-frame').getBoundingClientRect().height > 700, null, { timeout: 10000 });
  const [frameH, contentH] = [await page.$eval('#en-frame', (f) => f.getBoundingClientRect().height), await frame.evaluate(() => document.body.getBoundingClientRect().height)];
  assert.ok(Math.abs(frameH - contentH) < 4, `${frameH} vs ${contentH}`);
  await shot(page, 'example-course');
  assert.deepEqual(errors, []);
  await page.close();
});

test('Markdown page rendered by the build, with a widget in it', async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  const errors = collectErrors(page);
  await page.goto(`${srv.base}examples/lesson.html`);
  assert.equal(await page.textContent('h1'), 'Reading attention weights');
  assert.equal(await page.locator('main > table td').count(), 4);
  await page.waitForSelector('attention-playground[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.getAttribute('attention-playground', 'data-stage'), 'softmax');
  assert.equal(await page.locator('attention-playground #stage-body td[data-matrix="weights"]').count(), 9);
  await shot(page, 'example-lesson');
  assert.deepEqual(errors, []);
  await page.close();
});
