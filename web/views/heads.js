// heads.js: stage 9. Every head's weight matrix side by side (each head looks for something
// different), then the heads' outputs side by side (concat), times W_O, gives the layer's output.
import { el, pct, matrixBlock, rowOf } from './util.js';
import { matrixView } from './heatmap.js';

export class HeadsStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.trace.heads + 2; }

  render(model) {
    const { t, actions } = this.ctx;
    const tr = model.result.trace;
    const q = model.state.q;
    this.model = model;
    const labels = model.result.tokens.map((x) => x.text);
    this.headBlocks = tr.head.map((hd, h) => {
      const m = matrixView(hd.weights, { t, name: 'weights', head: h, rowLabels: labels, colLabels: labels, corner: 'q \\ k', weight: true });
      m.mark('row', [q]);
      const fig = matrixBlock(t('heads.head', { h: h + 1 }), `${tr.n} × ${tr.n}`, m);
      fig.classList.toggle('chosen', h === model.state.head);
      fig.append(el('button', { class: 'action small', text: t('heads.follow', { h: h + 1 }), attrs: { type: 'button' }, on: { click: () => actions.setHead(h) } }));
      return fig;
    });
    const dims = Array.from({ length: tr.dModel }, (_, c) => `d${c + 1}`);
    const cdims = Array.from({ length: tr.heads * tr.dK }, (_, c) => `h${Math.floor(c / tr.dK) + 1}.${(c % tr.dK) + 1}`);
    this.concat = matrixView(tr.concat, { t, name: 'concat', rowLabels: labels, colLabels: cdims, corner: 'i \\ c' });
    this.wo = matrixView(tr.W_O, { t, name: 'W_O', rowLabels: cdims, colLabels: dims, corner: 'c \\ d' });
    this.out = matrixView(tr.output, { t, name: 'output', rowLabels: labels, colLabels: dims, corner: 'i \\ d' });
    for (const m of [this.concat, this.out]) m.mark('row', [q]);
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
