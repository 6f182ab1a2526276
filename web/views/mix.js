// mix.js: stage 8. The followed token's output is the weighted sum of the V rows, shown as the
// operation: step j takes key j's row V_j, scales it by its weight (w_j × V_j, the products from
// core.dotSteps of the weight row with each V column) and adds it to the output row, which grows
// ("so far", the core's sum over the keys added) until it equals the trace's output. A stacked bar
// shows each key's share. With many keys only the heaviest are stepped through; the last step adds
// the others together. Nothing is multiplied or added here.
import { el, setText, setWidth, writeOnce, says, setSays, replay } from './dom.js';
import { fmt, pct, rowOf, colOf, tint, maxAbsFinite } from './format.js';
import { wholeMatrix, matrixBlock } from './matrix-table.js';
import { fitFactors, sumEquation } from './equation.js';
import { matrixView, refreshStage } from './heatmap.js';
import { StageExtras } from './stage-extras.js';
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */
/** @typedef {import('./heatmap.js').ViewArgs} ViewArgs */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */

const NEAR_COPY = 0.9; // a top weight from here on: the output is called nearly one V row

/** One key's row of the table: its swatch and label, weight, V entries, "=", and its cells.
 * @typedef {{sw: HTMLElement, label: HTMLElement, w: HTMLElement, v: HTMLElement,
 *   eq: HTMLElement, cells: (HTMLElement & {apBg?: string})[], tr: HTMLElement,
 *   j?: number}} MixRow */

/** list grows with make(j) or shrinks (removing the dropped items' nodes) to n items
 * @param {(Element | {tr: Element})[]} list @param {number} n
 * @param {(j: number) => Element | {tr: Element}} make */
function resize(list, n, make) {
  while (list.length > n) {
    const x = /** @type {Element | {tr: Element}} the list is longer than n >= 0 */ (list.pop());
    ('tr' in x ? x.tr : x).remove();
  }
  while (list.length < n) list.push(make(list.length));
}

const MANY = 16; // more keys than this: the table lists the TOP heaviest
const TOP = 8;
const COMPACT = 8; // value columns shown before "… n more" (toggle for all); 1 on a phone
const compact = () => (matchMedia('(max-width: 600px)').matches ? 1 : COMPACT);

/** the c-th cell of a row animates a little after the one before it (CSS reads --c; set through
 * the CSSOM, which a strict style-src allows, unlike a style attribute)
 * @param {number} c */
/** @param {HTMLElement} td @param {number} c */
function staggered(td, c) {
  td.style.setProperty('--c', String(c));
  return td;
}

const PALETTE = [
  '#1d4ed8',
  '#b45309',
  '#047857',
  '#9333ea',
  '#be123c',
  '#0e7490',
  '#4d7c0f',
  '#a21caf',
];

export class MixStage {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions' | 'later' | 'core'>} ctx */
  constructor(root, ctx) {
    this.extras = new StageExtras(['context'], ctx); // the same word in two sentences
    this.still = false; // set by the walkthrough: this show() only refreshes (no replay)
    this.root = root;
    this.ctx = ctx;
    this.showAll = false;
    this.allDims = false;
    /** @type {StageModel} the model drawn (render) */
    this.model;
    /** @type {number} the value columns shown (render) */
    this.cols;
    /** @type {HTMLElement[]} the stacked bar's segments, one per key */
    this.segs = [];
    /** @type {MixRow[]} the table's rows, one per key shown */
    this.rows = [];
    /** @type {HTMLElement[]} the output row's cells (render) */
    this.outCells;
    /** @type {HTMLElement[]} the sum so far's cells (render) */
    this.soFarCells;
    /** @type {Float32Array} the followed row's weights (fill) */
    this.w;
    /** @type {number[]} the keys with a row (fill) */
    this.shown;
    /** @type {number[]} the keys added in one step (fill) */
    this.hidden;
    /** @type {Float32Array[]} V's columns (fill) */
    this.vcols;
    /** @type {MatrixView} every query's output (render) */
    this.out;
    /** @type {number} the step shown */
    this.k;
    /** @type {string | undefined} the step whose animation last played */
    this.last;
  }

