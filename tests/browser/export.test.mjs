// export.test.mjs: the export panel of the built page (under the CSP): the NumPy snippet, run
// with Debian's NumPy, gives the page's weights; CSV and JSON carry the shown numbers; the
// picture downloads as a real PNG and SVG. Needs dist/ (scripts/build) and /usr/bin/python3.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, startServer, distDir, collectErrors, setup, teardown } from './harness.mjs';
import { parse, coreSettings } from '../../web/state.js';

let browser = null;
let srv = null;
let page = null;
let errors = [];
const SEARCH = 's=%E5%B0%8F%E7%8C%AB%E5%90%83%E9%B1%BC%EF%BC%8C%E5%AE%83%E5%BE%88%E5%BC%80%E5%BF%83&seed=123&heads=2&causal=1&temp=0.7&step=7&head=1';

before(async () => {
  srv = await startServer({ dir: distDir });
  browser = await launch();
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  errors = collectErrors(page);
  await page.goto(`${srv.base}site/?${SEARCH}`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  await page.click('#export summary');
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
  await teardown();
});

async function download(what) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export="${what}"]`)]);
  return { name: dl.suggestedFilename(), data: fs.readFileSync(await dl.path()) };
}

const shownWeights = () => page.$$eval('#stage-body td[data-matrix="weights"]', (tds) => tds.map((td) => ({
  head: Number(td.dataset.head), row: Number(td.dataset.row), col: Number(td.dataset.col), value: Number(td.dataset.value),
})));

test('the NumPy snippet, run with NumPy, gives the same weights as the page', async () => {
  await page.click('[data-export="numpy"]');
  const code = await page.inputValue('#export-numpy');
  assert.match(code, /^# Attention Playground/);
  const py = `${code}\nimport json\nprint("JSON" + json.dumps([w.tolist() for w in weights]))\n`;
  const out = execFileSync('/usr/bin/python3', ['-'], { input: py, encoding: 'utf8' });
  const weights = JSON.parse(out.split('\n').find((l) => l.startsWith('JSON')).slice(4));
  // against the cells on the page (head 2 is shown) ...
  const shown = await shownWeights();
  assert.ok(shown.length >= 49);
  for (const c of shown) assert.ok(Math.abs(weights[c.head][c.row][c.col] - c.value) < 1e-5, `head ${c.head} (${c.row}, ${c.col})`);
  // ... and every head against the core's trace of the same link
  const { core } = await setup();
  const { state } = parse(SEARCH);
  const want = core.trace(state.s, coreSettings(state)).trace;
  for (let h = 0; h < want.heads; h++) {
    const w = want.head[h].weights;
    for (let i = 0; i < w.rows; i++) for (let j = 0; j < w.cols; j++) {
      assert.ok(Math.abs(weights[h][i][j] - w.data[i * w.cols + j]) < 1e-5);
      if (j > i) assert.equal(weights[h][i][j], 0, 'causal: nothing above the diagonal');
    }
  }
  // the downloadable .py is the same code
  const file = await download('numpy-file');
  assert.match(file.name, /\.py$/);
  assert.equal(file.data.toString('utf8'), code);
});

test('CSV and JSON of a matrix carry the numbers shown', async () => {
  const shown = await shownWeights();
  await page.selectOption('#export-matrix', 'weights');
  const csv = await download('csv');
  assert.match(csv.name, /weights-head2\.csv$/);
  const lines = csv.data.toString('utf8').trim().split('\n').map((l) => l.split(','));
  assert.deepEqual(lines[0].slice(1), ['小猫', '吃', '鱼', '，', '它', '很', '开心']);
  for (const c of shown) assert.ok(Math.abs(Number(lines[c.row + 1][c.col + 1]) - c.value) < 1e-7);
  await page.selectOption('#export-matrix', 'masked');
  const json = JSON.parse((await download('json')).data.toString('utf8'));
  assert.equal(json.matrix, 'masked');
  assert.equal(json.head, 1);
  assert.equal(json.data[0][1], null, 'masked entries are null');
  assert.equal(json.data.length, 7);
});

test('the current view as PNG and SVG', async () => {
  const svg = await download('svg');
  assert.match(svg.name, /softmax-weights-head2\.svg$/);
  const text = svg.data.toString('utf8');
  assert.match(text, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(text, />它</);
  assert.equal((text.match(/<rect /g) || []).length, 1 + 49);
  const png = await download('png');
  assert.match(png.name, /\.png$/);
  assert.deepEqual([...png.data.subarray(1, 4)], [...Buffer.from('PNG')]);
  assert.ok(png.data.readUInt32BE(16) >= 400 && png.data.readUInt32BE(20) >= 300, 'png size');
  fs.writeFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), 'screenshots', 'export-view.png'), png.data);
  assert.deepEqual(errors, []);
});
