// shipped.test.mjs: the modules that ship (web/wasm: the page's attention, attention-full that the
// single file and the element carry inline, attention-train of the training worker,
// attention-real of a real model, and attention.single) expose none of the bench-and-test entry points; attention-test (build/wasm),
// which the tests and scripts/bench load, exposes every one. Not what the entry points compute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** src/wasm/bench_exports.cpp's entry points, read from its EMSCRIPTEN_BINDINGS block. */
const BENCH_AND_TEST = [
  ...fs
    .readFileSync(path.join(root, 'src/wasm/bench_exports.cpp'), 'utf8')
    .matchAll(/emscripten::function\("(\w+)"/g),
].map((m) => m[1]);

async function load(dir, name) {
  const factory = require(path.join(root, dir, `${name}.js`));
  const wasm = path.join(root, dir, `${name}.wasm`);
  // attention.single carries its wasm inside its script
  return factory(fs.existsSync(wasm) ? { wasmBinary: fs.readFileSync(wasm) } : {});
}

for (const name of [
  'attention',
  'attention-full',
  'attention-train',
  'attention-real',
  'attention.single',
]) {
  test(`${name} (shipped) has no bench-or-test entry point`, async () => {
    const m = await load('web/wasm', name);
    assert.equal(typeof (m.Session || m.loadRealModel), 'function', 'it loaded');
    for (const f of BENCH_AND_TEST) assert.equal(m[f], undefined, `${name} exposes ${f}`);
  });
}

test('attention-test (build/wasm) has every bench-and-test entry point, and is not shipped', async () => {
  assert.ok(BENCH_AND_TEST.length >= 5, `bench_exports.cpp names ${BENCH_AND_TEST}`);
  const m = await load('build/wasm', 'attention-test');
  for (const f of BENCH_AND_TEST) assert.equal(typeof m[f], 'function', f);
  assert.equal(typeof m.Trainer, 'function', 'and the training entry points');
  // scripts/build copies it nowhere: not beside the page (and so in no bundle scripts/bundle.mjs
  // makes from web/wasm)
  assert.deepEqual(
    fs.readdirSync(path.join(root, 'web/wasm')).filter((f) => f.startsWith('attention-test')),
    [],
  );
});
