// scale.js: stage 5. scaled = scores × (1/√d_k), shown as the operation on one row at a time: the
// row's scores as dots on a number line, and the same dots after ÷√d_k sliding in toward 0, with
// the spread (max − min, core.finiteRange) before and after; the last step comes back to the
// followed row and what softmax makes of it either way (core.softmaxSteps). With scaling off the
// stage says so and draws one row, not two identical ones. The √d_k experiment sits below.
import { el, svg, setText, writeOnce, says, setSays, replay } from './dom.js';
import { fmt, pct, rowOf } from './format.js';
import { matrixBlock } from './matrix-table.js';
import { BarList } from './readouts.js';
import { veil } from './veil.js';
import { matrixView, refreshStage, rowSteps, tokenMapView } from './heatmap.js';
import { StageExtras } from './stage-extras.js';
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */

const LW = 600; // number line width (viewBox units)
const PAD = 14;
const LEFT = 70; // room for the track names

/** A softmax row whose top weight is at least this is all or nothing: it shows no grading. */
const SATURATED = 0.99;
/** The random-vector experiment offered when a row does not show the lesson: d_k as in
 *  "Attention Is All You Need"'s base model, and how many random rows it averages. */
const DEMO_DK = 64;
const DEMO_ROWS = 200;

export class ScaleStage {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions' | 'later' | 'core' | 'asking'>} ctx */
  constructor(root, ctx) {
    this.still = false; // set by the walkthrough: this show() only refreshes (no replay)
    this.root = root;
    this.ctx = ctx;
    this.extras = new StageExtras(['scaleDemo'], ctx);
    /** @type {StageModel} */
    this.model;
    /** @type {MatrixView} */
    this.sc;
    /** @type {HTMLElement} */
    this.facts;
    /** @type {NumberLine} */
    this.line;
    /** @type {HTMLElement} */
    this.lineTitle;
    /** @type {HTMLElement} */
    this.lineBox;
    /** @type {BarList[]} */
    this.bars;
    /** @type {HTMLElement} */
    this.compare;
    /** @type {HTMLElement} */
    this.why;
    /** @type {HTMLElement} */
    this.toggle;
    /** @type {number} */
    this.k;
    /** @type {HTMLElement[]} */
    this.barTitles;
    /** @type {import('../../types/index.js').ScaleDemo | undefined} the random-vector experiment (demo) */
    this.demoRun;
    /** @type {{before: number, after: number}} the spread of the row shown (show) */
    this.rowSpread;
  }

  /** one step per row, then the followed row again with its softmax either way
   * @param {StageModel} model */
  units(model) {
    return rowSteps(model);
  }

  /** @param {StageModel} model */
  view(model) {
    return tokenMapView(this.ctx.t, model.result, model.state.head, 'scaled');
  }

  /** @param {StageModel} model */
  update(model) {
    // a new token count is refreshed in place: the table, bars and number line follow n
    const shape = (/** @type {StageModel} */ m) => [
      m.state.head,
      m.result.config.scale,
      m.result.config.d_k,
    ];
    if (!refreshStage(this, model, shape, (m) => [[this.sc, this.view(m)]])) return false;
    this.fill();
    this.extras.update(model);
    return true;
  }

  /** @param {StageModel} model */
  render(model) {
    const { t } = this.ctx;
    const tr = model.result;
    this.model = model;
    this.sc = matrixView(...this.view(model));
    this.facts = el('ul', { class: 'facts' });
    this.line = new NumberLine(tr.config.n);
    this.lineTitle = el('h4');
    this.lineBox = el('figure', { class: 'scale-line' }, [this.lineTitle, this.line.el]);
    const bars = tr.config.scale ? 2 : 1; // no scaling: one chart (two would be the same)
    this.bars = Array.from({ length: bars }, () => new BarList());
    this.barTitles = this.bars.map(() => el('h4'));
    this.compare = el(
      'div',
      { class: 'compare' },
      this.bars.map((b, i) => el('div', {}, [this.barTitles[i], b.el])),
    );
    this.why = el('p', { class: 'hint' });
    this.toggle = el('button', {
      type: 'button',
      class: 'action small',
      text: t(tr.config.scale ? 'scale.turnOff' : 'scale.turnOn'),
      on: { click: () => this.ctx.actions.setSetting('scale', !tr.config.scale) },
    });
    this.root.replaceChildren(
      this.extras.links, // buttons that open the pictures under the stage
      this.facts,
      this.lineBox,
      el('div', { class: 'row-blocks' }, [
        matrixBlock(
          t(tr.config.scale ? 'scale.title' : 'scale.titleOff'),
          `${tr.config.n} × ${tr.config.n}`,
          this.sc,
          t('orient'),
          t,
        ),
      ]),
      this.compare,
      el('p', { class: 'hint' }, [this.why, ' ', this.toggle]),
      this.extras.el,
    );
    this.fill();
    this.extras.update(model);
  }

