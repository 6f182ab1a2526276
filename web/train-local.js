// train-local.js: the page's training loop on the page's own thread, for where no Web Worker can
// start (a file:// page, a host page whose CSP forbids the worker). It speaks the worker's
// protocol (train-worker.js: start, pause, resume in; loading, started, progress, model, paused,
// done, error out), so the Train panel cannot tell the two apart. It trains in slices of a few
// milliseconds, yielding to the event loop between slices, so the page keeps answering. No maths
// here: a module of the core trains (module.Trainer, the core's trainer).

const SLICE_MS = 8; // training time per slice before the page gets the thread back
const BYTES_EVERY = 3; // chunks between model snapshots, as the worker's

/** The page's messages of the protocol (train-worker.js states it); base and corpus go to a
 *  worker only.
 *  @typedef {{type: 'start', steps: number, seed: number, batch: number, base?: string,
 *             corpus?: string}} StartMessage
 *  @typedef {StartMessage | {type: 'pause'} | {type: 'resume'}} TrainMessage */

/** The error codes of the protocol's {type: 'error', code}: a thrown value's code, or `fallback`.
 *  @param {unknown} e a thrown value @param {string} fallback @returns {string} */
const codeOf = (e, fallback) =>
  e && typeof e === 'object' && 'code' in e && typeof e.code === 'string' ? e.code : fallback;

export class LocalTrainer {
  /**
   * module(): Promise of a WebAssembly module with Trainer; corpus(): Promise of the corpus text;
   * onmessage({data}) gets the protocol's messages, as a worker's handler would.
   * @param {{module: () => Promise<any>, corpus: () => Promise<string>}} source
   */
  constructor(source) {
    this.source = source;
    /** @type {((e: {data: any}) => void) | null} */
    this.onmessage = null;
    // one run: its Trainer, target and progress; `generation` ends an older run's slices
    /** @type {{trainer: AttentionTrainer | null, target: number, step: number, chunks: number,
     *          paused: boolean, generation: number}} */
    this.job = { trainer: null, target: 0, step: 0, chunks: 0, paused: false, generation: 0 };
    this.sum = 0; // loss summed over the steps of the current chunk
    this.inChunk = 0;
    this.chunk = 1; // steps per progress report (start() reads the core's)
    this.lr = 0; // the learning rate of the last step
    /** @type {any} the pending slice's timer */
    this.timer = 0;
  }

  /** @param {object} data */
  post(data) {
    if (this.onmessage) this.onmessage({ data });
  }

  /** @param {string} code @param {string} message */
  fail(code, message) {
    this.post({ type: 'error', code, message });
  }

  /** The worker's postMessage: {type: 'start', steps, seed, batch} | pause | resume.
   *  @param {TrainMessage} msg */
  postMessage(msg) {
    if (msg.type === 'start') {
      this.start(msg).catch((e) => this.fail(codeOf(e, 'train_failed'), String(e && e.message)));
    } else if (msg.type === 'pause') {
      this.job.paused = true;
      this.post({ type: 'paused', step: this.job.step });
    } else if (msg.type === 'resume' && this.job.paused) {
      this.job.paused = false;
      this.schedule(this.job.generation);
    }
  }

  /** @param {StartMessage} msg */
  async start(msg) {
    const generation = ++this.job.generation;
    this.post({ type: 'loading' });
    const [module, corpus] = await Promise.all([this.source.module(), this.source.corpus()]);
    if (generation !== this.job.generation) return;
    this.job.trainer?.delete();
    const trainer = new module.Trainer();
    this.job.trainer = trainer;
    const r = trainer.start(corpus, {
      seed: msg.seed,
      steps: msg.steps,
      batch: msg.batch,
    });
    if (!r.ok) {
      this.fail(r.error.code, r.error.message);
      return;
    }
    // as the worker's chunks
    this.chunk = module.limits().training.chunk;
    Object.assign(this.job, { target: msg.steps, step: 0, chunks: 0, paused: false });
    this.sum = 0;
    this.inChunk = 0;
    this.post({ type: 'started', examples: r.examples, steps: r.steps });
    this.sendModel(); // step 0: the random starting point, before any learning
    this.schedule(generation);
  }

  sendModel() {
    // called while a run has its trainer (start, slice)
    const r = /** @type {AttentionTrainer} */ (this.job.trainer).modelBytes();
    if (!r.ok) {
      this.fail(r.error.code, r.error.message);
      return false;
    }
    this.post({ type: 'model', step: this.job.step, bytes: new Uint8Array(r.bytes) });
    return true;
  }

  /** @param {number} generation */
  schedule(generation) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.slice(generation), 0);
  }

  // Steps one at a time until SLICE_MS is spent or a chunk completes, then gives the thread back.
  /** @param {number} generation */
  slice(generation) {
    const job = this.job;
    if (generation !== job.generation || job.paused || job.step >= job.target) return;
    const trainer = /** @type {AttentionTrainer} */ (job.trainer); // the run's, set by start()
    const until = performance.now() + SLICE_MS;
    do {
      const r = trainer.step(1);
      if (!r.ok) {
        this.fail(r.error.code, r.error.message);
        return;
      }
      job.step = r.step;
      this.sum += r.loss;
      this.inChunk++;
      this.lr = r.learning_rate;
    } while (this.inChunk < this.chunk && job.step < job.target && performance.now() < until);
    if (this.inChunk === this.chunk || job.step >= job.target) {
      const loss = this.sum / this.inChunk;
      this.sum = 0;
      this.inChunk = 0;
      job.chunks++;
      this.post({ type: 'progress', step: job.step, loss, learning_rate: this.lr });
      const finished = job.step >= job.target;
      if ((finished || job.chunks % BYTES_EVERY === 0) && !this.sendModel()) return;
      if (finished) {
        this.post({ type: 'done', step: job.step });
        return;
      }
    }
    this.schedule(generation);
  }

  /** The worker's terminate(): stops the run and frees its trainer. */
  terminate() {
    this.job.generation++;
    clearTimeout(this.timer);
    this.job.trainer?.delete();
    this.job.trainer = null;
    this.onmessage = null;
  }
}
