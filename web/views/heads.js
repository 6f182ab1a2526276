// heads.js: stage 9. Every head's weight matrix side by side (each head looks for something
// different), then the heads' outputs side by side (concat), times W_O, gives the layer's output.
import { el, pct, matrixBlock, rowOf } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';

export class HeadsStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.trace.heads + 2; }

  // the matrices shown, as matrixView's arguments: each head's weights, concat, W_O, output
  views(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    const labels = model.result.tokens.map((x) => x.text);
    const dims = Array.from({ length: tr.dModel }, (_, c) => `d${c + 1}`);
    const cdims = Array.from({ length: tr.heads * tr.dK }, (_, c) => `h${Math.floor(c / tr.dK) + 1}.${(c % tr.dK) + 1}`);
    return {
      heads: tr.head.map((hd, h) => [hd.weights, { t, name: 'weights', head: h, tokenRows: true, rowLabels: labels, colLabels: labels, corner: 'q \\ k', weight: true }]),
      concat: [tr.concat, { t, name: 'concat', tokenRows: true, rowLabels: labels, colLabels: cdims, corner: 'i \\ c' }],
      wo: [tr.W_O, { t, name: 'W_O', rowLabels: cdims, colLabels: dims, corner: 'c \\ d' }],
      out: [tr.output, { t, name: 'output', tokenRows: true, rowLabels: labels, colLabels: dims, corner: 'i \\ d' }],
    };
  }

  update(model) {
    if (!refreshStage(this, model, (m) => [m.result.trace.heads], (m) => {
      const v = this.views(m);
      return [...this.headViews.map((x, h) => [x, v.heads[h]]), [this.concat, v.concat], [this.wo, v.wo], [this.out, v.out]];
    })) return false;
    this.markRows();
    return true;
  }

  markRows() {
    const { q, head } = this.model.state;
    for (const m of [...this.headViews, this.concat, this.out]) m.mark('row', [q]);
    this.headBlocks.forEach((fig, h) => fig.classList.toggle('chosen', h === head));
  }

  render(model) {
    const { t, actions } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    const v = this.views(model);
    this.headViews = v.heads.map((a) => matrixView(...a));
    this.headBlocks = this.headViews.map((m, h) => {
      const fig = matrixBlock(t('heads.head', { h: h + 1 }), `${tr.n} × ${tr.n}`, m);
      fig.append(el('button', { class: 'action small', text: t('heads.follow', { h: h + 1 }), attrs: { type: 'button' }, on: { click: () => actions.setHead(h) } }));
      return fig;
    });
    this.concat = matrixView(...v.concat);
    this.wo = matrixView(...v.wo);
    this.out = matrixView(...v.out);
    this.markRows();
    this.merge = el('div', { class: 'row-blocks' }, [
      matrixBlock(t('heads.concat'), `${tr.n} × ${tr.heads * tr.dK}`, this.concat), el('div', { class: 'op', text: '×' }),
      matrixBlock('W_O', `${tr.heads * tr.dK} × ${tr.dModel}`, this.wo), el('div', { class: 'op', text: '=' }),
      matrixBlock(t('heads.output'), `${tr.n} × ${tr.dModel}`, this.out, t('heads.orient')),
    ]);
    this.root.replaceChildren(
      el('p', { class: 'lead', text: t('heads.lead', { h: tr.heads, dk: tr.dK, d: tr.dModel }) }),
      el('div', { class: 'row-blocks heads' }, this.headBlocks),
      this.merge,
    );
  }

  show(k) {
    const h = this.model.result.trace.heads;
    this.headBlocks.forEach((b, i) => b.classList.toggle('pending', i >= Math.max(1, k)));
    this.concat.reveal(k > h ? Infinity : 0);
    this.out.reveal(k > h + 1 ? Infinity : 0);
  }

  narrate() {
    const tr = this.model.result.trace;
    const labels = this.model.result.tokens.map((x) => x.text);
    const q = this.model.state.q;
    const parts = tr.head.map((hd, h) => {
      const w = rowOf(hd.weights, q);
      let best = 0;
      for (let j = 1; j < w.length; j++) if (w[j] > w[best]) best = j;
      return this.ctx.t('narr.headPart', { h: h + 1, key: labels[best], p: pct(w[best]) });
    });
    return this.ctx.t('narr.heads', { tok: labels[q], parts: parts.join(this.ctx.t('list.sep')), n: tr.heads, d: tr.dModel });
  }
}
