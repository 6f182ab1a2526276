// softmax.js: stage 7. The followed row's softmax as the operation, one phase per step, from
// core.softmaxSteps: its scores, minus the largest, e to that power (bars grow to the exps), the
// sum, and each divided by the sum (bars grow to the weights). Before the weights are shown the
// learner may guess the token the row attends to most (predict.js). The full weight matrix shows
// each row's sum, which is 1. The softmax lab sits below.
import { el, setText, writeOnce } from './dom.js';
import { fmt, pct, rowOf } from './format.js';
import { wholeMatrix, matrixBlock, StripWindow } from './matrix-table.js';
import { BarList } from './readouts.js';
import { sumEquation } from './equation.js';
import { matrixView, refreshStage, tokenMapView } from './heatmap.js';
import { StageExtras } from './stage-extras.js';
import { Predict } from './predict.js';
import { taughtSentence } from './taught.js';
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */

const REVEAL = 4; // the step that shows the weights
// the step that asks for the guess: before e^x, whose bars already have the weights' shape
const ASK = 2;

export class SoftmaxStage {
  /** @param {HTMLElement} root
   *  @param {Pick<ViewContext, 't' | 'actions' | 'later' | 'core' | 'predictOn' | 'predictions' | 'sentence'>} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.extras = new StageExtras(['softmaxLab'], ctx);
    this.predict = new Predict(ctx);
    /** @type {StageModel} */
    this.model;
    /** @type {MatrixView} */
    this.w;
    /** @type {HTMLElement[]} */
    this.titles;
    /** @type {RowTable[]} */
    this.rows;
    /** @type {BarList[]} */
    this.bars;
    /** @type {HTMLElement} */
    this.sumLine;
    /** @type {number} */
    this.k;
    /** @type {HTMLElement[]} one section per phase (render) */
    this.phases;
    /** @type {import('../../types/index.js').SoftmaxSteps} the followed row's softmax, step by step (fill) */
    this.steps;
  }

  units() {
    return REVEAL;
  }

  /** @param {StageModel} model */
  view(model) {
    const tr = model.result;
    const h = model.state.head;
    const head = tr.heads[h];
    // row sums: a check on what is shown, not part of the computation
    const sums = new Float64Array(tr.config.n);
    const w = head.weights.data;
    for (let r = 0, i = 0; r < tr.config.n; r++)
      for (let c = 0; c < tr.config.n; c++, i++) sums[r] += w[i]; // no row views
    return tokenMapView(this.ctx.t, tr, h, 'weights', {
      weight: true,
      extra: { title: 'Σ', values: sums, name: 'rowsum' },
    });
  }

  /** @param {StageModel} model */
  update(model) {
    if (
      !refreshStage(
        this,
        model,
        (m) => [m.state.head, m.state.q],
        (m) => [[this.w, this.view(m)]],
      )
    )
      return false;
    this.fill();
    this.extras.update(model);
    return true;
  }

  /** @param {StageModel} model */
  render(model) {
    const { t } = this.ctx;
    const tr = model.result;
    this.model = model;
    this.w = matrixView(...this.view(model));
    this.titles = Array.from({ length: 5 }, () => el('h4'));
    this.rows = [new RowTable('input', t), new RowTable('shifted', t)];
    this.bars = [new BarList(), new BarList()];
    this.sumLine = el('p', { class: 'sm-sum', 'data-matrix': 'sum' });
    const parts = [
      [this.rows[0].el],
      [this.rows[1].el],
      [this.bars[0].el],
      [this.sumLine],
      [this.bars[1].el],
    ];
    this.phases = parts.map((p, i) =>
      el('section', { class: 'phase', 'data-phase': i }, [this.titles[i], ...p]),
    );
    this.root.replaceChildren(
      this.extras.links, // buttons that open the pictures under the stage
      this.predict.el,
      el('div', { class: 'phases' }, this.phases),
      // compact first: every row's weights are one click away; the stage works on one row
      wholeMatrix(
        t,
        matrixBlock(
          t('softmax.title'),
          `${tr.config.n} × ${tr.config.n}`,
          this.w,
          `${t('orient')} · Σ = ${t('softmax.sums')}`,
          t,
        ),
        t('softmax.title'),
      ),
      this.extras.el,
    );
    this.fill();
    this.extras.update(model);
  }

  // the followed row's five phases, from core.softmaxSteps (rewritten in place)
  fill() {
    const { core, t } = this.ctx;
    const model = this.model;
    const tr = model.result;
    const h = model.state.head;
    const q = model.state.q;
    const labels = model.result.tokens;
    this.steps = core.softmaxSteps(rowOf(tr.heads[h].masked, q), tr.config.temperature);
    const st = this.steps;
    const tempNote =
      tr.config.temperature !== 1 ? t('softmax.temp', { temp: fmt(tr.config.temperature) }) : '';
    const titles = [
      t('softmax.p0', { tok: labels[q] }),
      t('softmax.p1', { max: fmt(st.max, 3) }) + tempNote,
      t('softmax.p2'),
      t('softmax.p3', { sum: fmt(st.sum, 4) }),
      t('softmax.p4'),
    ];
    this.titles.forEach((e, i) => setText(e, titles[i]));
    // compact: both rows show the same keys, around the row's largest score (shifted to 0)
    const top = Math.max(0, [...st.input].indexOf(st.max));
    this.rows[0].update(labels, st.input, h, q, top);
    this.rows[1].update(labels, st.shifted, h, q, top);
    this.ctx.later.refresh(this.bars[0], labels, [...st.exps], {
      max: 1,
      name: 'exps',
      head: h,
      row: q,
    });
    this.ctx.later.refresh(this.bars[1], labels, [...st.weights], {
      max: 1,
      asPct: true,
      name: 'softmaxWeights',
      head: h,
      row: q,
    });
    // every term, or the first six and "…" (then the line is no equation to check: the sum is
    // the core's, of all of them)
    const few = st.exps.length <= 6;
    setText(
      this.sumLine,
      few
        ? sumEquation([...st.exps], st.sum, 4).text
        : t('softmax.sumLine', {
            terms: `${[...st.exps]
              .slice(0, 6)
              .map((x) => fmt(x, 3))
              .join(' + ')} + …`,
            sum: fmt(st.sum, 4),
          }),
    );
    writeOnce(this.sumLine, 'data-value', st.sum);
  }

  /** @param {number} k */
  show(k) {
    this.k = k;
    const m = this.model;
    const asking = this.predict.asking(m);
    // while the learner may still guess, e^x, the sum and the weights stay hidden (the question
    // takes their place): the bars of e^x already show which key will get the most
    const shown = asking ? Math.min(k, ASK - 1) : k;
    this.phases.forEach((p, i) => p.classList.toggle('pending', i > shown));
    this.phases.forEach((p, i) => p.classList.toggle('current', i === shown));
    this.phases.forEach((p, i) => p.classList.toggle('veiled', asking && i >= ASK)); // no space either
    const q = m.state.q;
    this.w.mark('row', [q]);
    for (let c = 0; c < m.result.config.n; c++)
      this.w.cell(q, c).classList.toggle('pending', shown < REVEAL);
    const h = m.state.head;
    this.predict.show(m, rowOf(m.result.heads[h].weights, q), h);
    // reaching the weights with a guess still open: the page waits for it (a click or Skip)
    if (asking && k >= ASK) this.ctx.actions.waitForGuess?.();
    this.root.dataset.phase = String(shown);
  }

  /** @param {number} k */
  active(k) {
    if (this.predict.asking(this.model) && k >= ASK) return [this.predict.el];
    return [this.phases[Math.min(k, REVEAL)]];
  }

  /** @param {number} k */
  narrate(k) {
    const labels = this.model.result.tokens;
    const q = this.model.state.q;
    if (k >= ASK && this.predict.asking(this.model))
      return this.ctx.t('narr.predict', { tok: labels[q] });
    const w = rowOf(this.model.result.heads[this.model.state.head].weights, q);
    if (k < REVEAL)
      return this.ctx.t(`narr.softmax${k}`, {
        tok: labels[q],
        max: fmt(this.steps.max, 3),
        sum: fmt(this.steps.sum, 4),
      });
    let best = 0;
    for (let j = 1; j < w.length; j++) if (w[j] > w[best]) best = j;
    // the first sentence that says where this head looks: whether it was taught to look there
    return (
      this.ctx.t('narr.softmax', { tok: labels[q], p: pct(w[best]), key: labels[best] }) +
      taughtSentence(this.ctx.t, this.model.result, this.model.state.head)
    );
  }
}

