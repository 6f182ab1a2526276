// numpy.test.mjs: the module's "numpy" model (the article's NumPy program). Its X and weights
// are NumPy's own draws (tests/fixtures/numpy_random_v1.json, from scripts/gen_fixtures) rounded
// to float32, bit for bit; its weights and output agree with the native CLI; the program it hands
// out is the article's, with the trace's sizes, and the CLI's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreNode, CoreError, MODELS } from '../../web/core.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const core = await loadCoreNode(path.join(root, 'web/wasm'));
const qkv = process.env.AP_QKV || path.join(root, 'build/native/qkv');
const fixtures = JSON.parse(
  fs.readFileSync(path.join(root, 'tests/fixtures/numpy_random_v1.json'), 'utf8'),
);
const article = fs.readFileSync(path.join(root, 'src/data/numpy_example.py'), 'utf8');

// Python's float.hex() ("-0x1.8p-3") as a Number, exactly: 53 bits fit a double.
function fromHex(s) {
  const m = /^(-?)0x([01])\.([0-9a-f]*)p([+-]\d+)$/.exec(s);
  assert.ok(m, `not a float.hex() value: ${s}`);
  const digits = m[2] + m[3];
  const v = Number(BigInt(`0x${digits}`)) * 2 ** (Number(m[4]) - 4 * m[3].length);
  return m[1] ? -v : v;
}

const native = (args) => JSON.parse(execFileSync(qkv, args, { encoding: 'utf8' }));

// the fixtures' first two sequences are the article's draws for these sizes: X (n x d_model),
// then W_Q, W_K, W_V (d_model x d_k)
const SIZES = [
  { text: '小猫爱吃鱼', n: 4, d_model: 8, d_k: 4 },
  { text: '我爱你', n: 3, d_model: 5, d_k: 3 },
];

test("X, W_Q, W_K, W_V are NumPy's draws rounded to float32, for every fixture seed", () => {
  assert.equal(fixtures.format_version, 1);
  assert.ok(fixtures.seeds.length >= 6);
  for (const e of fixtures.seeds) {
    SIZES.forEach((sz, k) => {
      const seq = e.sequences[k];
      assert.deepEqual(seq.shapes, [
        [sz.n, sz.d_model],
        [sz.d_model, sz.d_k],
        [sz.d_model, sz.d_k],
        [sz.d_model, sz.d_k],
      ]);
      const r = core.trace(sz.text, {
        model: 'numpy',
        seed: String(e.seed),
        d_model: sz.d_model,
        d_k: sz.d_k,
      });
      assert.equal(r.tokens.length, sz.n);
      const h = r.heads[0];
      [r.X, h.W_Q, h.W_K, h.W_V].forEach((m, i) => {
        const want = Float32Array.from(seq.values[i], fromHex);
        assert.deepEqual(
          Array.from(m.data),
          Array.from(want),
          `seed ${e.seed}, ${['X', 'W_Q', 'W_K', 'W_V'][i]} (n ${sz.n})`,
        );
      });
    });
  }
});

test("weights and output agree with the native CLI; the program is the CLI's", () => {
  const cases = [
    { text: '小猫爱吃鱼', seed: '42', d_model: 8, d_k: 4 },
    { text: "The animal didn't cross the street", seed: '0', d_model: 16, d_k: 8 },
    {
      text: 'a b c d e f g',
      seed: '4294967295',
      d_model: 6,
      d_k: 6,
      causal: true,
      temperature: 0.5,
    },
  ];
  for (const c of cases) {
    const args = [
      'trace',
      c.text,
      '--model',
      'numpy',
      '--seed',
      c.seed,
      '--d-model',
      String(c.d_model),
      '--d-k',
      String(c.d_k),
    ];
    if (c.causal) args.push('--causal');
    if (c.temperature) args.push('--temperature', String(c.temperature));
    const ref = native(args);
    const { text, ...settings } = c;
    const got = core.trace(text, { model: 'numpy', ...settings });
    for (const [name, want, m] of [
      ['weights', ref.heads[0].weights, got.heads[0].weights],
      ['output', ref.output, got.output],
    ]) {
      for (let i = 0; i < m.rows; i++) {
        for (let j = 0; j < m.cols; j++) {
          const w = want[i][j] ?? -Infinity;
          const g = m.data[i * m.cols + j];
          assert.ok(
            g === w || Math.abs(g - w) <= 1e-5 * Math.max(1, Math.abs(w)),
            `${c.text} ${name}[${i}][${j}]: ${g} vs ${w}`,
          );
        }
      }
    }
    assert.deepEqual(got.program.lines, ref.program.lines);
    assert.equal(got.program.matches, ref.program.matches);
    assert.equal(got.program.matches, !c.causal && !c.temperature);
  }
});

