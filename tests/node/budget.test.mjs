// budget.test.mjs: hostile arguments to the WebAssembly module, through Core and through the raw
// exports. Each is refused with a code naming the problem, before anything is copied into wasm
// memory: after every refused call the page's module stays within MEMORY_BUDGET (wasm memory never
// shrinks, so one bad call would cost the page for good). Refused calls leak nothing. Not the
// module's numbers (module.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreNode, CoreError } from '../../web/core.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const wasmDir = path.join(root, 'web/wasm');

/** The bound the page's module must stay within after any refused call. */
const MEMORY_BUDGET = 64 * 1024 * 1024;

const heapBytes = (core) => core.module.HEAP8.buffer.byteLength;

// fn() must throw a CoreError with this code, or return {ok: false, error: {code}} (raw exports)
function refused(fn, code, what) {
  let r;
  try {
    r = fn();
  } catch (e) {
    assert.ok(
      e instanceof CoreError,
      `${what}: ${e && e.constructor && e.constructor.name}: ${e && e.message}`,
    );
    assert.equal(e.code, code, `${what}: ${e.message}`);
    assert.ok(e.message.length > 0);
    return e;
  }
  assert.ok(r && r.ok === false, `${what}: not refused (${JSON.stringify(r && Object.keys(r))})`);
  assert.equal(r.error.code, code, `${what}: ${r.error.message}`);
  return r.error;
}

test('oversized arguments are refused before any copy: memory stays within the budget', async () => {
  const core = await loadCoreNode(wasmDir);
  const m = core.module;
  const session = new m.Session(); // traceText, gradientRow and setCustomModel live on a session
  const lim = core.limits();
  const big = (n) => new Float32Array(n);
  const cases = [
    // through Core
    [
      () => core.setCustomModel(new Uint8Array(lim.max_model_bytes + 1)),
      'model_too_large',
      'Core.setCustomModel(65 MB)',
    ],
    [() => core.finiteRange(big(3e7)), 'too_many_values', 'Core.finiteRange(3e7)'],
    [() => core.dotSteps(big(2e7), big(2e7)), 'too_many_values', 'Core.dotSteps(2e7, 2e7)'],
    [() => core.softmaxSteps(big(3e7)), 'too_many_values', 'Core.softmaxSteps(3e7)'],
    [() => core.trace('a'.repeat(6e7)), 'text_too_long', 'Core.trace(6e7 characters)'],
    [() => core.tokenize('a'.repeat(6e7)), 'text_too_long', 'Core.tokenize(6e7 characters)'],
    [
      () => core.sameKindCandidates('a'.repeat(6e7)),
      'text_too_long',
      'Core.sameKindCandidates(6e7 characters)',
    ],
    [
      () => core.attend({ X: { rows: 5000, cols: 5000, data: big(25e6) }, W_Q: null }),
      'shape_mismatch',
      'Core.attend(5000 x 5000)',
    ],
    // the raw exports: they accept only what Core accepts
    [() => session.setCustomModel({ length: 1e8 }), 'bad_setting', 'setCustomModel({length: 1e8})'],
    [
      () => session.setCustomModel(new Uint8Array(1e8)),
      'model_too_large',
      'setCustomModel(100 MB)',
    ],
    [
      () => session.setCustomModel(Array.from({ length: 2e6 }, () => 0)),
      'bad_setting',
      'setCustomModel(a plain array)',
    ],
    [() => m.finiteRange(big(3e7)), 'too_many_values', 'finiteRange(3e7)'],
    [() => m.crc32(new Uint8Array(1e8)), 'too_many_bytes', 'crc32(100 MB)'],
    [() => m.crc32({ length: 1e9 }), 'bad_setting', 'crc32({length: 1e9})'],
    [() => m.finiteRange({ length: 3e8 }), 'bad_setting', 'finiteRange({length: 3e8})'],
    [() => m.dotSteps(big(2e7), big(2e7)), 'too_many_values', 'dotSteps(2e7, 2e7)'],
    [() => m.softmaxSteps(big(3e7), 1), 'too_many_scores', 'softmaxSteps(3e7)'],
    [() => session.traceText('a'.repeat(6e7), {}), 'text_too_long', 'traceText(6e7 characters)'],
    [() => m.tokenize('a'.repeat(6e7), 64), 'text_too_long', 'tokenize(6e7 characters)'],
    [
      () => m.sameKindCandidates('a'.repeat(6e7), 64),
      'text_too_long',
      'sameKindCandidates(6e7 characters)',
    ],
    [
      () => session.gradientRow('a'.repeat(6e7), {}, 0, 0),
      'text_too_long',
      'gradientRow(6e7 characters)',
    ],
    [
      () => m.attend({ X: { rows: 5000, cols: 5000, data: big(25e6) } }),
      'bad_setting',
      'attend(X 5000 x 5000)',
    ],
    [
      () => m.attend({ X: { rows: 512, cols: 1024, data: big(1e8) } }),
      'shape_mismatch',
      'attend(X data 1e8)',
    ],
    [
      () => session.traceText('a b', { model: 'random', d_model: 1024, heads: 16, d_k: 1024 }),
      'bad_d_k',
      'traceText(16 heads x d_k 1024)',
    ],
    [
      () =>
        session.traceText('w '.repeat(400), {
          model: 'random',
          d_model: 64,
          heads: 16,
          max_tokens: 512,
        }),
      'too_much_attention',
      'traceText(400 tokens x 400 x 16 heads)',
    ],
    [
      () => core.scaleDemo(2, 2, 2, 'x'.repeat(1e8)),
      'bad_seed',
      'Core.scaleDemo(a seed of 1e8 characters)',
    ],
    [
      () => m.scaleDemo(2, 2, 2, 'x'.repeat(1e8), 41),
      'bad_seed',
      'scaleDemo(a seed of 1e8 characters)',
    ],
    // 40,000 CJK characters are three bytes each in UTF-8: over the text cap although fewer units
    [
      () => m.tokenize('鱼'.repeat(40000), 64),
      'text_too_long',
      'tokenize(120,000 bytes in 40,000 units)',
    ],
  ];
  for (const [fn, code, what] of cases) {
    refused(fn, code, what);
    assert.ok(
      heapBytes(core) <= MEMORY_BUDGET,
      `${what}: wasm memory is ${heapBytes(core)} bytes after refusing`,
    );
  }
  // and the module still works
  assert.equal(core.trace('小猫吃鱼，它很开心').tokens.length, 7);
  assert.equal(core.finiteRange([1, -Infinity, 4]), 3);
  assert.ok(heapBytes(core) <= MEMORY_BUDGET);
});

