// project.js: stage 3. Q = X W_Q, K = X W_K, V = X W_V for the chosen head, animated cell by cell
// as row-times-column: row i of X meets column c of W, and the products add up to one number.
// Q's first cell is taken apart in four steps (the row meets the column, the products, their sum,
// the sum lands in the cell); then the rest of that row lands in one step and every other row in
// one more, each with one of its cells worked out in the sum box. K and V are the same operation
// with another W: their first cell's products and sum come in one step, then every other cell.
// Any cell can still be picked to see its sum. The products come from core.dotSteps; the cells
// from the trace.
import { el, setText, writeOnce, says } from './dom.js';
import { fmt, rowOf, colOf } from './format.js';
import { matrixBlock } from './matrix-table.js';
import { productEquation, sumEquation } from './equation.js';
import { LayerInputPanel } from './layer-input.js';
import { matrixView, refreshStage } from './heatmap.js';
import { StageExtras } from './stage-extras.js';
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */
/** @typedef {import('./heatmap.js').ViewArgs} ViewArgs */
/** @typedef {import('./heatmap.js').ViewPair} ViewPair */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */

/** @type {readonly ('Q' | 'K' | 'V')[]} */
const ROLES = ['Q', 'K', 'V'];
/** Dimensions shown of X and W, and components of Q, K, V, before "… more". */
const DIMS = 6;
/** Token rows shown of X and Q, K, V: a window that follows the row being computed. */
const ROWS = 10;
/** Terms of the sum written out before the last one (the rest are "… more"). */
const TERMS = 4;
/** @typedef {import('../../types/index.js').Head} Head */
/** @typedef {'meet' | 'multiply' | 'sum' | 'land' | 'row' | 'rest' | 'once' | 'all'} Phase */
/** Q's first cell's steps; 'row' lands the rest of its row, 'rest' the other rows.
 *  @type {Phase[]} */
const FIRST = ['meet', 'multiply', 'sum', 'land'];
/** K's and V's steps: 'once' their first cell whole (products, sum, landing), 'all' the rest.
 *  @type {Phase[]} */
const AGAIN = ['once', 'all'];
/** ms (at speed 1) that playing stays on each step: long enough to read its sentence
 *  @type {Record<Phase, number>} */
const HOLD_MS = {
  meet: 1800,
  multiply: 1800,
  sum: 1800,
  land: 1800,
  row: 2400,
  rest: 2400,
  once: 2400,
  all: 2400,
};
/** Cells of Q, K or V (row-major) filled once a step is shown.
 *  @type {Record<Phase, (n: number, dK: number) => number>} */
const FILLED = {
  meet: () => 0,
  multiply: () => 0,
  sum: () => 0,
  land: () => 1,
  row: (n, dK) => dK,
  rest: (n, dK) => n * dK,
  once: () => 1,
  all: (n, dK) => n * dK,
};

/** The stage's steps, [{role, phase}] in order. Q: its first cell's four, then the rest of its
 *  row and the other rows (when there are any). K and V: the operation is known by then, so
 *  their first cell in one step and every other cell in one more. n tokens, d_k components.
 * @param {number} n @param {number} dK @returns {{role: number, phase: Phase}[]} */
function stepsOf(n, dK) {
  /** @type {Phase[]} */
  const q = [...FIRST];
  if (dK > 1) q.push('row');
  if (n > 1) q.push('rest');
  const again = n * dK > 1 ? AGAIN : AGAIN.slice(0, 1);
  return ROLES.flatMap((_, role) => (role === 0 ? q : again).map((phase) => ({ role, phase })));
}

