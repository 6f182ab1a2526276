// smoke.mjs: scripts/bench --quick --no-page runs to the end and writes every section of its
// results. --no-build: scripts/test has built the module, dist/ and the CLI, and other tests read
// them while this one runs. It asserts that the benchmark works, never how fast anything is: speed goals are read
// off a full scripts/bench run, not checked by a test.
//   node tests/bench/smoke.mjs        (CTest: bench_smoke)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-smoke-'));

try {
  const run = spawnSync(
    path.join(root, 'scripts/bench'),
    ['--quick', '--no-page', '--no-build', '--out', outDir],
    // the bench builds' compiler warnings alone can pass the default 1 MB of stderr
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'inherit', 'pipe'], maxBuffer: 256 << 20 },
  );
  process.stderr.write(run.stderr.split('\n').slice(-40).join('\n'));
  assert.equal(
    run.status,
    0,
    `scripts/bench exited with ${run.status} (${run.signal ?? 'no signal'})`,
  );

  const bench = JSON.parse(fs.readFileSync(path.join(outDir, 'bench.json'), 'utf8'));
  for (const key of [
    'date',
    'machine',
    'forward',
    'train',
    'gemm',
    'memory',
    'transfer',
    'paired',
    'targets',
  ])
    assert.ok(bench[key] != null, `bench.json has no "${key}" section`);
  // every size the README's performance section names, BERT-base's layer among them, in every engine
  for (const size of ['8x16x2', '64x64x4', '128x256x4', '512x768x12']) {
    const f = bench.forward[size];
    assert.ok(f, `bench.json has no forward timing for ${size}`);
    for (const engine of ['nativeO2', 'nativeO3', 'wasm'])
      assert.ok(f[engine] && f[engine].runs > 0, `no ${engine} forward timing for ${size}`);
  }
  assert.ok(Object.keys(bench.gemm).length > 0, 'bench.json has no gemm timings');
  assert.ok(bench.memory.node && bench.memory.node.recomputations > 0, 'no memory measurement');
  assert.equal(bench.page, null, '--no-page still measured the page');
  // the real model against onnxruntime: every engine at every length, and the engines agree
  assert.ok(bench.onnx && bench.onnx.lengths, 'bench.json has no "onnx" section');
  const lengths = Object.values(bench.onnx.lengths);
  assert.ok(lengths.length >= 3, 'the onnx section has fewer than three lengths');
  for (const x of lengths) {
    for (const engine of ['oursChromium', 'ortWebChromium', 'oursNative', 'ortNode'])
      assert.ok(x[engine] && x[engine].runs > 0, `no ${engine} timing at ${x.n} tokens`);
    assert.ok(x.maxAbsDiffOursVsOrtWeb <= 1e-4, `ours and onnxruntime-web differ at ${x.n} tokens`);
  }

  const train = JSON.parse(fs.readFileSync(path.join(outDir, 'train.json'), 'utf8'));
  for (const engine of ['native', 'wasmNode', 'browserWorker'])
    assert.ok(train.stepsPerSecond[engine] > 0, `train.json has no ${engine} rate`);

  // the measured tables of docs/performance.md are written from these files
  const doc = path.join(outDir, 'performance.md');
  fs.writeFileSync(doc, '# Performance\n');
  const report = spawnSync(
    process.execPath,
    [path.join(root, 'scripts/perf/report.mjs'), '--out', outDir, '--doc', doc],
    { encoding: 'utf8' },
  );
  assert.equal(report.status, 0, report.stderr);
  const table = fs.readFileSync(doc, 'utf8');
  assert.match(table, /\| 512, 768, 12 \|/, 'the report has no row for the BERT-base layer');
  assert.match(table, /onnxruntime-web/, 'the report has no onnxruntime table');
  assert.ok(!/undefined|NaN/.test(table), `the report prints undefined or NaN:\n${table}`);
  console.log('bench smoke: every section written');
} finally {
  fs.rmSync(outDir, { recursive: true, force: true });
}
