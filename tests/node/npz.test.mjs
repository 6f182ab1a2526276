// npz.test.mjs: the weights out as a .npz (web/npz.js, web/views/weights-out.js). Python's own
// zipfile and NumPy (/usr/bin/python3) read the file: every CRC checks, every array equals the
// core's bit for bit; the exported program, run as it is, recomputes the page's numbers (every
// layer's attention weights, attention output and residual stream, and the read-out; or the one
// layer of random and numpy weights) within 1e-5 of the largest entry. For the shipped model, a
// model trained here with the page's trainer, random weights (causal, temperature, W_K = W_Q) and
// the numpy model; and a wrong weight in the file is caught.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreNode } from '../../web/core.js';
import { Translator } from '../../web/i18n.js';
import { weightsOf, npzBytes, npzSnippet } from '../../web/views/weights-out.js';
import { numpySnippet } from '../../web/views/export.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasm = path.join(root, 'web/wasm');
const core = await loadCoreNode(wasm);
const locale = (l) => JSON.parse(fs.readFileSync(path.join(root, `web/locales/${l}.json`), 'utf8'));
const en = locale('en');
const T = { en: new Translator('en', en), zh: new Translator('zh', locale('zh')) };
const t = (lang) => (k, p) => T[lang].t(k, p);
const ZH = '小猫吃鱼，它很开心';
const EN = "The animal didn't cross the street because it was too tired";

// Runs the program on the file in a scratch folder; returns what NumPy read and computed.
const DRIVER = `
import contextlib, io, json, runpy, sys, zipfile
import numpy as np
with zipfile.ZipFile(sys.argv[2]) as z:
    bad = z.testzip()  # checks every entry's CRC-32
    names = z.namelist()
    methods = sorted({i.compress_type for i in z.infolist()})
with contextlib.redirect_stdout(io.StringIO()) as printed:
    g = runpy.run_path(sys.argv[1])
f = np.load(sys.argv[2])
out = {"bad": bad, "names": names, "methods": methods, "printed": printed.getvalue(),
       "tokens": g["tokens"],
       "arrays": {k: {"dtype": str(f[k].dtype), "shape": list(f[k].shape),
                      "data": f[k].astype(np.float64).ravel().tolist()}
                  for k in f.files if f[k].dtype == np.float32}}
if "layers" in g:
    out["layers"] = [{"weights": [w.tolist() for w in L["weights"]], "output": L["output"].tolist(),
                      "stream": L["stream"].tolist()} for L in g["layers"]]
    out["Y"] = g["Y"].tolist()
else:
    out["weights"] = [w.tolist() for w in g["weights"]]
    out["output"] = g["output"].tolist()
json.dump(out, sys.stdout)
`;

