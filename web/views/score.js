// score.js: stage 4. scores = Q Kᵀ, shown as the operation: step j puts q (the followed query)
// and k_j side by side, multiplies matching entries (the products appear one by one), adds them
// up, and the sum lands in cell (i, j), with the angle between the two arrows beside it; the last
// step fills every other row the same way. The products and sums come from core.dotSteps (the
// entries past the first COMPACT are summed by the core too); the cells from the trace.
import { el, svg, writeOnce, says, setSays, replay } from './dom.js';
import { fmt, rowOf } from './format.js';
import { matrixBlock, keyCols, keyRows } from './matrix-table.js';
import { matrixView, refreshStage, rowSteps, tokenMapView } from './heatmap.js';
import { productEquation, sumEquation } from './equation.js';
import { StageExtras } from './stage-extras.js';
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */
/** @typedef {import('./heatmap.js').ViewArgs} ViewArgs */
/** @typedef {import('./heatmap.js').ViewPair} ViewPair */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */

const COMPACT = 8; // dimensions shown in the operation before "… n more" (toggle for all)
const COMPACT_PHONE = 3;
const compact = () => (matchMedia('(max-width: 600px)').matches ? COMPACT_PHONE : COMPACT);
/** ms (at speed 1; the player divides by the speed, and the CSS animations are as much shorter)
 *  that playing stays on each step: longer than the products' and the sum's animation in
 *  style.css (the sum lands at 0.4 s + 0.45 s), so the landing is seen whole */
const STEP_MS = 1000;

export class ScoreStage {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions' | 'later' | 'core'>} ctx */
  constructor(root, ctx) {
    this.still = false; // set by the walkthrough: this show() only refreshes (no replay)
    this.root = root;
    this.ctx = ctx;
    /** @type {[number, number] | null} the cell the learner picked */
    this.sel = null;
    this.allDims = false;
    this.extras = new StageExtras(['analogy', 'plane'], ctx);
    /** @type {StageModel} the model drawn (render) */
    this.model;
    /** @type {MatrixView} Q (render builds the three matrix views) */
    this.q;
    /** @type {MatrixView} K */
    this.kt;
    /** @type {MatrixView} the scores */
    this.s;
    /** @type {HTMLElement} the operation box (render) */
    this.op;
    /** @type {HTMLElement[]} the followed row's cells shown by hand (show) */
    this.manual = [];
    /** @type {number} the step shown */
    this.k;
    /** @type {string | undefined} the cell and step whose animation last played */
    this.lastCell;
    /** the operation box's parts (buildOp), null until built or when its shape must change
     * @type {ReturnType<ScoreStage['opParts']> | null} */
    this.dd = null;
  }

  /** every step is held until its sum has landed
   * @param {number} k @param {StageModel} model */
  holdOf(k, model) {
    return k <= this.units(model) ? STEP_MS : 0;
  }

  /** one step per key of the followed row, then one for the rest of the matrix
   * @param {StageModel} model */
  units(model) {
    return rowSteps(model);
  }

  /** the matrices shown, as matrixView's arguments (render builds them, update refreshes them)
   * @param {StageModel} model @returns {[ViewArgs, ViewArgs, ViewArgs]} */
  views(model) {
    const { t } = this.ctx;
    const tr = model.result;
    const h = model.state.head;
    const head = tr.heads[h];
    const labels = model.result.tokens;
    const kdims = Array.from({ length: tr.config.d_k }, (_, c) => `${c + 1}`);
    return [
      [
        head.Q,
        {
          t,
          name: 'Q',
          head: h,
          tokenRows: true,
          rowLabels: labels,
          colLabels: kdims,
          corner: 'i \\ c',
          window: { cols: COMPACT },
        },
      ],
      [
        head.K,
        {
          t,
          name: 'K',
          head: h,
          tokenRows: true,
          rowLabels: labels,
          colLabels: kdims,
          corner: 'j \\ c',
          window: { cols: COMPACT },
        },
      ],
      tokenMapView(t, tr, h, 'scores', {
        window: { cols: keyCols(), rows: keyRows() },
        onSelect: (/** @type {number} */ i, /** @type {number} */ j) => {
          this.sel = [i, j];
          this.show(this.k);
          this.ctx.actions.announce(this.narrate(this.k));
        },
      }),
    ];
  }

