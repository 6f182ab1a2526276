// real-model.test.mjs: web/real-model.js and the attention-real module (src/wasm/real_api.cpp)
// open each Hugging Face fixture folder (tests/fixtures/hf, scripts/gen_hf_fixtures) from
// File objects, and their traces equal `qkv trace --hf` (the native CLI over the same core) on
// sentences in English, Chinese and both, for two layer/head choices. Progress and cancel while
// the weights are copied, and bad folders refused with a code naming the file, with no model made
// and no buffer kept in the module's memory. Not the forward's numbers against PyTorch
// (tests/core/test_hf_model.cpp) and not the tokenizers against other implementations
// (tokenizers.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { File } from 'node:buffer';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreError } from '../../web/core.js';
import { assertClose, counted } from './real-helpers.mjs';
import { loadRealModule, openRealModel } from '../../web/real-model.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.join(root, 'tests/fixtures/hf');
const moduleUrl = path.join(root, 'web/wasm/attention-real.js');
const qkv = process.env.AP_QKV || path.join(root, 'build/native/qkv');
const module = await loadRealModule(moduleUrl);

const folders = fs
  .readdirSync(fixtures)
  .filter((d) => fs.statSync(path.join(fixtures, d)).isDirectory());
const SENTENCES = ['the cat sat, it was tired.', '小猫吃鱼', 'the 猫 was tired'];
// {layer, head} given to trace() and as --layer/--head (an absent layer: the last)
const CHOICES = [{ layer: 0, head: 1 }, { head: 3 }];

/** A folder's files as a file picker gives them, plus files a model folder often has beside. */
function folderFiles(dir) {
  const files = fs
    .readdirSync(dir)
    .map((name) => new File([fs.readFileSync(path.join(dir, name))], name));
  files.push(
    new File(['# a model'], 'README.md'),
    new File([new Uint8Array(64)], 'pytorch_model.bin'),
  );
  return files;
}

function native(dir, text, { layer, head }) {
  const args = ['trace', '--hf', dir, text, '--head', String(head)];
  if (layer !== undefined) args.push('--layer', String(layer));
  return JSON.parse(execFileSync(qkv, args, { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

async function refused(promise, code, what) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof CoreError, `${what}: ${e && e.stack}`);
    assert.equal(e.code, code, `${what}: ${e.message}`);
    return true;
  });
  return promise.catch((e) => e);
}

test('realModelFileNames: the names the picker matches, from the core', () => {
  const names = module.realModelFileNames();
  assert.equal(names.ok, true);
  assert.equal(names.config, 'config.json');
  assert.equal(names.weights, 'model.safetensors');
  for (const n of ['tokenizer.json', 'vocab.json', 'merges.txt', 'vocab.txt'])
    assert.ok(names.tokenizer.includes(n), n);
  assert.ok(names.max_weights_bytes >= 2 ** 31, 'room for GPT-2 small in float32');
});

for (const folder of folders) {
  test(`${folder}: every head's weights and the chosen head's stages equal qkv trace --hf`, async () => {
    const dir = path.join(fixtures, folder);
    const model = await openRealModel(folderFiles(dir), { module });
    try {
      const card = native(dir, 'the', { head: 0 }).model;
      assert.deepEqual(model.info, card, 'the model card');
      for (const text of SENTENCES) {
        for (const choice of CHOICES) {
          const what = `${folder} "${text}" ${JSON.stringify(choice)}`;
          const ref = native(dir, text, choice);
          const got = model.trace(text, choice);
          assert.deepEqual(got.tokens, ref.tokens, `${what}: tokens`);
          assert.deepEqual(got.ids, ref.ids, `${what}: ids`);
          assert.equal(got.config.weights, card.model_type);
          assert.equal(got.config.layer, ref.config.layer, `${what}: layer`);
          assert.equal(got.config.head, choice.head, `${what}: head`);
          assert.equal(got.layers.length, card.layers);
          ref.layers.forEach((L, l) => {
            assert.equal(got.layers[l].heads.length, card.heads);
            L.heads.forEach((h, i) =>
              assertClose(
                `${what}: layer ${l} head ${i} weights`,
                h.weights,
                got.layers[l].heads[i].weights,
              ),
            );
          });
          const h = choice.head;
          for (const k of Object.keys(ref.heads[h]))
            assertClose(`${what}: head ${h} ${k}`, ref.heads[h][k], got.heads[h][k]);
          assertClose(`${what}: output`, ref.output, got.output);
          assertClose(`${what}: readout`, ref.readout, got.readout);
        }
      }
      // layers: false leaves every layer's matrices out; the traced layer stays whole
      const brief = model.trace(SENTENCES[0], { layers: false });
      assert.equal(brief.layers, undefined);
      assert.ok(brief.heads[0].Q);
    } finally {
      model.dispose();
    }
  });
}

