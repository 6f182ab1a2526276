// score.js: stage 4. scores = Q Kᵀ fills cell by cell. A selected cell (i, j) is explained with
// core.dotSteps: q_i and k_j side by side, their products, the sum, the norms and the angle.
import { el, svg, fmt, matrixBlock, rowOf } from './util.js';
import { matrixView, refreshViews } from './heatmap.js';

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
    if (model.state.head !== this.model.state.head) return false;
    const v = this.views(model);
    if (!refreshViews([[this.q, v[0]], [this.kt, v[1]], [this.s, v[2]]])) return false;
    this.model = model;
    const n = model.result.trace.n;
    if (this.sel && (this.sel[0] >= n || this.sel[1] >= n)) this.sel = null;
    return true;
  }

  render(model) {
    const { t } = this.ctx;
    const tr = model.result.trace;
    this.model = model;
    this.sel = null;
    const v = this.views(model);
    [this.q, this.kt, this.s] = v.map((a) => matrixView(...a));
    this.detail = el('div', { class: 'detail' });
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

  renderDetail(i, j) {
    const { core, t } = this.ctx;
    const tr = this.model.result.trace;
    const head = tr.head[this.model.state.head];
    const q = rowOf(head.Q, i);
    const kv = rowOf(head.K, j);
    const d = core.dotSteps(q, kv);
    const tq = this.model.result.tokens[i].text;
    const tk = this.model.result.tokens[j].text;
    const table = el('table', { class: 'dot' }, [
      el('thead', {}, [el('tr', {}, [el('th', { text: 'c' }), ...[...q].map((_, c) => el('th', { text: String(c + 1) })), el('th', { text: 'Σ' })])]),
      el('tbody', {}, [
        el('tr', {}, [el('th', { text: `q (${tq})` }), ...[...q].map((v) => el('td', { text: fmt(v) })), el('td')]),
        el('tr', {}, [el('th', { text: `k (${tk})` }), ...[...kv].map((v) => el('td', { text: fmt(v) })), el('td')]),
        el('tr', { class: 'products' }, [el('th', { text: 'q×k' }),
          ...[...d.products].map((v, c) => el('td', { text: fmt(v), attrs: { 'data-matrix': 'products', 'data-col': c, 'data-value': v } })),
          el('td', { class: 'sum', text: fmt(d.dot, 3), attrs: { 'data-matrix': 'dot', 'data-value': d.dot } })]),
      ]),
    ]);
    // the angle picture: two arrows at the real angle, lengths proportional to |q| and |k|
    const R = 60;
    const big = Math.max(d.normQ, d.normK, 1e-9);
    const a = (d.angleDegrees * Math.PI) / 180;
    const lq = (R * d.normQ) / big;
    const lk = (R * d.normK) / big;
    const pic = svg('svg', { viewBox: '-80 -78 160 100', class: 'angle', role: 'img', 'aria-label': t('score.angle', { deg: fmt(d.angleDegrees, 1) }) });
    pic.append(
      svg('line', { x1: 0, y1: 0, x2: lq, y2: 0, class: 'vq' }),
      svg('line', { x1: 0, y1: 0, x2: lk * Math.cos(a), y2: -lk * Math.sin(a), class: 'vk' }),
      svg('path', { d: `M 18 0 A 18 18 0 0 0 ${18 * Math.cos(a)} ${-18 * Math.sin(a)}`, class: 'arc' }),
    );
    const lab = (txt, x, y, cls) => { const e = svg('text', { x, y, class: cls }); e.textContent = txt; return e; };
    pic.append(lab(`q ${tq}`, lq, 12, 'lq'), lab(`k ${tk}`, lk * Math.cos(a), -lk * Math.sin(a) - 4, 'lk'),
      lab(`θ ${fmt(d.angleDegrees, 0)}°`, 22, -6, 'lt'));
    this.detail.replaceChildren(
      el('h4', { text: t('score.cell', { q: tq, k: tk, i: i + 1, j: j + 1 }) }),
      el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group', 'aria-label': t('score.cell', { q: tq, k: tk, i: i + 1, j: j + 1 }) } }, [table]),
      el('div', { class: 'dot-geo' }, [
        pic,
        el('ul', { class: 'facts' }, [
          el('li', { text: t('score.sum', { dot: fmt(d.dot, 3) }) }),
          el('li', { text: t('score.geo', { nq: fmt(d.normQ), nk: fmt(d.normK), cos: fmt(d.cosine, 3), deg: fmt(d.angleDegrees, 1) }) }),
          el('li', { text: t(d.cosine > 0.3 ? 'score.alike' : d.cosine < -0.3 ? 'score.opposite' : 'score.unrelated') }),
        ]),
      ]),
    );
  }

  narrate(k) {
    const [i, j] = this.cellAt(k);
    const head = this.model.result.trace.head[this.model.state.head];
    const n = this.model.result.trace.n;
    return this.ctx.t('narr.score', { q: this.model.result.tokens[i].text, k: this.model.result.tokens[j].text, v: fmt(head.scores.data[i * n + j], 3) });
  }
}