  /** @param {StageModel} model */
  update(model) {
    const ok = refreshStage(
      this,
      model,
      (m) => [m.state.head, m.state.q],
      (m) => {
        const v = this.views(m);
        /** @type {ViewPair[]} */
        const pairs = [
          [this.q, v[0]],
          [this.kt, v[1]],
          [this.s, v[2]],
        ];
        return pairs;
      },
    );
    const n = model.result.config.n;
    if (ok && this.sel && (this.sel[0] >= n || this.sel[1] >= n)) this.sel = null;
    if (ok) this.extras.update(model);
    return ok;
  }

  /** @param {StageModel} model */
  render(model) {
    const { t } = this.ctx;
    const tr = model.result;
    this.model = model;
    this.sel = null;
    this.manual = [];
    const v = this.views(model);
    this.q = matrixView(...v[0]);
    this.kt = matrixView(...v[1]);
    this.s = matrixView(...v[2]);
    this.op = el('div', { class: 'detail op-dot' });
    this.dd = null;
    this.root.replaceChildren(
      this.extras.links, // buttons that open the pictures under the stage
      this.op,
      el('div', { class: 'row-blocks' }, [
        matrixBlock(t('score.title'), `${tr.config.n} × ${tr.config.n}`, this.s, t('orient'), t),
      ]),
      el('p', { class: 'hint', text: t('score.pick') }),
      el('details', { class: 'stage-inputs' }, [
        el('summary', { text: t('score.inputs') }),
        el('div', { class: 'row-blocks' }, [
          matrixBlock('Q', `${tr.config.n} × ${tr.config.d_k}`, this.q, null, t),
          matrixBlock('K', `${tr.config.n} × ${tr.config.d_k}`, this.kt, null, t),
        ]),
      ]),
      this.extras.el,
    );
    this.extras.update(model);
  }

  /** the cell step k computes: (q, k-1) for the followed row; at the end the row's highest score
   * @param {number} k @returns {[number, number]} */
  cellAt(k) {
    if (this.sel) return this.sel;
    const tr = this.model.result;
    const q = this.model.state.q;
    if (k >= 1 && k <= tr.config.n) return [q, k - 1];
    if (k === 0) return [q, 0];
    const row = rowOf(tr.heads[this.model.state.head].scores, q);
    let best = 0;
    for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
    return [q, best];
  }

  /** @param {number} k */
  show(k) {
    this.k = k;
    const tr = this.model.result;
    const n = tr.config.n;
    const q = this.model.state.q;
    const [i, j] = this.cellAt(k);
    // the followed row fills key by key; the last step fills the rest
    for (const c of this.manual) c.classList.add('pending');
    this.manual = [];
    if (k > n) this.s.reveal(n * n);
    else {
      this.s.reveal(0);
      for (let c = 0; c < Math.min(k, n); c++) {
        const td = this.s.cell(q, c);
        td.classList.remove('pending');
        this.manual.push(td);
      }
    }
    this.s.mark('cell', [[i, j]]);
    this.s.moveWindow?.(j, i);
    this.q.mark('row', [i]);
    this.kt.mark('row', [j]);
    this.q.moveWindow?.(0, i);
    this.kt.moveWindow?.(0, j);
    this.renderOp(i, j, k);
  }

  /** @param {number} k */
  active(k) {
    const [i, j] = this.cellAt(k);
    const cell = this.s.cell(i, j);
    // the cell, then q, k_j and their products (show() built the box)
    const dd = /** @type {NonNullable<ScoreStage['dd']>} show() built it */ (this.dd);
    return [cell.isConnected ? cell : this.s.table, dd.scroller];
  }

