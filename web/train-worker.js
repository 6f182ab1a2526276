// train-worker.js: the page's training loop, in a Web Worker so the page stays responsive. A classic
// worker script: it loads the training build of the core (wasm/attention-train.js, built by
// scripts/build wasm) and the corpus (wasm/corpus-train.tsv), then runs a module.Trainer in chunks and
// posts progress and, every few chunks, the model's .apm bytes. No maths here: the core trains.
//
// page -> worker: {type: 'start', steps, seed, batch, base?, corpus?} | {type: 'pause'}
//               | {type: 'resume'}
// base: the folder holding wasm/ (a blob worker importing this script from another origin has no
// folder of its own); without it, paths are relative to this script. corpus: the corpus text
// itself (the single file, whose blob worker has the module's glue in front of this script and
// nothing to fetch).
// worker -> page: {type: 'loading'} | {type: 'started', examples, steps}
//               | {type: 'progress', step, loss, learning_rate} | {type: 'model', step, bytes}
//               | {type: 'paused', step} | {type: 'done', step} | {type: 'error', code, message}
/* global createAttentionModule */
'use strict';

/**
 * The worker's global scope, typed (the type checker's DOM library knows only a window's).
 * @typedef {object} WorkerScope
 * @property {(message: any, transfer?: Transferable[]) => void} postMessage
 * @property {(...urls: string[]) => void} importScripts
 */
const worker = /** @type {WorkerScope} */ (/** @type {unknown} */ (self));

const BYTES_EVERY = 3; // chunks between model snapshots sent to the page (it re-traces each)

// trainer: this worker's module.Trainer (deleted when a new run starts). timer: the one pending
// loop() call, or 0. There is never more than one, so 'resume' after 'pause' (any number of
// times, back to back) continues the same loop instead of starting another.
// chunk: steps per Trainer.step call, so a pause answers within one (the core's limits().training)
/** @type {{module: any, trainer: any, corpus: any, target: number, step: number, chunk: number, chunks: number, paused: boolean, generation: number, timer: any}} */
const job = {
  module: null,
  trainer: null,
  corpus: null,
  target: 0,
  step: 0,
  chunk: 1,
  chunks: 0,
  paused: false,
  generation: 0,
  timer: 0,
};

/** @param {string} code @param {string} message */
function fail(code, message) {
  worker.postMessage({ type: 'error', code, message });
}

// a file of wasm/, at base when the page gave one
const at = (/** @type {string | undefined} */ base, /** @type {string} */ file) =>
  base ? new URL(`wasm/${file}`, base).href : `wasm/${file}`;

// an error with the protocol's code
const coded = (/** @type {any} */ e, /** @type {string} */ code) =>
  Object.assign(new Error(String(e && e.message ? e.message : e)), { code });

/** @param {string} [base] */
async function ensureModule(base) {
  if (job.module) return job.module;
  try {
    // the single file's blob worker already has the glue (with its wasm inline)
    if (typeof createAttentionModule !== 'function')
      worker.importScripts(at(base, 'attention-train.js'));
    job.module = await createAttentionModule({
      locateFile: (/** @type {string} */ f) => at(base, f),
    });
  } catch (e) {
    throw coded(e, 'load_failed');
  }
  return job.module;
}

/** @param {string} [base] @param {string} [text] */
async function ensureCorpus(base, text) {
  if (typeof text === 'string') job.corpus = text;
  if (job.corpus) return job.corpus;
  const res = await fetch(at(base, 'corpus-train.tsv')).catch((e) => {
    throw coded(e, 'no_corpus');
  });
  if (!res.ok)
    throw Object.assign(
      new Error(`the training corpus is missing (${res.status}): run scripts/build wasm`),
      { code: 'no_corpus' },
    );
  job.corpus = await res.text();
  return job.corpus;
}

function sendModel() {
  const r = job.trainer.modelBytes();
  if (!r.ok) {
    fail(r.error.code, r.error.message);
    return;
  }
  const bytes = new Uint8Array(r.bytes); // a JS-owned copy, transferred to the page
  worker.postMessage({ type: 'model', step: job.step, bytes }, [bytes.buffer]);
}

/** @param {number} generation */
function schedule(generation) {
  if (job.timer) return;
  job.timer = setTimeout(() => {
    job.timer = 0;
    loop(generation);
  }, 0); // lets 'pause' in between
}

/** @param {number} generation */
function loop(generation) {
  if (generation !== job.generation || job.paused || job.step >= job.target) return;
  const r = job.trainer.step(Math.min(job.chunk, job.target - job.step));
  if (!r.ok) {
    fail(r.error.code, r.error.message);
    return;
  }
  job.step = r.step;
  job.chunks++;
  worker.postMessage({
    type: 'progress',
    step: r.step,
    loss: r.loss,
    learning_rate: r.learning_rate,
  });
  const finished = job.step >= job.target;
  if (finished || job.chunks % BYTES_EVERY === 0) sendModel();
  if (finished) {
    worker.postMessage({ type: 'done', step: job.step });
    return;
  }
  schedule(generation);
}

/** @param {import('./train-local.js').StartMessage} msg */
async function start(msg) {
  const generation = ++job.generation;
  worker.postMessage({ type: 'loading' });
  const [module, corpus] = await Promise.all([
    ensureModule(msg.base),
    ensureCorpus(msg.base, msg.corpus),
  ]);
  if (generation !== job.generation) return;
  job.trainer?.delete();
  job.trainer = new module.Trainer();
  const r = job.trainer.start(corpus, {
    seed: msg.seed,
    steps: msg.steps,
    batch: msg.batch,
  });
  if (!r.ok) {
    fail(r.error.code, r.error.message);
    return;
  }
  Object.assign(job, {
    target: msg.steps,
    step: 0,
    chunk: module.limits().training.chunk,
    chunks: 0,
    paused: false,
  });
  worker.postMessage({ type: 'started', examples: r.examples, steps: r.steps });
  sendModel(); // step 0: the random starting point, before any learning
  clearTimeout(job.timer); // a loop of an earlier start ends here
  job.timer = 0;
  schedule(generation);
}

self.onmessage = (e) => {
  const msg = e.data || {};
  if (msg.type === 'start') {
    start(msg).catch((err) =>
      fail(err.code || 'train_failed', String(err && err.message ? err.message : err)),
    );
  } else if (msg.type === 'pause') {
    job.paused = true;
    worker.postMessage({ type: 'paused', step: job.step });
  } else if (msg.type === 'resume' && job.paused) {
    job.paused = false;
    schedule(job.generation);
  }
};
