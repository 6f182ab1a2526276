// mix.js: stage 8. The focus token's output is the weighted sum of the V rows. Each key's share
// is drawn as a stacked bar, and its contribution w·V_j per column comes from core.dotSteps
// (the products of the weight row with a V column), so nothing is multiplied here.
import { el, fmt, pct, matrixBlock, rowOf, colOf, tint, maxAbsFinite } from './util.js';
import { matrixView } from './heatmap.js';

const PALETTE = ['#1d4ed8', '#b45309', '#047857', '#9333ea', '#be123c', '#0e7490', '#4d7c0f', '#a21caf'];

export class MixStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.trace.n; }

  render(model) {
    const { core, t } = this.ctx;
    const tr = model.result.trace;
    const h = model.state.head;
    const q = model.state.q;
    const head = tr.head[h];
    this.model = model;
    const labels = model.result.tokens.map((x) => x.text);
    const w = rowOf(head.weights, q);
    this.w = w;
    // contributions[c].products[j] = w_qj * V[j][c]; .dot = output[q][c]
    const contrib = Array.from({ length: tr.dK }, (_, c) => core.dotSteps(w, colOf(head.V, c)));
    const scale = maxAbsFinite(head.V.data);
    // stacked bar of shares (widths are the weights themselves)
    this.stack = el('div', { class: 'stack', attrs: { role: 'img', 'aria-label': t('mix.stackLabel', { tok: labels[q] }) } });
    this.segs = [...w].map((v, j) => {
      const seg = el('span', { class: 'seg', attrs: { title: `${labels[j]} ${pct(v)}` } },
        v >= 0.08 ? [el('span', { text: `${labels[j]} ${pct(v)}` })] : []);
      seg.style.width = `${v * 100}%`;
      seg.style.backgroundColor = PALETTE[j % PALETTE.length];
      this.stack.append(seg);
      return seg;
    });
    // the table: one row per key j
    const kdims = Array.from({ length: tr.dK }, (_, c) => `${c + 1}`);
    const body = el('tbody');
    this.rows = [...w].map((v, j) => {
      const cells = contrib.map((d, c) => {
        const x = d.products[j];
        const td = el('td', { text: fmt(x), attrs: { 'data-matrix': 'contrib', 'data-head': h, 'data-row': j, 'data-col': c, 'data-value': x } });
        td.style.backgroundColor = tint(x, scale);
        return td;
      });
      const sw = el('span', { class: 'swatch' });
      sw.style.backgroundColor = PALETTE[j % PALETTE.length];
      const tr_ = el('tr', {}, [
        el('th', { attrs: { scope: 'row' } }, [sw, el('span', { text: labels[j] })]),
        el('td', { class: 'w', text: pct(v), attrs: { 'data-matrix': 'weights', 'data-head': h, 'data-row': q, 'data-col': j, 'data-value': v } }),
        el('td', { class: 'times', text: '×' }),
        el('td', { class: 'vrow', text: `[${[...rowOf(head.V, j)].map((x) => fmt(x)).join(', ')}]` }),
        el('td', { class: 'times', text: '=' }),
        ...cells,
      ]);
      body.append(tr_);
      return tr_;
    });
    const outRow = el('tr', { class: 'total' }, [
      el('th', { text: t('mix.output', { tok: labels[q] }), attrs: { scope: 'row', colspan: 5 } }),
      ...[...rowOf(head.output, q)].map((x, c) => el('td', { text: fmt(x), attrs: { 'data-matrix': 'output', 'data-head': h, 'data-row': q, 'data-col': c, 'data-value': x } })),
    ]);
    const table = el('table', { class: 'mix' }, [
      el('caption', { text: t('mix.caption', { tok: labels[q] }) }),
      el('thead', {}, [el('tr', {}, [el('th', { text: t('mix.key') }), el('th', { text: t('mix.weight') }), el('th'),
        el('th', { text: 'V_j' }), el('th'), ...kdims.map((d) => el('th', { text: `c${d}` }))])]),
      body, el('tfoot', {}, [outRow]),
    ]);
    this.out = matrixView(head.output, { t, name: 'head_output', head: h, rowLabels: labels, colLabels: kdims, corner: 'i \\ c' });
    this.root.replaceChildren(
      el('h4', { text: t('mix.shares', { tok: labels[q] }) }), this.stack,
      el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group', 'aria-label': t('mix.shares', { tok: labels[q] }) } }, [table]),
      el('p', { class: 'hint', text: t('mix.why') }),
      el('div', { class: 'row-blocks' }, [matrixBlock(t('mix.all'), `${tr.n} × ${tr.dK}`, this.out, t('mix.orient'))]),
    );
  }

  show(k) {
    this.rows.forEach((r, j) => r.classList.toggle('pending', j >= k));
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
