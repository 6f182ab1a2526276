// onnx.test.mjs: the ONNX benchmark's engines compute the same thing. A small random GPT-2
// (scripts/gen_gpt2_onnx --shape tiny: a Hugging Face folder and model.onnx from the same float32
// weights, with a float64 PyTorch reference of the last hidden state) goes through our core
// (attention-real's readout, web/real-model.js), onnxruntime-node and onnxruntime-web's
// WebAssembly backend; every engine's last hidden state equals the reference and the others' within
// 1e-4. Also readout's refusals of bad ids. Not the timing (scripts/perf/onnx.mjs) and not the
// forward's every stage against PyTorch (tests/core/test_hf_model.cpp).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { File } from 'node:buffer';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { CoreError } from '../../web/core.js';
import { loadRealModule, openRealModel } from '../../web/real-model.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOL = 1e-4;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-onnx-test-'));
execFileSync(path.join(root, 'scripts/gen_gpt2_onnx'), ['--shape', 'tiny', '--out', dir], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
const reference = JSON.parse(fs.readFileSync(path.join(dir, 'reference.json'), 'utf8'));
const d = reference.config.n_embd;
const onnxBytes = fs.readFileSync(path.join(dir, 'model.onnx'));

const module = await loadRealModule(path.join(root, 'web/wasm/attention-real.js'));
const files = fs
  .readdirSync(dir)
  .map((name) => new File([fs.readFileSync(path.join(dir, name))], name));
const ours = await openRealModel(files, { module });

ortWeb.env.wasm.numThreads = 1;
ortWeb.env.wasm.simd = true;
const sessions = {
  'onnxruntime-node': [
    ortNode,
    await ortNode.InferenceSession.create(onnxBytes, { intraOpNumThreads: 1 }),
  ],
  'onnxruntime-web': [
    ortWeb,
    await ortWeb.InferenceSession.create(onnxBytes, { executionProviders: ['wasm'] }),
  ],
};

/** @returns {Promise<Float32Array>} the engine's last hidden state, n x d row-major */
async function onnxHidden(name, ids) {
  const [ort, session] = sessions[name];
  const input = new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
  const out = await session.run({ [reference.input]: input });
  return out[reference.output].data;
}

function largestDiff(a, b) {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

test.after(() => {
  ours.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the model exported has the shape the folder says', () => {
  assert.equal(ours.info.layers, reference.config.n_layer);
  assert.equal(ours.info.d_model, d);
  assert.ok(reference.onnx_ops.includes('LayerNormalization'), reference.onnx_ops.join(' '));
});

for (const c of reference.cases) {
  test(`${c.ids.length} tokens: our readout, onnxruntime-node and -web agree within ${TOL}`, async () => {
    const want = Float32Array.from(c.hidden.flat());
    const got = ours.readout(c.ids);
    assert.equal(got.rows, c.ids.length);
    assert.equal(got.cols, d);
    const diffs = { ours: largestDiff(got.data, want) };
    for (const name of Object.keys(sessions)) {
      const theirs = await onnxHidden(name, c.ids);
      diffs[name] = largestDiff(theirs, want);
      diffs[`ours vs ${name}`] = largestDiff(got.data, theirs);
    }
    for (const [what, diff] of Object.entries(diffs))
      assert.ok(diff <= TOL, `${what}: largest difference ${diff} (all: ${JSON.stringify(diffs)})`);
  });
}

test('readout refuses ids outside the vocabulary, too many ids, none, and non-integers', () => {
  const refused = (ids, code) =>
    assert.throws(
      () => ours.readout(ids),
      (e) => e instanceof CoreError && e.code === code,
      `${code}: ${String(ids).slice(0, 40)}`,
    );
  refused([0, reference.config.vocab_size], 'bad_token_id');
  refused([-1], 'bad_token_id');
  refused([1.5], 'bad_token_id');
  refused(['1'], 'bad_token_id');
  refused(new Array(reference.config.n_positions + 1).fill(0), 'too_many_tokens');
  refused([], 'empty_text');
});
