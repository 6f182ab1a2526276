// onnx.mjs: a real model's full forward in our core against onnxruntime, the engine Transformer
// Explainer runs GPT-2 on. One random GPT-2-small-shaped model (scripts/gen_gpt2_onnx: a Hugging
// Face folder and model.onnx from the same float32 weights, under build/onnx/) goes, on the same
// token ids, through: our core in headless Chromium (attention-real's readout, web/real-model.js)
// and onnxruntime-web in the same page (its WebAssembly backend, one thread, SIMD), taking turns so
// that load from other processes hits both alike; our core natively (ap_bench --hf-readout,
// -O3 -march=native, Eigen); and onnxruntime-node (one thread). Both compute the last hidden state
// after ln_f, no lm_head. ms per forward (min and median) and GFLOP/s at 32, 128 and 512 tokens, and
// the largest difference between our and onnxruntime-web's hidden states; adds the "onnx" section
// to bench.json in the results folder (written by run.mjs before). Not a test (tests/hf/onnx.test.mjs
// checks that the engines agree); --quick: the tiny shape, short lengths, few iterations.
//   node scripts/perf/onnx.mjs [--quick] [--out DIR]        (scripts/bench runs it)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ortNode from 'onnxruntime-node';
import { launch } from '../../tests/browser/harness.mjs';
import { resultsDir } from './results.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const quick = process.argv.includes('--quick');
const outDir = resultsDir(root, process.argv);
const log = (...a) => console.error('[bench]', ...a);

const shape = quick ? 'tiny' : 'small';
const modelDir = path.join(root, 'build/onnx', `gpt2-${shape}`);
const LENGTHS = quick ? [8, 32, 64] : [32, 128, 512];
const itersFor = (n) => (quick ? 2 : n <= 32 ? 10 : n <= 128 ? 6 : 3);
const nativeBench = path.join(root, 'build/bench-native/ap_bench');

execFileSync(path.join(root, 'scripts/gen_gpt2_onnx'), ['--shape', shape], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
const reference = JSON.parse(fs.readFileSync(path.join(modelDir, 'reference.json'), 'utf8'));
const cfg = reference.config;
const [d, L] = [cfg.n_embd, cfg.n_layer];

// Matrix products only, 2 per multiply-add, per layer: Q, K, V 6 n d^2, W_O 2 n d^2, the MLP
// 16 n d^2 (d_ff = 4 d), scores and mix 4 n^2 d (every pair, the masked half of the causal mask
// included, as the usual count has it)
const FLOP_FORMULA = 'layers x (24 n d^2 + 4 n^2 d): matrix products, 2 per multiply-add';
const flops = (n) => L * (24 * n * d * d + 4 * n * n * d);

// the same ids for every engine: xorshift32 over the vocabulary
function idsFor(n) {
  let s = 2463534242;
  return Array.from({ length: n }, () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % cfg.vocab_size;
  });
}
const stats = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  return { min: s[0], median: s[s.length >> 1], runs: s.length };
};

