// scale.js: stage 5. scaled = scores × (1/√d_k). The "why" on the real numbers: the spread of the
// focus row (core.finiteRange) before and after, and what softmax would make of each row
// (core.softmaxSteps), so a learner sees an unscaled row turn into an almost one-hot weight row.
import { el, fmt, pct, matrixBlock, rowOf, barList } from './util.js';
import { matrixView } from './heatmap.js';

export class ScaleStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.trace.n; }

  render(model) {
    const { core, t } = this.ctx;
    const tr = model.result.trace;
    const h = model.state.head;
    const head = tr.head[h];
    const q = model.state.q;
    this.model = model;
    const labels = model.result.tokens.map((x) => x.text);
    this.sc = matrixView(head.scaled, { t, name: 'scaled', head: h, rowLabels: labels, colLabels: labels, corner: 'q \\ k' });
    const raw = rowOf(head.scores, q);
    const scaled = rowOf(head.scaled, q);
    const before = core.finiteRange(raw);
    const after = core.finiteRange(scaled);
    const temp = tr.temperature;
    const wRaw = core.softmaxSteps(raw, temp).weights;
    const wScaled = core.softmaxSteps(scaled, temp).weights;
    const top = (w) => Math.max(...w);
    const factor = tr.scaleFactor;
    const facts = [
      el('li', { text: tr.scale ? t('scale.factor', { dk: tr.dK, f: fmt(factor, 4) }) : t('scale.off') }),
      el('li', { text: t('scale.spread', { tok: labels[q], before: fmt(before, 3), after: fmt(after, 3) }) }),
    ];
    this.root.replaceChildren(
      el('ul', { class: 'facts' }, facts),
      el('div', { class: 'row-blocks' }, [matrixBlock(t('scale.title'), `${tr.n} × ${tr.n}`, this.sc, t('orient'))]),
      el('div', { class: 'compare' }, [
        el('div', {}, [el('h4', { text: t('scale.withoutBars', { top: pct(top(wRaw)) }) }),
          barList(labels, [...wRaw], { max: 1, asPct: true })]),
        el('div', {}, [el('h4', { text: t('scale.withBars', { top: pct(top(wScaled)) }) }),
          barList(labels, [...wScaled], { max: 1, asPct: true })]),
      ]),
      el('p', { class: 'hint', text: t('scale.why') }),
    );
    this.summary = { tok: labels[q], before: fmt(before, 3), after: fmt(after, 3), topRaw: pct(top(wRaw)), topScaled: pct(top(wScaled)) };
  }

  show(k) {
    this.sc.revealRows(k);
    const r = k >= this.model.result.trace.n ? this.model.state.q : k - 1;
    this.sc.mark('row', r >= 0 ? [r] : []);
  }

  narrate() { return this.ctx.t('narr.scale', this.summary); }
}