  /** The operation box's elements for `shown` dimensions (buildOp puts them together).
   * @param {number} shown */
  opParts(shown) {
    // the c-th product appears a little after the one before it (CSS reads --c, set via the CSSOM)
    const cols = () =>
      Array.from({ length: shown }, (_, c) => {
        const td = el('td');
        td.style.setProperty('--c', String(c));
        return td;
      });
    return {
      shown,
      title: el('h4'),
      qHead: el('th', { scope: 'row' }),
      kHead: el('th', { scope: 'row' }),
      q: cols(),
      k: cols(),
      products: cols().map((td, c) => {
        td.dataset.matrix = 'products';
        td.dataset.col = String(c);
        return td;
      }),
      restQ: el('td', { class: 'rest' }),
      restK: el('td', { class: 'rest' }),
      rest: el('td', { class: 'rest', 'data-matrix': 'productsRest' }),
      sum: el('td', { class: 'sum', 'data-matrix': 'dot' }),
      lq: svg('line', { x1: 0, y1: 0, y2: 0, class: 'vq' }),
      gk: svg('g', { class: 'gk' }),
      lk: svg('line', { x1: 0, y1: 0, y2: 0, class: 'vk' }),
      arc: svg('path', { class: 'arc' }),
      tq: svg('text', { y: 12, class: 'lq' }),
      tk: svg('text', { class: 'lk' }),
      tt: svg('text', { x: 22, y: -6, class: 'lt' }),
      facts: [el('li'), el('li'), el('li')],
      toggle: el('button', {
        type: 'button',
        class: 'action small',
        on: {
          click: () => {
            this.allDims = !this.allDims;
            this.dd = null;
            this.show(this.k);
          },
        },
      }),
      // room right of the arrows for a token's label ("k demonstrators")
      pic: svg('svg', { viewBox: '-70 -78 230 100', class: 'angle', role: 'img' }),
      /** @type {HTMLElement} the products' table (buildOp) */
      table: el('table'),
      /** @type {HTMLElement} its scroller (buildOp) */
      scroller: el('div'),
    };
  }

  // The operation box, built once per drawing and rewritten in place (typing changes numbers, not
  // structure): q and k_j as two rows, their products, the sum landing in the cell, and the angle.
  buildOp() {
    const { t } = this.ctx;
    const dK = this.model.result.config.d_k;
    const shown = this.allDims ? dK : Math.min(compact(), dK);
    const d = this.opParts(shown);
    this.dd = d;
    d.gk.append(d.lk);
    d.pic.append(d.lq, d.gk, d.arc, d.tq, d.tk, d.tt);
    const more = dK > shown;
    d.table = el('table', { class: 'dot' }, [
      el('thead', {}, [
        el('tr', {}, [
          el('th', { text: 'c' }),
          ...d.q.map((_, c) => el('th', { text: String(c + 1) })),
          more ? el('th', { class: 'rest', text: t('score.moreDims', { n: dK - shown }) }) : null,
          el('th', { text: 'Σ' }),
        ]),
      ]),
      el('tbody', {}, [
        el('tr', { class: 'qrow' }, [d.qHead, ...d.q, more ? d.restQ : null, el('td')]),
        el('tr', { class: 'krow' }, [d.kHead, ...d.k, more ? d.restK : null, el('td')]),
        el('tr', { class: 'products' }, [
          el('th', { scope: 'row', text: 'q×k' }),
          ...d.products,
          more ? d.rest : null,
          d.sum,
        ]),
      ]),
    ]);
    d.scroller = el('div', { class: 'scroller', tabindex: '0', role: 'group' }, [d.table]);
    setTextOf(
      d.toggle,
      t(this.allDims ? 'score.fewerDims' : 'score.allDims', { n: dK, k: compact() }),
    );
    d.toggle.hidden = dK <= compact();
    this.op.replaceChildren(
      d.title,
      d.scroller,
      d.toggle,
      el('div', { class: 'dot-geo' }, [d.pic, el('ul', { class: 'facts' }, d.facts)]),
    );
    return d;
  }

