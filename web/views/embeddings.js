// embeddings.js: stage 2. Each token's vector X_i (row i of X), shown row by row; when positions are
// on, the token vectors E and the position signal P (both from the core's trace) sit beside X:
// X = E + P. Compact: the first DIMS dimensions, and the sum for the row being built.
import { el, setText, writeOnce, says, setSays } from './dom.js';
import { fmt, rowOf } from './format.js';
import { matrixBlock } from './matrix-table.js';
import { matrixView, refreshStage } from './heatmap.js';
import { sumEquation } from './equation.js';

// X = E + P: what the first layer reads when the model has layers, else the one attention's X
// the row stage 2 adds up: E + P (BERT's before its embedding LayerNorm, which stage 3's walk shows)
const inputX = (/** @type {ShownTrace} */ result) => result.embed_sum || result.input || result.X;

/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./heatmap.js').ViewArgs} ViewArgs */
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */

/** Dimensions shown before "… more" (the whole matrix is one click away). */
const DIMS = 4;
/** Token rows shown: a window that follows the row being built. */
const ROWS = 10;

export class EmbeddingsStage {
  /** @param {HTMLElement} root @param {Pick<import('./view-types.js').ViewContext, 't' | 'later'>} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {StageModel} the model drawn (render) */
    this.model;
    /** @type {MatrixView} X (render) */
    this.x;
    /** @type {HTMLElement} the sum box (render) */
    this.sum;
    /** the sum box's table, kept while its shape stays (renderSum)
     * @type {{shown: number, rows: {head: HTMLElement, cells: HTMLElement[]}[], title: HTMLElement,
     *   more: HTMLElement, dims: HTMLElement[]} | null} */
    this.ss = null;
  }

  /** @param {StageModel} model */
  units(model) {
    return model.result.config.n;
  }

  /** the matrices shown, as matrixView's arguments: X, and E and P when positions are on
   * @param {StageModel} model @returns {{x: ViewArgs, e?: ViewArgs, p?: ViewArgs}} */
  views(model) {
    const { t } = this.ctx;
    const tr = model.result;
    const labels = model.result.tokens;
    const dims = Array.from({ length: tr.config.d_model }, (_, c) => `d${c + 1}`);
    const o = {
      t,
      tokenRows: true,
      rowLabels: labels,
      colLabels: dims,
      corner: 'i \\ d',
      window: { cols: DIMS, rows: ROWS },
    };
    /** @type {{x: ViewArgs, e?: ViewArgs, p?: ViewArgs}} */
    const out = { x: [inputX(tr), { ...o, name: 'X' }] };
    if (model.result.positions) {
      out.e = [model.result.embeddings, { ...o, name: 'E' }];
      out.p = [model.result.positions, { ...o, name: 'P' }];
    }
    return out;
  }

  /** @param {StageModel} model */
  update(model) {
    return refreshStage(
      this,
      model,
      (m) => [!!m.result.positions, m.result.config.positions, m.result.config.causal],
      (m) => {
        const v = this.views(m);
        /** @type {import('./heatmap.js').ViewPair[]} */
        const pairs = [[this.x, v.x]];
        if (v.e && v.p) pairs.push([this.e, v.e], [this.p, v.p]);
        return pairs;
      },
    );
  }

  /** @param {StageModel} model */
  render(model) {
    const { t } = this.ctx;
    const tr = model.result;
    this.model = model;
    const v = this.views(model);
    this.x = matrixView(...v.x);
    const blocks = [];
    if (v.e && v.p) {
      this.e = matrixView(...v.e);
      this.p = matrixView(...v.p);
      blocks.push(
        matrixBlock(
          t('embeddings.plain'),
          `${tr.config.n} × ${tr.config.d_model}`,
          this.e,
          null,
          t,
        ),
        el('div', { class: 'op', text: '+' }),
        matrixBlock(t('embeddings.pos'), `${tr.config.n} × ${tr.config.d_model}`, this.p, null, t),
        el('div', { class: 'op', text: '=' }),
      );
    } else {
      this.e = null;
      this.p = null;
    }
    blocks.push(
      matrixBlock(
        t('embeddings.x'),
        `${tr.config.n} × ${tr.config.d_model}`,
        this.x,
        t('embeddings.orient'),
        t,
      ),
    );
    this.sum = el('div', { class: 'calc embeddings-sum', 'aria-live': 'off' });
    this.ss = null;
    this.root.replaceChildren(
      this.sum,
      el('div', { class: 'row-blocks embeddings-blocks' }, blocks),
      this.posHint(model),
    );
  }

  /** the stage's introduction: the article's program draws X per position, so no word has a row
   * @param {StageModel} model */
  whatKey(model) {
    if (model.result.program) return 'stage.embeddings.whatNumpy';
    return model.result.embed_sum ? 'stage.embeddings.whatBert' : null;
  }

  /** what positions (and the causal mask) mean for word order, said for the settings shown
   * @param {StageModel} model */
  posHint(model) {
    // the article's program draws X per position, from NumPy's generator: not from the words
    const key = model.result.program
      ? 'embeddings.numpyX'
      : model.result.config.positions
        ? 'embeddings.posOn'
        : model.result.config.causal
          ? 'embeddings.posOffCausal'
          : 'embeddings.posOff';
    const p = el('p', { class: 'hint' });
    setSays(p, says(this.ctx.t, key));
    return p;
  }

  /** the row step k is about: while rows appear the newest, then the followed token
   * @param {number} k */
  rowAt(k) {
    const n = this.model.result.config.n;
    return k >= n ? this.model.state.q : Math.max(0, k - 1);
  }

  /** @param {number} k */
  show(k) {
    this.x.revealRows(k);
    this.e?.revealRows(k);
    this.p?.revealRows(k);
    for (const m of [this.x, this.e, this.p]) m?.moveWindow?.(0, this.rowAt(k));
    const r = k > 0 || this.model.result.config.n === 0 ? this.rowAt(k) : -1;
    this.x.mark('row', r >= 0 ? [r] : []);
    this.e?.mark('row', r >= 0 ? [r] : []);
    this.p?.mark('row', r >= 0 ? [r] : []);
    this.renderSum(this.rowAt(k));
  }

  // row i built in one line: E_i + P_i = X_i for the first DIMS dimensions (X_i alone when
  // positions are off); numbers as the trace has them
  /** @param {number} i */
  renderSum(i) {
    const { t } = this.ctx;
    const res = this.model.result;
    const tr = res;
    const positions = res.positions;
    /** @type {[string, import('../../types/index.js').Matrix][]} */
    const parts = positions
      ? [
          ['E', res.embeddings],
          ['P', positions],
          ['X', inputX(tr)],
        ]
      : [['X', inputX(tr)]];
    const shown = Math.min(DIMS, tr.config.d_model);
    let ss = this.ss;
    if (!ss || ss.rows.length !== parts.length || ss.shown !== shown) {
      const cells = () => Array.from({ length: shown }, () => el('td'));
      const rows = parts.map(([name], n) => ({
        head: el('th', {
          text:
            n === parts.length - 1 && parts.length > 1 ? `= ${name}` : n > 0 ? `+ ${name}` : name,
        }),
        cells: cells(),
      }));
      const built = {
        shown,
        rows,
        title: el('p', { class: 'calc-title' }),
        more: el('td', { class: 'gap', rowspan: rows.length }),
        dims: Array.from({ length: shown }, (_, c) => el('th', { text: `d${c + 1}` })),
      };
      this.ss = ss = built;
      const table = el('table', { class: 'dot terms' }, [
        el('thead', {}, [el('tr', {}, [el('th'), ...built.dims, el('th', { class: 'gap' })])]),
        el(
          'tbody',
          {},
          rows.map((row, n) => el('tr', {}, [row.head, ...row.cells, n === 0 ? built.more : null])),
        ),
      ]);
      this.sum.replaceChildren(built.title, el('div', { class: 'scroller' }, [table]));
    }
    const tok = res.tokens[i];
    setText(
      ss.title,
      t(res.positions ? 'embeddings.sumTitle' : 'embeddings.rowTitle', { tok, i: i + 1 }),
    );
    // each column is one equation E + P = X, printed with the decimals that make it add up
    const eqs = positions
      ? Array.from({ length: shown }, (_, c) =>
          sumEquation(
            [rowOf(res.embeddings, i)[c], rowOf(positions, i)[c]],
            rowOf(inputX(tr), i)[c],
          ),
        )
      : null;
    parts.forEach(([, m], n) => {
      const row = rowOf(m, i);
      ss.rows[n].cells.forEach((td, c) => {
        const e = eqs?.[c];
        const printed = !e
          ? fmt(row[c])
          : n === 2
            ? e.rel === '='
              ? e.total
              : `≈ ${e.total}`
            : n === 1 && e.signs[1] === '−'
              ? `−${e.terms[1]}`
              : e.terms[n];
        setText(td, printed);
        writeOnce(td, 'data-value', row[c]);
        writeOnce(td, 'data-eq', e ? `c${c}:${n === 2 ? 'total' : 'part'}` : null);
      });
    });
    setText(
      ss.more,
      tr.config.d_model > shown ? t('embeddings.moreDims', { n: tr.config.d_model - shown }) : '',
    );
  }

  /** @param {number} k */
  active(k) {
    const i = this.rowAt(k);
    return [this.x.cell(i, 0), this.sum]; // the sum box shows the inputs E_i and P_i
  }

  /** @param {number} k */
  narrate(k) {
    const res = this.model.result;
    const tr = res;
    const i = this.rowAt(k);
    const first = (/** @type {import('../../types/index.js').Matrix} */ m) =>
      [...rowOf(m, i)]
        .slice(0, 3)
        .map((x) => fmt(x))
        .join(', ');
    const tok = res.tokens[i];
    if (res.program)
      return this.ctx.t('narr.embeddingsNumpy', {
        tok,
        i: i + 1,
        d: tr.config.d_model,
        first: first(inputX(tr)),
      });
    const positions = res.positions;
    if (!positions)
      return this.ctx.t('narr.embeddings', { tok, d: tr.config.d_model, first: first(inputX(tr)) });
    return this.ctx.t('narr.embeddingsSum', {
      tok,
      i: i + 1,
      d: tr.config.d_model,
      eq: sumEquation(
        [rowOf(res.embeddings, i)[0], rowOf(positions, i)[0]],
        rowOf(inputX(tr), i)[0],
      ).text,
    });
  }
}