  /** the keys shown (in sentence order) one by one, then the rest added at once (when hidden),
   * then the finished output row
   * @param {StageModel} model */
  units(model) {
    const n = model.result.config.n;
    return n > MANY && !this.showAll ? TOP + 2 : n + 1;
  }

  /** @param {StageModel} model @returns {ViewArgs} */
  view(model) {
    const tr = model.result;
    const h = model.state.head;
    const labels = model.result.tokens;
    const kdims = Array.from({ length: tr.config.d_k }, (_, c) => `${c + 1}`);
    return [
      tr.heads[h].output,
      {
        t: this.ctx.t,
        name: 'head_output',
        head: h,
        tokenRows: true,
        rowLabels: labels,
        colLabels: kdims,
        corner: 'i \\ c',
        window: { cols: COMPACT },
      },
    ];
  }

  /** @param {StageModel} model */
  update(model) {
    const shape = (/** @type {StageModel} */ m) => [m.state.head, m.result.config.d_k, m.state.q];
    if (!refreshStage(this, model, shape, (m) => [[this.out, this.view(m)]])) return false;
    this.fill();
    this.extras.update(model);
    return true;
  }

  /** @param {StageModel} model */
  render(model) {
    const { t } = this.ctx;
    const tr = model.result;
    this.model = model;
    const cols = this.allDims ? tr.config.d_k : Math.min(compact(), tr.config.d_k);
    this.cols = cols;
    const moreDims = tr.config.d_k > cols;
    this.stack = el('div', { class: 'stack', role: 'img' });
    this.segs = [];
    this.rows = [];
    this.moreText = el('span');
    this.moreButton = el('button', {
      class: 'action small',
      type: 'button',
      on: {
        click: () => {
          this.showAll = !this.showAll;
          this.ctx.actions.rerender?.();
        },
      },
    });
    this.moreRow = el('tr', { class: 'more' }, [
      el('td', { colspan: 5 + cols + (moreDims ? 1 : 0) }, [this.moreText, ' ', this.moreButton]),
    ]);
    this.body = el('tbody', {}, [this.moreRow]);
    const outCell = (/** @type {string} */ name, /** @type {number} */ c) =>
      el('td', { 'data-matrix': name, 'data-col': c });
    this.outCells = Array.from({ length: cols }, (_, c) => outCell('output', c));
    this.soFarCells = Array.from({ length: cols }, (_, c) => outCell('outputSoFar', c));
    // the output row's label stays in the first column (wrapping): across five columns it was
    // wider than a phone's screen
    this.outHead = el('th', { scope: 'row', class: 'out-head' });
    this.soFarHead = el('th', { scope: 'row', colspan: 5 });
    this.caption = el('caption');
    this.title = el('h4');
    this.dimsButton = el('button', {
      class: 'action small',
      type: 'button',
      hidden: tr.config.d_k <= cols && !this.allDims,
      text: t(this.allDims ? 'mix.fewerDims' : 'mix.allDims', { n: tr.config.d_k, k: compact() }),
      on: {
        click: () => {
          this.allDims = !this.allDims;
          this.ctx.actions.rerender?.();
        },
      },
    });
    const dimHeads = Array.from({ length: cols }, (_, c) => el('th', { text: `c${c + 1}` }));
    const restHead = moreDims
      ? el('th', { class: 'rest', text: t('mix.moreDims', { n: tr.config.d_k - cols }) })
      : null;
    this.table = el('table', { class: 'mix' }, [
      this.caption,
      el('thead', {}, [
        el('tr', {}, [
          el('th', { text: t('mix.key') }),
          el('th', { text: t('mix.weight') }),
          el('th'),
          el('th', { text: 'V_j' }),
          el('th'),
          ...dimHeads,
          restHead,
        ]),
      ]),
      this.body,
      el('tfoot', {}, [
        (this.soFarRow = el('tr', { class: 'sofar' }, [
          this.soFarHead,
          ...this.soFarCells,
          moreDims ? el('td', { class: 'rest', text: '…' }) : null,
        ])),
        el('tr', { class: 'total' }, [
          this.outHead,
          el('td', { colspan: 4 }),
          ...this.outCells,
          moreDims ? el('td', { class: 'rest', text: '…' }) : null,
        ]),
      ]),
    ]);
    this.scroller = el('div', { class: 'scroller', tabindex: '0', role: 'group' }, [this.table]);
    this.out = matrixView(...this.view(model));
    this.verdict = el('p', { class: 'lead mix-verdict' });
    this.root.replaceChildren(
      this.extras.links, // buttons that open the pictures under the stage
      this.title,
      this.stack,
      this.verdict,
      this.scroller,
      this.dimsButton,
      el('p', { class: 'hint', text: t('mix.why') }),
      // compact first: every query's output is one click away; the stage works on one row
      wholeMatrix(
        t,
        matrixBlock(
          t('mix.all'),
          `${tr.config.n} × ${tr.config.d_k}`,
          this.out,
          t('mix.orient'),
          t,
        ),
        t('mix.all'),
      ),
      this.extras.el,
    );
    this.fill();
    this.extras.update(model);
  }

