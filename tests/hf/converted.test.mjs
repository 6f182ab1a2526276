// converted.test.mjs: web/real-model.js openConvertedModel and attention-real's
// loadConvertedModel open the .apm files `qkv convert` writes from each Hugging Face fixture
// folder (tests/fixtures/hf) in f32, f16 and int8; their model cards and traces equal
// `qkv trace --model` on the same file (the native reader over the same core), and in f32 the
// folder's own traces (openRealModel). Truncated, changed and crafted files are refused with a
// code and a message naming what is wrong, no model made and no buffer kept in the module's
// memory. Not the format's edge cases (tests/core/test_real_model_file.cpp).
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
import { loadRealModule, openConvertedModel, openRealModel } from '../../web/real-model.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = path.join(root, 'tests/fixtures/hf');
const moduleUrl = path.join(root, 'web/wasm/attention-real.js');
const qkv = process.env.AP_QKV || path.join(root, 'build/native/qkv');
const module = await loadRealModule(moduleUrl);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-converted-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

const folders = fs
  .readdirSync(fixtures)
  .filter((d) => fs.statSync(path.join(fixtures, d)).isDirectory());
const DTYPES = ['f32', 'f16', 'int8'];
const SENTENCES = ['the cat sat, it was tired.', '小猫吃鱼'];

/** qkv convert's report; the file is at its .file */
function convert(folder, dtype) {
  const out = path.join(tmp, `${folder}-${dtype}.apm`);
  const report = execFileSync(
    qkv,
    ['convert', path.join(fixtures, folder), out, '--dtype', dtype],
    { encoding: 'utf8' },
  );
  return JSON.parse(report);
}

const fileOf = (p) => new File([fs.readFileSync(p)], path.basename(p));

