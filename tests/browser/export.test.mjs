// export.test.mjs: the export panel of the built page (under the CSP): the NumPy snippet, run
// with Debian's NumPy, gives the page's weights; the model's .npz and the program that reads it
// recompute every layer; the .apm loads; CSV and JSON carry the shown numbers; the picture
// downloads as a real PNG and SVG. Needs dist/ (scripts/build) and /usr/bin/python3.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, startServer, distDir, collectErrors, setup, teardown } from './harness.mjs';
import { parse, coreSettings } from '../../web/state.js';

let browser = null;
let srv = null;
let page = null;
let errors = [];
const SEARCH =
  's=%E5%B0%8F%E7%8C%AB%E5%90%83%E9%B1%BC%EF%BC%8C%E5%AE%83%E5%BE%88%E5%BC%80%E5%BF%83&seed=123&heads=2&causal=1&temp=0.7&step=7&head=1';

before(async () => {
  srv = await startServer({ dir: distDir });
  browser = await launch();
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
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
  const [dl] = await Promise.all([
    page.waitForEvent('download'),
    page.click(`[data-export="${what}"]`),
  ]);
  return { name: dl.suggestedFilename(), data: fs.readFileSync(await dl.path()) };
}

const shownWeights = () =>
  page.$$eval('#stage-body td[data-matrix="weights"]', (tds) =>
    tds.map((td) => ({
      head: Number(td.dataset.head),
      row: Number(td.dataset.row),
      col: Number(td.dataset.col),
      value: Number(td.dataset.value),
    })),
  );

test('the NumPy snippet, run with NumPy, gives the same weights as the page', async () => {
  await page.click('[data-export="numpy"]');
  const code = await page.inputValue('#export-numpy');
  assert.match(code, /^# -\*- coding: utf-8 -\*-\n# Attention Playground/);
  const py = `${code}\nimport json\nprint("JSON" + json.dumps([w.tolist() for w in weights]))\n`;
  const out = execFileSync('/usr/bin/python3', ['-'], { input: py, encoding: 'utf8' });
  const weights = JSON.parse(
    out
      .split('\n')
      .find((l) => l.startsWith('JSON'))
      .slice(4),
  );
  // against the cells on the page (head 2 is shown) ...
  const shown = await shownWeights();
  assert.ok(shown.length >= 49);
  for (const c of shown)
    assert.ok(
      Math.abs(weights[c.head][c.row][c.col] - c.value) < 1e-5,
      `head ${c.head} (${c.row}, ${c.col})`,
    );
  // ... and every head against the core's trace of the same link
  const { core } = await setup();
  const { state } = parse(SEARCH);
  const want = core.trace(state.s, coreSettings(state));
  for (let h = 0; h < want.heads; h++) {
    const w = want.heads[h].weights;
    for (let i = 0; i < w.rows; i++)
      for (let j = 0; j < w.cols; j++) {
        assert.ok(Math.abs(weights[h][i][j] - w.data[i * w.cols + j]) < 1e-5);
        if (j > i) assert.equal(weights[h][i][j], 0, 'causal: nothing above the diagonal');
      }
  }
  // the downloadable .py is the same code
  const file = await download('numpy-file');
  assert.match(file.name, /\.py$/);
  assert.equal(file.data.toString('utf8'), code);
});

test('the .npz of the model and its program: NumPy recomputes every layer of the page; the .apm loads', async () => {
  const { core } = await setup();
  const { state } = parse(SEARCH);
  const want = core.trace(state.s, coreSettings(state));
  const npz = await download('npz');
  assert.equal(npz.name, 'attention-trained.npz');
  assert.equal(npz.data.subarray(0, 4).toString('latin1'), 'PK\u0003\u0004');
  const py = await download('npz-py');
  assert.equal(py.name, 'attention-trained-npz.py');
  await page.click('[data-export="npz-code"]');
  const code = await page.inputValue('#export-numpy');
  assert.equal(code, py.data.toString('utf8'));
  assert.match(code, /np\.load\("attention-trained\.npz"\)/);
  // run it next to the file, as a learner would, and read what it computed
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-npz-'));
  fs.writeFileSync(path.join(dir, npz.name), npz.data);
  fs.writeFileSync(path.join(dir, py.name), py.data);
  const out = JSON.parse(
    execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        'import contextlib, io, json, runpy, sys\n' +
          'with contextlib.redirect_stdout(io.StringIO()) as printed:\n' +
          '    g = runpy.run_path(sys.argv[1])\n' +
          'print(json.dumps({"printed": printed.getvalue(), "Y": g["Y"].tolist(),\n' +
          '  "layers": [{"weights": [w.tolist() for w in L["weights"]], "stream": L["stream"].tolist()} for L in g["layers"]]}))',
        py.name,
      ],
      { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 },
    ),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(out.layers.length, want.layers.length);
  // the page's cells (the last layer, head 2 shown) and every layer of the core's trace
  const last = out.layers[out.layers.length - 1].weights;
  const shown = await shownWeights();
  assert.ok(shown.length >= 49);
  for (const c of shown)
    assert.ok(Math.abs(last[c.head][c.row][c.col] - c.value) < 1e-5, `${c.head} ${c.row} ${c.col}`);
  const close = (got, m, what) => {
    const flat = got.flat();
    const top = Math.max(...Array.from(m.data, Math.abs));
    flat.forEach((v, i) => assert.ok(Math.abs(v - m.data[i]) <= 1e-5 * top, `${what} ${i}`));
  };
  want.layers.forEach((L, l) => {
    L.heads.forEach((h, i) => close(out.layers[l].weights[i], h.weights, `layer ${l} head ${i}`));
    close(out.layers[l].stream, L.stream, `layer ${l} stream`);
  });
  close(out.Y, want.readout, 'read-out');
  assert.match(out.printed, /layer 1, head 1 weights/);
  // the model file: the core loads it, and it traces as the shipped model
  const apm = await download('apm');
  assert.equal(apm.name, 'attention-trained.apm');
  assert.equal(apm.data.subarray(0, 7).toString('latin1'), 'APMODEL');
  core.setCustomModel(new Uint8Array(apm.data));
  const again = core.trace(state.s, { ...coreSettings(state), model: 'custom' });
  assert.deepEqual(Array.from(again.heads[1].weights.data), Array.from(want.heads[1].weights.data));
  assert.deepEqual(errors, []);
});

test('random weights have no model file: the refusal is the locale message with its code', async () => {
  await page.click('#whatif summary');
  await page.selectOption('#set-model', 'random');
  await page.waitForFunction(() => /model=random/.test(location.search));
  await page.click('[data-export="apm"]');
  const said = await page.textContent('#export-body .export-error');
  assert.match(said, /no_model_file/);
  assert.match(said, /drawn from a seed/);
  // the .npz of random weights: the one layer's W_Q, W_K, W_V, W_O
  const npz = await download('npz');
  assert.match(npz.name, /^attention-seed123\.npz$/);
  assert.ok(npz.data.includes(Buffer.from('W_Q.npy')));
  await page.selectOption('#set-model', 'default');
  await page.waitForFunction(() => /model=default/.test(location.search));
  await page.click('#whatif summary');
  assert.deepEqual(errors, []);
});

test('CSV and JSON of a matrix carry the numbers shown', async () => {
  const shown = await shownWeights();
  await page.selectOption('#export-matrix', 'weights');
  const csv = await download('csv');
  assert.match(csv.name, /weights-head2\.csv$/);
  const lines = csv.data
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
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
  fs.writeFileSync(
    path.join(path.dirname(new URL(import.meta.url).pathname), 'screenshots', 'export-view.png'),
    png.data,
  );
  assert.deepEqual(errors, []);
});

async function typeText(text) {
  const before = await page.evaluate(() => Number(document.body.dataset.renders || 0));
  await page.evaluate((s) => {
    const ta = document.getElementById('text');
    ta.value = s;
    ta.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await page.waitForFunction(
    (b) => Number(document.body.dataset.renders || 0) > b && document.body.dataset.settled !== '0',
    before,
  );
}

// expat (Python's XML parser) reads the SVG, or the test fails with its message
function wellFormed(svg) {
  execFileSync(
    '/usr/bin/python3',
    ['-c', 'import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.stdin.buffer.read())'],
    { input: svg },
  );
}

test('every export is well-formed and names the sentence its numbers come from', async () => {
  // a noncharacter is a separator for the tokenizer, and not allowed in XML
  await typeText('cat \uFFFE dog');
  const svg1 = (await download('svg')).data.toString('utf8');
  wellFormed(svg1);
  assert.ok(!svg1.includes('\uFFFE'));
  // a good sentence, then a bad character: the numbers stay the good sentence's, and so does its name
  await typeText('the cat sat');
  await typeText('the cat sat\u0001');
  assert.equal(await page.getAttribute('#text', 'aria-invalid'), 'true');
  const svg2 = (await download('svg')).data.toString('utf8');
  wellFormed(svg2);
  assert.match(svg2, />the cat sat</);
  await page.click('[data-export="numpy"]');
  const code = await page.inputValue('#export-numpy');
  assert.match(code, /^# Sentence: "the cat sat"$/m);
  assert.match(code, /^tokens = \["the","cat","sat"\]$/m);
  const py = (await download('numpy-file')).data.toString('utf8');
  assert.equal(py, code);
});

test('CSV: token cells that a spreadsheet would run as formulas start with an apostrophe', async () => {
  await typeText('= cmd + 1 - x @ y');
  await page.selectOption('#export-matrix', 'weights');
  const csv = (await download('csv')).data.toString('utf8');
  const lines = csv
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  assert.deepEqual(lines[0].slice(1), ["'=", 'cmd', "'+", '1', "'-", 'x', "'@", 'y']);
  assert.deepEqual(
    lines.slice(1).map((l) => l[0]),
    ["'=", 'cmd', "'+", '1', "'-", 'x', "'@", 'y'],
  );
  // numbers are numbers: a negative value keeps its minus sign
  await page.selectOption('#export-matrix', 'X');
  const x = (await download('csv')).data
    .toString('utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));
  assert.ok(
    x.flatMap((l) => l.slice(1)).some((v) => /^-\d/.test(v)),
    'some X entry is negative',
  );
  for (const v of x.flatMap((l) => l.slice(1))) assert.ok(Number.isFinite(Number(v)), v);
  assert.deepEqual(errors, []);
});