function runPython(file, bytes, code) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-npz-'));
  try {
    fs.writeFileSync(path.join(dir, file), bytes);
    fs.writeFileSync(path.join(dir, 'program.py'), code);
    fs.writeFileSync(path.join(dir, 'driver.py'), DRIVER);
    return JSON.parse(
      execFileSync('/usr/bin/python3', ['driver.py', 'program.py', file], {
        cwd: dir,
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// worst |a - b| over a matrix {rows, cols, data} and nested lists, relative to b's largest entry
function worst(got, want) {
  const g = got.flat();
  assert.equal(g.length, want.rows * want.cols, 'shape');
  let diff = 0;
  let top = 0;
  for (let i = 0; i < g.length; i++) {
    diff = Math.max(diff, Math.abs(g[i] - want.data[i]));
    top = Math.max(top, Math.abs(want.data[i]));
  }
  return diff / (top || 1);
}

/** Every number the program computed vs the core's trace: -> [[what, relative diff]] */
function compare(out, result) {
  const rows = [];
  if (result.layers) {
    assert.equal(out.layers.length, result.layers.length);
    result.layers.forEach((L, l) => {
      L.heads.forEach((h, i) =>
        rows.push([`layer ${l} head ${i} weights`, worst(out.layers[l].weights[i], h.weights)]),
      );
      rows.push([`layer ${l} output`, worst(out.layers[l].output, L.output)]);
      rows.push([`layer ${l} stream`, worst(out.layers[l].stream, L.stream)]);
    });
    rows.push(['readout', worst(out.Y, result.readout)]);
  } else {
    result.heads.forEach((h, i) =>
      rows.push([`head ${i} weights`, worst(out.weights[i], h.weights)]),
    );
    rows.push(['output', worst(out.output, result.output)]);
  }
  return rows;
}

function exportAndRun(text, settings, lang = 'en', spoil = null) {
  const result = core.trace(text, settings);
  const weights = weightsOf(core, text, settings, result);
  if (spoil) spoil(weights);
  const file = 'attention-test.npz';
  const code = npzSnippet({ result, sentence: text, weights, file, t: t(lang) });
  const out = runPython(file, npzBytes(core, weights), code);
  return { result, weights, code, out };
}

function checkFile(out, weights, result) {
  assert.equal(out.bad, null, 'every CRC-32 checks');
  assert.deepEqual(out.methods, [0], 'stored entries');
  assert.deepEqual(
    out.names,
    weights.arrays.map((a) => `${a.name}.npy`),
  );
  assert.deepEqual(out.tokens, result.tokens);
  for (const a of weights.arrays) {
    if (a.strings) continue;
    const got = out.arrays[a.name];
    assert.deepEqual(got.shape, [a.rows, a.cols], a.name);
    assert.equal(got.dtype, 'float32');
    assert.deepEqual(got.data, Array.from(a.data), `${a.name} bit for bit`);
  }
}

function checkNumbers(out, result) {
  for (const [what, d] of compare(out, result)) assert.ok(d <= 1e-5, `${what}: ${d}`);
}

test('the shipped model: the .npz holds the core arrays by their names; the program recomputes every layer', () => {
  const { result, weights, out, code } = exportAndRun(ZH, {});
  assert.equal(result.config.weights, 'default');
  const names = weights.arrays.map((a) => a.name);
  assert.equal(names[0], 'E');
  assert.equal(weights.layers.length, result.layers.length);
  assert.ok(names.includes('positions') && names.includes('embeddings'));
  // E is the whole table: vocab_size x d_model
  const E = weights.arrays[0];
  assert.equal(E.rows, result.model.vocab_size);
  assert.equal(E.cols, result.config.d_model);
  checkFile(out, weights, result);
  checkNumbers(out, result);
  assert.match(out.printed, /layer 2, head 1 weights \(row = query, column = key\)/);
  assert.match(code, /np\.load\("attention-test\.npz"\)/);
  // the same in Chinese: comments and printed labels from the zh locale, the same numbers
  const zh = exportAndRun(EN, { causal: true }, 'zh');
  assert.match(zh.code, /# 每一层：LayerNorm、注意力/);
  assert.match(zh.out.printed, /第 2 层第 1 个头的权重/);
  checkNumbers(zh.out, zh.result);
});

test("a model trained with the page's trainer: its .npz and the program give the page's numbers", async () => {
  const trainer = await loadCoreNode(wasm, 'attention-train');
  const run = new trainer.module.Trainer();
  try {
    const corpus = fs.readFileSync(path.join(wasm, 'corpus-train.tsv'), 'utf8');
    assert.ok(run.start(corpus, { seed: 3, steps: 40, batch: 8 }).ok);
    assert.ok(run.step(40).ok);
    const r = run.modelBytes();
    assert.ok(r.ok);
    core.setCustomModel(new Uint8Array(r.bytes));
  } finally {
    run.delete();
  }
  const { result, weights, out } = exportAndRun(ZH, { model: 'custom', tie_qk: true });
  assert.equal(result.config.weights, 'custom');
  checkFile(out, weights, result);
  checkNumbers(out, result);
  // the custom model's .apm round-trips: its bytes load as the same model
  const bytes = core.modelBytes('custom');
  const again = core.setCustomModel(bytes);
  assert.equal(again.model.layers, result.model.layers);
  assert.deepEqual(
    Array.from(core.weightArrays(ZH, { model: 'custom' }).arrays[1].data),
    Array.from(weights.arrays[1].data),
  );
});

test('random weights (causal, temperature, W_K = W_Q) and the numpy model: one layer, recomputed', () => {
  for (const settings of [
    { model: 'random', seed: 7, causal: true, temperature: 0.5, tie_qk: true, heads: 4 },
    { model: 'random', seed: 11, positions: false, scale: false, d_model: 8, heads: 2, d_k: 3 },
    { model: 'numpy', seed: 42 },
  ]) {
    const { result, weights, out } = exportAndRun('小猫吃鱼', settings);
    assert.deepEqual(
      weights.arrays.slice(0, 4).map((a) => a.name),
      ['W_Q', 'W_K', 'W_V', 'W_O'],
    );
    assert.equal(weights.arrays[0].cols, result.config.heads * result.config.d_k);
    if (settings.tie_qk)
      assert.deepEqual(Array.from(weights.arrays[1].data), Array.from(weights.arrays[0].data));
    assert.equal(
      Boolean(result.positions),
      weights.arrays.some((a) => a.name === 'positions'),
    );
    checkFile(out, weights, result);
    checkNumbers(out, result);
  }
  assert.throws(() => core.modelBytes('random'), { code: 'no_model_file' });
});

test('a wrong weight in the file or a wrong program is caught', () => {
  // one entry of the last layer's W_V off by 0.5: the stream after it no longer matches
  const spoilt = exportAndRun(ZH, {}, 'en', (w) => {
    const a = w.arrays.find((x) => x.name.endsWith('.W_V') && x.name !== w.layers[0] + 'W_V');
    a.data = Float32Array.from(a.data);
    a.data[0] += 0.5;
  });
  assert.ok(
    compare(spoilt.out, spoilt.result).some(([, d]) => d > 1e-5),
    'a changed weight must change the numbers',
  );
  // the program without the scaling by sqrt(d_k)
  const result = core.trace(ZH, {});
  const weights = weightsOf(core, ZH, {}, result);
  const code = npzSnippet({ result, sentence: ZH, weights, file: 'w.npz', t: t('en') }).replace(
    'scaled = scores / np.sqrt(np.float32(d_k)) if scale else scores',
    'scaled = scores',
  );
  const out = runPython('w.npz', npzBytes(core, weights), code);
  assert.ok(compare(out, result).some(([, d]) => d > 1e-5));
});

// Sentences that would choose the program's encoding if they stood on line 1 or 2 (Python reads a
// `coding:` comment there): the first made both programs a SyntaxError, the second made them run
// and print nothing.
const HOSTILE = [
  'I like coding: it is fun because it was easy',
  'coding:cp037 the cat sat on the mat because it was tired',
  'vim: set fileencoding=latin-1 : 它很开心',
  '# -*- coding: utf-16 -*- 小猫吃鱼',
];

test('sentences that look like a coding declaration: both programs still run and give the numbers', () => {
  for (const text of HOSTILE) {
    const { code, out, result } = exportAndRun(text, {});
    const lines = code.split('\n');
    assert.equal(lines[0], '# -*- coding: utf-8 -*-', text);
    assert.ok(!lines[1].includes(JSON.stringify(text).slice(1, -1)), `${text}: on line 2`);
    checkNumbers(out, result);
    // the NumPy snippet (export.js), run as it is
    const random = core.trace(text, { model: 'random', heads: 2 });
    const snippet = numpySnippet(random, text);
    assert.equal(snippet.split('\n')[0], '# -*- coding: utf-8 -*-', text);
    const py = `${snippet}\nimport json\nprint("JSON" + json.dumps([w.tolist() for w in weights]))\n`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-py-'));
    let printed;
    try {
      fs.writeFileSync(path.join(dir, 'program.py'), py);
      printed = execFileSync('/usr/bin/python3', ['program.py'], { cwd: dir, encoding: 'utf8' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const line = printed.split('\n').find((l) => l.startsWith('JSON'));
    assert.ok(line, `${text}: the snippet printed no weights`);
    JSON.parse(line.slice(4)).forEach((w, h) =>
      assert.ok(worst(w, random.heads[h].weights) < 1e-5, `${text}: head ${h}`),
    );
  }
});

test("the zip's CRC-32 is the core's (zlib's polynomial)", () => {
  const ascii = new TextEncoder().encode('123456789');
  assert.equal(core.crc32(ascii), 0xcbf43926); // the standard check value
  assert.equal(core.crc32(new Uint8Array(0)), 0);
});