test("at the article's settings the program is the article's, line for line, with its stages", () => {
  const r = core.trace('小猫爱吃鱼', { model: 'numpy', seed: '42', d_model: 8, d_k: 4 });
  assert.equal(r.program.lines.map((l) => `${l.text}\n`).join(''), article);
  const stageOf = (code) => r.program.lines.find((l) => l.text.trim() === code)?.stage;
  assert.equal(stageOf('scores = np.matmul(Q, K.T)'), 'score');
  assert.equal(stageOf('scores = scores / np.sqrt(d_k)'), 'scale');
  assert.equal(stageOf('attention_weights = softmax(scores)'), 'softmax');
  assert.equal(stageOf('output = np.matmul(attention_weights, V)'), 'mix');
  assert.equal(stageOf('X = np.random.randn(seq_len, d_model)'), 'embeddings');
  assert.equal(stageOf('import numpy as np'), '');
  // one head, no positions, no output projection, whatever the settings ask
  const asked = core.trace('小猫爱吃鱼', {
    model: 'numpy',
    seed: '42',
    d_model: 8,
    d_k: 4,
    heads: 4,
    positions: true,
  });
  assert.equal(asked.heads.length, 1);
  assert.equal(asked.config.heads, 1);
  assert.equal(asked.config.positions, false);
  assert.equal(asked.config.weights, 'numpy');
  assert.equal(asked.positions, undefined);
  assert.deepEqual(Array.from(asked.output.data), Array.from(r.heads[0].output.data));
  assert.equal(asked.model, undefined);
});

test("errors: a seed beyond np.random.seed's range; the other models have no program", () => {
  assert.throws(
    () => core.trace('小猫爱吃鱼', { model: 'numpy', seed: '4294967296' }),
    (e) => e instanceof CoreError && e.code === 'numpy_seed',
  );
  assert.equal(core.trace('小猫爱吃鱼', { model: 'random' }).program, undefined);
  assert.equal(core.trace('小猫爱吃鱼', {}).program, undefined);
  assert.throws(
    () => core.gradientRow('小猫爱吃鱼', { model: 'numpy' }, 0, 1),
    (e) => e.code === 'needs_trained_model',
  );
});

test("the models and what each fixes come from the core; the article's values are its program's", () => {
  assert.deepEqual(
    core.models().map((m) => m.name),
    [...MODELS],
  );
  const numpy = core.models().find((m) => m.name === 'numpy');
  // the settings the model fixes are what its traces report whatever is asked
  const asked = { model: 'numpy', seed: '3', d_model: 6, d_k: 2, heads: 3, positions: true };
  const r = core.trace('a b c', asked);
  for (const f of numpy.fixes) assert.notEqual(r.config[f], asked[f], f);
  for (const f of ['d_model', 'd_k', 'seed']) assert.equal(r.config[f], asked[f], f);
  // the article's seed and sizes, as its program text writes them
  const written = (re) => article.match(re)[1];
  assert.deepEqual(core.numpyArticle(), {
    seed: written(/np\.random\.seed\((\d+)\)/),
    n: Number(written(/^seq_len = (\d+) /m)),
    d_model: Number(written(/^d_model = (\d+) /m)),
    d_k: Number(written(/^d_k = (\d+) /m)),
  });
});
