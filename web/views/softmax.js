// softmax.js: stage 7. One row at a time, with core.softmaxSteps: subtract the max, exponentiate
// (bars), add up, divide. The full weight matrix shows each row's sum, which is 1.
import { el, fmt, pct, matrixBlock, rowOf, BarList, setText } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';
import { refresh } from './later.js';

export class SoftmaxStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units() { return 4; }

  view(model) {
    const tr = model.result.trace;
    const h = model.state.head;
    const head = tr.head[h];
    const labels = model.result.tokens.map((x) => x.text);
    // row sums: a check on what is shown, not part of the computation
    const sums = new Float64Array(tr.n);
    const w = head.weights.data;
    for (let r = 0, i = 0; r < tr.n; r++) for (let c = 0; c < tr.n; c++, i++) sums[r] += w[i];   // no row views
    return [head.weights, {
      t: this.ctx.t,
      name: 'weights', head: h, tokenRows: true, rowLabels: labels, colLabels: labels, corner: 'q \\ k', weight: true,
      extra: { title: 'Σ', values: sums, name: 'rowsum' },
    }];
  }

  update(model) {
    if (!refreshStage(this, model, (m) => [m.state.head], (m) => [[this.w, this.view(m)]])) return false;
    this.fill();
    return true;
  }

  render(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    this.w = matrixView(...this.view(model));
    this.titles = Array.from({ length: 5 }, () => el('h4'));
    this.rows = [new RowTable('input'), new RowTable('shifted')];
    this.bars = [new BarList(), new BarList()];
    const parts = [[this.rows[0].el], [this.rows[1].el], [this.bars[0].el], [], [this.bars[1].el]];
    this.phases = parts.map((p, i) => el('section', { class: 'phase' }, [this.titles[i], ...p]));
    this.root.replaceChildren(
      el('div', { class: 'phases' }, this.phases),
      el('div', { class: 'row-blocks' }, [
        matrixBlock(t('softmax.title'), `${tr.n} × ${tr.n}`, this.w, `${t('orient')} · Σ = ${t('softmax.sums')}`),
      ]),
    );
    this.fill();
  }

  // the focus row's five phases, from core.softmaxSteps (rewritten in place)
  fill() {
    const { core, t } = this.ctx;
    const model = this.model;
    const tr = model.result.trace;
    const h = model.state.head;
    const q = model.state.q;
    const labels = model.result.tokens.map((x) => x.text);
    this.steps = core.softmaxSteps(rowOf(tr.head[h].masked, q), tr.temperature);
    const st = this.steps;
    const tempNote = tr.temperature !== 1 ? t('softmax.temp', { temp: fmt(tr.temperature) }) : '';
    const titles = [t('softmax.p0', { tok: labels[q] }), t('softmax.p1', { max: fmt(st.max, 3) }) + tempNote,
      t('softmax.p2'), t('softmax.p3', { sum: fmt(st.sum, 4) }), t('softmax.p4')];
    this.titles.forEach((e, i) => setText(e, titles[i]));
    this.rows[0].update(labels, st.input);
    this.rows[1].update(labels, st.shifted);
    refresh(this.bars[0], labels, [...st.exps], { max: 1, name: 'exps', head: h, row: q });
    refresh(this.bars[1], labels, [...st.weights], { max: 1, asPct: true });
  }

  show(k) {
    this.phases.forEach((p, i) => p.classList.toggle('pending', i > k));
    this.phases.forEach((p, i) => p.classList.toggle('current', i === k));
    const q = this.model.state.q;
    this.w.mark('row', [q]);
    for (let c = 0; c < this.model.result.trace.n; c++) this.w.cell(q, c).classList.toggle('pending', k < 4);
  }

  narrate(k) {
    const labels = this.model.result.tokens.map((x) => x.text);
    const q = this.model.state.q;
    const w = rowOf(this.model.result.trace.head[this.model.state.head].weights, q);
    if (k < 4) return this.ctx.t(`narr.softmax${k}`, { tok: labels[q], max: fmt(this.steps.max, 3), sum: fmt(this.steps.sum, 4) });
    let best = 0;
    for (let j = 1; j < w.length; j++) if (w[j] > w[best]) best = j;
    return this.ctx.t('narr.softmax', { tok: labels[q], p: pct(w[best]), key: labels[best] });
  }
}

// one row of numbers under the token labels (a phase of the focus row), rewritten in place
class RowTable {
  constructor(name) {
    this.name = name;
    this.head = el('tr');
    this.body = el('tr');
    this.el = el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group', 'aria-label': name } },
      [el('table', { class: 'dot' }, [el('thead', {}, [this.head]), el('tbody', {}, [this.body])])]);
  }

  update(labels, values) {
    while (this.body.children.length > values.length) { this.body.lastChild.remove(); this.head.lastChild.remove(); }
    while (this.body.children.length < values.length) {
      this.head.append(el('th'));
      this.body.append(el('td', { attrs: { 'data-matrix': this.name, 'data-col': this.body.children.length } }));
    }
    [...values].forEach((v, j) => {
      setText(this.head.children[j], labels[j]);
      const td = this.body.children[j];
      if (Object.is(td.apValue, v)) return;   // compared in JS: reading dataset back makes garbage
      td.apValue = v;
      td.className = v === -Infinity ? 'neg-inf' : '';
      td.dataset.value = String(v);
      setText(td, fmt(v, 3));
    });
  }
}
