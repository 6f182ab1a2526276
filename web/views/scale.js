// scale.js: stage 5. scaled = scores × (1/√d_k). The "why" on the real numbers: the spread of the
// focus row (core.finiteRange) before and after, and what softmax would make of each row
// (core.softmaxSteps), so a learner sees an unscaled row turn into an almost one-hot weight row.
import { el, fmt, pct, matrixBlock, rowOf, BarList, setText } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';
import { refresh } from './later.js';

export class ScaleStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.trace.n; }

  view(model) {
    const h = model.state.head;
    const labels = model.result.tokens.map((x) => x.text);
    return [model.result.trace.head[h].scaled, { t: this.ctx.t, name: 'scaled', head: h, tokenRows: true, rowLabels: labels, colLabels: labels, corner: 'q \\ k' }];
  }

  update(model) {
    const shape = (m) => [m.state.head, m.result.trace.scale, m.result.trace.dK];
    if (!refreshStage(this, model, shape, (m) => [[this.sc, this.view(m)]])) return false;
    this.fill();
    return true;
  }

  render(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    this.sc = matrixView(...this.view(model));
    this.facts = el('ul', { class: 'facts' });
    this.bars = [new BarList(), new BarList()];
    this.barTitles = [el('h4'), el('h4')];
    this.compare = el('div', { class: 'compare' }, this.bars.map((b, i) => el('div', {}, [this.barTitles[i], b.el])));
    this.root.replaceChildren(
      this.facts,
      el('div', { class: 'row-blocks' }, [matrixBlock(t('scale.title'), `${tr.n} × ${tr.n}`, this.sc, t('orient'))]),
      this.compare,
      el('p', { class: 'hint', text: t('scale.why') }),
    );
    this.fill();
  }

  // the focus row's spread before and after, and what softmax makes of it either way
  fill() {
    const { core, t } = this.ctx;
    const model = this.model;
    const tr = model.result.trace;
    const head = tr.head[model.state.head];
    const q = model.state.q;
    const labels = model.result.tokens.map((x) => x.text);
    const raw = rowOf(head.scores, q);
    const scaled = rowOf(head.scaled, q);
    const before = core.finiteRange(raw);
    const after = core.finiteRange(scaled);
    const temp = tr.temperature;
    const wRaw = core.softmaxSteps(raw, temp).weights;
    const wScaled = core.softmaxSteps(scaled, temp).weights;
    const top = (w) => Math.max(...w);
    this.facts.replaceChildren(
      el('li', { text: tr.scale ? t('scale.factor', { dk: tr.dK, f: fmt(tr.scaleFactor, 4) }) : t('scale.off') }),
      el('li', { text: t('scale.spread', { tok: labels[q], before: fmt(before, 3), after: fmt(after, 3) }) }),
    );
    setText(this.barTitles[0], t('scale.withoutBars', { top: pct(top(wRaw)) }));
    setText(this.barTitles[1], t('scale.withBars', { top: pct(top(wScaled)) }));
    refresh(this.bars[0], labels, [...wRaw], { max: 1, asPct: true });
    refresh(this.bars[1], labels, [...wScaled], { max: 1, asPct: true });
    this.summary = { tok: labels[q], before: fmt(before, 3), after: fmt(after, 3), topRaw: pct(top(wRaw)), topScaled: pct(top(wScaled)) };
  }

  show(k) {
    this.sc.revealRows(k);
    const r = k >= this.model.result.trace.n ? this.model.state.q : k - 1;
    this.sc.mark('row', r >= 0 ? [r] : []);
  }

  narrate() { return this.ctx.t('narr.scale', this.summary); }
}
