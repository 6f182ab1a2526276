// scale-demo.js: the "why ÷√d_k" experiment beside stage 5. The core draws random q and k with d_k
// numbers each (d_k = 2 … 1024); this shows the spread of their dot products as two histograms on
// one axis (before and after ÷√d_k), the spread next to √d_k for every d_k, and the softmax's top
// weight with and without scaling, for rows as long as the learner's sentence. Drawing only:
// every number is core.scaleDemo's; nothing is computed here.
import { el, svg, setText, writeOnce } from './dom.js';
import { fmt, pct } from './format.js';
import { DEFAULT_SETTINGS } from '../core.js';
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('../../types/index.js').ScaleDemo} ScaleRun */
/** The experiment's size: keys per row, rows, and the seed of the draws.
 *  @typedef {{keys: number, rows: number, seed: string}} DemoParams */

const SAMPLES = 1024; // dot products drawn per d_k (rows × keys)
const BINS = 41; // histogram bins over [−range, range]
const W = 320; // histogram picture, viewBox units
const H = 110;
const MAX_KEYS = 64; // a row of at most this many keys (the rows of a longer sentence are cut)

export class ScaleDemo {
  /** ctx: {core, t}; update({result, state}) while shown.
   * @param {Pick<ViewContext, 'core' | 't'>} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    /** @type {ScaleRun[] | null} */
    this.runs = null; // per d_k: core.scaleDemo(...) for the current keys and seed
    this.pick = 5; // index into the d_k list (64)
    this.timer = 0;
    /** @type {HTMLElement} */
    this.el = el('div', { class: 'scale-demo', 'data-extra-body': 'scaleDemo' });
    /** @type {StageModel | undefined} the model last updated with */
    this.model;
    /** @type {DemoParams | undefined} the parameters the runs were drawn with */
    this.p;
    /** @type {boolean | undefined} */
    this.built;
    // the parts build() makes
    /** @type {HTMLElement} */ this.intro;
    /** @type {HTMLInputElement} */ this.slider;
    /** @type {HTMLElement} */ this.dkOut;
    /** @type {SVGSVGElement} */ this.hist;
    /** @type {SVGRectElement[]} */ this.rawBars;
    /** @type {SVGRectElement[]} */ this.scaledBars;
    /** @type {SVGTextElement[]} */ this.axis;
    /** @type {HTMLElement} */ this.legend;
    /** @type {HTMLElement} */ this.legendRaw;
    /** @type {HTMLElement} */ this.legendScaled;
    /** @type {HTMLElement[]} */ this.facts;
    /** @type {string[]} */ this.cols;
    /** @type {HTMLElement} */ this.tbody;
    /** @type {{tr: HTMLElement, cells: HTMLElement[]}[]} one per d_k */ this.rows;
    /** @type {HTMLElement[]} */ this.heads;
    /** @type {HTMLElement} */ this.yours;
    /** @type {HTMLElement} */ this.caption;
  }

  dks() {
    return this.ctx.core.explainFacts().scale_demo_dks;
  }

  /** the learner's sentence sets the row length; the page's seed sets the draws
   * @param {StageModel} model @returns {DemoParams} */
  params(model) {
    const n = model.result.config.n;
    const keys = Math.max(2, Math.min(MAX_KEYS, n));
    // rows: enough queries for SAMPLES dot products (well inside the core's work limit)
    const rows = Math.max(1, Math.ceil(SAMPLES / keys));
    return { keys, rows, seed: String(model.result.config.seed ?? DEFAULT_SETTINGS.seed) };
  }

  /** @param {StageModel} model */
  update(model) {
    this.model = model;
    const p = this.params(model);
    const same =
      this.p && this.p.keys === p.keys && this.p.rows === p.rows && this.p.seed === p.seed;
    if (!this.built) this.build();
    this.fillYours();
    if (same && this.runs) return;
    // a new row length while typing: draw again once typing pauses (the first drawing at once)
    clearTimeout(this.timer);
    const go = () => {
      this.p = p;
      this.draw();
    };
    if (this.runs) this.timer = window.setTimeout(go, 250);
    else go();
  }

  build() {
    this.built = true;
    const dks = this.dks();
    this.intro = el('p', { class: 'hint' });
    this.slider = el('input', {
      type: 'range',
      min: 0,
      max: dks.length - 1,
      step: 1,
      value: this.pick,
      class: 'sd-slider',
      on: {
        /** @param {Event & {target: HTMLInputElement}} e */
        input: (e) => {
          this.pick = +e.target.value;
          this.fill();
        },
      },
    });
    this.dkOut = el('output', { class: 'sd-dk' });
    this.hist = svg('svg', { viewBox: `0 0 ${W} ${H + 18}`, class: 'sd-hist', role: 'img' });
    this.rawBars = Array.from({ length: BINS }, () => svg('rect', { class: 'sd-raw' }));
    this.scaledBars = Array.from({ length: BINS }, () => svg('rect', { class: 'sd-scaled' }));
    this.axis = [0, 1, 2].map((i) =>
      svg('text', {
        x: [2, W / 2, W - 2][i],
        y: H + 14,
        class: 'sd-tick',
        'text-anchor': ['start', 'middle', 'end'][i],
      }),
    );
    this.hist.append(
      svg('line', { x1: 0, y1: H, x2: W, y2: H, class: 'sd-axis' }),
      svg('line', { x1: W / 2, y1: 0, x2: W / 2, y2: H, class: 'sd-zero' }),
      ...this.rawBars,
      ...this.scaledBars,
      ...this.axis,
    );
    this.legend = el('p', { class: 'sd-legend' }, [
      el('span', { class: 'sd-key sd-key-raw' }),
      (this.legendRaw = el('span')),
      ' ',
      el('span', { class: 'sd-key sd-key-scaled' }),
      (this.legendScaled = el('span')),
    ]);
    this.facts = [el('li'), el('li'), el('li')];
    const cols = ['dk', 'sqrtDk', 'spread', 'spreadScaled', 'topRaw', 'topScaled'];
    this.cols = cols;
    this.tbody = el('tbody');
    this.rows = dks.map((dk, i) => {
      const cells = cols.map((c) =>
        el('td', { 'data-matrix': 'scaleDemo', 'data-row': dk, 'data-col': c }),
      );
      const tr = el(
        'tr',
        {
          on: {
            click: () => {
              this.pick = i;
              this.slider.value = String(i);
              this.fill();
            },
          },
        },
        cells,
      );
      this.tbody.append(tr);
      return { tr, cells };
    });
    this.heads = cols.map((c) => el('th', { scope: 'col', 'data-col': c }));
    this.yours = el('p', { class: 'sd-yours' });
    this.caption = el('caption');
    this.el.replaceChildren(
      this.intro,
      el('label', { class: 'sd-pick' }, [el('span', { text: 'd_k' }), this.slider, this.dkOut]),
      el('div', { class: 'sd-top' }, [
        el('figure', { class: 'sd-figure' }, [this.hist, this.legend]),
        el('ul', { class: 'facts sd-facts' }, this.facts),
      ]),
      el('div', { class: 'scroller', tabindex: '0', role: 'group' }, [
        el('table', { class: 'sd-table' }, [
          this.caption,
          el('thead', {}, [el('tr', {}, this.heads)]),
          this.tbody,
        ]),
      ]),
      this.yours,
    );
  }

  // every d_k's draws from the core, then the picture for the chosen one
  draw() {
    const { core } = this.ctx;
    if (!this.p) return;
    const { keys, rows, seed } = this.p;
    this.runs = this.dks().map((dk) => core.scaleDemo(dk, keys, rows, seed, BINS));
    this.el.dataset.keys = String(keys);
    this.el.dataset.rows = String(rows);
    this.el.dataset.seed = seed;
    this.fill();
  }

  fill() {
    if (!this.runs || !this.p) return;
    const { t } = this.ctx;
    const { keys, rows } = this.p;
    const r = this.runs[this.pick];
    setText(this.intro, t('sdemo.intro', { keys, rows, n: keys * rows }));
    setText(this.dkOut, `d_k = ${r.d_k}`);
    writeOnce(this.slider, 'aria-valuetext', `d_k = ${r.d_k}`);
    writeOnce(this.slider, 'aria-label', t('sdemo.slider'));
    this.el.dataset.dk = String(r.d_k);
    // the histograms share one axis and one height scale: the taller bin of the two fills it
    let top = 1;
    for (let b = 0; b < BINS; b++) top = Math.max(top, r.hist_raw[b], r.hist_scaled[b]);
    const bw = W / BINS;
    /** @param {SVGRectElement} rect @param {number} count @param {number} b @param {number} inset */
    const bar = (rect, count, b, inset) => {
      const h = (count / top) * (H - 2);
      writeOnce(rect, 'x', (b * bw + inset).toFixed(2));
      writeOnce(rect, 'width', Math.max(0.5, bw - 2 * inset).toFixed(2));
      writeOnce(rect, 'y', (H - h).toFixed(2));
      writeOnce(rect, 'height', h.toFixed(2));
      writeOnce(rect, 'data-count', count);
    };
    for (let b = 0; b < BINS; b++) {
      bar(this.rawBars[b], r.hist_raw[b], b, 0.5);
      bar(this.scaledBars[b], r.hist_scaled[b], b, bw * 0.22);
    }
    setText(this.axis[0], fmt(-r.range, 1));
    setText(this.axis[1], '0');
    setText(this.axis[2], fmt(r.range, 1));
    writeOnce(
      this.hist,
      'aria-label',
      t('sdemo.histLabel', {
        dk: r.d_k,
        spread: fmt(r.spread, 2),
        scaled: fmt(r.spread_scaled, 2),
      }),
    );
    setText(this.legendRaw, t('sdemo.legendRaw'));
    setText(this.legendScaled, t('sdemo.legendScaled'));
    const facts = [
      t('sdemo.spread', { dk: r.d_k, spread: fmt(r.spread, 2), root: fmt(r.sqrt_d_k, 2) }),
      t('sdemo.scaled', { scaled: fmt(r.spread_scaled, 2) }),
      t('sdemo.top', { keys, raw: pct(r.top_raw), scaled: pct(r.top_scaled) }),
    ];
    facts.forEach((f, i) => setText(this.facts[i], f));
    setText(this.caption, t('sdemo.caption', { keys }));
    this.heads.forEach((th, i) => setText(th, t(`sdemo.col.${this.cols[i]}`)));
    this.runs.forEach((run, i) => {
      const vals = [
        run.d_k,
        run.sqrt_d_k,
        run.spread,
        run.spread_scaled,
        run.top_raw,
        run.top_scaled,
      ];
      const text = [
        String(run.d_k),
        fmt(run.sqrt_d_k, 2),
        fmt(run.spread, 2),
        fmt(run.spread_scaled, 2),
        pct(run.top_raw),
        pct(run.top_scaled),
      ];
      this.rows[i].cells.forEach((td, c) => {
        writeOnce(td, 'data-value', vals[c]);
        setText(td, text[c]);
      });
      this.rows[i].tr.classList.toggle('sel', i === this.pick);
    });
    this.fillYours();
  }

  // where the learner's own model sits in the table
  fillYours() {
    if (!this.built || !this.model) return;
    const { t } = this.ctx;
    const tr = this.model.result;
    const at = this.dks().indexOf(tr.config.d_k);
    this.rows.forEach((row, i) => row.tr.classList.toggle('yours', i === at));
    setText(this.yours, t(at >= 0 ? 'sdemo.yours' : 'sdemo.yoursOff', { dk: tr.config.d_k }));
  }
}
