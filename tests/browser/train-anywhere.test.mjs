// train-anywhere.test.mjs: training wherever the built page runs, in Chromium. The single file
// over file:// (a blob worker made of its own inline code, with its corpus sample, in Chinese; and
// with Worker taken away, on the page's thread; the .npz of the model trained there recomputes
// the page's cells with NumPy), the custom element on a page of another origin than its script (a blob worker
// importing the site's train-worker.js), the same element on a host page whose CSP forbids blob
// workers (it trains on the page's thread), and the hosted page under the strict CSP (its
// worker). Each run ends, its loss goes down, and afterwards the page shows the model trained
// there: its .apm, saved from the page and loaded by the core in Node, gives the cells shown.
// Needs dist/ (scripts/build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  launch,
  startServer,
  distDir,
  collectErrors,
  cells,
  CSP,
  waitSettled,
} from './harness.mjs';
import { loadCoreNode } from '../../web/core.js';
import { parse, coreSettings } from '../../web/state.js';
import zh from '../../web/locales/zh.json' with { type: 'json' };
import { BUDGETS } from '../../scripts/budgets.mjs';

const core = await loadCoreNode(path.join(distDir, '../web/wasm'));
const STEPS = 200;
let browser = null;
let cdn = null; // dist/ on one origin, with CORS (a CDN)
let host = null; // the pages that embed it, on another origin

const hostPage = (script, sentence) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>a course page</title><script src="${script}" defer></script></head><body>
<attention-playground sentence="${sentence}" step="7"></attention-playground></body></html>`;

before(async () => {
  assert.ok(fs.existsSync(path.join(distDir, 'site/index.html')), 'run scripts/build dist');
  cdn = await startServer({ dir: distDir, cors: true });
  const script = `${cdn.base}embed/attention-playground.js`;
  const origin = new URL(cdn.base).origin;
  host = await startServer({
    dir: path.join(distDir, 'examples'),
    csp: '',
    routes: {
      '/course.html': { body: hostPage(script, '小猫吃鱼，它很开心') },
      '/favicon.ico': { body: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml' },
      // no blob: workers here (worker-src falls back to script-src)
      '/strict.html': {
        body: hostPage(script, '小猫吃鱼，它很开心'),
        csp: `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; connect-src ${origin}; style-src 'self'`,
      },
    },
  });
  assert.notEqual(new URL(host.base).origin, origin);
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  for (const s of [cdn, host]) if (s) await new Promise((r) => s.server.close(r));
});

/**
 * Trains STEPS steps in the playground under `scope` ('' for the page, or the element) and checks
 * the run: progress while it runs, the page answering, the loss going down, model=custom after.
 * -> {runner, points}
 */
async function train(page, scope) {
  const $ = (s) => `${scope} ${s}`.trim();
  await page.fill($('#train-steps'), String(STEPS));
  await page.click($('#train-body .train-start'));
  await page.waitForFunction(
    (sc) => {
      const root = sc ? document.querySelector(sc)?.shadowRoot : document;
      return Number(root?.querySelector('#train-body')?.dataset.step) >= 20;
    },
    scope,
    { timeout: 120000 },
  );
  // the page answers while it trains (a frame is drawn)
  assert.equal(
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r('alive')))),
    'alive',
  );
  await page.waitForSelector($('#train-body[data-status="done"]'), { timeout: 300000 });
  const points = await page.$$eval($('#train-body .loss-point'), (l) =>
    l.map((c) => ({ step: +c.dataset.step, loss: +c.dataset.value })),
  );
  assert.equal(points.length, STEPS / 20);
  assert.equal(points[points.length - 1].step, STEPS);
  assert.ok(points[points.length - 1].loss < points[0].loss - 1, JSON.stringify(points));
  assert.equal(await page.$eval($('#set-model'), (e) => e.value), 'custom');
  return { runner: await page.getAttribute($('#train-body'), 'data-runner'), points };
}

/** The page's model as an .apm (its export button), loaded by the core here. */
async function savedModel(page, scope) {
  const $ = (s) => `${scope} ${s}`.trim();
  await page.click($('#export summary'));
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.click($('[data-export="apm"]')),
  ]);
  core.setCustomModel(new Uint8Array(fs.readFileSync(await dl.path())));
}

/** The shown weights cells equal the core's trace of the saved model (the page uses it). */
function sameAsCore(shown, sentence, settings) {
  const want = core.trace(sentence, { ...settings, model: 'custom' });
  assert.equal(want.config.weights, 'custom');
  assert.ok(shown.length >= 49, `${shown.length} cells`);
  for (const c of shown) {
    const m = want.heads[c.head].weights;
    assert.ok(
      Math.abs(c.value - m.data[c.row * m.cols + c.col]) < 1e-6,
      `${c.head} ${c.row} ${c.col}`,
    );
  }
  // and they are not the shipped model's
  const shipped = core.trace(sentence, { ...settings, model: 'default' });
  const differs = (c) => {
    const m = shipped.heads[c.head].weights;
    return Math.abs(c.value - m.data[c.row * m.cols + c.col]) > 1e-3;
  };
  assert.ok(shown.some(differs), 'the trained weights are not the shipped ones');
}

/** Opens the single file over file://, offline; `noWorker` takes Worker away first. */
async function singleFile({ locale, noWorker = false }) {
  const file = path.join(distDir, 'attention-playground.html');
  const size = fs.statSync(file).size;
  assert.ok(size < BUDGETS.singleFileBytes, `the single file is ${size} bytes`);
  const context = await browser.newContext({
    offline: true,
    acceptDownloads: true,
    locale,
    viewport: { width: 1280, height: 900 },
  });
  if (noWorker) await context.addInitScript(() => delete globalThis.Worker);
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`file://${file}?step=7`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  return { context, page, errors };
}

