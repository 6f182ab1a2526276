// score.js: stage 4. scores = Q Kᵀ fills cell by cell. A selected cell (i, j) is explained with
// core.dotSteps: q_i and k_j side by side, their products, the sum, the norms and the angle.
import { el, svg, fmt, matrixBlock, rowOf, writeOnce } from './util.js';
import { matrixView, refreshStage } from './heatmap.js';

export class ScoreStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; this.sel = null; }

  units(model) { const n = model.result.trace.n; return n * n; }

  // the matrices shown, as matrixView's arguments (render builds them, update refreshes them)
  views(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    const h = model.state.head;
    const head = tr.head[h];
    const labels = model.result.tokens.map((x) => x.text);
    const kdims = Array.from({ length: tr.dK }, (_, c) => `${c + 1}`);
    return [
      [head.Q, { t, name: 'Q', head: h, tokenRows: true, rowLabels: labels, colLabels: kdims, corner: 'i \\ c' }],
      [head.K, { t, name: 'K', head: h, tokenRows: true, rowLabels: labels, colLabels: kdims, corner: 'j \\ c' }],
      [head.scores, {
        t,
        name: 'scores', head: h, tokenRows: true, rowLabels: labels, colLabels: labels, corner: 'q \\ k',
        onSelect: (i, j) => { this.sel = [i, j]; this.show(this.k); this.ctx.actions.announce(this.narrate(this.k)); },
      }],
    ];
  }

  update(model) {
    const ok = refreshStage(this, model, (m) => [m.state.head], (m) => {
      const v = this.views(m);
      return [[this.q, v[0]], [this.kt, v[1]], [this.s, v[2]]];
    });
    const n = model.result.trace.n;
    if (ok && this.sel && (this.sel[0] >= n || this.sel[1] >= n)) this.sel = null;
    return ok;
  }

  render(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    this.sel = null;
    const v = this.views(model);
    [this.q, this.kt, this.s] = v.map((a) => matrixView(...a));
    this.detail = el('div', { class: 'detail' });
    this.dd = null;
    this.root.replaceChildren(
      el('div', { class: 'row-blocks' }, [
        matrixBlock('Q', `${tr.n} × ${tr.dK}`, this.q), matrixBlock('K', `${tr.n} × ${tr.dK}`, this.kt),
        el('div', { class: 'op', text: '→' }),
        matrixBlock(t('score.title'), `${tr.n} × ${tr.n}`, this.s, t('orient')),
      ]),
      el('p', { class: 'hint', text: t('score.pick') }),
      this.detail,
    );
  }

  cellAt(k) {
    const n = this.model.result.trace.n;
    if (this.sel) return this.sel;
    if (k >= n * n) return [this.model.state.q, this.model.state.q === 0 && n > 1 ? 1 : 0];
    const idx = Math.max(0, k - 1);
    return [Math.floor(idx / n), idx % n];
  }

  show(k) {
    this.k = k;
    const [i, j] = this.cellAt(k);
    this.s.reveal(k);
    this.s.mark('cell', [[i, j]]);
    this.q.mark('row', [i]);
    this.kt.mark('row', [j]);
    this.renderDetail(i, j);
  }

  // The chosen cell's dot product, built once per stage drawing and rewritten in place (typing
  // changes the numbers, not the structure): q_i and k_j, their products, the sum, and the angle.
  buildDetail() {
    const cols = () => Array.from({ length: this.model.result.trace.dK }, () => el('td'));
    this.dd = {
      title: el('h4'), qHead: el('th'), kHead: el('th'), q: cols(), k: cols(),
      products: cols().map((td, c) => { td.dataset.matrix = 'products'; td.dataset.col = c; return td; }),
      sum: el('td', { class: 'sum', attrs: { 'data-matrix': 'dot' } }),
      lq: svg('line', { x1: 0, y1: 0, y2: 0, class: 'vq' }), lk: svg('line', { x1: 0, y1: 0, class: 'vk' }),
      arc: svg('path', { class: 'arc' }), tq: svg('text', { y: 12, class: 'lq' }), tk: svg('text', { class: 'lk' }),
      tt: svg('text', { x: 22, y: -6, class: 'lt' }), facts: [el('li'), el('li'), el('li')],
    };
    const d = this.dd;
    d.pic = svg('svg', { viewBox: '-80 -78 160 100', class: 'angle', role: 'img' });
    d.pic.append(d.lq, d.lk, d.arc, d.tq, d.tk, d.tt);
    const table = el('table', { class: 'dot' }, [
      el('thead', {}, [el('tr', {}, [el('th', { text: 'c' }), ...d.q.map((_, c) => el('th', { text: String(c + 1) })), el('th', { text: 'Σ' })])]),
      el('tbody', {}, [
        el('tr', {}, [d.qHead, ...d.q, el('td')]),
        el('tr', {}, [d.kHead, ...d.k, el('td')]),
        el('tr', { class: 'products' }, [el('th', { text: 'q×k' }), ...d.products, d.sum]),
      ]),
    ]);
    d.scroller = el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group' } }, [table]);
    this.detail.replaceChildren(d.title, d.scroller,
      el('div', { class: 'dot-geo' }, [d.pic, el('ul', { class: 'facts' }, d.facts)]));
  }

  renderDetail(i, j) {
    const { core, t } = this.ctx;
    const tr = this.model.result.trace;
    const head = tr.head[this.model.state.head];
    const q = rowOf(head.Q, i);
    const kv = rowOf(head.K, j);
    const d = core.dotSteps(q, kv);
    const tq = this.model.result.tokens[i].text;
    const tk = this.model.result.tokens[j].text;
    if (!this.dd || this.dd.q.length !== tr.dK) this.buildDetail();
    const x = this.dd;
    const title = t('score.cell', { q: tq, k: tk, i: i + 1, j: j + 1 });
    writeOnce(x.title, 'text', title);
    writeOnce(x.scroller, 'aria-label', title);
    writeOnce(x.qHead, 'text', `q (${tq})`);
    writeOnce(x.kHead, 'text', `k (${tk})`);
    for (let c = 0; c < tr.dK; c++) {
      writeOnce(x.q[c], 'text', fmt(q[c]));
      writeOnce(x.k[c], 'text', fmt(kv[c]));
      writeOnce(x.products[c], 'text', fmt(d.products[c]));
      writeOnce(x.products[c], 'data-value', d.products[c]);
    }
    writeOnce(x.sum, 'text', fmt(d.dot, 3));
    writeOnce(x.sum, 'data-value', d.dot);
    // the angle picture: two arrows at the real angle, lengths proportional to |q| and |k|
    const R = 60;
    const big = Math.max(d.normQ, d.normK, 1e-9);
    const a = (d.angleDegrees * Math.PI) / 180;
    const lq = (R * d.normQ) / big;
    const lk = (R * d.normK) / big;
    writeOnce(x.pic, 'aria-label', t('score.angle', { deg: fmt(d.angleDegrees, 1) }));
    writeOnce(x.lq, 'x2', lq);
    writeOnce(x.lk, 'x2', lk * Math.cos(a));
    writeOnce(x.lk, 'y2', -lk * Math.sin(a));
    writeOnce(x.arc, 'd', `M 18 0 A 18 18 0 0 0 ${18 * Math.cos(a)} ${-18 * Math.sin(a)}`);
    writeOnce(x.tq, 'x', lq);
    writeOnce(x.tq, 'text', `q ${tq}`);
    writeOnce(x.tk, 'x', lk * Math.cos(a));
    writeOnce(x.tk, 'y', -lk * Math.sin(a) - 4);
    writeOnce(x.tk, 'text', `k ${tk}`);
    writeOnce(x.tt, 'text', `θ ${fmt(d.angleDegrees, 0)}°`);
    const facts = [t('score.sum', { dot: fmt(d.dot, 3) }),
      t('score.geo', { nq: fmt(d.normQ), nk: fmt(d.normK), cos: fmt(d.cosine, 3), deg: fmt(d.angleDegrees, 1) }),
      t(d.cosine > 0.3 ? 'score.alike' : d.cosine < -0.3 ? 'score.opposite' : 'score.unrelated')];
    facts.forEach((f, n) => writeOnce(x.facts[n], 'text', f));
  }

  narrate(k) {
    const [i, j] = this.cellAt(k);
    const head = this.model.result.trace.head[this.model.state.head];
    const n = this.model.result.trace.n;
    return this.ctx.t('narr.score', { q: this.model.result.tokens[i].text, k: this.model.result.tokens[j].text, v: fmt(head.scores.data[i * n + j], 3) });
  }
}
