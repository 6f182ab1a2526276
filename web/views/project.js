// project.js: stage 3. Q = X W_Q, K = X W_K, V = X W_V for the chosen head, animated cell by cell
// as row-times-column: row i of X meets column c of W, and the products add up to one number.
// The products come from core.dotSteps; the result cells from the trace.
import { el, fmt, matrixBlock, rowOf, colOf } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';

const ROLES = ['Q', 'K', 'V'];

export class ProjectStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; this.role = 0; this.sel = null; }

  units(model) { const tr = model.result.trace; return 3 * tr.n * tr.dK; }

  // the matrices shown, as matrixView's arguments (render builds them, update refreshes them)
  views(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    const h = model.state.head;
    const head = tr.head[h];
    const labels = model.result.tokens.map((x) => x.text);
    const dims = Array.from({ length: tr.dModel }, (_, c) => `d${c + 1}`);
    const kdims = Array.from({ length: tr.dK }, (_, c) => `${c + 1}`);
    return {
      x: [tr.X, { t, name: 'X', tokenRows: true, rowLabels: labels, colLabels: dims, corner: 'i \\ d' }],
      w: ROLES.map((r) => [head[`W_${r}`], { t, name: `W_${r}`, head: h, rowLabels: dims, colLabels: kdims, corner: 'd \\ c' }]),
      out: ROLES.map((r) => [head[r], {
        t,
        name: r, head: h, tokenRows: true, rowLabels: labels, colLabels: kdims, corner: 'i \\ c',
        onSelect: (i, c) => { this.sel = [i, c]; this.show(this.k); },
      }]),
    };
  }

  update(model) {
    const ok = refreshStage(this, model, (m) => [m.state.head], (m) => {
      const v = this.views(m);
      return [[this.x, v.x], ...this.w.map((w, i) => [w, v.w[i]]), ...this.out.map((o, i) => [o, v.out[i]])];
    });
    if (ok && this.sel && this.sel[0] >= model.result.trace.n) this.sel = null;
    return ok;
  }

  render(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    this.sel = null;
    const v = this.views(model);
    this.x = matrixView(...v.x);
    this.w = v.w.map((a) => matrixView(...a));
    this.out = v.out.map((a) => matrixView(...a));
    this.tabs = ROLES.map((r, idx) => el('button', {
      class: `role role-${r}`, attrs: { type: 'button', role: 'tab', 'aria-selected': idx === this.role },
      on: { click: () => { this.role = idx; this.sel = null; this.ctx.actions.scrubTo(this.units(this.model)); this.show(this.k); } },
    }, [el('strong', { text: r }), el('span', { text: t(`project.role${r}`) })]));
    this.wBlocks = this.w.map((w, idx) => matrixBlock(`W_${ROLES[idx]}`, `${tr.dModel} × ${tr.dK}`, w));
    this.oBlocks = this.out.map((o, idx) => matrixBlock(`${ROLES[idx]} = X·W_${ROLES[idx]}`, `${tr.n} × ${tr.dK}`, o, t('project.orient')));
    this.calc = el('div', { class: 'calc', attrs: { 'aria-live': 'off' } });
    this.root.replaceChildren(
      el('div', { class: 'tabs', attrs: { role: 'tablist', 'aria-label': t('project.roles') } }, this.tabs),
      el('div', { class: 'row-blocks' }, [
        matrixBlock(t('embed.x'), `${tr.n} × ${tr.dModel}`, this.x), el('div', { class: 'op', text: '×' }),
        ...this.wBlocks, el('div', { class: 'op', text: '=' }), ...this.oBlocks,
      ]),
      this.calc,
    );
  }

  // which role and which cell the animation is at
  where(k) {
    const tr = this.model.result.trace;
    const per = tr.n * tr.dK;
    if (k >= 3 * per) return { role: this.role, idx: per, done: true };
    return { role: Math.floor(k / per), idx: k % per, done: false };
  }

  show(k) {
    this.k = k;
    const tr = this.model.result.trace;
    const { role, idx, done } = this.where(k);
    this.tabs.forEach((b, i) => b.setAttribute('aria-selected', String(i === role)));
    this.wBlocks.forEach((b, i) => { b.hidden = i !== role; });
    this.oBlocks.forEach((b, i) => { b.hidden = i !== role; });
    const out = this.out[role];
    out.reveal(done ? tr.n * tr.dK : idx + 1);
    let cell = done ? (this.sel || [this.model.state.q, 0]) : [Math.floor(idx / tr.dK), idx % tr.dK];
    if (this.sel && !done) cell = this.sel;
    const [i, c] = cell;
    this.x.mark('row', [i]);
    this.w[role].mark('col', [c]);
    out.mark('cell', [[i, c]]);
    this.renderCalc(role, i, c);
  }

  renderCalc(role, i, c) {
    const { core, t } = this.ctx;
    const tr = this.model.result.trace;
    const head = tr.head[this.model.state.head];
    const r = ROLES[role];
    const x = rowOf(tr.X, i);
    const w = colOf(head[`W_${r}`], c);
    const d = core.dotSteps(x, w);
    const terms = [...x].map((xv, tix) => `${fmt(xv)}×${fmt(w[tix])}`);
    const value = head[r].data[i * tr.dK + c];
    this.calc.replaceChildren(
      el('p', { class: 'calc-title', text: t('project.cell', { r, tok: this.model.result.tokens[i].text, c: c + 1 }) }),
      el('p', { class: 'calc-sum' }, [
        el('span', { text: terms.join(' + ') }),
        el('span', { class: 'eq', text: ` = ${fmt(value, 3)}` }),
      ]),
      el('p', { class: 'hint', text: t('project.products', { list: [...d.products].map((p) => fmt(p)).join(', ') }) }),
    );
  }

  narrate(k) {
    const tr = this.model.result.trace;
    const { role, idx, done } = this.where(k);
    const [i, c] = done ? (this.sel || [this.model.state.q, 0]) : [Math.floor(idx / tr.dK), idx % tr.dK];
    const r = ROLES[role];
    const value = tr.head[this.model.state.head][r].data[i * tr.dK + c];
    return this.ctx.t('narr.project', { r, tok: this.model.result.tokens[i].text, c: c + 1, v: fmt(value, 3), role: this.ctx.t(`project.role${r}`) });
  }
}
