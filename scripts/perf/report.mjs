// report.mjs: writes the measured tables of docs/performance.md from one run's bench.json (and
// train.json beside it), so every number there comes from a single scripts/bench run, with its
// date, machine and load. It replaces what lies between the two marker lines and nothing else.
//   node scripts/perf/report.mjs [--out DIR] [--doc FILE]    (defaults: bench-results/, docs/performance.md)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resultsDir } from './results.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BEGIN = '<!-- measured: written by scripts/perf/report.mjs from bench.json; do not edit -->';
const END = '<!-- end of measured -->';

const argAfter = (flag) => {
  const i = process.argv.indexOf(flag);
  return i < 0 ? null : process.argv[i + 1];
};
const dir = resultsDir(root, process.argv);
const doc = path.resolve(argAfter('--doc') ?? path.join(root, 'docs/performance.md'));
const bench = JSON.parse(fs.readFileSync(path.join(dir, 'bench.json'), 'utf8'));
const trainFile = path.join(dir, 'train.json');
const train = fs.existsSync(trainFile) ? JSON.parse(fs.readFileSync(trainFile, 'utf8')) : null;

const f = (x) =>
  x == null || Number.isNaN(x)
    ? '–'
    : x >= 100
      ? x.toFixed(0)
      : x >= 10
        ? x.toFixed(1)
        : x >= 1
          ? x.toFixed(2)
          : x.toFixed(3);
const gf = (flops, s) => (s && s.min ? f(flops / s.min / 1e6) : '–');
const ms = (s) => (s && s.min != null ? f(s.min) : s && s.skipped ? 'over budget' : '–');

const m = bench.machine;
const lines = [BEGIN, ''];
lines.push(
  `Measured ${bench.date.slice(0, 10)} on ${m.cpu} (${m.cpus} cores, load average ` +
    `${m.loadavgStart[0].toFixed(1)} at the start, ${m.loadavgEnd[0].toFixed(1)} at the end), ` +
    `Node ${m.node}. Times are the minimum over iterations, in ms.`,
);
lines.push('');
lines.push(
  '| n, d_model, heads | GFLOP | native -O2 | native -O3 | wasm | wasm from JS | plain JS | GFLOP/s wasm | wasm / -O2 |',
);
lines.push('|---|---|---|---|---|---|---|---|---|');
for (const r of Object.values(bench.forward)) {
  lines.push(
    `| ${r.n}, ${r.dModel}, ${r.heads} | ${f(r.flops / 1e9)} | ${ms(r.nativeO2)} | ${ms(r.nativeO3)} | ` +
      `${ms(r.wasm)} | ${ms(r.wasmFromJS)} | ${ms(r.js)} | ${gf(r.flops, r.wasm)} | ` +
      `${r.wasm && r.nativeO2 ? (r.wasm.min / r.nativeO2.min).toFixed(2) : '–'} |`,
  );
}
lines.push('');
lines.push('| matrix product m × k × n | GFLOP/s native -O2 | native -O3 | wasm |');
lines.push('|---|---|---|---|');
for (const [k, g] of Object.entries(bench.gemm))
  lines.push(
    `| ${k.replaceAll('x', ' × ')} | ${gf(g.flops, g.nativeO2)} | ${gf(g.flops, g.nativeO3)} | ${gf(g.flops, g.wasm)} |`,
  );
lines.push('');
const onnx = bench.onnx;
if (onnx && onnx.lengths) {
  const o = onnx.model;
  lines.push(
    `A real model's full forward, ours against onnxruntime (${onnx.versions.onnxruntimeWeb}): ` +
      `random weights of GPT-2 ${o.shape}'s shape (${o.layers} layers, d_model ${o.dModel}, ` +
      `${o.heads} heads, d_ff ${o.dFf}), the same token ids, the last hidden state; ms per ` +
      `forward, minimum (median); GFLOP/s by ${onnx.flopFormula}. In Chromium both engines run ` +
      'in one page taking turns; onnxruntime-web on its WebAssembly backend, one thread, SIMD; ' +
      'onnxruntime-node one thread; ours natively is Eigen at -O3 -march=native.',
  );
  lines.push('');
  lines.push(
    '| tokens | ours, Chromium | onnxruntime-web, Chromium | ours / onnxruntime-web | ours, native | onnxruntime-node | GFLOP/s ours, ort-web, native, ort-node | largest difference |',
  );
  lines.push('|---|---|---|---|---|---|---|---|');
  const cell = (s) => `${f(s.min)} (${f(s.median)})`;
  for (const x of Object.values(onnx.lengths))
    lines.push(
      `| ${x.n} | ${cell(x.oursChromium)} | ${cell(x.ortWebChromium)} | ${x.oursOverOrtWeb.toFixed(2)} | ` +
        `${cell(x.oursNative)} | ${cell(x.ortNode)} | ` +
        `${[x.oursChromium, x.ortWebChromium, x.oursNative, x.ortNode].map((s) => f(s.gflops)).join(', ')} | ` +
        `${x.maxAbsDiffOursVsOrtWeb.toExponential(1)} |`,
    );
  lines.push('');
}
const extra = [];
if (train)
  extra.push(
    `Training (batch 32, the shipped model's shape): native ${train.stepsPerSecond.native}, ` +
      `wasm in Node ${train.stepsPerSecond.wasmNode}, the page's worker ${train.stepsPerSecond.browserWorker} steps/s.`,
  );
const mem = bench.memory && bench.memory.node;
if (mem)
  extra.push(
    `Memory over ${mem.recomputations} traces in Node: wasm memory ${mem.before.wasmMemory} → ` +
      `${mem.after.wasmMemory} bytes, malloc in use ${mem.before.wasm.in_use} → ${mem.after.wasm.in_use} bytes.`,
  );
if (bench.page && !bench.page.error)
  extra.push(`The page: navigation to the first trace drawn ${f(bench.page.firstTraceMs)} ms.`);
else extra.push('The page was not measured in this run (`--no-page`).');
const ft = bench.firstTrace;
if (ft && !ft.error)
  extra.push(
    `First trace on dist/site (median of ${ft.page.loads} loads, load average ${ft.load.join(' → ')}): ` +
      `the hosted page ${f(ft.pageMedianMs)} ms, a page with the module and one trace alone ` +
      `${f(ft.moduleOnlyMedianMs)} ms; the page's own share ${f(ft.pageShareMs)} ms.`,
  );
if (bench.transfer && bench.transfer.total)
  extra.push(
    `Transfer (${bench.transfer.source}): ${bench.transfer.total.raw} bytes, ${bench.transfer.total.gzip} gzipped.`,
  );
for (const [k, t] of Object.entries(bench.targets))
  extra.push(
    `- \`${k}\`: ${typeof t.value === 'number' ? f(t.value) : t.value}, ${t.met ? 'met' : 'not met'}`,
  );
lines.push(...extra, '', END);

const text = fs.existsSync(doc) ? fs.readFileSync(doc, 'utf8') : '# Performance\n';
const a = text.indexOf(BEGIN);
const b = text.indexOf(END);
const block = lines.join('\n');
const next =
  a >= 0 && b > a
    ? text.slice(0, a) + block + text.slice(b + END.length)
    : text.replace(/\n*$/, '\n\n') + '## Measured\n\n' + block + '\n';
fs.mkdirSync(path.dirname(doc), { recursive: true });
fs.writeFileSync(doc, next);
console.error(`[bench] wrote the measured tables of ${path.relative(root, doc)}`);