// scripts/gen_crafted_models.py: about 3 KB (v4) and 5 KB (v3) whose header claims about 100
// million parameters. The reader must refuse them from the header before it allocates the
// network: the module's memory stays where a fresh module's is.
test('crafted model files claiming a huge network are refused without growing wasm memory', async () => {
  const corpus = path.join(root, 'tests/fuzz/corpus/model_file');
  for (const name of [
    'regress-header-claims-100m-parameters-v4',
    'regress-header-claims-100m-parameters-v3',
  ]) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(corpus, name)));
    assert.ok(bytes.length < 8 * 1024, `${name}: ${bytes.length} bytes`);
    const core = await loadCoreNode(wasmDir); // a fresh module: its memory as a page starts
    const session = new core.module.Session();
    const fresh = heapBytes(core);
    const e = refused(
      () => core.setCustomModel(bytes),
      'model_truncated',
      `Core.setCustomModel(${name})`,
    );
    assert.match(e.message, /the model's parameters/);
    refused(() => session.setCustomModel(bytes), 'model_truncated', `setCustomModel(${name})`);
    console.log(`${name}: ${bytes.length} bytes; wasm memory ${fresh} -> ${heapBytes(core)} bytes`);
    assert.equal(heapBytes(core), fresh, `${name}: wasm memory grew from ${fresh} bytes`);
    assert.equal(core.trace('小猫吃鱼，它很开心').tokens.length, 7);
    session.delete();
  }
});