export class ProjectStage {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions' | 'later' | 'core' | 'layers'>} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.role = 0;
    /** @type {[number, number] | null} the cell the learner picked */
    this.sel = null;
    this.extras = new StageExtras(['analogy'], ctx); // the library analogy, under the stage
    this.layerIn = new LayerInputPanel(ctx); // where this X comes from, above the stage
    /** @type {StageModel} the model drawn (render) */
    this.model;
    /** @type {number} the step shown */
    this.k;
    /** @type {MatrixView} X (render builds the views) */
    this.x;
    /** @type {MatrixView[]} W_Q, W_K, W_V */
    this.w;
    /** @type {MatrixView[]} Q, K, V */
    this.out;
    /** @type {HTMLElement[]} the role tabs (render) */
    this.tabs;
    /** @type {HTMLElement[]} */
    this.wBlocks;
    /** @type {HTMLElement[]} */
    this.oBlocks;
    /** @type {HTMLElement} the sum box (render) */
    this.calc;
    /** the sum box's parts (buildCalc), null until built
     * @type {ReturnType<ProjectStage['calcParts']> | null} */
    this.cc = null;
  }

  /** While playing, every step stays on screen long enough to read its sentence.
   * @param {number} k @param {StageModel} model */
  holdOf(k, model) {
    const { n, d_k: dK } = model.result.config;
    const step = stepsOf(n, dK)[k];
    return step ? HOLD_MS[step.phase] : 0;
  }

  /** @param {StageModel} model */
  units(model) {
    const { n, d_k: dK } = model.result.config;
    return stepsOf(n, dK).length;
  }

  /** the matrices shown, as matrixView's arguments (render builds them, update refreshes them);
   * compact: the first DIMS dimensions of X and W and a window of DIMS components of Q, K, V
   * @param {StageModel} model @returns {{x: ViewArgs, w: ViewArgs[], out: ViewArgs[]}} */
  views(model) {
    const { t } = this.ctx;
    const tr = model.result;
    const h = model.state.head;
    const head = tr.heads[h];
    const labels = model.result.tokens;
    const dims = Array.from({ length: tr.config.d_model }, (_, c) => `d${c + 1}`);
    const kdims = Array.from({ length: tr.config.d_k }, (_, c) => `${c + 1}`);
    const window = { cols: DIMS, rows: DIMS };
    return {
      x: [
        tr.X,
        {
          t,
          name: 'X',
          tokenRows: true,
          rowLabels: labels,
          colLabels: dims,
          corner: 'i \\ d',
          window: { cols: DIMS, rows: ROWS },
        },
      ],
      w: ROLES.map((r) => [
        weightOf(head, r),
        { t, name: `W_${r}`, head: h, rowLabels: dims, colLabels: kdims, corner: 'd \\ c', window },
      ]),
      out: ROLES.map((r) => [
        head[r],
        {
          t,
          name: r,
          head: h,
          tokenRows: true,
          rowLabels: labels,
          colLabels: kdims,
          corner: 'i \\ c',
          window: { cols: DIMS, rows: ROWS },
          onSelect: (/** @type {number} */ i, /** @type {number} */ c) => {
            this.sel = [i, c];
            this.show(this.k);
            this.ctx.actions.announce(this.narrate(this.k));
          },
        },
      ]),
    };
  }

  /** @param {StageModel} model */
  update(model) {
    const ok = refreshStage(
      this,
      model,
      (m) => [m.state.head, m.result.layer], // another layer: X's label changes, so build again
      (m) => {
        const v = this.views(m);
        /** @type {ViewPair[]} */
        const pairs = [[this.x, v.x]];
        this.w.forEach((w, i) => pairs.push([w, v.w[i]]));
        this.out.forEach((o, i) => pairs.push([o, v.out[i]]));
        return pairs;
      },
    );
    if (ok && this.sel && this.sel[0] >= model.result.config.n) this.sel = null;
    if (ok) {
      this.extras.update(model);
      this.layerIn.render(model);
    }
    return ok;
  }

  /** the stage's introduction: a model with biases (GPT-2, BERT) adds one to every column
   * @param {StageModel} model */
  whatKey(model) {
    return model.result.heads[0]?.b_Q ? 'stage.project.whatBias' : null;
  }

  /** @param {StageModel} model */
  render(model) {
    const { t } = this.ctx;
    const tr = model.result;
    this.model = model;
    this.sel = null;
    const v = this.views(model);
    this.x = matrixView(...v.x);
    this.w = v.w.map((a) => matrixView(...a));
    this.out = v.out.map((a) => matrixView(...a));
    this.tabs = ROLES.map((r, idx) =>
      el(
        'button',
        {
          class: `role role-${r}`,
          type: 'button',
          role: 'tab',
          'aria-selected': String(idx === this.role),
          on: {
            click: () => {
              this.role = idx;
              this.sel = null;
              this.ctx.actions.scrubTo(this.units(this.model));
              this.show(this.k);
            },
          },
        },
        [el('strong', { text: r }), el('span', { text: t(`project.role${r}`) })],
      ),
    );
    this.wBlocks = this.w.map((w, idx) =>
      matrixBlock(`W_${ROLES[idx]}`, `${tr.config.d_model} × ${tr.config.d_k}`, w, null, t),
    );
    this.oBlocks = this.out.map((o, idx) =>
      matrixBlock(
        `${ROLES[idx]} = X·W_${ROLES[idx]}`,
        `${tr.config.n} × ${tr.config.d_k}`,
        o,
        t('project.orient'),
        t,
      ),
    );
    this.calc = el('div', { class: 'calc', 'aria-live': 'off' });
    this.cc = null;
    // the classic picture of a matrix product: W above the result, X to its left, so that row i
    // of X and column c of W meet at cell (i, c); the sum being formed sits in the free corner
    this.root.replaceChildren(
      this.extras.links, // buttons that open the pictures under the stage
      this.layerIn.render(model),
      el('div', { class: 'tabs', role: 'tablist', 'aria-label': t('project.roles') }, this.tabs),
      el('div', { class: 'proj-grid' }, [
        el('div', { class: 'pg-calc' }, [this.calc]),
        el('div', { class: 'pg-w' }, this.wBlocks),
        el('div', { class: 'pg-x' }, [
          matrixBlock(
            tr.layer == null ? t('embeddings.x') : t('project.xLayer', { l: tr.layer + 1 }),
            `${tr.config.n} × ${tr.config.d_model}`,
            this.x,
            null,
            t,
          ),
        ]),
        el('div', { class: 'pg-out' }, this.oBlocks),
      ]),
      this.extras.el,
    );
    this.extras.update(model);
  }

  /** which role and which phase step k is at, and how many of the role's cells (row-major) are
   * filled after it: the first cell's steps fill none until it lands, 'row' fills row 0, 'rest'
   * and 'all' every cell
   * @param {number} k */
  where(k) {
    const { n, d_k: dK } = this.model.result.config;
    const step = stepsOf(n, dK)[k];
    /** @type {{role: number, phase: Phase | 'done', filled: number}} */
    const done = { role: this.role, phase: 'done', filled: n * dK };
    if (!step) return done;
    return { ...step, filled: FILLED[step.phase](n, dK) };
  }

  /** the cell step k is about (a picked cell wins): the first cell; at 'row' the row's last cell in
   * the compact window; at 'rest' the followed token's first component (another row's, when the
   * followed token is the first)
   * @param {number} k @returns {[number, number]} */
  cellAt(k) {
    if (this.sel) return this.sel;
    const { n, d_k: dK } = this.model.result.config;
    const { phase } = this.where(k);
    const q = this.model.state.q;
    if (phase === 'row') return [0, Math.min(DIMS, dK) - 1];
    if (phase === 'rest' || phase === 'all') return [q > 0 && q < n ? q : n - 1, 0];
    if (phase === 'done') return [Math.min(q, n - 1), 0];
    return [0, 0];
  }

  /** @param {number} k */
  show(k) {
    this.k = k;
    const { role, phase, filled } = this.where(k);
    this.tabs.forEach((b, i) => b.setAttribute('aria-selected', String(i === role)));
    this.wBlocks.forEach((b, i) => {
      b.hidden = i !== role;
    });
    this.oBlocks.forEach((b, i) => {
      b.hidden = i !== role;
    });
    const out = this.out[role];
    // the first cell is filled once its sum lands (a picked cell is shown whole)
    out.reveal(this.sel ? Math.max(filled, 1) : filled);
    const [i, c] = this.cellAt(k);
    out.moveWindow?.(c, i);
    this.w[role].moveWindow?.(c);
    this.x.moveWindow?.(0, i);
    this.x.mark('row', [i]);
    this.w[role].mark('col', [c]);
    out.mark('cell', [[i, c]]);
    // the sum box's phase: how much of the sum shows, and what comes in ('once': all of it, the
    // products one after another, then the sum)
    const calcPhase = this.sel
      ? 'land'
      : (phase !== 'done' && FIRST.includes(phase)) || phase === 'once'
        ? phase
        : 'land';
    this.renderCalc(role, i, c, calcPhase);
  }

  /** the sum being formed is what the first cell's steps compute; the cell, once it lands. Its
   * inputs: row i of X and column c of W (their labels), or, where the grid is one column (a
   * phone) and X and W sit below Q, their copies in the sum box next to the cell
   * @param {number} k */
  active(k) {
    const [i, c] = this.cellAt(k);
    const { role, phase } = this.where(k);
    const cell = this.out[role].cell(i, c);
    // a table's row and column labels (a heatmap, past the table size, has none)
    const x = /** @type {any} */ (this.x);
    const w = /** @type {any} */ (this.w[role]);
    const oneColumn = matchMedia('(max-width: 1000px)').matches || !x.rowHeads || !w.colHeads;
    const inputs = oneColumn ? [this.cc?.xsRow, this.cc?.wsRow] : [x.rowHeads[i], w.colHeads[c]];
    const forming = !this.sel && ['meet', 'multiply', 'sum'].includes(phase);
    return forming ? [this.calc, ...inputs, cell] : [cell, ...inputs, this.calc];
  }

  /** The sum box's elements for d_model terms (buildCalc puts them together).
   * @param {number} dModel */
  calcParts(dModel) {
    const shown = dModel <= TERMS + 1 ? dModel : TERMS + 1;
    const cols = () => Array.from({ length: shown }, () => el('td'));
    return {
      dModel,
      title: el('p', { class: 'calc-title' }),
      xHead: el('th'),
      wHead: el('th'),
      dims: Array.from({ length: shown }, () => el('th')),
      x: cols(),
      w: cols(),
      p: cols(),
      sum: el('p', { class: 'calc-result' }),
      more: el('p', { class: 'hint calc-more' }),
      all: el('p', { class: 'calc-sum' }),
      gap: dModel > shown ? el('th', { class: 'gap', text: '…' }) : null,
      /** @type {HTMLElement} X's row (buildCalc) */
      xsRow: el('tr'),
      /** @type {HTMLElement} W's column (buildCalc) */
      wsRow: el('tr'),
      /** @type {HTMLElement} the terms' table (buildCalc) */
      table: el('table'),
      /** @type {HTMLDetailsElement} every term, one click away (buildCalc) */
      toggle: el('details'),
    };
  }

  /** The sum being formed, built once and rewritten in place: row i of X and column c of W as two
   * rows of numbers, their products under them, the first TERMS dimensions and the last, then
   * their sum (the cell of the trace) landing in Q, K or V. All 32 terms are one click away.
   * @param {number} dModel */
  buildCalc(dModel) {
    const { t } = this.ctx;
    const cc = this.calcParts(dModel);
    const gapCell = () => (cc.gap ? el('td', { class: 'gap', text: '…' }) : null);
    /** @param {HTMLElement} head @param {HTMLElement[]} cells @param {string} cls */
    const row = (head, cells, cls) =>
      el('tr', { class: cls }, [head, ...cells.slice(0, TERMS), gapCell(), ...cells.slice(TERMS)]);
    cc.p.forEach((td, n) => td.style.setProperty('--c', String(n)));
    cc.xsRow = row(cc.xHead, cc.x, 'xs');
    cc.wsRow = row(cc.wHead, cc.w, 'ws');
    cc.table = el('table', { class: 'dot terms' }, [
      el('thead', {}, [
        el('tr', {}, [
          el('th', { text: 'd' }),
          ...cc.dims.slice(0, TERMS),
          cc.gap,
          ...cc.dims.slice(TERMS),
        ]),
      ]),
      el('tbody', {}, [cc.xsRow, cc.wsRow, row(el('th', { text: '×' }), cc.p, 'products')]),
    ]);
    cc.toggle = el('details', { class: 'calc-all' }, [
      el('summary', { text: t('project.allTerms', { n: dModel }) }),
      cc.all,
    ]);
    cc.toggle.addEventListener('toggle', () => this.show(this.k));
    this.calc.replaceChildren(
      cc.title,
      el('div', { class: 'scroller' }, [cc.table]),
      cc.sum,
      cc.more,
      cc.toggle,
    );
    this.cc = cc;
    return cc;
  }

  /** phase: how much of the sum is shown ('meet': the two rows; 'multiply': and the products;
   * 'sum', 'land' and 'once': and the sum). CSS hides what is not shown yet, so nothing moves.
   * @param {number} role @param {number} i @param {number} c @param {string} phase */
  renderCalc(role, i, c, phase) {
    const { core, t } = this.ctx;
    const tr = this.model.result;
    const head = tr.heads[this.model.state.head];
    const r = ROLES[role];
    const x = rowOf(tr.X, i);
    const w = colOf(weightOf(head, r), c);
    const d = core.dotSteps(x, w);
    const value = head[r].data[i * tr.config.d_k + c];
    const cc =
      !this.cc || this.cc.dModel !== tr.config.d_model
        ? this.buildCalc(tr.config.d_model)
        : this.cc;
    writeOnce(this.calc, 'data-phase', phase);
    const tok = this.model.result.tokens[i];
    setText(cc.title, t('project.cell', { r, tok, c: c + 1 }));
    setText(cc.xHead, `x ${tok}`);
    setText(cc.wHead, `W_${r}[·,${c + 1}]`);
    cc.dims.forEach((th, n) => {
      const dIdx = n < TERMS || cc.dims.length === tr.config.d_model ? n : tr.config.d_model - 1;
      setText(th, `d${dIdx + 1}`);
      // each column is x × w = product, with the decimals that make it check
      const e = productEquation(x[dIdx], w[dIdx], d.products[dIdx]);
      setText(cc.x[n], fmt(x[dIdx], e.digits));
      setText(cc.w[n], fmt(w[dIdx], e.digits));
      setText(cc.p[n], e.rel === '=' ? e.total : `≈ ${e.total}`);
      writeOnce(cc.x[n], 'data-eq', `c${n}:factor`);
      writeOnce(cc.w[n], 'data-eq', `c${n}:factor`);
      writeOnce(cc.p[n], 'data-eq', `c${n}:total`);
    });
    writeOnce(cc.sum, 'data-value', value);
    const b = biasOf(head, r, c);
    setText(
      cc.sum,
      b === undefined
        ? t('project.sum', { n: tr.config.d_model, v: fmt(value, 3), r, tok, c: c + 1 })
        : t('project.sumBias', {
            n: tr.config.d_model,
            eq: sumEquation([d.dot, b], value, 3).text,
            r,
            tok,
            c: c + 1,
          }),
    );
    setText(
      cc.more,
      tr.config.d_model > cc.dims.length
        ? t('project.moreTerms', { n: tr.config.d_model - cc.dims.length, d: tr.config.d_model })
        : '',
    );
    if (cc.toggle.open) {
      setText(
        cc.all,
        sumEquation(
          [...x].map((xv, n) => [xv, w[n]]),
          value,
        ).text,
      );
    }
  }

  /** @param {number} k */
  narrate(k) {
    const tr = this.model.result;
    const { role, phase } = this.where(k);
    const [i, c] = this.cellAt(k);
    const r = ROLES[role];
    const head = tr.heads[this.model.state.head];
    const value = head[r].data[i * tr.config.d_k + c];
    const tok = tr.tokens[i];
    const d = tr.config.d_model;
    if (!this.sel && phase === 'meet')
      return says(
        this.ctx.t,
        'narr.projectMeet',
        { r, tok, c: c + 1, d },
        { head: this.model.state.head, r, i, c },
      );
    if (!this.sel && phase === 'multiply') {
      const x = tr.X.data[i * d];
      const w = weightOf(head, r).data[c];
      const p = this.ctx.core.dotSteps([x], [w]).products[0];
      return says(
        this.ctx.t,
        'narr.projectMultiply',
        { r, tok, c: c + 1, d, eq: productEquation(x, w, p).text },
        { head: this.model.state.head, r, i, c, x, w, p },
      );
    }
    // Q's sum step and K's and V's one-step first cell say the same numbers in other words; a
    // model with biases (GPT-2, BERT) adds the bias to the sum, and the sentence says so
    const b = biasOf(head, r, c);
    if (!this.sel && (phase === 'sum' || phase === 'once')) {
      const key = phase === 'sum' ? 'narr.projectSum' : 'narr.projectOnce';
      if (b === undefined)
        return says(
          this.ctx.t,
          key,
          { r, tok, c: c + 1, d, v: fmt(value, 3) },
          { head: this.model.state.head, r, i, c, v: value },
        );
      const dot = this.ctx.core.dotSteps(rowOf(tr.X, i), colOf(weightOf(head, r), c)).dot;
      return says(
        this.ctx.t,
        `${key}Bias`,
        { r, tok, c: c + 1, d, v: fmt(value, 3), eq: sumEquation([dot, b], value, 3).text },
        { head: this.model.state.head, r, i, c, v: value, dot, b },
      );
    }
    const { n, d_k: dK } = tr.config;
    if (!this.sel && phase === 'all')
      return says(
        this.ctx.t,
        'narr.projectAll',
        { r, tok, c: c + 1, v: fmt(value, 3), cells: n * dK - 1, n, dk: dK },
        { head: this.model.state.head, r, i, c, v: value, cells: n * dK - 1 },
      );
    if (!this.sel && phase === 'row')
      return says(
        this.ctx.t,
        'narr.projectRow',
        { r, tok, c: c + 1, v: fmt(value, 3), m: dK - 1, dk: dK },
        { head: this.model.state.head, r, i, c, v: value, m: dK - 1 },
      );
    if (!this.sel && phase === 'rest')
      return says(
        this.ctx.t,
        'narr.projectRest',
        { r, tok, c: c + 1, v: fmt(value, 3), rows: n - 1, cells: (n - 1) * dK, n, dk: dK },
        { head: this.model.state.head, r, i, c, v: value, rows: n - 1, cells: (n - 1) * dK },
      );
    return says(
      this.ctx.t,
      b === undefined ? 'narr.project' : 'narr.projectBias',
      {
        r,
        tok: this.model.result.tokens[i],
        c: c + 1,
        v: fmt(value, 3),
        role: this.ctx.t(`project.role${r}`),
        d: tr.config.d_model,
      },
      { head: this.model.state.head, r, i, c, v: value },
    );
  }
}

/** the bias added to column c of X·W_r (b_Q, b_K, b_V of a real model), or undefined without one
 * @param {Head} head @param {'Q' | 'K' | 'V'} r @param {number} c */
function biasOf(head, r, c) {
  const b = head[`b_${r}`];
  return b ? b.data[c] : undefined;
}

/** W_Q, W_K or W_V of a head. @param {Head} head @param {'Q' | 'K' | 'V'} r */
function weightOf(head, r) {
  return head[`W_${r}`];
}
