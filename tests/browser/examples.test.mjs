// examples.test.mjs: the examples as a course author would use them, built into dist/examples/ and
// served with the strict CSP: a plain HTML course page with two different widgets (an element and
// an iframe that sizes itself) and a Markdown page rendered by the build (marked). The course page
// also opened from disk (file://), as an author previews it: both widgets start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, startServer, distDir, root, collectErrors, shot } from './harness.mjs';
import { RESIZE_STEP } from '../../web/embed/frame.js';

let browser = null;
let srv = null;

before(async () => {
  assert.ok(
    fs.existsSync(path.join(distDir, 'examples/course.html')),
    'dist/examples is missing: run scripts/build dist',
  );
  srv = await startServer({
    dir: distDir,
    routes: { '/favicon.ico': { body: '', type: 'image/x-icon' } },
  });
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
  const bg = await page
    .locator('#zh-widget #stage-nav button')
    .first()
    .evaluate((b) => getComputedStyle(b).backgroundColor);
  assert.notEqual(bg, 'rgb(255, 105, 180)');
  // the element's script is dist/embed's: its page (share and licence links) is dist/site/
  const licence = await page.$eval(
    '#zh-widget',
    (el) => el.shadowRoot.querySelector('a[href$="LICENSE.txt"]').href,
  );
  assert.equal(licence, `${srv.base}site/LICENSE.txt`);
  const frame = page.frame({ url: /\/site\// });
  await frame.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  assert.equal(await frame.getAttribute('body', 'data-stage'), 'mask');
  assert.ok(!(await frame.locator('#top').isVisible()));
  // the iframe grew from 600 px to its content's height, rounded up to the protocol's step (the
  // parent learns heights only in coarse steps: RESIZE_STEP)
  const sized = (step) => {
    const f = /** @type {HTMLIFrameElement} */ (document.getElementById('en-frame'));
    const content = f.contentDocument.body.getBoundingClientRect().height;
    const want = Math.ceil(content / step) * step;
    return content > 600 && Math.abs(f.getBoundingClientRect().height - want) < 1;
  };
  await page.waitForFunction(sized, RESIZE_STEP, { timeout: 10000 }).catch(async (e) => {
    const frameH = await page.$eval('#en-frame', (f) => f.getBoundingClientRect().height);
    const contentH = await frame.evaluate(() => document.body.getBoundingClientRect().height);
    assert.fail(`${e.message}: iframe ${frameH} px for ${contentH} px of content`);
  });
  await shot(page, 'example-course');
  assert.deepEqual(errors, []);
  await page.close();
});

test('course page from disk: the element and the iframe (handed to the single file) both start', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = collectErrors(page);
  await page.goto(pathToFileURL(path.join(distDir, 'examples/course.html')).href);
  await page.waitForSelector('#zh-widget[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.getAttribute('#zh-widget', 'data-stage'), 'softmax');
  // the iframe's ../site/index.html cannot start from disk: it hands over to the single file
  const isSingle = (f) => /\/attention-playground\.html\?/.test(f.url());
  const frame =
    page.frames().find(isSingle) ??
    (await page.waitForEvent('framenavigated', { predicate: isSingle, timeout: 20000 }));
  await frame.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  // with the state the course page gave it
  assert.equal(await frame.getAttribute('body', 'data-stage'), 'mask');
  assert.ok(!(await frame.locator('#top').isVisible()));
  assert.match(await frame.inputValue('#text'), /^The animal didn't cross the street/);
  // the only complaints: the browser refusing the site's modules (app.js and the chunks index.html
  // preloads) and WebAssembly from disk, before the handover (the reason for it)
  const refused = (e) =>
    /dist\/site\/(app\.js|chunks\/chunk-\w+\.js|wasm\/attention\.wasm)\b/.test(e) &&
    /CORS|ERR_FAILED/.test(e);
  assert.deepEqual(
    errors.filter((e) => !refused(e)),
    [],
  );
  await page.close();
});

test('course page opened from the source tree after scripts/build: both widgets start, cells shown', async () => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = collectErrors(page);
  // examples/course.html itself, not its copy in dist/: its ../embed/ is not there, ../dist/embed/ is
  await page.goto(pathToFileURL(path.join(root, 'examples/course.html')).href);
  await page.waitForSelector('#zh-widget[data-ready="1"]', { timeout: 20000 });
  assert.equal(await page.getAttribute('#zh-widget', 'data-stage'), 'softmax');
  assert.equal(
    await page.locator('#zh-widget #stage-body td[data-matrix="weights"]').count(),
    49,
    'the element shows its cells',
  );
  const isSingle = (f) => /\/attention-playground\.html\?/.test(f.url());
  const frame =
    page.frames().find(isSingle) ??
    (await page.waitForEvent('framenavigated', { predicate: isSingle, timeout: 20000 }));
  await frame.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  assert.equal(await frame.getAttribute('body', 'data-stage'), 'mask');
  assert.ok((await frame.locator('#stage-body td[data-matrix="masked"]').count()) > 0);
  // the complaints a browser makes on the way: the missing ../embed/ (the reason for the
  // fallback) and the site's module and WebAssembly refused from disk (the reason for the handover)
  const expected = (e) =>
    /examples\/\.\.\/embed\/attention-playground\.js|\/embed\/attention-playground\.js/.test(e) &&
    /ERR_FILE_NOT_FOUND|Failed to load/.test(e);
  const refused = (e) =>
    /dist\/site\/(app\.js|chunks\/chunk-\w+\.js|wasm\/attention\.wasm)\b/.test(e) &&
    /CORS|ERR_FAILED/.test(e);
  assert.deepEqual(
    errors.filter((e) => !refused(e) && !expected(e)),
    [],
  );
  await shot(page, 'example-course-source');
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
  // the lesson asks for the row of 它: the widget's sentence has it, and shows its row of weights
  const tokens = await page.$$eval('attention-playground #stage-body th[scope="row"]', (e) =>
    e.map((x) => x.textContent),
  );
  assert.ok(
    tokens.some((x) => x.includes('它')),
    `the widget shows a row for 它: ${tokens.join(' ')}`,
  );
  assert.equal(
    await page.locator('attention-playground #stage-body td[data-matrix="weights"]').count(),
    49,
  );
  // the lesson hides what a lesson does not need: training, the title and the sentence box
  assert.match(await page.getAttribute('attention-playground', 'hide'), /(^|,)train(,|$)/);
  for (const id of ['train', 'top', 'input'])
    assert.ok(!(await page.locator(`attention-playground #${id}`).isVisible()), `#${id} hidden`);
  // it uses the trained model, so it must not tell the learner to change a seed that changes nothing
  assert.doesNotMatch(await page.textContent('main'), /seed/i);
  await shot(page, 'example-lesson');
  assert.deepEqual(errors, []);
  await page.close();
});