// one row of numbers under the token labels (a phase of the followed row), rewritten in place
class RowTable {
  /** @param {string} name @param {Translate} t */
  constructor(name, t) {
    this.name = name;
    this.head = el('tr');
    this.body = el('tr');
    this.win = new StripWindow(t);
    this.el = el('div', {}, [
      this.win.el,
      el('div', { class: 'scroller', tabindex: '0', role: 'group', 'aria-label': name }, [
        el('table', { class: 'dot' }, [el('thead', {}, [this.head]), el('tbody', {}, [this.body])]),
      ]),
    ]);
  }

  /** focus: a key column kept inside the compact window
   * @param {readonly string[]} labels @param {ArrayLike<number> & Iterable<number>} values
   * @param {number} head @param {number} row @param {number} [focus] */
  update(labels, values, head, row, focus = 0) {
    while (this.body.children.length > values.length) {
      this.body.lastElementChild?.remove();
      this.head.lastElementChild?.remove();
    }
    while (this.body.children.length < values.length) {
      this.head.append(el('th'));
      this.body.append(
        el('td', { 'data-matrix': this.name, 'data-col': this.body.children.length }),
      );
    }
    [...values].forEach((v, j) => {
      setText(this.head.children[j], labels[j]);
      const td = this.body.children[j];
      writeOnce(td, 'data-head', head);
      writeOnce(td, 'data-row', row);
      if (Object.is(td.apValue, v)) return; // compared in JS: reading dataset back makes garbage
      td.apValue = v;
      td.className = v === -Infinity ? 'neg-inf' : '';
      td.dataset.value = String(v);
      setText(td, fmt(v, 3));
    });
    this.win.set([this.head, this.body], 0, values.length, focus);
  }
}