test('a trace refuses a bad layer, head or text with a code; dispose frees the model once', async () => {
  const model = await openRealModel(folderFiles(path.join(fixtures, 'gpt2_f32')), { module });
  const throwsCode = (fn, code) =>
    assert.throws(fn, (e) => e instanceof CoreError && e.code === code, code);
  throwsCode(() => model.trace('the cat', { layer: 2 }), 'bad_layer');
  throwsCode(() => model.trace('the cat', { layer: -2 }), 'bad_layer');
  throwsCode(() => model.trace('the cat', { head: 4 }), 'bad_head');
  throwsCode(() => model.trace('the cat', { head: -1 }), 'bad_head');
  throwsCode(() => model.trace('the cat', { head: 'x' }), 'bad_setting');
  throwsCode(() => model.trace('the cat', { layers: 'yes' }), 'bad_setting');
  throwsCode(() => model.trace(5), 'bad_text');
  throwsCode(() => model.trace('cat \ud800'), 'lone_surrogate');
  throwsCode(() => model.trace(''), 'empty_text');
  let long;
  assert.throws(
    () => model.trace('the cat sat on the mat and it was tired'),
    (e) => (long = e) instanceof CoreError && e.code === 'too_many_tokens',
  );
  assert.equal(long.details.limit, model.info.positions, "the limit named is the model's own");
  model.dispose();
  model.dispose();
  throwsCode(() => model.trace('the cat'), 'closed');
});

test('progress: after each slice, loaded grows to the file size; a cache object keeps the module', async () => {
  const dir = path.join(fixtures, 'gpt2_f32');
  const total = fs.statSync(path.join(dir, 'model.safetensors')).size;
  const seen = [];
  const cache = {};
  const model = await openRealModel(folderFiles(dir), {
    moduleUrl,
    cache,
    sliceBytes: 4096,
    onProgress: (p) => seen.push(p),
  });
  model.dispose();
  assert.equal(seen.length, Math.ceil(total / 4096));
  seen.forEach((p, i) => {
    assert.equal(p.total, total);
    if (i > 0) assert.ok(p.loaded > seen[i - 1].loaded);
  });
  assert.equal(seen.at(-1).loaded, total);
  const loaded = await cache.module;
  const again = await openRealModel(folderFiles(dir), { moduleUrl, cache });
  again.dispose();
  assert.equal(await cache.module, loaded, 'the second call reuses the cached module');
});

test('cancel: an aborted signal rejects with code aborted, and no buffer stays in the heap', async () => {
  const files = folderFiles(path.join(fixtures, 'gpt2_f32'));
  const { spy, outstanding } = counted(module);
  const before = new AbortController();
  before.abort();
  const e = await refused(
    openRealModel(files, { module: spy, signal: before.signal }),
    'aborted',
    'already aborted',
  );
  assert.equal(e.name, 'AbortError');
  assert.equal(outstanding(), 0);
  // aborted after the first slice: the buffer JS allocated is freed
  const during = new AbortController();
  let slices = 0;
  await refused(
    openRealModel(files, {
      module: spy,
      signal: during.signal,
      sliceBytes: 4096,
      onProgress: () => (slices++, during.abort()),
    }),
    'aborted',
    'aborted while copying',
  );
  assert.equal(slices, 1);
  assert.equal(outstanding(), 0);
});

// A folder whose model.safetensors has `size` bytes of zeros (no valid header).
function bigBadFolder(size) {
  const dir = path.join(fixtures, 'gpt2_f32');
  return folderFiles(dir)
    .filter((f) => f.name !== 'model.safetensors')
    .concat(new File([new Uint8Array(size)], 'model.safetensors'));
}

test('the weight buffer is never kept: repeated cancels and refusals do not grow the heap', async () => {
  const fresh = await loadRealModule(moduleUrl);
  const size = 32 << 20;
  const files = bigBadFolder(size);
  const heap = () => fresh.HEAPU8.length;
  // one load first: the heap grows once to hold one file
  await refused(openRealModel(files, { module: fresh }), 'safetensors_invalid', 'zeros');
  const grown = heap();
  for (let i = 0; i < 6; i++) {
    // refused by the core (it frees the buffer it was given)
    await refused(openRealModel(files, { module: fresh }), 'safetensors_invalid', 'zeros');
    // cancelled halfway through the copy (the loader frees it)
    const c = new AbortController();
    await refused(
      openRealModel(files, {
        module: fresh,
        signal: c.signal,
        onProgress: (p) => p.loaded >= size / 2 && c.abort(),
      }),
      'aborted',
      'cancel halfway',
    );
  }
  // twelve kept buffers would be twelve times the file
  assert.ok(heap() < grown + size, `the heap grew from ${grown} to ${heap()} bytes`);
});