test("Core refuses an oversized text itself, with the core's limit, before calling the module", async () => {
  const core = await loadCoreNode(wasmDir);
  const m = core.module;
  const max = core.limits().max_text_bytes;
  const text = 'a'.repeat(max + 1);
  for (const name of ['sameKindCandidates', 'tokenize']) {
    const raw = m[name];
    m[name] = () => assert.fail(`Core.${name} passed ${text.length} characters to the module`);
    try {
      const e = refused(() => core[name](text), 'text_too_long', `Core.${name}(max + 1)`);
      assert.equal(e.details.max, max);
    } finally {
      m[name] = raw;
    }
  }
  // at the limit the text goes through
  assert.ok(Array.isArray(core.sameKindCandidates('a'.repeat(max), 4)));
});

test('missing or wrong-typed arguments are CoreErrors naming the argument, not TypeErrors', async () => {
  const core = await loadCoreNode(wasmDir);
  const m = core.module;
  const session = new m.Session();
  const named = (fn, code, name) => {
    const e = refused(fn, code, name);
    assert.match(e.message, new RegExp(name), `the message names ${name}: ${e.message}`);
  };
  named(() => core.softmaxSteps(undefined), 'bad_setting', 'scores');
  named(() => core.dotSteps(null, [1]), 'bad_setting', 'q');
  named(() => core.dotSteps([1], 'abc'), 'bad_setting', 'k');
  named(() => core.finiteRange(null), 'bad_setting', 'row');
  named(() => core.attend(undefined), 'bad_setting', 'input');
  named(() => core.attend(42), 'bad_setting', 'input');
  named(() => core.gradientRow('小猫吃鱼', null, 0, 0), 'bad_setting', 'settings');
  named(() => core.trace('小猫吃鱼', 'heads=2'), 'bad_setting', 'settings');
  assert.equal(
    core.gradientRow('小猫吃鱼', undefined, 0, 0).target_word.length > 0,
    true,
    'undefined settings are the defaults',
  );
  // the raw exports
  named(() => m.softmaxSteps(undefined, 1), 'bad_setting', 'scores');
  named(() => m.softmaxSteps([1, 2], 1), 'bad_setting', 'scores');
  named(() => m.dotSteps(null, new Float32Array([1])), 'bad_setting', 'q');
  named(() => m.finiteRange(null), 'bad_setting', 'row');
  named(() => m.sameKindCandidates(42, 64), 'bad_setting', 'text');
  named(() => m.attend(undefined), 'bad_setting', 'input');
  named(
    () => m.attend({ X: { rows: 'two', cols: 2, data: new Float32Array(4) } }),
    'bad_setting',
    'X.rows',
  );
  named(() => session.traceText(42, {}), 'bad_setting', 'text');
  named(() => session.traceText('a b', { heads: NaN }), 'bad_setting', 'heads');
  named(() => session.traceText('a b', { d_model: 'abc' }), 'bad_setting', 'd_model');
  named(() => session.traceText('a b', { causal: 1 }), 'bad_setting', 'causal');
  named(() => session.traceText('a b', { temperature: 'hot' }), 'bad_setting', 'temperature');
  named(() => session.traceText('a b', { model: 7 }), 'bad_setting', 'model');
  named(() => session.traceText('a b', { seed: 5 }), 'bad_seed', 'seed');
  named(() => session.gradientRow('小猫吃鱼', 'x', 0, 0), 'bad_setting', 'settings');
  named(() => session.gradientRow('小猫吃鱼', {}, 'x', 0), 'bad_setting', 'row');
  named(() => session.gradientRow('小猫吃鱼', {}, 0, NaN), 'bad_setting', 'target');
  // numbers and strings Embind would have turned into 0 or copied unchecked
  named(() => m.tokenize('a b', 'x'), 'bad_setting', 'max_tokens');
  named(() => m.tokenize('a b', 0), 'bad_setting', 'max_tokens');
  named(() => m.sameKindCandidates('a b', 'x'), 'bad_setting', 'max_tokens');
  named(() => m.softmaxSteps(new Float32Array([1, 2]), 'x'), 'bad_setting', 'temperature');
  named(() => m.scaleDemo('x', 8, 8, '1', 41), 'bad_setting', 'd_k');
  named(() => m.scaleDemo(8, 8, 8, 1, 41), 'bad_setting', 'seed');
  named(() => m.scaleDemo(8, 8, 8, '1', NaN), 'bad_setting', 'bins');
  assert.equal(m.tokenize('鱼'.repeat(33333), 64).ok, false, 'too many tokens, not too long');
  assert.equal(m.tokenize('鱼'.repeat(33333), 64).error.code, 'too_many_tokens');
  assert.ok(m.softmaxSteps(new Float32Array([1, 2]), 0.5).ok);
});

