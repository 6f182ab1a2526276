// mask.js: stage 6. With the causal mask a query may not look at later keys: those cells become
// −∞ (and weight 0 after softmax). Without it the matrix passes through unchanged.
import { el, matrixBlock, rowOf } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';

export class MaskStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.trace.n; }

  view(model) {
    const h = model.state.head;
    const labels = model.result.tokens.map((x) => x.text);
    return [model.result.trace.head[h].masked, { t: this.ctx.t, name: 'masked', head: h, tokenRows: true, rowLabels: labels, colLabels: labels, corner: 'q \\ k' }];
  }

  update(model) {
    return refreshStage(this, model, (m) => [m.state.head, m.result.trace.causal], (m) => [[this.m, this.view(m)]]);
  }

  render(model) {
    const { t, actions } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    this.m = matrixView(...this.view(model));
    const toggle = el('button', {
      class: 'action', text: tr.causal ? t('mask.turnOff') : t('mask.turnOn'),
      attrs: { type: 'button' }, on: { click: () => actions.setSetting('causal', !tr.causal) },
    });
    this.root.replaceChildren(
      el('p', { class: 'lead', text: tr.causal ? t('mask.on') : t('mask.off') }), toggle,
      el('div', { class: 'row-blocks' }, [matrixBlock(t('mask.title'), `${tr.n} × ${tr.n}`, this.m, t('orient'))]),
    );
  }

  show(k) {
    this.m.revealRows(k);
    const r = k >= this.model.result.trace.n ? this.model.state.q : k - 1;
    this.m.mark('row', r >= 0 ? [r] : []);
  }

  narrate() {
    const tr = this.model.result.trace;
    const q = this.model.state.q;
    const hidden = [...rowOf(tr.head[this.model.state.head].masked, q)].filter((v) => v === -Infinity).length;
    const tok = this.model.result.tokens[q].text;
    return tr.causal ? this.ctx.t('narr.maskOn', { tok, hidden }) : this.ctx.t('narr.maskOff', { tok });
  }
}