// ---- the page: web/ (our module), onnxruntime-web's dist/ and the model folder, cross-origin
// isolated (what onnxruntime-web's WebAssembly memory asks for in a browser) ----
const MOUNTS = {
  '/web/': path.join(root, 'web'),
  '/ort/': path.join(root, 'node_modules/onnxruntime-web/dist'),
  '/model/': modelDir,
};
const MIME = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};
function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const headers = {
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
      'cache-control': 'no-store',
    };
    if (url.pathname === '/') {
      res.writeHead(200, { ...headers, 'content-type': 'text/html' });
      res.end('<!doctype html><title>onnx bench</title>');
      return;
    }
    const mount = Object.keys(MOUNTS).find((m) => url.pathname.startsWith(m));
    const base = mount && MOUNTS[mount];
    const file = base && path.join(base, path.normalize(url.pathname.slice(mount.length)));
    if (!file || !file.startsWith(base) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, {
      ...headers,
      'content-type': MIME[path.extname(file)] || 'application/octet-stream',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// Runs in the page: loads both engines, then per length takes turns (ours, onnxruntime-web) for
// warm-up + iterations; returns each engine's ms and the largest difference of the outputs.
async function inPage({ lengths, idsByLength, iters, input, output, names }) {
  const { loadRealModule, openRealModel } = await import('/web/real-model.js');
  const ort = await import('/ort/ort.wasm.min.mjs');
  ort.env.wasm.wasmPaths = '/ort/';
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  const blob = async (name) => new File([await (await fetch(`/model/${name}`)).blob()], name);
  const files = await Promise.all(names.map(blob));
  const module = await loadRealModule('/web/wasm/attention-real.js');
  const ours = await openRealModel(files, { module });
  const onnxBytes = new Uint8Array(await (await fetch('/model/model.onnx')).arrayBuffer());
  const session = await ort.InferenceSession.create(onnxBytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const result = { crossOriginIsolated: globalThis.crossOriginIsolated, lengths: {} };
  for (const n of lengths) {
    const ids = idsByLength[n];
    const tensor = new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, n]);
    const ms = { ours: [], ortWeb: [] };
    let worst = 0;
    for (let i = 0; i <= iters[n]; i++) {
      const t0 = performance.now();
      const a = ours.readout(ids);
      const t1 = performance.now();
      const b = (await session.run({ [input]: tensor }))[output];
      const t2 = performance.now();
      if (i === 0) {
        for (let k = 0; k < a.data.length; k++)
          worst = Math.max(worst, Math.abs(a.data[k] - b.data[k]));
        continue; // the first round warms up both
      }
      ms.ours.push(t1 - t0);
      ms.ortWeb.push(t2 - t1);
    }
    result.lengths[n] = { ms, maxAbsDiff: worst };
  }
  ours.dispose();
  await session.release();
  return result;
}

const idsByLength = Object.fromEntries(LENGTHS.map((n) => [n, idsFor(n)]));
const iters = Object.fromEntries(LENGTHS.map((n) => [n, itersFor(n)]));

log(`onnx: ${shape} model in Chromium (ours, onnxruntime-web)`);
const server = await serve();
const browser = await launch();
let page;
try {
  const p = await browser.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(String(e)));
  await p.goto(`http://127.0.0.1:${server.address().port}/`);
  page = await p.evaluate(inPage, {
    lengths: LENGTHS,
    idsByLength,
    iters,
    input: reference.input,
    output: reference.output,
    names: ['config.json', 'model.safetensors', 'vocab.json', 'merges.txt'],
  });
  if (errors.length) throw new Error(errors.join('\n'));
} finally {
  await browser.close();
  server.close();
}

log('onnx: onnxruntime-node, one thread');
const session = await ortNode.InferenceSession.create(path.join(modelDir, 'model.onnx'), {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  graphOptimizationLevel: 'all',
});
const ortNodeMs = {};
for (const n of LENGTHS) {
  const tensor = new ortNode.Tensor('int64', BigInt64Array.from(idsByLength[n].map(BigInt)), [
    1,
    n,
  ]);
  const ms = [];
  for (let i = 0; i <= iters[n]; i++) {
    const t0 = performance.now();
    await session.run({ [reference.input]: tensor });
    if (i) ms.push(performance.now() - t0);
  }
  ortNodeMs[n] = ms;
}
await session.release();

log('onnx: ours natively (ap_bench --hf-readout, -O3 -march=native)');
const nativeMs = {};
for (const n of LENGTHS) {
  nativeMs[n] = JSON.parse(
    execFileSync(
      nativeBench,
      ['--hf-readout', modelDir, String(iters[n]), idsByLength[n].join(',')],
      {
        encoding: 'utf8',
      },
    ),
  );
}

