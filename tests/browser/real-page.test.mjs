// real-model.test.mjs: a learner's Hugging Face files in the page. Small random GPT-2 and BERT
// folders in the real layout (tests/fixtures/hf, scripts/gen_hf_fixtures.py) loaded by the file
// picker and by a drop; the stages, the grid of every head and "find a head" compared with the
// CLI's trace of the same folder (`qkv trace --hf`, whose forward tests/cli checks against
// PyTorch); Cancel and a broken folder leave the model the page had.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { newPage, teardown, gotoStage, cells, waitSettled } from './harness.mjs';
import { fmt } from '../../web/views/format.js';

after(teardown);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = path.join(root, 'tests/fixtures/hf');
const QKV = process.env.AP_QKV;
assert.ok(QKV, 'AP_QKV names the qkv binary (CTest sets it)');

const SENTENCE = {
  gpt2_f32: 'it was tired', // the fixtures read at most 16 tokens
  bert_f16_old_names: 'the cat sat',
};

/** The CLI's trace of `text` through folder `dir` at layer `layer` (matrices as lists of rows). */
function cliTrace(dir, text, layer) {
  const out = execFileSync(QKV, ['trace', '--hf', dir, text, '--layer', String(layer)], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return JSON.parse(out);
}

/** The model files of a fixture folder (not the PyTorch reference beside them). */
const folderFiles = (dir) =>
  fs
    .readdirSync(dir)
    .filter((f) => f !== 'reference.json')
    .map((f) => path.join(dir, f));

async function loadByPicker(page, dir) {
  await page.click('#whatif summary');
  await page.setInputFiles('input[data-real="files"]', folderFiles(dir));
  await page.waitForSelector('#real-model[data-state="loaded"]');
  await page.waitForSelector('#real-heads:not([hidden]) .rh-cell');
  await waitSettled(page);
}

/** Stage 3's "X for this layer" of a real model: one line per step of the CLI trace's walks (BERT:
 *  its embedding LayerNorm first), each row's first number the CLI's; every LayerNorm's mean and
 *  spread the CLI's within 1e-5, printed as the CLI's rounded, and its worked cell recomputing
 *  from its printed parts; every residual add's printed sum adds up. */
async function checkWalk(page, cli) {
  await page.click('#stage-body .layer-input > summary');
  await page.waitForSelector('#stage-body .layer-input .walk-step');
  const q = Number(await page.$eval('#stage-body .layer-input', (e) => e.dataset.row));
  const shown = await page.$$eval('#stage-body .layer-input .walk-step', (lis) =>
    lis.map((li) => ({
      layer: li.dataset.layer ?? null,
      step: li.dataset.step ?? null,
      mean: li.dataset.mean == null ? null : Number(li.dataset.mean),
      std: li.dataset.std == null ? null : Number(li.dataset.std),
      first: li.querySelector('.walk-nums strong').textContent,
      worked: [...li.querySelectorAll('.walk-worked')].map((w) => w.textContent),
    })),
  );
  const want = [];
  if (cli.embed_norm)
    want.push({
      layer: null,
      step: 'embed',
      norm: cli.embed_norm,
      out: cli.input,
      x: cli.embed_sum,
    });
  const shownLayer = cli.config.layer;
  for (let l = 0; l <= shownLayer; l++) {
    const w = cli.layers[l].walk;
    assert.ok(w, `layer ${l + 1} has a walk`);
    const last = l === shownLayer ? w.attention_input : w.steps.length - 1;
    for (let s = 0; s <= last; s++) {
      const st = w.steps[s];
      const input = l === 0 ? cli.input : cli.layers[l - 1].walk.steps.at(-1).out;
      const read = (f) => (f < 0 ? input : w.steps[f].out);
      want.push({
        layer: String(l),
        step: String(s),
        kind: st.kind,
        norm: st.kind === 'norm' ? st : null,
        out: st.out,
        x: st.kind === 'norm' ? read(st.from[0]) : null,
      });
    }
  }
  // the first line is stage 2's X (E + P), then one line per step
  assert.equal(shown.length - 1, want.length, 'one line per step');
  want.forEach((w, n) => {
    const got = shown[n + 1];
    const where = `walk line ${n + 1} (layer ${w.layer}, step ${w.step})`;
    assert.deepEqual([got.layer, got.step], [w.layer, w.step], where);
    assert.equal(got.first, fmt(w.out[q][0]), `${where}: first number`);
    if (w.norm) {
      close(got.mean, w.norm.mean[q], `${where}: mean`);
      close(got.std, w.norm.std[q], `${where}: spread`);
      assert.ok(got.worked[0].includes(fmt(w.norm.mean[q], 3)), `${where}: ${got.worked[0]}`);
      assert.ok(got.worked[0].includes(fmt(w.norm.std[q], 3)), `${where}: ${got.worked[0]}`);
      // (x − mean) ÷ spread × gain + bias = y, from the printed parts
      const m = got.worked[1]
        .replace(/−/g, '-')
        .match(
          /^\((-?[\d.]+) ([+-]) ([\d.]+)\) ÷ ([\d.]+) × \(?(-?[\d.]+)\)? ([+-]) ([\d.]+) ([=≈]) (-?[\d.]+)$/,
        );
      assert.ok(m, `${where}: ${got.worked[1]}`);
      const [, x, s1, mean, std, gain, s2, bias, rel, y] = m;
      const value =
        ((+x + (s1 === '-' ? -mean : +mean)) / +std) * +gain + (s2 === '-' ? -bias : +bias);
      const digits = (y.split('.')[1] || '').length;
      if (rel === '=')
        assert.ok(Math.abs(value - +y) <= 0.5 * 10 ** -digits + 1e-9, `${where}: ${got.worked[1]}`);
      assert.equal(y, fmt(w.out[q][0], 2).replace(/−/g, '-'), `${where}: the result is the row's`);
      close(+x, w.x[q][0], `${where}: x`, 10 ** -(x.split('.')[1] || '').length);
    }
    if (w.kind === 'add') {
      const [lhs, total] = got.worked[0].replace(/−/g, '-').split(/ [=≈] /);
      const terms = lhs.match(/-?[\d.]+|[+-] [\d.]+/g).map((t) => Number(t.replace(' ', '')));
      const digits = (total.split('.')[1] || '').length;
      if (got.worked[0].includes(' = '))
        assert.ok(
          Math.abs(terms.reduce((a, b) => a + b, 0) - +total) <= 0.5 * 10 ** -digits + 1e-9,
          `${where}: ${got.worked[0]}`,
        );
    }
  });
}

const close = (a, b, what, tol = 1e-5) =>
  assert.ok(Math.abs(a - b) <= tol + 1e-5 * Math.abs(b), `${what}: page ${a}, CLI ${b}`);

for (const name of Object.keys(SENTENCE)) {
  test(`${name}: loaded by the picker, every head's weights and the stages are the CLI's`, async () => {
    const dir = path.join(FIXTURES, name);
    const text = SENTENCE[name];
    const { page, errors, open } = await newPage();
    await open(`s=${encodeURIComponent(text)}`);
    await loadByPicker(page, dir);
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
    const layers = cfg.n_layer ?? cfg.num_hidden_layers;
    const heads = cfg.n_head ?? cfg.num_attention_heads;
    assert.equal(await page.$eval('#set-model', (e) => e.value), 'real');
    assert.equal(await page.locator('.rh-cell').count(), layers * heads, 'one map per head');
    // the page opens on the last layer, head 1
    const last = cliTrace(dir, text, layers - 1);
    // the tokens are the folder's tokenizer's, as the CLI reads them
    const tokens = await page.$$eval('#rh-q option', (os) => os.map((o) => o.textContent));
    assert.deepEqual(
      tokens,
      last.tokens.map((tok, i) => `${i + 1}: ${tok}`),
    );
    // stage 3, the first cell's sum (step 3, k = 2): the products' sum plus the bias, as printed, gives
    // the printed value, and the value is the CLI's Q
    await gotoStage(page, 2, 'project');
    await page.$eval('#player .scrub', (e) => {
      e.value = '2';
      e.dispatchEvent(new Event('input'));
    });
    await page.waitForFunction(() => document.body.dataset.k === '2');
    const said = JSON.parse(await page.$eval('#narration', (e) => e.dataset.says));
    const sum = await page.$eval('#stage-body .calc-result', (e) => e.textContent);
    const [, a, sign, b, v] = sum
      .replace(/−/g, '-')
      .match(/(-?[\d.]+) ([+-]) ([\d.]+) = (-?[\d.]+)/);
    const digits = v.split('.')[1].length;
    assert.ok(
      Math.abs(+a + (sign === '-' ? -b : +b) - +v) <= 0.5 * 10 ** -digits + 1e-9,
      `${sum} adds up`,
    );
    assert.equal(said.key, 'narr.projectSumBias');
    close(said.v, last.heads[0].Q[said.i][said.c], 'Q cell');
    close(said.b, last.heads[0].b_Q[0][said.c], 'bias');
    // the narration and the stage's title name the real head: the card's name, the layer and the
    // head, 1-based as the pickers show them; never the small model's taught / learned wording
    const which = `${last.model.name || last.model.model_type}, layer ${layers}, head 1`;
    assert.equal(said.which, which);
    const narration = await page.$eval('#narration', (e) => e.textContent);
    assert.ok(narration.startsWith(`${which}: `), narration);
    assert.ok(!/taught|on its own/.test(narration), narration);
    const title = await page.$eval('#stage-title', (e) => e.textContent);
    assert.ok(title.endsWith(`(${which})`), title);
    await checkWalk(page, last);
    // stage 7 (weights): every shown cell of head 1 is the CLI's
    await gotoStage(page, 6, 'softmax');
    const shown = (await cells(page, 'weights')).filter((c) => c.head === 0 || c.head === null);
    assert.ok(shown.length > 0, 'stage 7 shows weights');
    const n = last.config.n;
    for (const c of shown)
      close(c.value, last.heads[0].weights[c.row][c.col], `weights ${c.row},${c.col}`);
    // find a head: the ranking's values and order are the CLI's, and the best one opens
    const q = n - 1;
    const k = 0;
    await page.selectOption('#rh-q', String(q));
    await page.selectOption('#rh-k', String(k));
    await page.click('[data-find]');
    const ranked = last.layers
      .flatMap((L, l) => L.heads.map((H, h) => ({ l, h, w: H.weights[q][k] })))
      .sort((a, b) => b.w - a.w || a.l - b.l || a.h - b.h);
    const listed = await page.$$eval('.rh-ranking li', (lis) =>
      lis.map((li) => ({ l: +li.dataset.layer, h: +li.dataset.head, w: +li.dataset.value })),
    );
    assert.ok(listed.length >= 1);
    listed.forEach((x, i) => {
      assert.deepEqual([x.l, x.h], [ranked[i].l, ranked[i].h], `rank ${i + 1}`);
      close(x.w, ranked[i].w, `rank ${i + 1} weight`);
    });
    const best = ranked[0];
    await page.waitForSelector(
      `.rh-cell[aria-current][data-layer="${best.l}"][data-head="${best.h}"]`,
    );
    await waitSettled(page);
    assert.equal(await page.$eval('#layer-picker', (e) => e.value), String(best.l));
    assert.equal(await page.$eval('#head-picker', (e) => e.value), String(best.h));
    // that head's weights in the stage are the CLI's trace of that layer
    const other = cliTrace(dir, text, best.l);
    const again = (await cells(page, 'weights')).filter(
      (c) => c.head === best.h || c.head === null,
    );
    assert.ok(again.length > 0);
    for (const c of again)
      close(c.value, other.heads[best.h].weights[c.row][c.col], `L${best.l} weights`);
    assert.deepEqual(errors, []);
  });
}

test('a broken folder and Cancel leave the model the page had; a drop loads a folder', async () => {
  const dir = path.join(FIXTURES, 'gpt2_f32');
  const { page, errors, open } = await newPage();
  await open('s=it+was+tired');
  await loadByPicker(page, dir);
  // a folder without its weights: a message naming the file, the model stays
  await page.setInputFiles(
    'input[data-real="files"]',
    folderFiles(dir).filter((f) => !f.endsWith('.safetensors')),
  );
  await page.waitForSelector('#real-model[data-state="failed"]');
  assert.match(await page.$eval('.real-status', (e) => e.textContent), /model\.safetensors/);
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'real');
  // a truncated safetensors: the core's message names the file
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-real-'));
  for (const f of folderFiles(dir)) fs.copyFileSync(f, path.join(tmp, path.basename(f)));
  const st = path.join(tmp, 'model.safetensors');
  fs.truncateSync(st, Math.floor(fs.statSync(st).size / 2));
  await page.setInputFiles('input[data-real="files"]', folderFiles(tmp));
  await page.waitForSelector('#real-model[data-state="failed"]');
  assert.match(await page.$eval('.real-status', (e) => e.textContent), /safetensors/);
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'real');
  // Cancel: a large file (its header is the fixture's, its tail padding) is read in slices
  fs.writeFileSync(
    path.join(tmp, 'model.safetensors'),
    fs.readFileSync(path.join(dir, 'model.safetensors')),
  );
  fs.appendFileSync(path.join(tmp, 'model.safetensors'), Buffer.alloc(96 << 20));
  await page.setInputFiles('input[data-real="files"]', folderFiles(tmp));
  await page.waitForSelector('#real-model[data-state="loading"]');
  await page.click('.real-loading button');
  await page.waitForSelector('#real-model[data-state="cancelled"]');
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'real');
  // free it: back to the shipped model, the grid gone
  await page.click('[data-real="unload"]');
  await page.waitForSelector('#real-heads[hidden]', { state: 'attached' });
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'default');
  // a folder dropped on the box (a DataTransfer made in the page from the files' bytes)
  const files = folderFiles(dir).map((f) => ({
    name: path.basename(f),
    bytes: [...fs.readFileSync(f)],
  }));
  await page.evaluate((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([new Uint8Array(f.bytes)], f.name));
    const box = document.querySelector('[data-real="drop"]');
    box.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
  await page.waitForSelector('#real-model[data-state="loaded"]');
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'real');
  fs.rmSync(tmp, { recursive: true, force: true });
  assert.deepEqual(errors, []);
});