  // the followed row's spread before and after, and what softmax makes of it either way
  fill() {
    const { core, t } = this.ctx;
    const model = this.model;
    const tr = model.result;
    const head = tr.heads[model.state.head];
    const q = model.state.q;
    const labels = model.result.tokens;
    // over the keys the query can see: the causal mask hides the others from both rows
    const masked = rowOf(head.masked, q);
    const raw = Float32Array.from(rowOf(head.scores, q), (v, j) =>
      masked[j] === -Infinity ? -Infinity : v,
    );
    const before = core.finiteRange(raw);
    const after = core.finiteRange(masked);
    const temp = tr.config.temperature;
    const wRaw = core.softmaxSteps(raw, temp).weights;
    const wScaled = rowOf(head.weights, q); // the trace's own weights: what the page goes on with
    const top = (/** @type {Iterable<number>} */ w) => Math.max(...w);
    const data = {
      head: model.state.head,
      q,
      before,
      after,
      topRaw: top(wRaw),
      topScaled: top(wScaled),
    };
    const root = fmt(
      core.dotSteps(
        new Float32Array(tr.config.d_k).fill(1),
        new Float32Array(tr.config.d_k).fill(1),
      ).norm_q,
      3,
    );
    this.facts.replaceChildren(
      el('li', {
        text: tr.config.scale
          ? t('scale.factor', { dk: tr.config.d_k, f: fmt(tr.config.scale_factor, 4) })
          : t('scale.off', { dk: tr.config.d_k }),
      }),
      tr.config.scale
        ? this.spreadItem({ tok: labels[q], before: fmt(before, 3), after: fmt(after, 3) }, data)
        : el('li', { text: t('scale.spreadOff', { tok: labels[q], before: fmt(before, 3) }) }),
    );
    if (tr.config.scale) {
      setText(this.barTitles[0], t('scale.withoutBars', { top: pct(top(wRaw)) }));
      setText(this.barTitles[1], t('scale.withBars', { top: pct(top(wScaled)) }));
      this.ctx.later.refresh(this.bars[0], labels, [...wRaw], { max: 1, asPct: true });
      this.ctx.later.refresh(this.bars[1], labels, [...wScaled], { max: 1, asPct: true });
    } else {
      setText(this.barTitles[0], t('scale.onlyBars', { top: pct(top(wRaw)) }));
      this.ctx.later.refresh(this.bars[0], labels, [...wRaw], { max: 1, asPct: true });
    }
    // the lesson ("scaling keeps the weights graded") holds on this row only if the scaled row is
    // graded; a trained head can be all or nothing either way, and then the stage says so and
    // gives the random-vector experiment's numbers, which do show it
    const saturated = tr.config.scale && data.topScaled >= SATURATED;
    const demo = saturated ? this.demo(tr.config.n) : null;
    const demoVars = demo && {
      dk: DEMO_DK,
      keys: demo.keys,
      rows: demo.rows,
      demoRaw: pct(demo.top_raw),
      demoScaled: pct(demo.top_scaled),
    };
    setText(
      this.why,
      saturated
        ? t('scale.saturated', {
            raw: pct(data.topRaw),
            scaled: pct(data.topScaled),
            root,
            ...demoVars,
          })
        : tr.config.scale
          ? t('scale.why')
          : t('scale.whyOff', { dk: tr.config.d_k, root }),
    );
    this.why.dataset.lesson = saturated ? 'saturated' : 'shown';
    this.summaryData = data;
    this.saturated = saturated;
    this.demoVars = demoVars;
    this.summary = {
      tok: labels[q],
      before: fmt(before, 3),
      after: fmt(after, 3),
      topRaw: pct(top(wRaw)),
      topScaled: pct(top(wScaled)),
      top: pct(top(wRaw)),
    };
  }

  /** the "why √d_k" experiment at DEMO_DK with this sentence's number of keys (the core's numbers;
   * one run per key count)
   * @param {number} n */
  demo(n) {
    const keys = Math.max(2, n);
    if (this.demoRun?.keys !== keys)
      this.demoRun = this.ctx.core.scaleDemo(
        DEMO_DK,
        keys,
        DEMO_ROWS,
        this.model.result.config.seed,
      );
    return this.demoRun;
  }