async function download(page, what) {
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.click(`[data-export="${what}"]`),
  ]);
  return { name: dl.suggestedFilename(), data: fs.readFileSync(await dl.path()) };
}

test('the single file over file:// trains in a worker made of its own code (zh); the page then shows that model; its .npz recomputes it', async () => {
  const { context, page, errors } = await singleFile({ locale: 'zh-CN' });
  const { runner } = await train(page, '');
  assert.equal(runner, 'worker');
  const where = await page.textContent('#train-body .train-where');
  assert.ok(!where.includes(zh['train.onPage']), where);
  const examples = Number(/(\d+)/.exec(where)[1]);
  assert.ok(examples >= 500 && examples < 32000, `a sample: ${examples} sentences`);
  assert.equal(where, zh['train.sampled'].replace('{examples}', String(examples)));
  await savedModel(page, '');
  const { state } = parse(new URL(page.url()).search);
  await waitSettled(page); // the stage is out of sight: its cells follow the model when idle
  const shown = await cells(page, 'weights');
  sameAsCore(shown, state.s, coreSettings(state));
  // the .npz of the model trained here, and its program, run by NumPy: the page's cells again
  const npz = await download(page, 'npz');
  const py = await download(page, 'npz-py');
  assert.equal(npz.name, 'attention-custom.npz');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-npz-'));
  fs.writeFileSync(path.join(dir, npz.name), npz.data);
  fs.writeFileSync(path.join(dir, py.name), py.data);
  const last = JSON.parse(
    execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import contextlib, io, json, runpy, sys\n' +
          'with contextlib.redirect_stdout(io.StringIO()):\n' +
          '    g = runpy.run_path(sys.argv[1])\n' +
          'print(json.dumps([w.tolist() for w in g["layers"][-1]["weights"]]))',
        py.name,
      ],
      { cwd: dir, encoding: 'utf8' },
    ),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  for (const c of shown)
    assert.ok(Math.abs(last[c.head][c.row][c.col] - c.value) < 1e-5, `${c.head} ${c.row} ${c.col}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("the single file where no worker may start trains on the page's thread", async () => {
  const { context, page, errors } = await singleFile({ locale: 'en-US', noWorker: true });
  const { runner } = await train(page, '');
  assert.equal(runner, 'page');
  assert.match(
    await page.textContent('#train-body .train-where'),
    /^No background worker can start here/,
  );
  await savedModel(page, '');
  const { state } = parse(new URL(page.url()).search);
  await waitSettled(page); // the stage is out of sight: its cells follow the model when idle
  sameAsCore(await cells(page, 'weights'), state.s, coreSettings(state));
  assert.deepEqual(errors, []);
  await context.close();
});

test('the element on another origin trains in a worker from its own site, then shows that model', async () => {
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const asked = [];
  page.on('request', (r) => asked.push(r.url()));
  await page.goto(`${host.base}course.html`);
  await page.waitForSelector('attention-playground[data-ready="1"]', { timeout: 30000 });
  const { runner } = await train(page, 'attention-playground');
  assert.equal(runner, 'worker');
  // the worker's files came from the element's site, not from the host page
  assert.ok(
    asked.some((u) => u === `${cdn.base}site/wasm/corpus-train.tsv`),
    asked.join('\n'),
  );
  assert.ok(!asked.some((u) => u.startsWith(host.base) && /train|wasm/.test(u)));
  await savedModel(page, 'attention-playground');
  await waitSettled(page, 'attention-playground');
  sameAsCore(
    await cells(page, 'weights', 'attention-playground #stage-body'),
    '小猫吃鱼，它很开心',
    {},
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test("the element on a host page whose CSP forbids blob workers trains on the page's thread", async () => {
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${host.base}strict.html`);
  await page.waitForSelector('attention-playground[data-ready="1"]', { timeout: 30000 });
  const { runner } = await train(page, 'attention-playground');
  assert.equal(runner, 'page');
  await savedModel(page, 'attention-playground');
  await waitSettled(page, 'attention-playground');
  sameAsCore(
    await cells(page, 'weights', 'attention-playground #stage-body'),
    '小猫吃鱼，它很开心',
    {},
  );
  // the one report is the browser's, of the blob worker the element tried first
  assert.deepEqual(
    errors.filter((e) => !/Creating a worker from 'blob:[^']*' violates/.test(e)),
    [],
  );
  await context.close();
});

test('the hosted page under the strict CSP trains in its worker, with no violation', async () => {
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
  await context.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const res = await page.goto(`${cdn.base}site/?step=7`);
  assert.equal(res.headers()['content-security-policy'], CSP);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 30000 });
  const { runner } = await train(page, '');
  assert.equal(runner, 'worker');
  await savedModel(page, '');
  const { state } = parse(new URL(page.url()).search);
  await waitSettled(page); // the stage is out of sight: its cells follow the model when idle
  sameAsCore(await cells(page, 'weights'), state.s, coreSettings(state));
  assert.deepEqual(await page.evaluate(() => window.cspViolations), []);
  assert.deepEqual(errors, []);
  await context.close();
});
