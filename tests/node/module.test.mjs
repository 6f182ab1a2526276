// module.test.mjs: the WebAssembly module agrees with the native CLI and with NumPy, reports
// errors as CoreError codes, and hands out copies that survive memory growth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreNode, Core, CoreError } from '../../web/core.js';
import { assertClose } from './close.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const core = await loadCoreNode(path.join(root, 'web/wasm'));
const qkv = process.env.AP_QKV || path.join(root, 'build/native/qkv');

function native(args) {
  return JSON.parse(execFileSync(qkv, args, { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

function assertTraceClose(ref, trace, tol) {
  assertClose('X', ref.X, trace.X, tol);
  assert.equal(trace.heads.length, ref.heads.length);
  ref.heads.forEach((h, i) => {
    for (const k of [
      'W_Q',
      'W_K',
      'W_V',
      'Q',
      'K',
      'V',
      'scores',
      'scaled',
      'masked',
      'weights',
      'output',
    ]) {
      assertClose(`head ${i} ${k}`, h[k], trace.heads[i][k], tol);
    }
  });
  assertClose('concat', ref.concat, trace.concat, tol);
  assertClose('W_O', ref.W_O, trace.W_O, tol);
  assertClose('output', ref.output, trace.output, tol);
}

const R = ['--model', 'random'];
const cases = [
  { text: '小猫吃鱼，它很开心', args: [], settings: {} },
  { text: '小猫吃鱼，它很开心', args: R, settings: { model: 'random' } },
  {
    text: '我爱你',
    args: [...R, '--seed', '7', '--d-model', '16', '--heads', '4'],
    settings: { model: 'random', seed: '7', d_model: 16, heads: 4 },
  },
  {
    text: "The animal didn't cross the street because it was too tired.",
    args: ['--causal', '--temperature', '0.5'],
    settings: { causal: true, temperature: 0.5 },
  },
  {
    text: '苹果很好吃 apples 🍎!',
    args: [...R, '--no-scale', '--tie-qk', '--no-positions', '--d-model', '12', '--heads', '3'],
    settings: {
      model: 'random',
      scale: false,
      tie_qk: true,
      positions: false,
      d_model: 12,
      heads: 3,
    },
  },
  {
    text: '苹果很好吃 zorkle 🍎!',
    args: ['--no-scale', '--tie-qk', '--no-positions'],
    settings: { scale: false, tie_qk: true, positions: false },
  },
  {
    text: 'a b c d e',
    args: [...R, '--d-model', '10', '--heads', '3', '--d-k', '5', '--seed', '18446744073709551615'],
    settings: { model: 'random', d_model: 10, heads: 3, d_k: 5, seed: '18446744073709551615' },
  },
];

// 1e-5 of each matrix's largest entry, not 1e-6: under WebAssembly the matrix products run on the
// SIMD128 kernel (src/core/gemm.cpp), which sums each dot product in k order, while native Eigen
// sums in its own vectorised order. Through the trained model's two layers (LayerNorm between)
// the two differ by up to 8.4e-7 of the matrix's largest entry on these cases (1.3e-5 of a score
// of 0.74 whose terms are near 20); 1e-5 leaves room for that and still catches any real mistake
// (a wrong element is off by O(1)).
for (const c of cases) {
  test(`trace matches the native CLI to 1e-5: ${c.text} ${c.args.join(' ')}`, () => {
    const ref = native(['trace', c.text, ...c.args]);
    const got = core.trace(c.text, c.settings);
    assert.deepEqual(got.tokens, ref.tokens);
    assertTraceClose(ref, got, 1e-5);
    for (const h of got.heads) {
      for (let r = 0; r < h.weights.rows; r++) {
        let s = 0;
        for (let j = 0; j < h.weights.cols; j++) s += h.weights.data[r * h.weights.cols + j];
        assert.ok(Math.abs(s - 1) < 1e-5, `row ${r} sums to ${s}`);
      }
    }
  });
}

// The field tree of a value: a matrix (JSON rows, or {rows, cols, data}) is 'matrix', a list of
// numbers 'row'; objects list their keys. The two borders must agree on it exactly.
function fields(v) {
  const isMatrix = (x) => Array.isArray(x) && x.length > 0 && Array.isArray(x[0]);
  if (isMatrix(v) || (v && typeof v === 'object' && v.data instanceof Float32Array))
    return 'matrix';
  if (
    v instanceof Float32Array ||
    (Array.isArray(v) && v.length > 0 && v.every((x) => x === null || typeof x === 'number'))
  )
    return 'row';
  if (Array.isArray(v)) return v.map(fields);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, fields(v[k])]),
    );
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
    ? 'scalar'
    : String(v);
}

test('the module and the CLI write the same fields under the same names (src/core/schema.hpp)', () => {
  for (const c of [cases[0], cases[2], cases[4]]) {
    const ref = native(['trace', c.text, ...c.args]);
    const { ok, ...got } = core.trace(c.text, c.settings);
    assert.equal(ok, true);
    assert.deepEqual(fields(got), fields(ref), `${c.text} ${c.args.join(' ')}`);
    // scalars agree too; the 64-bit seed is a decimal string in JS
    assert.deepEqual(
      { ...got.config, seed: BigInt(got.config.seed) },
      { ...ref.config, seed: BigInt(ref.config.seed) },
    );
    assert.deepEqual(got.token_details, ref.token_details);
  }
  const model = core.trace('小猫吃鱼，它很开心');
  assert.ok(model.model && model.guesses, 'the default model adds model and guesses');
  const { ok, ...tokGot } = core.tokenize('小猫 3.14');
  assert.equal(ok, true);
  assert.deepEqual(tokGot, native(['tokenize', '小猫 3.14']));
});

test('defaults and limits have one home, the core: the generated facts, core.js and the URL table agree with it', async () => {
  const { DEFAULTS, LIMITS } = await import('../../web/wasm/core-facts.mjs');
  const { DEFAULT_SETTINGS, MODELS, MAX_SEED } = await import('../../web/core.js');
  const { TABLE, defaults } = await import('../../web/state.js');
  const stale = 'web/wasm/core-facts.mjs is stale: run scripts/build wasm';
  assert.deepEqual(DEFAULTS, JSON.parse(JSON.stringify(core.module.defaults())), stale);
  assert.deepEqual(LIMITS, JSON.parse(JSON.stringify(core.module.limits())), stale);
  // the declarations the type checker reads (types/index.d.ts, which web/wasm/core-facts.d.mts
  // uses) name the same fields as the generated file
  const dts = fs.readFileSync(path.join(root, 'types/index.d.ts'), 'utf8');
  const declared = (name) =>
    [
      ...dts
        .split(`export interface ${name} {`)[1]
        .split('\n}')[0]
        .matchAll(/^ {2}(\w+): /gm),
    ].map((m) => m[1]);
  assert.deepEqual(declared('Settings'), Object.keys(DEFAULTS), 'types/index.d.ts: Settings');
  assert.deepEqual(declared('Limits'), Object.keys(LIMITS), 'types/index.d.ts: Limits');
  assert.equal(DEFAULT_SETTINGS, DEFAULTS);
  assert.deepEqual(MODELS, ['default', 'random', 'numpy', 'custom', 'real']);
  assert.equal(DEFAULTS.model, 'default');
  assert.equal(MAX_SEED, 2n ** 64n - 1n);
  // the CLI's defaults are the same Settings
  const cli = native(['trace', 'a b', '--model', 'random']).config;
  for (const k of ['d_model', 'heads', 'causal', 'scale', 'temperature', 'tie_qk', 'positions']) {
    assert.equal(cli[k], DEFAULTS[k], k);
  }
  assert.equal(cli.max_tokens, DEFAULTS.max_tokens);
  assert.equal(String(cli.seed), DEFAULTS.seed);
  // the URL table starts from the core's defaults and stays within its limits
  const state = defaults();
  for (const e of TABLE.filter((x) => x.core)) {
    assert.equal(state[e.name], DEFAULTS[e.core], e.name);
    if (e.max !== undefined && e.core === 'heads') assert.ok(e.max <= LIMITS.max_heads);
    if (e.max !== undefined && e.core === 'd_model') assert.ok(e.max <= LIMITS.max_d_model);
  }
  assert.equal(TABLE.find((e) => e.name === 'max').max, LIMITS.max_tokens);
  // the shown head and layer: any the core can make, a real model's included (a trace with
  // fewer clamps them)
  assert.equal(
    TABLE.find((e) => e.name === 'head').max,
    Math.max(LIMITS.max_heads, LIMITS.max_real_heads) - 1,
  );
  assert.equal(
    TABLE.find((e) => e.name === 'layer').max,
    Math.max(LIMITS.max_layers, LIMITS.max_real_layers) - 1,
  );
  // one seed rule, the core's: the module and the CLI refuse the same seeds
  for (const bad of ['-1', '18446744073709551616', '1e3', '', '123456789012345678901', ' 4']) {
    assert.throws(
      () => core.trace('x', { model: 'random', seed: bad }),
      // the largest seed comes with the refusal: error.bad_seed's {max}
      (e) => e.code === 'bad_seed' && e.details.max === LIMITS.max_seed,
      bad,
    );
    assert.throws(() => native(['trace', 'x', '--model', 'random', '--seed', bad]), bad);
  }
  assert.equal(
    core.trace('x', { model: 'random', seed: '18446744073709551615' }).config.seed,
    '18446744073709551615',
  );
  // and the locale strings name the largest seed through {max}, never as a literal
  for (const lang of ['en', 'zh']) {
    const strings = JSON.parse(
      fs.readFileSync(path.join(root, `web/locales/${lang}.json`), 'utf8'),
    );
    assert.match(strings['error.bad_seed'], /\{max\}/, lang);
    assert.ok(
      !Object.values(strings).some((v) => v.includes(LIMITS.max_seed)),
      `${lang}: the largest seed is written out`,
    );
  }
});

test('refusals that name a limit carry it from the core; no locale string writes one out', async () => {
  const { LIMITS } = await import('../../web/wasm/core-facts.mjs');
  const { Translator } = await import('../../web/i18n.js');
  const cases = [
    [() => core.trace('a', { model: 'random', max_tokens: 9999 }), 'bad_max_tokens', 'max_tokens'],
    [() => core.trace('w '.repeat(65)), 'too_many_tokens', 'max_tokens'],
    [() => core.trace('a'.repeat(LIMITS.max_text_bytes + 1)), 'text_too_long', 'max_text_bytes'],
    [
      () => core.trace('a b', { model: 'random', heads: 2, d_model: 8, d_k: 1000 }),
      'bad_d_k',
      'max_head_width',
    ],
  ];
  for (const [fn, code, limit] of cases) {
    assert.throws(fn, (e) => e.code === code && e.details.limit === LIMITS[limit], code);
    for (const lang of ['en', 'zh']) {
      const strings = JSON.parse(
        fs.readFileSync(path.join(root, `web/locales/${lang}.json`), 'utf8'),
      );
      const t = new Translator(lang, strings);
      const text = t.t(`error.${code}`, t.numbers({ max: 64, limit: LIMITS[limit] }));
      assert.match(strings[`error.${code}`], /\{limit\}/, `${lang} ${code}`);
      assert.ok(!/\{\w+\}/.test(text), `${lang} ${code}: ${text}`);
      const grouped = new Intl.NumberFormat(lang).format(LIMITS[limit]);
      assert.ok(text.includes(grouped), `${lang} ${code} names ${grouped}: ${text}`);
    }
  }
});

test('attend matches NumPy fixtures to 1e-5', () => {
  // the fixture is committed (scripts/gen_fixtures writes it): missing or reshaped, this fails
  const fx = JSON.parse(
    fs.readFileSync(path.join(root, 'tests/fixtures/attention_v1.json'), 'utf8'),
  );
  assert.equal(fx.format_version, 1);
  const asMat = (rows) => ({
    rows: rows.length,
    cols: rows[0].length,
    data: Float32Array.from(rows.flat()),
  });
  assert.ok(fx.cases.length >= 5, `${fx.cases.length} fixture cases`);
  for (const { name, inputs: inp, expected: exp } of fx.cases) {
    const got = core.attend({
      X: asMat(inp.X),
      W_Q: asMat(inp.W_Q),
      W_K: asMat(inp.W_K),
      W_V: asMat(inp.W_V),
      W_O: inp.W_O ? asMat(inp.W_O) : undefined,
      heads: inp.heads,
      causal: inp.causal,
      scale: inp.scale,
      temperature: inp.temperature,
    });
    assert.equal(exp.heads.length, inp.heads, `${name}: one expected entry per head`);
    exp.heads.forEach((h, i) => {
      for (const m of ['Q', 'K', 'V', 'scores', 'scaled', 'masked', 'weights', 'output']) {
        assertClose(`${name} head ${i} ${m}`, h[m], got.heads[i][m], 1e-5);
      }
    });
    assertClose(`${name} concat`, exp.concat, got.concat, 1e-5);
    assertClose(`${name} output`, exp.output, got.output, 1e-5);
  }
});

test("softmax steps: the true values for the article's scores 3.2, 1.8, 0.4", () => {
  const s = core.softmaxSteps([3.2, 1.8, 0.4]);
  const e = [3.2, 1.8, 0.4].map((x) => Math.exp(x - 3.2));
  const sum = e.reduce((a, b) => a + b, 0);
  e.forEach((x, i) => assert.ok(Math.abs(s.weights[i] - x / sum) < 1e-6));
  assert.equal(s.max, Math.fround(3.2));
  const masked = core.softmaxSteps([1, -Infinity, 2]);
  assert.equal(masked.weights[1], 0);
});

test('errors come back as CoreError codes, and the module keeps working', () => {
  const bad = [
    [() => core.trace(''), 'empty_text'],
    [() => core.trace('   \n\t '), 'empty_text'],
    [() => core.trace('a\uD800b'), 'lone_surrogate'],
    [() => core.trace('a\u0000b'), 'control_char'],
    [() => core.trace('x', { model: 'random', heads: 3 }), 'heads_divide'],
    [() => core.trace('x', { model: 'random', heads: 0 }), 'bad_heads'], // the core's rules and codes
    [() => core.trace('x', { heads: NaN }), 'bad_setting'],
    [() => core.trace('x', { d_model: 'abc' }), 'bad_setting'],
    [() => core.trace('x', { temperature: 0 }), 'bad_temperature'],
    [() => core.trace('x', { seed: '-1' }), 'bad_seed'],
    [() => core.trace('x', { seed: '18446744073709551616' }), 'bad_seed'],
    [() => core.trace('word '.repeat(65)), 'too_many_tokens'],
    [() => core.trace('x'.repeat(200000)), 'text_too_long'],
    [
      () =>
        core.attend({
          X: { rows: 2, cols: 2, data: [1, 2, 3, 4] },
          W_Q: { rows: 3, cols: 2, data: [1, 2, 3, 4, 5, 6] },
          W_K: { rows: 2, cols: 2, data: [1, 2, 3, 4] },
          W_V: { rows: 2, cols: 2, data: [1, 2, 3, 4] },
        }),
      'shape_mismatch',
    ],
    [() => core.softmaxSteps([1, NaN]), 'non_finite'],
    // near float32's largest (3.4e38), q . k overflows: an error, never Infinity
    [() => core.dotSteps([3e38, 3e38], [1, 1]), 'overflow'],
    [() => core.dotSteps([3e38], [1.5]), 'overflow'],
  ];
  for (const [fn, code] of bad) {
    assert.throws(
      fn,
      (e) => e instanceof CoreError && e.code === code && e.message.length > 0,
      code,
    );
  }
  assert.equal(core.trace('word '.repeat(65), { max_tokens: 512 }).tokens.length, 65);
  assert.equal(core.trace('我爱你').tokens.length, 3);
});

test('returned arrays are JS-owned copies that survive wasm memory growth', () => {
  const a = core.trace('小猫吃鱼，它很开心');
  const before = Array.from(a.heads[0].weights.data);
  core.trace('w '.repeat(500), { max_tokens: 512, d_model: 512, heads: 8 }); // grows the heap
  assert.deepEqual(Array.from(a.heads[0].weights.data), before);
  assert.ok(a.heads[0].weights.data.buffer.byteLength === a.heads[0].weights.data.byteLength);
});

test('the shipped model: every layer, roles as data; 它 looks at 小猫 and it at animal', () => {
  const zh = core.trace('小猫吃鱼，它很开心');
  assert.equal(zh.model.name, 'default');
  assert.equal(zh.config.d_model, 32);
  assert.ok(zh.model.layers >= 2);
  assert.equal(zh.layers.length, zh.model.layers);
  assert.equal(zh.model.notes.length, zh.model.layers);
  assert.ok(zh.model.notes.flat().some((n) => n.role === 'coreference'));
  for (const n of zh.model.notes.flat()) assert.equal(typeof n.numbers.pronoun, 'number');
  // the top-level heads are the last layer's; the first layer reads X_0 = E + P
  const last = zh.layers[zh.layers.length - 1];
  assert.deepEqual(Array.from(last.heads[0].weights.data), Array.from(zh.heads[0].weights.data));
  const x0 = zh.layers[0].input.data;
  zh.embeddings.data.forEach((e, i) =>
    assert.ok(Math.abs(e + zh.positions.data[i] - x0[i]) < 1e-6),
  );
  const w = zh.heads[0].weights;
  const row = Array.from(w.data.slice(4 * w.cols, 5 * w.cols));
  assert.equal(row.indexOf(Math.max(...row)), 0, `它's row ${row}`);
  assert.equal(zh.guesses[4].word, '小猫');
  const en = core.trace("The animal didn't cross the street because it was too tired");
  const it = en.tokens.indexOf('it');
  // the last layer's coreference head (its role is in the model's notes) looks at animal
  const roles = en.model.notes[en.model.notes.length - 1].map((n) => n.role);
  assert.ok(roles.includes('coreference'), roles.join());
  const h = en.heads[roles.indexOf('coreference')];
  const r = Array.from(h.weights.data.slice(it * h.weights.cols, (it + 1) * h.weights.cols));
  assert.equal(en.tokens[r.indexOf(Math.max(...r))], 'animal');
  // unknown words are marked
  assert.equal(core.trace('zorkle ate the fish').token_details[0].known, false);
  // third-person pronouns are marked: the page follows the first one
  assert.deepEqual(
    core.tokenize('I saw the cat and it saw them').token_details.map((x) => x.pronoun),
    [false, false, false, false, false, true, false, true],
  );
});

test('detail leaves out layers and guesses and nothing else; one card per model, a new one for a new custom model', () => {
  const text = '小猫吃鱼，它很开心';
  const full = core.trace(text);
  const lean = core.trace(text, {}, { layers: false, guesses: false });
  assert.equal(lean.layers, undefined);
  assert.equal(lean.guesses, undefined);
  assert.deepEqual(
    Object.keys(lean),
    Object.keys(full).filter((k) => k !== 'layers' && k !== 'guesses'),
    'the same fields in the same order',
  );
  for (const k of Object.keys(lean)) assert.deepEqual(lean[k], full[k], k);
  assert.deepEqual(core.trace(text, {}, { guesses: true }).guesses, full.guesses);
  assert.ok(core.trace(text, {}, { guesses: false }).layers, 'layers stay unless asked');
  // the card is converted once per model: the same object in every trace through it
  assert.equal(core.trace('我爱你').model, full.model);
  // a custom model gets its own card, also when it replaces one at the same address
  const own = new Core(core.module);
  try {
    own.setCustomModel(core.defaultModelBytes());
    const a = own.trace(text, { model: 'custom' }).model;
    assert.equal(a.name, 'custom');
    own.setCustomModel(core.defaultModelBytes());
    assert.notEqual(own.trace(text, { model: 'custom' }).model, a, 'a new model, a new card');
    assert.notEqual(own.trace(text).model, a, 'default and custom have a card each');
  } finally {
    own.close();
  }
  assert.throws(
    () => core.trace(text, {}, { guesses: 'no' }),
    (e) => e.code === 'bad_setting',
  );
});

test("one example's gradient: some head pushes 它 -> 小猫 up; a custom model round-trips", () => {
  const g = core.gradientRow('小猫吃鱼，它很开心', {}, 4, 0);
  // as types/index.d.ts declares them: rows, not {rows, cols, data} matrices
  assert.ok(g.d_output instanceof Float32Array);
  for (const h of g.heads) {
    assert.ok(h.d_weights instanceof Float32Array && h.d_scores instanceof Float32Array);
    assert.equal(h.d_scores.length, h.d_weights.length);
  }
  assert.equal(g.target_word, '小猫');
  assert.ok(g.probability > 0.5 && g.loss > 0);
  // a negative gradient pushes the score of 小猫 up (a head may push it down where its value
  // vector points elsewhere); each head's pushes add up to zero, as a softmax's do
  assert.ok(
    g.heads.some((h) => h.d_scores[0] < 0),
    'some head pushes the score of 小猫 up',
  );
  for (const h of g.heads) assert.ok(Math.abs(h.d_scores.reduce((a, b) => a + b, 0)) < 1e-5);
  assert.throws(
    () => core.gradientRow('小猫吃鱼', { model: 'random' }, 0, 0),
    (e) => e.code === 'needs_trained_model',
  );
  assert.throws(
    () => core.trace('x', { model: 'custom' }),
    (e) => e.code === 'no_custom_model',
  );
  assert.throws(
    () => core.setCustomModel(new Uint8Array([1, 2, 3])),
    (e) => e.code === 'model_bad_magic',
  );
  const bytes = core.defaultModelBytes();
  assert.equal(core.setCustomModel(bytes).model.name, 'custom');
  const a = core.trace('我爱你', { model: 'custom' }).heads[0].weights.data;
  const b = core.trace('我爱你').heads[0].weights.data;
  assert.deepEqual(Array.from(a), Array.from(b));
  assert.throws(
    () => core.trace('x', { model: 'gpt' }),
    (e) => e.code === 'bad_model',
  );
});

test("training in the module (what the page's worker runs) lowers the loss", async () => {
  const { loadCoreNode: load } = await import('../../web/core.js');
  const tc = await load(path.join(root, 'web/wasm'), 'attention-train');
  const corpus = fs
    .readFileSync(path.join(root, 'src/data/corpus/train.tsv'), 'utf8')
    .split('\n')
    .slice(0, 600)
    .join('\n');
  const m = new tc.module.Trainer();
  assert.equal(m.step(1).error.code, 'no_trainer');
  const start = m.start(corpus, { seed: 1, steps: 200, batch: 16 });
  assert.ok(start.ok, JSON.stringify(start.error));
  const first = m.step(20);
  let last = first;
  for (let i = 0; i < 9; i++) last = m.step(20);
  assert.equal(last.step, 200);
  assert.ok(last.loss < first.loss, `loss ${first.loss} -> ${last.loss}`);
  assert.ok(last.learning_rate > 0);
  const bytes = m.modelBytes();
  assert.ok(bytes.ok && bytes.bytes.length > 1000);
  assert.equal(tc.setCustomModel(bytes.bytes).model.name, 'custom');
  assert.equal(m.step(0).ok, false);
  m.delete();
  tc.close();
});

test('each Core has its own session: custom models and random-weight caches do not leak across', async () => {
  const module = core.module;
  const a = new Core(module);
  const b = new Core(module);
  try {
    const bytes = a.defaultModelBytes();
    assert.equal(a.hasCustomModel(), false);
    a.setCustomModel(bytes);
    assert.equal(a.hasCustomModel(), true);
    assert.equal(b.hasCustomModel(), false);
    assert.throws(
      () => b.trace('我爱你', { model: 'custom' }),
      (e) => e.code === 'no_custom_model',
    );
    assert.deepEqual(
      a.trace('我爱你', { model: 'custom' }).heads[0].weights.data,
      a.trace('我爱你').heads[0].weights.data,
    );
    // b's random settings do not redraw a's weights
    const s5 = { model: 'random', seed: '5' };
    const before = a.trace('the cat', s5).output.data;
    b.trace('the cat', { model: 'random', seed: '6', heads: 4 });
    assert.deepEqual(a.trace('the cat', s5).output.data, before);
  } finally {
    a.close();
    b.close();
  }
  assert.throws(
    () => a.trace('x'),
    (e) => e.code === 'closed',
  );
  a.close(); // twice is fine
});

test('closing sessions frees their memory: 100 sessions with random weights leave the heap flat', async () => {
  const tc = await loadCoreNode(path.join(root, 'build/wasm'), 'attention-test'); // heapStats
  const big = { model: 'random', d_model: 128, heads: 4, d_k: 32 }; // 4 x 128 x 128 floats: 256 KiB
  const open = () => {
    const c = new Core(tc.module);
    c.trace('a b c', big);
    return c;
  };
  open().close();
  const before = tc.module.heapStats().in_use;
  for (let i = 0; i < 100; i++) open().close();
  const after = tc.module.heapStats().in_use;
  assert.ok(after - before < 64 * 1024, `heap in use grew by ${after - before} bytes`);
  tc.close();
});

test('random weights drawn once per settings: changing and restoring a setting gives the same trace as a fresh module', async () => {
  const fresh = await loadCoreNode(path.join(root, 'web/wasm'));
  const text = 'the cat sat on the mat';
  const base = { model: 'random', heads: 2, d_model: 8, seed: '5' };
  const variants = [
    base,
    { ...base, seed: '6' },
    { ...base, heads: 4 },
    { ...base, tie_qk: true },
    { ...base, d_k: 3 },
    base,
  ];
  const outputs = variants.map((s) => core.trace(text, s).output.data);
  for (const [i, s] of variants.entries()) {
    assert.deepEqual(
      outputs[i],
      fresh.trace(text, s).output.data,
      `variant ${i} (${JSON.stringify(s)})`,
    );
  }
  assert.notDeepEqual(outputs[0], outputs[1], 'another seed, other weights');
  assert.deepEqual(outputs[0], outputs[5], 'back to the first settings');
});

test('the √d_k experiment: statistics and histograms agree with NumPy on the same samples', () => {
  const { scale_demo_dks, reference_shapes } = core.explainFacts();
  assert.deepEqual(scale_demo_dks, [2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]);
  assert.deepEqual(
    reference_shapes.map((s) => [s.name, s.heads, s.d_k, s.d_model]),
    [
      ['BERT-base', 12, 64, 768],
      ['GPT-3', 96, 128, 12288],
    ],
  );
  const runs = [2, 64, 1024].map((dk) => core.scaleDemo(dk, 7, 64, '42', 21));
  const py = `
import json, sys, numpy as np
out = []
for r in json.load(sys.stdin):
    d = np.array(r['dots'], dtype=np.float64)
    rows = d.reshape(r['rows'], r['keys'])
    def top(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return float((e / e.sum(axis=1, keepdims=True)).max(axis=1).mean())
    rng = float(np.abs(d).max())
    out.append({'mean': float(d.mean()), 'spread': float(d.std()), 'spread_scaled': float((d / np.sqrt(r['d_k'])).std()),
                'top_raw': top(rows), 'top_scaled': top(rows / np.sqrt(r['d_k'])), 'range': rng,
                'hist_raw': np.histogram(d, bins=21, range=(-rng, rng))[0].tolist(),
                'hist_scaled': np.histogram((np.array(r['dots'], dtype=np.float32) / np.float32(np.sqrt(r['d_k']))).astype(np.float64), bins=21, range=(-rng, rng))[0].tolist()})
print(json.dumps(out))`;
  const input = JSON.stringify(
    runs.map((r) => ({ dots: [...r.dots], rows: r.rows, keys: r.keys, d_k: r.d_k })),
  );
  const ref = JSON.parse(execFileSync('/usr/bin/python3', ['-c', py], { input, encoding: 'utf8' }));
  runs.forEach((r, i) => {
    const want = ref[i];
    assert.equal(r.dots.length, 7 * 64);
    for (const k of ['mean', 'spread', 'spread_scaled', 'top_raw', 'top_scaled', 'range']) {
      assert.ok(
        Math.abs(r[k] - want[k]) <= 1e-4 * Math.max(1, Math.abs(want[k])),
        `d_k ${r.d_k} ${k}: ${r[k]} vs NumPy ${want[k]}`,
      );
    }
    assert.deepEqual(r.hist_raw, want.hist_raw, `d_k ${r.d_k} raw histogram`);
    assert.deepEqual(r.hist_scaled, want.hist_scaled, `d_k ${r.d_k} scaled histogram`);
  });
  // the point of the experiment, on these samples: the spread grows with d_k, scaling keeps it
  assert.ok(runs[2].spread > 10 * runs[0].spread);
  assert.ok(Math.abs(runs[2].spread_scaled - 1) < 0.15);
  assert.ok(runs[2].top_raw > 0.95 && runs[2].top_scaled < 0.8);
  assert.throws(() => core.scaleDemo(0, 7, 64), CoreError);
  assert.throws(
    () => core.scaleDemo(64, 7, 64, 'x'),
    (e) => e.code === 'bad_seed',
  );
  assert.throws(
    () => core.scaleDemo(4096, 512, 128),
    (e) => e.code === 'bad_setting',
  );
});