test('the core takes the buffer: loadRealModel frees it on a refusal and leaves no model', async () => {
  const fresh = await loadRealModule(moduleUrl);
  const size = 16 << 20;
  const start = fresh.HEAPU8.length;
  for (let i = 0; i < 8; i++) {
    const p = fresh._malloc(size);
    assert.ok(p);
    const r = fresh.loadRealModel({
      config: '{"model_type": "llama"}',
      tokenizer: {},
      weightsPtr: p,
      weightsSize: size,
    });
    assert.equal(r.ok, false);
    assert.equal(r.error.code, 'model_unsupported');
    assert.equal(r.model, undefined);
  }
  assert.ok(fresh.HEAPU8.length < start + 2 * size, 'eight refused buffers were not kept');
});

/** A copy of a fixture folder in a temp dir, changed by `edit(dir)`, as File objects. */
function editedFolder(name, edit) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-real-'));
  for (const f of fs.readdirSync(path.join(fixtures, name)))
    fs.copyFileSync(path.join(fixtures, name, f), path.join(dir, f));
  edit(dir);
  const files = folderFiles(dir);
  fs.rmSync(dir, { recursive: true });
  return files;
}

test('bad folders are refused with a code and a message naming the file; no model is made', async () => {
  const { spy, outstanding } = counted(module);
  const open = (files) => openRealModel(files, { module: spy });

  const cut = editedFolder('gpt2_f32', (d) => {
    const bytes = fs.readFileSync(path.join(d, 'model.safetensors'));
    fs.writeFileSync(path.join(d, 'model.safetensors'), bytes.subarray(0, 3000));
  });
  let e = await refused(open(cut), 'safetensors_invalid', 'truncated');
  assert.match(e.message, /model\.safetensors/);

  const llama = editedFolder('gpt2_f32', (d) =>
    fs.writeFileSync(path.join(d, 'config.json'), JSON.stringify({ model_type: 'llama' })),
  );
  e = await refused(open(llama), 'model_unsupported', 'llama');
  assert.match(e.message, /config\.json/);
  assert.match(e.message, /llama/);
  assert.match(e.message, /gpt2 and bert/);

  const noTokenizer = editedFolder('gpt2_f32', (d) => {
    fs.rmSync(path.join(d, 'vocab.json'));
    fs.rmSync(path.join(d, 'merges.txt'));
  });
  e = await refused(open(noTokenizer), 'real_missing_file', 'no tokenizer');
  assert.equal(e.file, 'tokenizer.json');
  assert.match(e.message, /vocab\.json/);

  // half of GPT-2's older pair: the core names the file that is missing
  const halfTokenizer = editedFolder('gpt2_f32', (d) => fs.rmSync(path.join(d, 'merges.txt')));
  e = await refused(open(halfTokenizer), 'hf_tokenizer_missing', 'no merges.txt');
  assert.match(e.message, /merges\.txt/);

  for (const name of ['config.json', 'model.safetensors']) {
    const missing = editedFolder('bert_bf16', (d) => fs.rmSync(path.join(d, name)));
    e = await refused(open(missing), 'real_missing_file', `no ${name}`);
    assert.equal(e.file, name);
    assert.match(e.message, new RegExp(name.replace('.', '\\.')));
  }

  // a tokenizer from another model (more tokens than config.json's vocab_size)
  const mixed = editedFolder('bert_bf16', (d) => {
    fs.rmSync(path.join(d, 'vocab.txt'));
    for (const f of ['vocab.json', 'merges.txt'])
      fs.copyFileSync(path.join(fixtures, 'gpt2_f32', f), path.join(d, f));
  });
  e = await refused(open(mixed), 'model_config', 'mismatched tokenizer');
  assert.match(e.message, /vocab_size/);

  // two models' files side by side cannot be told apart; one deeper in the folder is ignored
  const twice = folderFiles(path.join(fixtures, 'gpt2_f32')).concat(
    new File([fs.readFileSync(path.join(fixtures, 'bert_bf16/config.json'))], 'config.json'),
  );
  e = await refused(open(twice), 'real_duplicate_file', 'two config.json');
  assert.equal(e.file, 'config.json');
  const nested = (f, at) => Object.defineProperty(f, 'webkitRelativePath', { value: at });
  const withOnnx = folderFiles(path.join(fixtures, 'gpt2_f32'))
    .map((f) => nested(f, `gpt2/${f.name}`))
    .concat(nested(new File(['{"model_type": "llama"}'], 'config.json'), 'gpt2/onnx/config.json'));
  const model = await open(withOnnx);
  assert.equal(model.info.model_type, 'gpt2');
  model.dispose();

  assert.equal(outstanding(), 0, 'every buffer JS allocated was handed over or freed');
});