  // the followed token's shares (stacked bar) and one table row per shown key j: w_j × V_j = what
  // j adds; rows and segments are kept and rewritten, so typing does not rebuild them
  fill() {
    const { core, t } = this.ctx;
    const model = this.model;
    const tr = model.result;
    const h = model.state.head;
    const q = model.state.q;
    const head = tr.heads[h];
    const labels = model.result.tokens;
    const w = rowOf(head.weights, q);
    this.w = w;
    // copy or blend: said from the numbers, never unconditionally
    const heaviest = [...w.keys()].sort((a, b) => w[b] - w[a])[0];
    setSays(
      this.verdict,
      says(
        t,
        w[heaviest] >= NEAR_COPY ? 'mix.copy' : 'mix.blend',
        { tok: labels[q], a: labels[heaviest], p: pct(w[heaviest]) },
        { head: h, q, a: heaviest, p: w[heaviest] },
      ),
    );
    // contributions[c].products[j] = w_qj * V[j][c]; .dot = output[q][c]
    const vcols = Array.from({ length: tr.config.d_k }, (_, c) => colOf(head.V, c));
    const contrib = vcols.map((col) => core.dotSteps(w, col));
    const scale = maxAbsFinite(head.V.data);
    const shares = t('mix.shares', { tok: labels[q] });
    setText(this.title, shares);
    this.stack.setAttribute('aria-label', t('mix.stackLabel', { tok: labels[q] }));
    this.scroller.setAttribute('aria-label', shares);
    setText(this.caption, t('mix.caption', { tok: labels[q] }));
    setText(this.outHead, t('mix.output', { tok: labels[q] }));
    resize(this.segs, tr.config.n, (j) => {
      const seg = el('span', { class: 'seg' }, [el('span')]);
      seg.style.backgroundColor = PALETTE[j % PALETTE.length];
      this.stack.append(seg);
      return seg;
    });
    [...w].forEach((v, j) => {
      const seg = this.segs[j];
      const title = `${labels[j]} ${pct(v)}`;
      if (seg.title !== title) seg.title = title;
      setWidth(seg, v * 100);
      setText(
        /** @type {Element} the segment's label */ (seg.firstChild),
        v >= 0.08 ? `${labels[j]} ${pct(v)}` : '',
      );
    });
    // one row per key; with many keys only the TOP heaviest, in sentence order (a row of 64
    // keys is not read, and rewriting it on every keystroke costs a frame)
    const order = [...w.keys()].sort((a, b) => w[b] - w[a]);
    const many = tr.config.n > MANY;
    const shown = many && !this.showAll ? order.slice(0, TOP).sort((a, b) => a - b) : [...w.keys()];
    this.shown = shown;
    resize(this.rows, shown.length, () => {
      /** @type {Omit<MixRow, 'tr'>} */
      const row = {
        sw: el('span', { class: 'swatch' }),
        label: el('span'),
        w: el('td', { class: 'w', 'data-matrix': 'weights' }),
        v: el('td', { class: 'vrow' }),
        eq: el('td', { class: 'times', text: '=' }),
        cells: Array.from({ length: this.cols }, (_, c) =>
          staggered(el('td', { 'data-matrix': 'contrib', 'data-col': c }), c),
        ),
      };
      const rowEl = el('tr', {}, [
        el('th', { scope: 'row' }, [row.sw, row.label]),
        row.w,
        el('td', { class: 'times', text: '×' }),
        row.v,
        row.eq,
        ...row.cells,
        this.cols < tr.config.d_k ? el('td', { class: 'rest', text: '…' }) : null,
      ]);
      this.body.insertBefore(rowEl, this.moreRow);
      return { ...row, tr: rowEl };
    });
    const hidden = many && !this.showAll ? order.slice(TOP) : [];
    this.hidden = hidden;
    this.moreRow.hidden = !many;
    setText(
      this.moreText,
      hidden.length
        ? t('mix.more', { n: hidden.length, p: pct(w[hidden[0]]), all: tr.config.n })
        : '',
    );
    setText(
      this.moreButton,
      this.showAll ? t('mix.showTop', { k: TOP }) : t('mix.showAll', { all: tr.config.n }),
    );
    // each column of the table adds up to the output's cell below it: printed with the decimals
    // that make the printed column add up (only when every key has its row; hidden rows would be
    // missing parts)
    const o = rowOf(head.output, q);
    const cols = hidden.length
      ? null
      : Array.from({ length: this.cols }, (_, c) =>
          sumEquation(
            shown.map((j) => contrib[c].products[j]),
            o[c],
          ),
        );
    shown.forEach((j, slot) => {
      const v = w[j];
      const row = this.rows[slot];
      row.j = j;
      row.sw.style.backgroundColor = PALETTE[j % PALETTE.length];
      setText(row.label, labels[j]);
      writeOnce(row.w, 'data-head', h);
      writeOnce(row.w, 'data-row', q);
      writeOnce(row.w, 'data-col', j);
      writeOnce(row.w, 'data-value', v);
      const vr = rowOf(head.V, j);
      const few = Math.min(compact() > 4 ? 3 : 1, vr.length); // the first entries of V_j (1 on a phone)
      const cellText = row.cells.map((_, c) => {
        const e = cols?.[c];
        const x = contrib[c].products[j];
        return !e ? fmt(x) : e.signs[slot] === '−' ? `−${e.terms[slot]}` : e.terms[slot];
      });
      // the row is weight × V_j = the cells: the weight and the V entries shown get the decimals
      // that make each shown product give its printed cell (equation.js)
      const fit = fitFactors(v, [...vr.subarray(0, few)], cellText.slice(0, few));
      setText(row.w, fit.weight);
      setText(row.eq, fit.rel);
      writeOnce(row.w, 'data-eq', fit.values.map((_, c) => `r${slot}c${c}:percent`).join(' '));
      writeOnce(row.eq, 'data-eq', fit.values.map((_, c) => `r${slot}c${c}:rel`).join(' '));
      const entries = fit.values.map((text, c) =>
        el('span', { text, 'data-eq': `r${slot}c${c}:factor` }),
      );
      row.v.replaceChildren(
        '[',
        ...entries.flatMap((e, c) => (c ? [', ', e] : [e])),
        vr.length > few ? ', …]' : ']',
      );
      row.cells.forEach((td, c) => {
        const x = contrib[c].products[j];
        writeOnce(td, 'data-head', h);
        writeOnce(td, 'data-row', j);
        writeOnce(td, 'data-value', x);
        const e = cols?.[c];
        setText(td, cellText[c]);
        const tags = [e ? `c${c}:part` : '', c < few ? `r${slot}c${c}:total` : ''];
        writeOnce(td, 'data-eq', tags.filter(Boolean).join(' ') || null);
        const bg = tint(x, scale);
        if (td.apBg !== bg) {
          td.apBg = bg;
          td.style.backgroundColor = bg;
        }
      });
    });
    this.vcols = vcols; // show(k) asks the core for the sum so far of the keys added by step k
    this.outCells.forEach((td, c) => {
      writeOnce(td, 'data-head', h);
      writeOnce(td, 'data-row', q);
      writeOnce(td, 'data-value', o[c]);
      const e = cols?.[c];
      setText(td, !e ? fmt(o[c]) : e.rel === '=' ? e.total : `≈ ${e.total}`);
      writeOnce(td, 'data-eq', e ? `c${c}:total` : null);
    });
  }