  /** @param {number} i @param {number} j @param {number} k */
  renderOp(i, j, k) {
    const { core, t } = this.ctx;
    const tr = this.model.result;
    const head = tr.heads[this.model.state.head];
    const q = rowOf(head.Q, i);
    const kv = rowOf(head.K, j);
    const d = core.dotSteps(q, kv);
    const tq = this.model.result.tokens[i];
    const tk = this.model.result.tokens[j];
    const x =
      !this.dd ||
      this.dd.q.length !== (this.allDims ? tr.config.d_k : Math.min(compact(), tr.config.d_k))
        ? this.buildOp()
        : this.dd;
    const title = t('score.cell', { q: tq, k: tk, i: i + 1, j: j + 1 });
    writeOnce(x.title, 'text', title);
    writeOnce(x.scroller, 'aria-label', title);
    writeOnce(x.qHead, 'text', `q (${tq})`);
    writeOnce(x.kHead, 'text', `k (${tk})`);
    // the products not shown, added up by the core
    const more = tr.config.d_k > x.shown;
    const rest = more ? core.dotSteps(q.subarray(x.shown), kv.subarray(x.shown)).dot : 0;
    // two kinds of equation in one table: the row (products + rest = q · k) and each column
    // (q × k = product); the row picks the products' decimals, each column its factors'
    // a column whose factors cannot give its printed product (a product right at a rounding
    // edge) is marked "≈" in its cell; fewer decimals for the products are tried when that
    // makes more columns check (the row may then be "≈")
    const parts = [...d.products.subarray(0, x.shown), ...(more ? [rest] : [])];
    const colsAt = (/** @type {number} */ digits) =>
      Array.from({ length: x.shown }, (_, c) =>
        productEquation(q[c], kv[c], d.products[c], digits),
      );
    const loose = (/** @type {any[]} */ cs) => cs.filter((e) => e.rel !== '=').length;
    let row = sumEquation(parts, d.dot, 3);
    let cols = colsAt(row.digits);
    if (loose(cols) > 0 && loose(colsAt(2)) < loose(cols)) {
      row = sumEquation(parts, d.dot, 3, [2]);
      cols = colsAt(2);
    }
    const signed = (/** @type {number} */ n) =>
      row.signs[n] === '−' ? `−${row.terms[n]}` : row.terms[n];
    for (let c = 0; c < x.shown; c++) {
      const col = cols[c];
      writeOnce(x.q[c], 'text', fmt(q[c], col.digits));
      writeOnce(x.k[c], 'text', fmt(kv[c], col.digits));
      writeOnce(x.products[c], 'text', col.rel === '=' ? signed(c) : `≈ ${signed(c)}`);
      writeOnce(x.products[c], 'data-value', d.products[c]);
      writeOnce(x.products[c], 'data-row', i);
      writeOnce(x.q[c], 'data-eq', `c${c}:factor`);
      writeOnce(x.k[c], 'data-eq', `c${c}:factor`);
      writeOnce(x.products[c], 'data-eq', `c${c}:total row:part`);
    }
    if (more) {
      writeOnce(x.restQ, 'text', '…');
      writeOnce(x.restK, 'text', '…');
      writeOnce(x.rest, 'text', `${row.signs[x.shown]} ${row.terms[x.shown]}`);
      writeOnce(x.rest, 'data-value', rest);
      writeOnce(x.rest, 'data-eq', 'row:part');
    }
    writeOnce(x.sum, 'text', row.rel === '=' ? row.total : `≈ ${row.total}`);
    writeOnce(x.sum, 'data-eq', 'row:total');
    writeOnce(x.sum, 'data-value', d.dot);
    writeOnce(x.sum, 'data-row', i);
    writeOnce(x.sum, 'data-col', j);
    // a new cell: the products appear one by one and the sum lands (CSS; none under reduced motion)
    const cellKey = `${i},${j},${k}`;
    if (this.lastCell !== cellKey) {
      this.lastCell = cellKey;
      replay(x.table, this.still);
    }
    // the angle picture: two arrows at the real angle, lengths proportional to |q| and |k|
    const R = 60;
    const big = Math.max(d.norm_q, d.norm_k, 1e-9);
    const a = (d.angle_degrees * Math.PI) / 180;
    const lq = (R * d.norm_q) / big;
    const lk = (R * d.norm_k) / big;
    writeOnce(x.pic, 'aria-label', t('score.angle', { deg: fmt(d.angle_degrees, 1) }));
    writeOnce(x.lq, 'x2', lq);
    writeOnce(x.lk, 'x2', lk);
    x.gk.style.transform = `rotate(${-d.angle_degrees}deg)`;
    writeOnce(x.arc, 'd', `M 18 0 A 18 18 0 0 0 ${18 * Math.cos(a)} ${-18 * Math.sin(a)}`);
    writeOnce(x.tq, 'x', lq);
    writeOnce(x.tq, 'text', `q ${tq}`);
    writeOnce(x.tk, 'x', lk * Math.cos(a));
    writeOnce(x.tk, 'y', -lk * Math.sin(a) - 4);
    writeOnce(x.tk, 'text', `k ${tk}`);
    writeOnce(x.tt, 'text', `θ ${fmt(d.angle_degrees, 0)}°`);
    writeOnce(x.facts[0], 'text', t('score.sum', { dot: fmt(d.dot, 3) }));
    writeOnce(
      x.facts[1],
      'text',
      t('score.geo', {
        nq: fmt(d.norm_q),
        nk: fmt(d.norm_k),
        cos: fmt(d.cosine, 3),
        deg: fmt(d.angle_degrees, 1),
      }),
    );
    setSays(x.facts[2], this.verdict(i, j, d));
  }