function native(file, text, head) {
  const args = ['trace', '--model', file, text, '--head', String(head)];
  return JSON.parse(execFileSync(qkv, args, { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

async function refused(promise, code, what) {
  const e = await promise.then(
    () => assert.fail(`${what}: no refusal`),
    (err) => err,
  );
  assert.ok(e instanceof CoreError, `${what}: ${e && e.stack}`);
  assert.equal(e.code, code, `${what}: ${e.message}`);
  return e;
}

for (const folder of folders) {
  test(`${folder}: each dtype's .apm traces as qkv trace --model does; f32 as the folder does`, async () => {
    for (const dtype of DTYPES) {
      const report = convert(folder, dtype);
      const model = await openConvertedModel(fileOf(report.file), { module });
      try {
        const card = native(report.file, 'the', 0).model;
        assert.deepEqual(model.info, card, `${dtype}: the model card`);
        assert.equal(model.info.dtype, dtype.toUpperCase());
        assert.equal(model.info.file_bytes, report.bytes);
        for (const text of SENTENCES) {
          const what = `${folder} ${dtype} "${text}"`;
          const ref = native(report.file, text, 1);
          const got = model.trace(text, { head: 1 });
          assert.deepEqual(got.tokens, ref.tokens, `${what}: tokens`);
          assert.deepEqual(got.ids, ref.ids, `${what}: ids`);
          ref.layers.forEach((L, l) =>
            L.heads.forEach((h, i) =>
              assertClose(
                `${what}: layer ${l} head ${i}`,
                h.weights,
                got.layers[l].heads[i].weights,
              ),
            ),
          );
          for (const k of Object.keys(ref.heads[1]))
            assertClose(`${what}: head 1 ${k}`, ref.heads[1][k], got.heads[1][k]);
          assertClose(`${what}: readout`, ref.readout, got.readout);
        }
        if (dtype === 'f32') {
          const files = fs
            .readdirSync(path.join(fixtures, folder))
            .map((n) => fileOf(path.join(fixtures, folder, n)));
          const original = await openRealModel(files, { module });
          try {
            for (const text of SENTENCES) {
              const a = original.trace(text, { head: 2 });
              const b = model.trace(text, { head: 2 });
              a.layers.forEach((L, l) =>
                L.heads.forEach((h, i) =>
                  assert.deepEqual(
                    b.layers[l].heads[i].weights.data,
                    h.weights.data,
                    `${folder} f32 "${text}" layer ${l} head ${i}: the folder's weights exactly`,
                  ),
                ),
              );
            }
          } finally {
            original.dispose();
          }
        }
      } finally {
        model.dispose();
      }
    }
  });
}

test('openRealModel opens one .apm given alone (or among files that are not a folder)', async () => {
  assert.equal(module.realModelFileNames().converted_suffix, '.apm');
  const report = convert('bert_bf16', 'f16');
  const direct = await openConvertedModel(fileOf(report.file), { module });
  const picked = await openRealModel([fileOf(report.file), new File(['# notes'], 'README.md')], {
    module,
  });
  try {
    assert.deepEqual(picked.info, direct.info);
    assert.deepEqual(picked.trace('the cat').ids, direct.trace('the cat').ids);
  } finally {
    picked.dispose();
    direct.dispose();
  }
  // two .apm files: which was meant cannot be guessed, and the folder's files are asked for
  await refused(
    openRealModel([fileOf(report.file), new File([fs.readFileSync(report.file)], 'b.apm')], {
      module,
    }),
    'real_missing_file',
    'two .apm files',
  );
});

test('progress and cancel while an .apm file is copied; no buffer stays in the heap', async () => {
  const file = fileOf(convert('gpt2_f32', 'f16').file);
  const seen = [];
  const model = await openConvertedModel(file, {
    module,
    sliceBytes: 4096,
    onProgress: (p) => seen.push(p),
  });
  model.dispose();
  assert.equal(seen.length, Math.ceil(file.size / 4096));
  assert.equal(seen.at(-1).loaded, file.size);
  const { spy, outstanding } = counted(module);
  const c = new AbortController();
  await refused(
    openConvertedModel(file, {
      module: spy,
      signal: c.signal,
      sliceBytes: 4096,
      onProgress: () => c.abort(),
    }),
    'aborted',
    'cancelled after a slice',
  );
  assert.equal(outstanding(), 0);
});

test('truncated, changed, crafted and wrong-kind files are refused naming the part at fault', async () => {
  const { spy, outstanding } = counted(module);
  const open = (bytes, name) => openConvertedModel(new File([bytes], name), { module: spy });
  const good = fs.readFileSync(convert('bert_bf16', 'int8').file);

  let e = await refused(
    open(good.subarray(0, good.length - 100), 'cut.apm'),
    'model_truncated',
    'cut',
  );
  assert.match(e.message, /layer 1 W_2/);
  const changed = Buffer.from(good);
  changed[good.length - 50] ^= 1;
  e = await refused(open(changed, 'changed.apm'), 'model_corrupt', 'a changed byte');
  assert.match(e.message, /checksum/);
  e = await refused(
    open(Buffer.concat([good, Buffer.from('x')]), 'long.apm'),
    'model_corrupt',
    'long',
  );
  assert.match(e.message, /unexpected bytes after its end/);
  const crafted = fs.readFileSync(
    path.join(root, 'tests/fuzz/corpus/real_model_file/regress-header-claims-gpt2-small'),
  );
  const heap = module.HEAPU8.length;
  e = await refused(open(crafted, 'crafted.apm'), 'model_truncated', 'crafted');
  assert.match(e.message, /the token rows \(50257 x 768 f32\)/);
  assert.equal(module.HEAPU8.length, heap, 'the crafted header grew no memory');
  const trained = fs.readFileSync(path.join(root, 'src/data/models/default.apm'));
  e = await refused(open(trained, 'default.apm'), 'model_bad_version', 'a trained model');
  assert.match(e.message, /trained playground model/);
  await refused(open(Buffer.from('not a model'), 'x.apm'), 'model_bad_magic', 'not a model');
  await refused(open(Buffer.alloc(0), 'empty.apm'), 'model_truncated', 'empty');
  await refused(openConvertedModel('bytes', { module: spy }), 'bad_setting', 'a string');
  assert.equal(outstanding(), 0);
});
