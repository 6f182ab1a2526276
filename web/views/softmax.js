// softmax.js: stage 7. One row at a time, with core.softmaxSteps: subtract the max, exponentiate
// (bars), add up, divide. The full weight matrix shows each row's sum, which is 1.
import { el, fmt, pct, matrixBlock, rowOf, barList } from './util.js';
import { matrixView } from './heatmap.js';

export class SoftmaxStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units() { return 4; }

  render(model) {
    const { core, t } = this.ctx;
    const tr = model.result.trace;
    const h = model.state.head;
    const q = model.state.q;
    const head = tr.head[h];
    this.model = model;
    const labels = model.result.tokens.map((x) => x.text);
    this.steps = core.softmaxSteps(rowOf(head.masked, q), tr.temperature);
    const st = this.steps;
    // row sums: a check on what is shown, not part of the computation
    const sums = Array.from({ length: tr.n }, (_, r) => rowOf(head.weights, r).reduce((a, v) => a + v, 0));
    this.w = matrixView(head.weights, {
      t,
      name: 'weights', head: h, rowLabels: labels, colLabels: labels, corner: 'q \\ k', weight: true,
      extra: { title: 'Σ', values: sums, name: 'rowsum' },
    });
    const tempNote = tr.temperature !== 1 ? t('softmax.temp', { temp: fmt(tr.temperature) }) : '';
    this.phases = [
      el('section', { class: 'phase' }, [el('h4', { text: t('softmax.p0', { tok: labels[q] }) }),
        this.rowTable(labels, st.input, 'input')]),
      el('section', { class: 'phase' }, [el('h4', { text: t('softmax.p1', { max: fmt(st.max, 3) }) + tempNote }),
        this.rowTable(labels, st.shifted, 'shifted')]),
      el('section', { class: 'phase' }, [el('h4', { text: t('softmax.p2') }),
        barList(labels, [...st.exps], { max: 1, name: 'exps', head: h, row: q })]),
      el('section', { class: 'phase' }, [el('h4', { text: t('softmax.p3', { sum: fmt(st.sum, 4) }) })]),
      el('section', { class: 'phase' }, [el('h4', { text: t('softmax.p4') }),
        barList(labels, [...st.weights], { max: 1, asPct: true })]),
    ];
    this.root.replaceChildren(
      el('div', { class: 'phases' }, this.phases),
      el('div', { class: 'row-blocks' }, [
        matrixBlock(t('softmax.title'), `${tr.n} × ${tr.n}`, this.w, `${t('orient')} · Σ = ${t('softmax.sums')}`),
      ]),
    );
  }

  rowTable(labels, values, name) {
    return el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group', 'aria-label': name } }, [el('table', { class: 'dot' }, [
      el('thead', {}, [el('tr', {}, labels.map((l) => el('th', { text: l })))]),
      el('tbody', {}, [el('tr', {}, [...values].map((v, j) => el('td', {
        class: v === -Infinity ? 'neg-inf' : '', text: fmt(v, 3), attrs: { 'data-matrix': name, 'data-col': j, 'data-value': v },
      })))]),
    ])]);
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
