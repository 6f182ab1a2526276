// train.mjs: training steps per second, in one run, natively (qkv-train), as WebAssembly in Node
// (attention-train), and in headless Chromium through the page's own training worker. One step =
// one Adam step of the trainer (batch 32, the shipped model's shape). Not a test.
// Writes train.json into the results folder (bench-results/ unless --out DIR).
//   node scripts/perf/train.mjs [--quick] [--out DIR]        (scripts/bench runs it)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCoreNode } from '../../web/core.js';
import { launch, startServer, root, webDir } from '../../tests/browser/harness.mjs';
import { resultsDir } from './results.mjs';

const steps = process.argv.includes('--quick') ? 100 : 600;
const outDir = resultsDir(root, process.argv);

// native: qkv-train prints "training took S s (N steps, R steps/s)"
const out = path.join(os.tmpdir(), 'ap-bench-train.apm');
const log = execFileSync(
  path.join(root, 'build/native/qkv-train'),
  ['--steps', String(steps), '--out', out, '--log-every', String(steps)],
  { cwd: root, encoding: 'utf8' },
);
const native = Number(/\(\d+ steps, (\d+) steps\/s\)/.exec(log)[1]);
fs.rmSync(out, { force: true });

// wasm in Node: the same trainer, the same corpus
const corpus = fs.readFileSync(path.join(root, 'src/data/corpus/train.tsv'), 'utf8');
const core = await loadCoreNode(path.join(root, 'web/wasm'), 'attention-train');
const trainer = new core.module.Trainer();
const start = trainer.start(corpus, { seed: 1, steps, batch: 32 });
if (!start.ok) throw new Error(start.error.message);
const t0 = performance.now();
const r = trainer.step(steps);
trainer.delete();
const wasmNode = steps / ((performance.now() - t0) / 1000);
if (!r.ok) throw new Error(r.error.message);

// the browser: the page's worker, from 'started' to 'done' (includes its model snapshots)
const { server, base } = await startServer({ dir: webDir });
const browser = await launch();
let browserRate;
try {
  const page = await browser.newPage();
  await page.goto(`${base}index.html`);
  browserRate = await page.evaluate(
    (n) =>
      new Promise((resolve, reject) => {
        const w = new Worker('train-worker.js');
        let t = 0;
        w.onmessage = (e) => {
          if (e.data.type === 'started') t = performance.now();
          if (e.data.type === 'done') resolve(n / ((performance.now() - t) / 1000));
          if (e.data.type === 'error') reject(new Error(e.data.message));
        };
        w.postMessage({ type: 'start', steps: n, seed: 1, batch: 32 });
      }),
    steps,
  );
} finally {
  await browser.close();
  server.close();
}

const result = {
  steps,
  stepsPerSecond: {
    native: Math.round(native),
    wasmNode: Math.round(wasmNode),
    browserWorker: Math.round(browserRate),
  },
  ratioWasmToNative: +(native / wasmNode).toFixed(2),
};
console.log(
  `training (batch 32, d_model 32, 2 heads, ${steps} steps): native ${result.stepsPerSecond.native} steps/s, ` +
    `wasm in Node ${result.stepsPerSecond.wasmNode} steps/s, page worker in Chromium ${result.stepsPerSecond.browserWorker} steps/s ` +
    `(native is ${result.ratioWasmToNative}x wasm)`,
);
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'train.json'), JSON.stringify(result, null, 2) + '\n');