  /** how many shown keys step k has added, and whether the hidden ones are in too
   * @param {number} k */
  added(k) {
    const s = this.shown.length;
    return { rows: Math.min(k, s), rest: this.hidden.length > 0 && k > s };
  }

  /** @param {number} k */
  show(k) {
    this.k = k;
    const { t } = this.ctx;
    const { rows, rest } = this.added(k);
    const labels = this.model.result.tokens;
    this.rows.forEach((r, slot) => {
      r.tr.classList.toggle('pending', slot >= rows);
      r.tr.classList.toggle('current', slot === rows - 1 && !rest);
    });
    const inSum = new Set(this.shown.slice(0, rows));
    if (rest) for (const j of this.hidden) inSum.add(j);
    this.segs.forEach((s, j) => s.classList.toggle('pending', !inSum.has(j)));
    this.moreRow.classList.toggle('current', rest);
    // "so far": the core's sums of w_j × V_j over the keys added by this step (no row before the first)
    const keys = rest ? [...this.shown, ...this.hidden] : this.shown.slice(0, rows);
    const ws = Float32Array.from(keys, (j) => this.w[j]);
    this.soFarRow.hidden = keys.length === 0;
    if (keys.length)
      this.soFarCells.forEach((td, c) => {
        const col = this.vcols[c];
        const v = this.ctx.core.dotSteps(
          ws,
          Float32Array.from(keys, (j) => col[j]),
        ).dot;
        writeOnce(td, 'data-head', this.model.state.head);
        writeOnce(td, 'data-row', this.model.state.q);
        writeOnce(td, 'data-value', v);
        setText(td, fmt(v));
      });
    setText(this.soFarHead, t('mix.soFar', { n: inSum.size, all: labels.length }));
    const done = inSum.size === labels.length;
    this.table.classList.toggle('done', done);
    const key = `${rows}|${rest}`;
    if (this.last !== key) {
      this.last = key;
      replay(this.table, this.still); // the row's flow into the sum (CSS)
    }
    this.out.mark('row', [this.model.state.q]);
  }