  /** What the angle says about this score, judged by the cosine AND the score itself: q·k = |q| |k|
   * cos θ, so two long vectors far from parallel can still give the largest score of the row.
   * @param {number} i @param {number} j
   * @param {{cosine: number, norm_q: number, norm_k: number}} d core.dotSteps's result */
  verdict(i, j, d) {
    const { t } = this.ctx;
    const tr = this.model.result;
    const h = this.model.state.head;
    const row = rowOf(tr.heads[h].scores, i);
    const v = row[j];
    let big = 0;
    for (const x of row) big = Math.max(big, Math.abs(x));
    const key =
      d.cosine > 0.3
        ? 'score.alike'
        : d.cosine < -0.3
          ? 'score.opposite'
          : Math.abs(v) <= 0.1 * big
            ? 'score.unrelatedSmall'
            : 'score.unrelatedLarge';
    return says(
      t,
      key,
      { dot: fmt(v, 3), big: fmt(big, 3), qk: fmt(d.norm_q * d.norm_k) },
      { head: h, q: i, k: j, cos: d.cosine, v, big },
    );
  }

  /** @param {number} k */
  narrate(k) {
    const tr = this.model.result;
    const [i, j] = this.cellAt(k);
    const head = tr.heads[this.model.state.head];
    const tok = (/** @type {number} */ r) => this.model.result.tokens[r];
    const v = fmt(head.scores.data[i * tr.config.n + j], 3);
    if (k > tr.config.n && !this.sel)
      return this.ctx.t('narr.scoreAll', {
        nn: tr.config.n * tr.config.n,
        q: tok(i),
        k: tok(j),
        v,
      });
    // the cell's rank in its row: the largest is called so, and only it
    const value = head.scores.data[i * tr.config.n + j];
    const row = rowOf(head.scores, i);
    let rank = 1;
    for (const x of row) if (x > value) rank++;
    return says(
      this.ctx.t,
      rank === 1 ? 'narr.scoreTop' : 'narr.score',
      { q: tok(i), k: tok(j), v, rank, n: row.length },
      { head: this.model.state.head, q: i, k: j, v: value, rank },
    );
  }
}

/** @param {HTMLElement} node @param {string} text */
function setTextOf(node, text) {
  writeOnce(node, 'text', text);
}