test('training: a missing options object or a bad seed is bad_setting naming it', async () => {
  const tc = await loadCoreNode(wasmDir, 'attention-train');
  const m = tc.module;
  const trainer = new m.Trainer();
  const corpus = fs
    .readFileSync(path.join(root, 'src/data/corpus/train.tsv'), 'utf8')
    .split('\n')
    .slice(0, 50)
    .join('\n');
  const named = (fn, code, name) => {
    const e = refused(fn, code, name);
    assert.match(e.message, new RegExp(name), e.message);
  };
  named(() => trainer.start(corpus, undefined), 'bad_setting', 'options');
  for (const seed of [NaN, -1, Infinity, 'x', 1.5, 2 ** 60])
    named(() => trainer.start(corpus, { seed, steps: 10, batch: 4 }), 'bad_setting', 'seed');
  named(() => trainer.start(corpus, { seed: 1, steps: 'many', batch: 4 }), 'bad_setting', 'steps');
  named(() => trainer.start(undefined, { seed: 1 }), 'bad_setting', 'corpus');
  refused(
    () => trainer.start('x'.repeat(17 * 1024 * 1024), { seed: 1 }),
    'corpus_too_large',
    'a 17 MB corpus',
  );
  // 6 million CJK characters are 18 MB of UTF-8: refused before the copy, memory stays put
  const heap0 = tc.module.HEAP8.buffer.byteLength;
  refused(
    () => trainer.start('鱼'.repeat(6e6), { seed: 1 }),
    'corpus_too_large',
    'an 18 MB corpus of 6 million characters',
  );
  assert.equal(tc.module.HEAP8.buffer.byteLength, heap0, 'wasm memory grew for a refused corpus');
  const ok = trainer.start(corpus, { seed: 3, steps: 10, batch: 4 });
  assert.ok(ok.ok, JSON.stringify(ok.error));
});

test('refused calls leak nothing: a throwing getter, a wrong-typed seed, 10,000 times each', async () => {
  // heapStats is a bench-and-test export: attention-test (build/wasm) has it
  const tc = await loadCoreNode(path.join(root, 'build/wasm'), 'attention-test');
  const m = tc.module;
  const session = new m.Session();
  const calls = {
    'a settings getter that throws': () =>
      session.traceText('a b', {
        model: 'random',
        get heads() {
          throw new Error('getter');
        },
      }),
    'a seed that is a number': () => session.traceText('a b', { model: 'random', seed: 5 }),
    'a model name getter that throws': () =>
      session.gradientRow(
        '小猫吃鱼',
        {
          get model() {
            throw new Error('getter');
          },
        },
        0,
        0,
      ),
    'a bad setting': () => session.traceText('a b', { model: 'random', heads: 'x' }),
  };
  for (const [what, fn] of Object.entries(calls)) {
    for (let i = 0; i < 3; i++) {
      try {
        fn();
      } catch {
        /* the getter's own error */
      }
    }
    const heap0 = m.heapStats().in_use;
    const handles0 = m.count_emval_handles();
    for (let i = 0; i < 10000; i++) {
      try {
        fn();
      } catch {
        /* the getter's own error */
      }
    }
    assert.equal(m.heapStats().in_use - heap0, 0, `${what}: malloc'd bytes grew`);
    assert.equal(m.count_emval_handles() - handles0, 0, `${what}: Embind handles grew`);
  }
});