  /** the spread sentence, with its numbers in data-says for the narration test
   * @param {Record<string, unknown>} vars @param {Record<string, unknown>} data */
  spreadItem(vars, data) {
    const li = el('li');
    setSays(li, says(this.ctx.t, 'scale.spread', vars, data));
    return li;
  }

  /** which row step k is about: rows in order, then the followed one
   * @param {number} k */
  rowAt(k) {
    const n = this.model.result.config.n;
    return k >= 1 && k <= n ? k - 1 : this.model.state.q;
  }

  /** @param {number} k */
  show(k) {
    this.k = k;
    const { core, t } = this.ctx;
    const tr = this.model.result;
    const n = tr.config.n;
    this.sc.revealRows(Math.min(k, n));
    const r = this.rowAt(k);
    this.sc.mark('row', k >= 1 ? [r] : []);
    const head = tr.heads[this.model.state.head];
    const raw = rowOf(head.scores, r);
    const scaled = rowOf(head.scaled, r);
    const labels = this.model.result.tokens;
    this.rowSpread = { before: core.finiteRange(raw), after: core.finiteRange(scaled) };
    setText(
      this.lineTitle,
      t(tr.config.scale ? 'scale.lineTitle' : 'scale.lineTitleOff', {
        tok: labels[r],
        dk: tr.config.d_k,
      }),
    );
    this.line.draw({
      r,
      raw,
      scaled,
      labels,
      head: this.model.state.head,
      scale: tr.config.scale,
      spread: this.rowSpread,
      t,
      key: `${r}|${k}`,
      still: this.still,
    });
    this.compare.classList.toggle('pending', k >= 1 && k <= n);
    // the followed row's weights wait for the learner's guess in the softmax stage
    veil(this.compare, !!this.ctx.asking?.(), t('veil.bars', { tok: labels[this.model.state.q] }));
  }

  /** @param {number} k */
  active(k) {
    const r = this.rowAt(k);
    const cell = this.sc.cell(r, 0);
    return [this.line.el, cell.isConnected ? cell : this.sc.table];
  }

  /** @param {number} k */
  narrate(k) {
    const tr = this.model.result;
    const r = this.rowAt(k);
    const tok = this.model.result.tokens[r];
    if (k === 0)
      return this.ctx.t(tr.config.scale ? 'narr.scaleStart' : 'narr.scaleStartOff', {
        dk: tr.config.d_k,
        f: fmt(tr.config.scale_factor, 4),
      });
    if (k <= tr.config.n) {
      const p = { tok, before: fmt(this.rowSpread.before, 3), after: fmt(this.rowSpread.after, 3) };
      return this.ctx.t(tr.config.scale ? 'narr.scaleRow' : 'narr.scaleRowOff', p);
    }
    const key = tr.config.scale
      ? this.saturated
        ? 'narr.scaleSaturated'
        : 'narr.scale'
      : 'narr.scaleOff';
    return says(this.ctx.t, key, { ...this.summary, ...this.demoVars }, this.summaryData);
  }
}

// One row of scores as dots on a number line (top), and the same row after ÷√d_k (bottom): the
// bottom dots start where the top ones are and slide to their scaled places. Positions are
// layout (value → x); the values and spreads are given.
class NumberLine {
  /** @param {number} n */
  constructor(n) {
    this.svg = svg('svg', { viewBox: `0 0 ${LW} 96`, class: 'nline', role: 'img' });
    this.axis = [
      svg('line', { x1: LEFT, x2: LW - PAD, y1: 22, y2: 22, class: 'nl-axis' }),
      svg('line', { x1: LEFT, x2: LW - PAD, y1: 70, y2: 70, class: 'nl-axis' }),
    ];
    this.zero = svg('line', { y1: 14, y2: 78, class: 'nl-zero' });
    this.spans = [
      svg('line', { y1: 34, y2: 34, class: 'nl-span' }),
      svg('line', { y1: 82, y2: 82, class: 'nl-span' }),
    ];
    this.spanText = [
      svg('text', { y: 46, class: 'nl-spantext', 'text-anchor': 'middle' }),
      svg('text', { y: 94, class: 'nl-spantext', 'text-anchor': 'middle' }),
    ];
    this.names = [
      svg('text', { x: 0, y: 26, class: 'nl-name' }),
      svg('text', { x: 0, y: 74, class: 'nl-name' }),
    ];
    this.ticks = [
      svg('text', { x: LEFT, y: 10, class: 'nl-tick', 'text-anchor': 'start' }),
      svg('text', { x: LW - PAD, y: 10, class: 'nl-tick', 'text-anchor': 'end' }),
    ];
    this.svg.append(
      ...this.axis,
      this.zero,
      ...this.spans,
      ...this.spanText,
      ...this.names,
      ...this.ticks,
    );
    /** @type {SVGElement[]} a line from each key's score to its scaled score */
    this.links = [];
    /** @type {SVGElement[]} the scores' dots */
    this.top = [];
    /** @type {SVGElement[]} the scaled scores' dots */
    this.bottom = [];
    this.el = el('div', { class: 'nline-box' }, [this.svg]);
    this.resize(n);
    /** @type {string | undefined} the drawing whose animation last played */
    this.last;
  }

