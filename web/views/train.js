// train.js: the "Train the model" panel. Starts the training (train-runner.js: a Web Worker, or
// the page's own thread where no worker can start), shows a progress bar and a live loss curve,
// and hands each model snapshot to the core (setCustomModel) so the page re-traces the sentence
// with model 'custom' and the attention map sharpens while the model learns. Pause, resume, reset
// to random weights, reset to the shipped model. It draws and relays; the core trains and
// computes every number shown.
import { el, svg } from './dom.js';
import { TrainRunner } from '../train-runner.js';
import { LIMITS } from '../core.js';
import { grouped } from './format.js';

// a run's steps, batch and seed (the core's limits().training)
const TRAINING = LIMITS.training;

const W = 520; // loss curve: viewBox size and margins (layout only)
const H = 200;
const M = { left: 52, right: 14, top: 12, bottom: 40 };

/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').Translate} Translate */
/** Where the trainer's code is, or the corpus itself (train-runner.js).
 *  @typedef {{base?: string, corpus?: string, workerSource?: () => string}} Training */
/** @typedef {Pick<ViewContext, 't' | 'core' | 'actions'> & {training?: Training}} TrainContext */
/**
 * A run as the panel shows it.
 * @typedef {object} Run
 * @property {string} status 'idle', 'loading', 'running', 'paused', 'done' or 'error'
 * @property {number} target
 * @property {number} step
 * @property {{step: number, loss: number}[]} points
 * @property {number | null} loss
 * @property {number | null} learningRate
 * @property {string} message
 * @property {number} [examples]
 * @property {number} [modelStep]
 */
/** The trainer's messages (train-runner.js's protocol).
 *  @typedef {{type: 'loading' | 'paused' | 'done'}
 *    | {type: 'started', examples: number}
 *    | {type: 'progress', step: number, loss: number, learning_rate: number}
 *    | {type: 'model', bytes: Uint8Array, step: number}
 *    | {type: 'error', code?: string}} TrainMessage */

