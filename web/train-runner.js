// train-runner.js: starts the page's training wherever the page runs. A Web Worker
// (train-worker.js) when the page may start one: the worker script itself when it is on the
// page's origin, else (the custom element on another site) a same-origin blob worker that imports
// it, or (the single file, which has no files beside it) a blob worker made of its inline code. Where no worker starts (file://, a host page's CSP, a missing worker file) it trains on the
// page's own thread instead (train-local.js), from the same start message. Both speak one protocol,
// so the Train panel drives either; `kind` says which one runs ('worker' or 'page').

import { LocalTrainer } from './train-local.js';

const WORKER = 'train-worker.js';
const CORPUS = 'wasm/corpus-train.tsv';

/** The training corpus at `base` (the folder of train-worker.js), or the inline text.
 *  @param {{base: URL | string | null, text?: string}} where */
export function corpusSource({ base, text }) {
  if (typeof text === 'string') return () => Promise.resolve(text);
  return async () => {
    let res;
    try {
      res = await fetch(new URL(CORPUS, base ?? undefined).href);
    } catch (/** @type {any} */ e) {
      throw Object.assign(new Error(String(e && e.message)), { code: 'no_corpus' });
    }
    if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status}`), { code: 'no_corpus' });
    return res.text();
  };
}

// The error the protocol reports: message and code.
const coded = (/** @type {string} */ message, /** @type {string} */ code) =>
  Object.assign(new Error(message), { code });

/**
 * The module the page's thread trains with: the page's own when it has the trainer (the single
 * file's and the element's attention-full), else the worker's (wasm/attention-train.js at base),
 * loaded on first use as a classic script beside the page's; the global factory stays the page's.
 * @param {{Trainer?: unknown}} pageModule @param {URL | string | null} base
 */
export function moduleSource(pageModule, base) {
  /** @type {Promise<any> | null} */
  let loading = null;
  return () => {
    if (pageModule.Trainer) return Promise.resolve(pageModule);
    if (!base) return Promise.reject(coded('no trainer in this page', 'load_failed'));
    return (loading ??= loadTrainModule(base));
  };
}

/** @param {URL | string} base */
async function loadTrainModule(base) {
  const at = (/** @type {string} */ f) => new URL(`wasm/${f}`, base).href;
  const before = globalThis.createAttentionModule;
  try {
    await new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = at('attention-train.js');
      s.onload = resolve;
      s.onerror = () => reject(coded(`could not load ${s.src}`, 'load_failed'));
      document.head.append(s);
    });
    return await globalThis.createAttentionModule({ locateFile: at });
  } catch (/** @type {any} */ e) {
    throw coded(String(e && e.message), 'load_failed');
  } finally {
    globalThis.createAttentionModule = before;
  }
}

// A worker of the given source text, or null when this page may not start one.
/** @param {string} source @returns {{worker: Worker, blobUrl?: string} | null} */
function startInline(source) {
  try {
    const blobUrl = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    return { worker: new Worker(blobUrl), blobUrl };
  } catch {
    return null;
  }
}

// A worker for the script at `url`, or null when this page may not start one.
/** @param {URL} url @returns {{worker: Worker, blobUrl?: string} | null} */
function startWorker(url) {
  try {
    if (url.origin === location.origin && url.protocol !== 'file:')
      return { worker: new Worker(url.href) };
    if (url.protocol === 'file:') return null;
    // the script lives on another origin: a worker of this origin imports it (classic scripts
    // may come from anywhere; its wasm and corpus then need CORS from their server)
    const blob = new Blob([`importScripts(${JSON.stringify(url.href)});\n`], {
      type: 'text/javascript',
    });
    const blobUrl = URL.createObjectURL(blob);
    return { worker: new Worker(blobUrl), blobUrl };
  } catch {
    return null; // SecurityError: this page may not start it
  }
}

export class TrainRunner {
  /**
   * training: {base?: URL of the folder holding train-worker.js and wasm/, corpus?: the corpus
   * text itself, workerSource?(): the whole worker's code (the single file: its glue, then
   * train-worker.js)}; neither base nor workerSource: no worker. module: the page's module.
   * onmessage({data}) gets the protocol's messages from whichever trainer runs.
   * @param {{training?: {base?: string, corpus?: string, workerSource?: () => string}, module: any}} options
   */
  constructor({ training = {}, module }) {
    this.base = training.base ? new URL(training.base, document.baseURI) : null;
    this.local = {
      module: moduleSource(module, this.base),
      corpus: corpusSource({ base: this.base, text: training.corpus }),
    };
    /** @type {((e: {data: any}) => void) | null} */
    this.onmessage = null;
    /** @type {import('./train-local.js').StartMessage | null} */
    this.startMsg = null;
    this.heard = false; // the worker has said something: it runs, so its errors are real
    /** @type {any} a Worker or a LocalTrainer: the same protocol */
    this.impl = null;
    this.kind = 'page';
    this.corpus = training.corpus; // handed to the worker when the page has it
    const started = training.workerSource
      ? startInline(training.workerSource())
      : this.base && startWorker(new URL(WORKER, this.base));
    if (started) {
      const { worker, blobUrl } = started;
      this.impl = worker;
      this.kind = 'worker';
      worker.onmessage = (e) => {
        this.heard = true;
        if (blobUrl) URL.revokeObjectURL(blobUrl);
        this.relay(e);
      };
      worker.onerror = (e) => {
        e.preventDefault();
        if (blobUrl) URL.revokeObjectURL(blobUrl);
        if (!this.heard)
          this.onPage(); // it never started: train here instead
        else this.relay({ data: { type: 'error', code: 'worker_failed', message: e.message } });
      };
    } else {
      this.onPage();
    }
  }

  /** @param {{data: any}} e */
  relay(e) {
    if (this.onmessage) this.onmessage(e);
  }

  onPage() {
    if (this.impl && this.kind === 'worker') this.impl.terminate();
    const local = new LocalTrainer(this.local);
    local.onmessage = (e) => this.relay(e);
    this.impl = local;
    this.kind = 'page';
    if (this.startMsg) local.postMessage(this.startMsg);
  }

  /** @param {import('./train-local.js').TrainMessage} msg */
  postMessage(msg) {
    if (msg.type === 'start') {
      this.startMsg = msg;
      // the worker resolves its wasm/ and corpus against base (a blob worker has no folder)
      if (this.kind === 'worker') {
        this.impl.postMessage({ ...msg, base: this.base?.href, corpus: this.corpus });
        return;
      }
    }
    this.impl.postMessage(msg);
  }

  terminate() {
    this.impl.terminate();
    this.onmessage = null;
  }
}