const onnx = {
  how:
    'the same random GPT-2-shaped weights (scripts/gen_gpt2_onnx) and token ids in every engine; ' +
    'the last hidden state after ln_f; ms per forward; in Chromium ours and onnxruntime-web take ' +
    'turns; onnxruntime-web: WebAssembly backend, 1 thread, SIMD; onnxruntime-node: 1 thread; ' +
    'ours natively: ap_bench -O3 -march=native (Eigen)',
  model: {
    shape,
    layers: L,
    dModel: d,
    heads: cfg.n_head,
    dFf: 4 * d,
    vocab: cfg.vocab_size,
    positions: cfg.n_positions,
    onnxOpset: reference.onnx_opset,
  },
  versions: {
    onnxruntimeWeb: ortVersion('onnxruntime-web'),
    onnxruntimeNode: ortVersion('onnxruntime-node'),
  },
  crossOriginIsolated: page.crossOriginIsolated,
  flopFormula: FLOP_FORMULA,
  loadavg: os.loadavg(),
  lengths: {},
};
for (const n of LENGTHS) {
  const p = page.lengths[n];
  const e = {
    oursChromium: stats(p.ms.ours),
    ortWebChromium: stats(p.ms.ortWeb),
    oursNative: stats(nativeMs[n]),
    ortNode: stats(ortNodeMs[n]),
  };
  for (const s of Object.values(e)) s.gflops = flops(n) / s.min / 1e6;
  onnx.lengths[n] = {
    n,
    flops: flops(n),
    ...e,
    maxAbsDiffOursVsOrtWeb: p.maxAbsDiff,
    oursOverOrtWeb: e.oursChromium.min / e.ortWebChromium.min,
    oursOverOrtWebMedian: e.oursChromium.median / e.ortWebChromium.median,
  };
}
onnx.targets = {
  oursNoSlowerThanOrtWebEveryLength: {
    value: Math.max(...Object.values(onnx.lengths).map((x) => x.oursOverOrtWeb)),
    met: Object.values(onnx.lengths).every((x) => x.oursOverOrtWeb <= 1),
  },
};

function ortVersion(name) {
  const pkg = path.join(root, 'node_modules', name, 'package.json');
  return JSON.parse(fs.readFileSync(pkg, 'utf8')).version;
}

// ---- print, and add the section to bench.json ----
const f1 = (x) =>
  x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3);
const pad = (s, w) => String(s).padStart(w);
const lines = [
  `GPT-2 ${shape} shape (${L} layers, d_model ${d}, ${cfg.n_head} heads), last hidden state, ms = min (median) per forward; GFLOP/s by ${FLOP_FORMULA}`,
  ['tokens', 'ours Chromium', 'ort-web', 'ours native', 'ort-node', 'ours/ort-web', 'max |diff|']
    .map((s, i) => pad(s, i ? 18 : 7))
    .join(''),
];
for (const x of Object.values(onnx.lengths)) {
  const cell = (s) => `${f1(s.min)} (${f1(s.median)})`;
  lines.push(
    [
      x.n,
      cell(x.oursChromium),
      cell(x.ortWebChromium),
      cell(x.oursNative),
      cell(x.ortNode),
      x.oursOverOrtWeb.toFixed(2),
      x.maxAbsDiffOursVsOrtWeb.toExponential(1),
    ]
      .map((s, i) => pad(s, i ? 18 : 7))
      .join(''),
  );
  lines.push(
    `${pad('GF/s', 7)}${[x.oursChromium, x.ortWebChromium, x.oursNative, x.ortNode]
      .map((s) => pad(f1(s.gflops), 18))
      .join('')}`,
  );
}
const t = onnx.targets.oursNoSlowerThanOrtWebEveryLength;
lines.push(
  `target: ours no slower than onnxruntime-web at every length: ${t.met ? 'met' : 'NOT met'}`,
);
console.log(lines.join('\n'));

const benchFile = path.join(outDir, 'bench.json');
const bench = fs.existsSync(benchFile)
  ? JSON.parse(fs.readFileSync(benchFile, 'utf8'))
  : { date: new Date().toISOString() };
bench.onnx = onnx;
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(benchFile, JSON.stringify(bench, null, 2) + '\n');
log(`added the onnx section to ${path.relative(root, benchFile)}`);
