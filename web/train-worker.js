// train-worker.js: the page's training loop, in a Web Worker so the page stays responsive. A classic
// worker script: it loads the training build of the core (wasm/attention-train.js, built by
// scripts/build wasm) and the corpus (wasm/corpus-train.tsv), then runs trainerStep in chunks and
// posts progress and, every few chunks, the model's .apm bytes. No maths here: the core trains.
//
// page -> worker: {type: 'start', steps, seed, batch} | {type: 'pause'} | {type: 'resume'}
// worker -> page: {type: 'loading'} | {type: 'started', examples, steps}
//               | {type: 'progress', step, loss, learningRate} | {type: 'model', step, bytes}
//               | {type: 'paused', step} | {type: 'done', step} | {type: 'error', code, message}
/* global importScripts, createAttentionModule */
'use strict';

const CHUNK = 20;        // steps per trainerStep call: a pause answers within one chunk
const BYTES_EVERY = 3;   // chunks between model snapshots sent to the page (it re-traces each)

const job = { module: null, corpus: null, target: 0, step: 0, chunks: 0, paused: false, generation: 0 };

function fail(code, message) { self.postMessage({ type: 'error', code, message }); }

async function ensureModule() {
  if (job.module) return job.module;
  importScripts('wasm/attention-train.js');
  job.module = await createAttentionModule({ locateFile: (f) => `wasm/${f}` });
  return job.module;
}

async function ensureCorpus() {
  if (job.corpus) return job.corpus;
  const res = await fetch('wasm/corpus-train.tsv');
  if (!res.ok) throw Object.assign(new Error(`the training corpus is missing (${res.status}): run scripts/build wasm`), { code: 'no_corpus' });
  job.corpus = await res.text();
  return job.corpus;
}

function sendModel() {
  const r = job.module.trainerModelBytes();
  if (!r.ok) { fail(r.error.code, r.error.message); return; }
  const bytes = new Uint8Array(r.bytes);   // a JS-owned copy, transferred to the page
  self.postMessage({ type: 'model', step: job.step, bytes }, [bytes.buffer]);
}

function loop(generation) {
  if (generation !== job.generation || job.paused) return;
  const r = job.module.trainerStep(Math.min(CHUNK, job.target - job.step));
  if (!r.ok) { fail(r.error.code, r.error.message); return; }
  job.step = r.step;
  job.chunks++;
  self.postMessage({ type: 'progress', step: r.step, loss: r.loss, learningRate: r.learningRate });
  const finished = job.step >= job.target;
  if (finished || job.chunks % BYTES_EVERY === 0) sendModel();
  if (finished) { self.postMessage({ type: 'done', step: job.step }); return; }
  setTimeout(() => loop(generation), 0);   // lets 'pause' messages in between chunks
}

async function start(msg) {
  const generation = ++job.generation;
  self.postMessage({ type: 'loading' });
  const [module, corpus] = await Promise.all([ensureModule(), ensureCorpus()]);
  if (generation !== job.generation) return;
  const r = module.trainerStart(corpus, { seed: msg.seed ?? 1, steps: msg.steps, batch: msg.batch ?? 32 });
  if (!r.ok) { fail(r.error.code, r.error.message); return; }
  Object.assign(job, { target: msg.steps, step: 0, chunks: 0, paused: false });
  self.postMessage({ type: 'started', examples: r.examples, steps: r.steps });
  sendModel();   // step 0: the random starting point, before any learning
  setTimeout(() => loop(generation), 0);
}

self.onmessage = (e) => {
  const msg = e.data || {};
  if (msg.type === 'start') {
    start(msg).catch((err) => fail(err.code || 'train_failed', String(err && err.message ? err.message : err)));
  } else if (msg.type === 'pause') {
    job.paused = true;
    self.postMessage({ type: 'paused', step: job.step });
  } else if (msg.type === 'resume' && job.paused) {
    job.paused = false;
    setTimeout(() => loop(job.generation), 0);
  }
};