export class TrainView {
  /** ctx: {t, core, actions: {useCustomModel(), setSetting}, training: {base?, corpus?}}
   *  (train-runner.js: where train-worker.js and wasm/ are, or the corpus itself)
   * @param {HTMLElement} root @param {TrainContext} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {Run} */
    this.run = {
      status: 'idle',
      target: 0,
      step: 0,
      points: [],
      loss: null,
      learningRate: null,
      message: '',
    };
    /** @type {TrainRunner | null} */
    this.worker = null;
    this.build();
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    this.build();
  }

  build() {
    const { t } = this.ctx;
    /** @param {string} key @param {string} cls @param {() => void} on */
    const btn = (key, cls, on) =>
      el('button', { class: `action ${cls}`, text: t(key), type: 'button', on: { click: on } });
    this.steps = el('input', {
      id: 'train-steps',
      type: 'number',
      min: TRAINING.chunk,
      max: TRAINING.max_steps,
      step: TRAINING.chunk,
      value: this.steps ? this.steps.value : TRAINING.default_steps,
      inputmode: 'numeric',
    });
    this.trainBtn = btn('train.start', 'primary train-start', () => this.start());
    this.pauseBtn = btn('train.pause', 'train-pause', () => this.pause());
    this.resumeBtn = btn('train.resume', 'train-resume', () => this.resume());
    this.resetRandom = btn('train.resetRandom', 'small train-reset-random', () =>
      this.reset('random'),
    );
    this.resetShipped = btn('train.resetShipped', 'small train-reset-shipped', () =>
      this.reset('default'),
    );
    this.progress = el('progress', { id: 'train-progress', max: 1, value: 0 });
    this.progressText = el('p', { class: 'train-progress-text', 'aria-live': 'off' });
    this.status = el('p', { class: 'train-status', role: 'status', 'aria-live': 'polite' });
    this.where = el('p', { class: 'hint train-where' });
    this.curve = el('figure', { class: 'loss-curve' });
    this.curveText = el('p', { class: 'loss-readout' });
    this.root.replaceChildren(
      el('p', { class: 'lead', text: t('train.intro') }),
      el('div', { class: 'train-controls' }, [
        el('label', { for: 'train-steps', text: t('train.steps') }),
        this.steps,
        this.trainBtn,
        this.pauseBtn,
        this.resumeBtn,
        el('span', { class: 'train-resets' }, [this.resetRandom, this.resetShipped]),
      ]),
      el('p', { class: 'hint', text: t('train.stepsHint', { batch: TRAINING.batch }) }),
      el('div', { class: 'train-bar' }, [
        el('label', { for: 'train-progress', text: t('train.progress') }),
        this.progress,
      ]),
      this.progressText,
      this.status,
      this.where,
      this.curve,
      this.curveText,
    );
    this.paint();
  }

  start() {
    const target = Math.round(Number(this.steps.value));
    if (!Number.isFinite(target) || target < TRAINING.chunk || target > TRAINING.max_steps) {
      const range = { min: grouped(TRAINING.chunk), max: grouped(TRAINING.max_steps) };
      this.setStatus('error', this.ctx.t('train.badSteps', range));
      return;
    }
    this.stopWorker();
    this.run = {
      status: 'loading',
      target,
      step: 0,
      points: [],
      loss: null,
      learningRate: null,
      message: '',
    };
    this.worker = new TrainRunner({ training: this.ctx.training, module: this.ctx.core.module });
    this.worker.onmessage = (e) => this.onMessage(e.data);
    this.worker.postMessage({
      type: 'start',
      steps: target,
      seed: TRAINING.seed,
      batch: TRAINING.batch,
    });
    this.paint();
  }

  pause() {
    if (this.worker && this.run.status === 'running') this.worker.postMessage({ type: 'pause' });
  }

  resume() {
    if (this.worker && this.run.status === 'paused') {
      this.worker.postMessage({ type: 'resume' });
      this.run.status = 'running';
      this.paint();
    }
  }

  /** 'random' or 'default': stop any training and show that model. @param {string} model */
  reset(model) {
    this.stopWorker();
    this.run = {
      status: 'idle',
      target: 0,
      step: 0,
      points: [],
      loss: null,
      learningRate: null,
      message: '',
    };
    this.paint();
    this.ctx.actions.setSetting('model', model);
    this.setStatus(
      'idle',
      this.ctx.t(model === 'random' ? 'train.didResetRandom' : 'train.didResetShipped'),
    );
  }

  stopWorker() {
    if (this.worker) this.worker.terminate();
    this.worker = null;
  }

  destroy() {
    this.stopWorker();
  }

  /** @param {TrainMessage} msg */
  onMessage(msg) {
    const run = this.run;
    switch (msg.type) {
      case 'loading':
        run.status = 'loading';
        break;
      case 'started':
        run.status = 'running';
        run.examples = msg.examples;
        break;
      case 'progress':
        run.step = msg.step;
        run.loss = msg.loss;
        run.learningRate = msg.learning_rate;
        run.points.push({ step: msg.step, loss: msg.loss });
        break;
      case 'model':
        try {
          this.ctx.core.setCustomModel(msg.bytes);
          run.modelStep = msg.step;
          this.ctx.actions.useCustomModel();
        } catch (/** @type {any} */ e) {
          run.status = 'error';
          run.message = this.failure(e && e.code);
          this.stopWorker();
        }
        break;
      case 'paused':
        run.status = 'paused';
        break;
      case 'done':
        run.status = 'done';
        this.stopWorker();
        break;
      case 'error':
        run.status = 'error';
        run.message = this.failure(msg.code);
        this.stopWorker();
        break;
      default:
        return;
    }
    this.paint();
  }

  /** The learner's words for a failure: the code and the locale's reason for it.
   * @param {string} [code] */
  failure(code = 'train_failed') {
    const { t } = this.ctx;
    const key = `train.error.${code}`;
    const said = t(key);
    return t('train.failed', { code, reason: said === key ? t('train.error.other') : said });
  }

  /** @param {string} status @param {string} message */
  setStatus(status, message) {
    this.run.status = status;
    this.run.message = message;
    this.paint();
  }

  // ---- drawing ----

  paint() {
    const { t } = this.ctx;
    const run = this.run;
    const busy = run.status === 'loading' || run.status === 'running';
    this.trainBtn.disabled = busy;
    this.trainBtn.textContent = t(
      run.status === 'done' || run.status === 'paused' ? 'train.again' : 'train.start',
    );
    this.pauseBtn.disabled = run.status !== 'running';
    this.resumeBtn.disabled = run.status !== 'paused';
    this.root.dataset.status = run.status;
    this.root.dataset.step = String(run.step);
    this.progress.max = Math.max(1, run.target);
    this.progress.value = run.step;
    this.progress.dataset.value = String(run.step);
    this.progressText.textContent = run.target
      ? t('train.progressText', {
          step: run.step,
          target: run.target,
          loss: run.loss == null ? '–' : run.loss.toFixed(3),
          lr: run.learningRate == null ? '–' : run.learningRate.toFixed(4),
        })
      : '';
    /** @type {Record<string, string | undefined>} */
    const statusKeys = {
      loading: 'train.loading',
      running: 'train.running',
      paused: 'train.paused',
      done: 'train.done',
    };
    const statusKey = statusKeys[run.status];
    this.status.textContent =
      run.message && (run.status === 'error' || run.status === 'idle')
        ? run.message
        : statusKey
          ? t(statusKey, { step: run.step, examples: run.examples ?? '' })
          : '';
    this.status.classList.toggle('error', run.status === 'error');
    const kind = this.worker ? this.worker.kind : this.root.dataset.runner;
    if (kind) this.root.dataset.runner = kind; // 'worker' or 'page' (the last run's, once it ends)
    /** @type {string[]} */
    const notes = [];
    if (kind === 'page' && run.status !== 'idle') notes.push(t('train.onPage'));
    if (typeof this.ctx.training?.corpus === 'string' && run.examples)
      notes.push(t('train.sampled', { examples: run.examples }));
    this.where.textContent = notes.join(' ');
    this.drawCurve();
  }

  drawCurve() {
    const { t } = this.ctx;
    const pts = this.run.points;
    if (!pts.length) {
      // no chart before the first training: the text line says so
      this.curve.replaceChildren();
      this.curveText.textContent = t('train.curveEmpty');
      return;
    }
    const pic = svg('svg', {
      viewBox: `0 0 ${W} ${H}`,
      class: 'loss-svg',
      role: 'img',
      'aria-label': t('train.curveLabel'),
    });
    const x0 = M.left,
      x1 = W - M.right,
      y0 = H - M.bottom,
      y1 = M.top;
    const top = Math.max(1, ...pts.map((p) => p.loss));
    const yTop = Math.ceil(top);
    const xMax = Math.max(this.run.target, 1);
    /** @param {number} s */
    const X = (s) => x0 + (x1 - x0) * (s / xMax);
    /** @param {number} l */
    const Y = (l) => y0 - (y0 - y1) * (l / yTop);
    /** @param {number} x @param {number} y @param {string} s @param {string} anchor @param {string} [cls] */
    const text = (x, y, s, anchor, cls = 'tick') => {
      const e = svg('text', { x, y, 'text-anchor': anchor, class: cls });
      e.textContent = s;
      return e;
    };
    pic.append(
      svg('line', { x1: x0, y1: y0, x2: x1, y2: y0, class: 'axis' }),
      svg('line', { x1: x0, y1: y0, x2: x0, y2: y1, class: 'axis' }),
    );
    for (const f of [0, 0.5, 1]) {
      const ly = yTop * f;
      pic.append(
        svg('line', { x1: x0 - 4, y1: Y(ly), x2: x1, y2: Y(ly), class: f ? 'grid' : 'axis' }),
        text(x0 - 7, Y(ly) + 4, ly.toFixed(ly % 1 ? 1 : 0), 'end'),
      );
      const sx = Math.round(xMax * f);
      pic.append(
        text(
          X(sx),
          y0 + 15,
          String(this.run.target ? sx : ''),
          f === 0 ? 'start' : f === 1 ? 'end' : 'middle',
        ),
      );
    }
    pic.append(text((x0 + x1) / 2, H - 6, t('train.axisStep'), 'middle', 'axis-label'));
    const yl = text(14, (y0 + y1) / 2, t('train.axisLoss'), 'middle', 'axis-label');
    yl.setAttribute('transform', `rotate(-90 14 ${(y0 + y1) / 2})`);
    pic.append(yl);
    if (pts.length) {
      pic.append(
        svg('polyline', {
          points: pts.map((p) => `${X(p.step).toFixed(1)},${Y(p.loss).toFixed(1)}`).join(' '),
          class: 'loss-line',
        }),
      );
      for (const p of pts) {
        const c = svg('circle', {
          cx: X(p.step).toFixed(1),
          cy: Y(p.loss).toFixed(1),
          r: 3,
          class: 'loss-point',
          'data-step': p.step,
          'data-value': p.loss,
        });
        const title = svg('title');
        title.textContent = t('train.pointTitle', { step: p.step, loss: p.loss.toFixed(3) });
        c.append(title);
        c.addEventListener('mouseenter', () => {
          this.curveText.textContent = title.textContent;
        });
        pic.append(c);
      }
    }
    this.curve.replaceChildren(el('figcaption', { text: t('train.curveCaption') }), pic);
    const first = pts[0];
    const last = pts[pts.length - 1];
    this.curveText.textContent = pts.length
      ? t('train.curveText', {
          s0: first.step,
          l0: first.loss.toFixed(3),
          s1: last.step,
          l1: last.loss.toFixed(3),
        })
      : t('train.curveEmpty');
  }
}
