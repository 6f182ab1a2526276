// mix.js: stage 8. The focus token's output is the weighted sum of the V rows. Each key's share
// is drawn as a stacked bar, and its contribution w·V_j per column comes from core.dotSteps
// (the products of the weight row with a V column), so nothing is multiplied here.
import { el, fmt, pct, matrixBlock, rowOf, colOf, tint, maxAbsFinite, setText, setWidth, writeOnce } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';

// list grows with make(j) or shrinks (removing the dropped items' nodes) to n items
function resize(list, n, make) {
  while (list.length > n) { const x = list.pop(); (x.tr || x).remove(); }
  while (list.length < n) list.push(make(list.length));
}

const MANY = 16;   // more keys than this: the table lists the TOP heaviest
const TOP = 8;

const PALETTE = ['#1d4ed8', '#b45309', '#047857', '#9333ea', '#be123c', '#0e7490', '#4d7c0f', '#a21caf'];

export class MixStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; this.showAll = false; }

  units(model) { return model.result.trace.n; }

  view(model) {
    const tr = model.result.trace;
    const h = model.state.head;
    const labels = model.result.tokens.map((x) => x.text);
    const kdims = Array.from({ length: tr.dK }, (_, c) => `${c + 1}`);
    return [tr.head[h].output, { t: this.ctx.t, name: 'head_output', head: h, tokenRows: true, rowLabels: labels, colLabels: kdims, corner: 'i \\ c' }];
  }

  update(model) {
    const shape = (m) => [m.state.head, m.result.trace.dK];
    if (!refreshStage(this, model, shape, (m) => [[this.out, this.view(m)]])) return false;
    this.fill();
    return true;
  }

  render(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    this.stack = el('div', { class: 'stack', attrs: { role: 'img' } });
    this.segs = [];
    this.rows = [];
    this.moreText = el('span');
    this.moreButton = el('button', { class: 'action small', attrs: { type: 'button' },
      on: { click: () => { this.showAll = !this.showAll; this.fill(); this.show(this.k); } } });
    this.moreRow = el('tr', { class: 'more' }, [el('td', { attrs: { colspan: 5 + tr.dK } }, [this.moreText, ' ', this.moreButton])]);
    this.body = el('tbody', {}, [this.moreRow]);
    this.outCells = Array.from({ length: tr.dK }, (_, c) => el('td', { attrs: { 'data-matrix': 'output', 'data-col': c } }));
    this.outHead = el('th', { attrs: { scope: 'row', colspan: 5 } });
    this.caption = el('caption');
    this.title = el('h4');
    this.scroller = el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group' } }, [el('table', { class: 'mix' }, [
      this.caption,
      el('thead', {}, [el('tr', {}, [el('th', { text: t('mix.key') }), el('th', { text: t('mix.weight') }), el('th'),
        el('th', { text: 'V_j' }), el('th'), ...this.outCells.map((_, c) => el('th', { text: `c${c + 1}` }))])]),
      this.body, el('tfoot', {}, [el('tr', { class: 'total' }, [this.outHead, ...this.outCells])]),
    ])]);
    this.out = matrixView(...this.view(model));
    this.root.replaceChildren(
      this.title, this.stack, this.scroller,
      el('p', { class: 'hint', text: t('mix.why') }),
      el('div', { class: 'row-blocks' }, [matrixBlock(t('mix.all'), `${tr.n} × ${tr.dK}`, this.out, t('mix.orient'))]),
    );
    this.fill();
  }

  // the focus token's shares (stacked bar) and one table row per key j: w_j × V_j = what j adds;
  // rows and segments are kept and rewritten, so typing does not rebuild them
  fill() {
    const { core, t } = this.ctx;
    const model = this.model;
    const tr = model.result.trace;
    const h = model.state.head;
    const q = model.state.q;
    const head = tr.head[h];
    const labels = model.result.tokens.map((x) => x.text);
    const w = rowOf(head.weights, q);
    this.w = w;
    // contributions[c].products[j] = w_qj * V[j][c]; .dot = output[q][c]
    const contrib = Array.from({ length: tr.dK }, (_, c) => core.dotSteps(w, colOf(head.V, c)));
    const scale = maxAbsFinite(head.V.data);
    const shares = t('mix.shares', { tok: labels[q] });
    setText(this.title, shares);
    this.stack.setAttribute('aria-label', t('mix.stackLabel', { tok: labels[q] }));
    this.scroller.setAttribute('aria-label', shares);
    setText(this.caption, t('mix.caption', { tok: labels[q] }));
    setText(this.outHead, t('mix.output', { tok: labels[q] }));
    resize(this.segs, tr.n, (j) => {
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
      setText(seg.firstChild, v >= 0.08 ? `${labels[j]} ${pct(v)}` : '');
    });
    // one row per key; with many keys only the TOP heaviest, in sentence order (a row of 64
    // keys is not read, and rewriting it on every keystroke costs a frame)
    const order = [...w.keys()].sort((a, b) => w[b] - w[a]);
    const many = tr.n > MANY;
    const shown = many && !this.showAll ? order.slice(0, TOP).sort((a, b) => a - b) : [...w.keys()];
    resize(this.rows, shown.length, () => {
      const row = {
        sw: el('span', { class: 'swatch' }), label: el('span'), w: el('td', { class: 'w', attrs: { 'data-matrix': 'weights' } }),
        v: el('td', { class: 'vrow' }),
        cells: Array.from({ length: tr.dK }, (_, c) => el('td', { attrs: { 'data-matrix': 'contrib', 'data-col': c } })),
      };
      row.tr = el('tr', {}, [el('th', { attrs: { scope: 'row' } }, [row.sw, row.label]), row.w, el('td', { class: 'times', text: '×' }),
        row.v, el('td', { class: 'times', text: '=' }), ...row.cells]);
      this.body.insertBefore(row.tr, this.moreRow);
      return row;
    });
    const hidden = many && !this.showAll ? order.slice(TOP) : [];
    this.moreRow.hidden = !many;
    setText(this.moreText, hidden.length ? t('mix.more', { n: hidden.length, p: pct(w[hidden[0]]), all: tr.n }) : '');
    setText(this.moreButton, this.showAll ? t('mix.showTop', { k: TOP }) : t('mix.showAll', { all: tr.n }));
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
      setText(row.w, pct(v));
      setText(row.v, `[${[...rowOf(head.V, j)].map((x) => fmt(x)).join(', ')}]`);
      row.cells.forEach((td, c) => {
        const x = contrib[c].products[j];
        writeOnce(td, 'data-head', h);
        writeOnce(td, 'data-row', j);
        writeOnce(td, 'data-value', x);
        setText(td, fmt(x));
        const bg = tint(x, scale);
        if (td.apBg !== bg) { td.apBg = bg; td.style.backgroundColor = bg; }
      });
    });
    const o = rowOf(head.output, q);
    this.outCells.forEach((td, c) => {
      writeOnce(td, 'data-head', h);
      writeOnce(td, 'data-row', q);
      writeOnce(td, 'data-value', o[c]);
      setText(td, fmt(o[c]));
    });
  }

  show(k) {
    this.k = k;
    this.rows.forEach((r) => r.tr.classList.toggle('pending', r.j >= k));
    this.segs.forEach((s, j) => s.classList.toggle('pending', j >= k));
    this.out.mark('row', [this.model.state.q]);
  }

  narrate(k) {
    const labels = this.model.result.tokens.map((x) => x.text);
    const order = [...this.w.keys()].sort((a, b) => this.w[b] - this.w[a]);
    const [a, b] = order;
    const q = this.model.state.q;
    if (k < this.w.length) return this.ctx.t('narr.mixStep', { tok: labels[q], key: labels[Math.max(0, k - 1)], p: pct(this.w[Math.max(0, k - 1)]) });
    return b == null ? this.ctx.t('narr.mix1', { tok: labels[q], a: labels[a], pa: pct(this.w[a]) })
      : this.ctx.t('narr.mix', { tok: labels[q], a: labels[a], pa: pct(this.w[a]), b: labels[b], pb: pct(this.w[b]) });
  }
}