  /** @param {number} n */
  resize(n) {
    while (this.top.length < n) {
      const link = svg('line', { class: 'nl-link', y1: 22, y2: 70 });
      const a = svg('circle', { r: 5, cy: 22, class: 'nl-dot nl-raw' });
      const b = svg('circle', { r: 5, cy: 70, class: 'nl-dot nl-scaled' });
      this.svg.append(link, a, b);
      this.links.push(link);
      this.top.push(a);
      this.bottom.push(b);
    }
    while (this.top.length > n) {
      this.links.pop()?.remove();
      this.top.pop()?.remove();
      this.bottom.pop()?.remove();
    }
  }

  /** Row r's scores (raw) and scaled scores as dots on one number line.
   * @param {{r: number, raw: Float32Array, scaled: Float32Array, labels: readonly string[],
   *   head: number, scale: boolean, spread: {before: number, after: number}, t: Translate,
   *   key: string, still: boolean}} o key: what is drawn (a new one replays the animation) */
  draw({ r, raw, scaled, labels, head, scale, spread, t, key, still }) {
    const n = raw.length;
    this.resize(n);
    let m = 1e-9;
    for (let j = 0; j < n; j++) if (Number.isFinite(raw[j])) m = Math.max(m, Math.abs(raw[j]));
    const mid = (LEFT + LW - PAD) / 2;
    const x = (/** @type {number} */ v) => mid + (v / m) * (mid - LEFT);
    writeOnce(this.zero, 'x1', x(0));
    writeOnce(this.zero, 'x2', x(0));
    writeOnce(this.ticks[0], 'text', fmt(-m, 1));
    writeOnce(this.ticks[1], 'text', fmt(m, 1));
    writeOnce(this.names[0], 'text', t('scale.lineRaw'));
    writeOnce(this.names[1], 'text', t(scale ? 'scale.lineScaled' : 'scale.lineScaledOff'));
    const range = (/** @type {Iterable<number>} */ vals) => {
      let lo = Infinity;
      let hi = -Infinity;
      for (const v of vals)
        if (Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      return [lo, hi];
    };
    /** @type {[Float32Array, number][]} */
    const tracks = [
      [raw, spread.before],
      [scaled, spread.after],
    ];
    tracks.forEach(([vals, s], i) => {
      const [lo, hi] = range(vals);
      writeOnce(this.spans[i], 'x1', x(lo));
      writeOnce(this.spans[i], 'x2', x(hi));
      writeOnce(this.spanText[i], 'x', (x(lo) + x(hi)) / 2);
      writeOnce(this.spanText[i], 'text', t('scale.lineSpread', { s: fmt(s, 3) }));
    });
    const restart = this.last !== key;
    this.last = key;
    for (let j = 0; j < n; j++) {
      const a = this.top[j];
      const b = this.bottom[j];
      /** @type {[Element, string, number][]} */
      const dots = [
        [a, 'scores', raw[j]],
        [b, 'scaled', scaled[j]],
      ];
      for (const [c, name, v] of dots) {
        writeOnce(c, 'data-matrix', name);
        writeOnce(c, 'data-head', head);
        writeOnce(c, 'data-row', r);
        writeOnce(c, 'data-col', j);
        writeOnce(c, 'data-value', v);
      }
      const xa = x(raw[j]);
      const xb = x(scaled[j]);
      writeOnce(a, 'cx', xa);
      writeOnce(b, 'cx', xb);
      writeOnce(this.links[j], 'x1', xa);
      writeOnce(this.links[j], 'x2', xb);
      // the scaled dot slides in from above its unscaled place (CSS; none under reduced motion)
      b.style.setProperty('--from', `${(xa - xb).toFixed(2)}px`);
      writeOnce(a, 'role', 'img'); // aria-label is allowed on an svg shape only with a role
      writeOnce(a, 'aria-label', `${labels[j]} ${fmt(raw[j], 3)}`);
    }
    if (restart) replay(this.svg, still);
    writeOnce(
      this.svg,
      'aria-label',
      t('scale.lineLabel', {
        tok: labels[r],
        before: fmt(spread.before, 3),
        after: fmt(spread.after, 3),
      }),
    );
  }
}