  /** step j: key j's weight (the narration says it), then its value row; narrow cells, not whole
   * rows, so they fit a phone's view without scrolling the table
   * @param {number} k */
  active(k) {
    const { rows, rest } = this.added(k);
    if (k >= this.units(this.model)) return [this.outHead];
    if (rest) return [this.moreButton];
    if (rows === 0) return [this.title];
    const row = this.rows[rows - 1];
    return [row.w, row.v];
  }

  /** @param {number} k */
  narrate(k) {
    const labels = this.model.result.tokens;
    const q = this.model.state.q;
    const { rows, rest } = this.added(k);
    const done = k >= this.units(this.model);
    if (rest && !done) return this.ctx.t('narr.mixRest', { tok: labels[q], n: this.hidden.length });
    if (!done) {
      if (rows === 0) return this.ctx.t('narr.mixStart', { tok: labels[q], n: labels.length });
      const j = this.shown[rows - 1];
      return this.ctx.t('narr.mixStep', { tok: labels[q], key: labels[j], p: pct(this.w[j]) });
    }
    const order = [...this.w.keys()].sort((a, b) => this.w[b] - this.w[a]);
    const [a, b] = order;
    return b == null
      ? this.ctx.t('narr.mix1', { tok: labels[q], a: labels[a], pa: pct(this.w[a]) })
      : this.ctx.t('narr.mix', {
          tok: labels[q],
          a: labels[a],
          pa: pct(this.w[a]),
          b: labels[b],
          pb: pct(this.w[b]),
        });
  }
}
