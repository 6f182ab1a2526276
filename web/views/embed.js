// embed.js: stage 2. Each token's vector X_i (row i of X), shown row by row; when positions are
// on, the token vectors E and the position signal P (both from the core's trace) sit beside X:
// X = E + P.
import { el, fmt, matrixBlock, rowOf } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';

export class EmbedStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.trace.n; }

  // the matrices shown, as matrixView's arguments: X, and E and P when positions are on
  views(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    const labels = model.result.tokens.map((x) => x.text);
    const dims = Array.from({ length: tr.dModel }, (_, c) => `d${c + 1}`);
    const o = { t, tokenRows: true, rowLabels: labels, colLabels: dims, corner: 'i \\ d' };
    const out = { x: [tr.X, { ...o, name: 'X', caption: t('embed.caption') }] };
    if (model.result.positions) {
      out.e = [model.result.embeddings, { ...o, name: 'E' }];
      out.p = [model.result.positions, { ...o, name: 'P' }];
    }
    return out;
  }

  update(model) {
    return refreshStage(this, model, (m) => [!!m.result.positions, m.result.settings.positions], (m) => {
      const v = this.views(m);
      return [[this.x, v.x], ...(v.p ? [[this.e, v.e], [this.p, v.p]] : [])];
    });
  }

  render(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    const v = this.views(model);
    this.x = matrixView(...v.x);
    const blocks = [];
    if (model.result.positions) {
      this.e = matrixView(...v.e);
      this.p = matrixView(...v.p);
      blocks.push(matrixBlock(t('embed.plain'), `${tr.n} × ${tr.dModel}`, this.e), el('div', { class: 'op', text: '+' }),
        matrixBlock(t('embed.pos'), `${tr.n} × ${tr.dModel}`, this.p), el('div', { class: 'op', text: '=' }));
    } else {
      this.e = null;
      this.p = null;
    }
    blocks.push(matrixBlock(t('embed.x'), `${tr.n} × ${tr.dModel}`, this.x, t('embed.orient')));
    this.root.replaceChildren(
      el('div', { class: 'row-blocks' }, blocks),
      el('p', { class: 'hint', text: model.result.settings.positions ? t('embed.posOn') : t('embed.posOff') }),
    );
  }

  show(k) {
    this.x.revealRows(k);
    this.e?.revealRows(k);
    this.p?.revealRows(k);
    // while rows appear, the newest; once all are shown, the followed token (as the narration says)
    const r = k >= this.model.result.trace.n ? this.model.state.q : k - 1;
    this.x.mark('row', r >= 0 ? [r] : []);
    this.e?.mark('row', r >= 0 ? [r] : []);
    this.p?.mark('row', r >= 0 ? [r] : []);
  }

  narrate(k) {
    const tr = this.model.result.trace;
    const i = k >= tr.n ? this.model.state.q : Math.max(0, k - 1);
    const v = [...rowOf(tr.X, i)].slice(0, 3).map((x) => fmt(x)).join(', ');
    return this.ctx.t('narr.embed', { tok: this.model.result.tokens[i].text, d: tr.dModel, first: v });
  }
}
