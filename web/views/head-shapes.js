// head-shapes.js: multi-head attention at real scale, under stage 9. The learner's model next to
// BERT-base and GPT-3 (shapes kept in the core: core.explainFacts().reference_shapes): h heads of
// d_k columns each make h · d_k = d_model, and head i's slice of W_Q is its own d_k columns.
// Each model's W_Q is drawn as one strip cut into its heads' slices. Drawing only.
import { el, svg, setText, writeOnce } from './dom.js';
import { grouped } from './format.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').Translate} Translate */
/** A row of the table: a model's shape (the learner's is marked `yours`).
 *  @typedef {{name: string, heads: number, d_k: number, width: number, d_model: number,
 *    yours?: boolean}} ShapeRow */

const W = 300; // strip width, viewBox units
const H = 16;
const HUES = [
  '#1d4ed8',
  '#b45309',
  '#047857',
  '#9333ea',
  '#be123c',
  '#0e7490',
  '#4d7c0f',
  '#a21caf',
];

export class HeadShapes {
  /** ctx: {core, t}
   *  @param {Pick<ViewContext, 'core' | 't'>} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.drawn = ''; // what the table shows (update's key), and in which language (t)
    /** @type {Translate | null} */
    this.t = null;
    this.el = el('section', { class: 'head-shapes' });
    this.title = el('h4');
    this.lead = el('p', { class: 'hint' });
    this.tbody = el('tbody');
    this.headRow = el('tr');
    this.slice = el('p', { class: 'hs-slice' });
    this.el.append(
      this.title,
      this.lead,
      el('div', { class: 'scroller', tabindex: '0', role: 'group' }, [
        el('table', { class: 'hs-table' }, [el('thead', {}, [this.headRow]), this.tbody]),
      ]),
      this.slice,
    );
  }

  /** depends on the shapes and the chosen head, not on the text: typing leaves it as it is
   *  @param {StageModel} model */
  update(model) {
    const { t, core } = this.ctx;
    const tr = model.result;
    const h = model.state.head;
    const c = tr.config;
    const key = [c.heads, c.d_k, c.d_model, tr.concat.cols, h].join();
    if (this.drawn === key && this.t === t) return;
    this.drawn = key;
    this.t = t;
    setText(this.title, t('shapes.title'));
    setText(this.lead, t('shapes.lead'));
    const cols = ['model', 'heads', 'dK', 'width', 'dModel', 'wq'];
    this.headRow.replaceChildren(
      ...cols.map((c) => el('th', { scope: 'col', text: t(`shapes.col.${c}`) })),
    );
    // the learner's model: h · d_k is the width of its concat (the core's), d_model its output's
    /** @type {ShapeRow[]} */
    const rows = [
      {
        name: t('shapes.yours'),
        heads: tr.config.heads,
        d_k: tr.config.d_k,
        width: tr.concat.cols,
        d_model: tr.config.d_model,
        yours: true,
      },
      ...core.explainFacts().reference_shapes.map((s) => ({ ...s, width: s.d_model })),
    ];
    this.tbody.replaceChildren(
      ...rows.map((r) => {
        const strip = svg('svg', {
          viewBox: `0 0 ${W} ${H}`,
          class: 'hs-strip',
          role: 'img',
          'aria-label': t('shapes.stripLabel', { name: r.name, h: r.heads, dk: r.d_k }),
        });
        const w = W / r.heads;
        for (let i = 0; i < r.heads; i++) {
          strip.append(
            svg('rect', {
              x: (i * w).toFixed(3),
              y: 0,
              width: Math.max(0.4, w - (r.heads > 40 ? 0.3 : 1)).toFixed(3),
              height: H,
              fill: HUES[i % HUES.length],
              class: r.yours && i === h ? 'hs-chosen' : null,
              'data-head': i,
            }),
          );
        }
        /** @param {string} col @param {string} text @param {number} value */
        const td = (col, text, value) =>
          el('td', {
            'data-matrix': 'shapes',
            'data-row': r.yours ? 'yours' : r.name,
            'data-col': col,
            'data-value': value,
            text,
          });
        return el('tr', { class: r.yours ? 'yours' : null }, [
          el('th', { scope: 'row', text: r.name }),
          td('heads', grouped(r.heads), r.heads),
          td('dK', grouped(r.d_k), r.d_k),
          td('width', `${grouped(r.heads)} × ${grouped(r.d_k)} = ${grouped(r.width)}`, r.width),
          td('dModel', grouped(r.d_model), r.d_model),
          el('td', { class: 'hs-wq' }, [strip]),
        ]);
      }),
    );
    // head h's slice of W_Q: columns [h·d_k, (h+1)·d_k) of the d_model × (h·d_k) matrix
    const first = h * tr.config.d_k + 1;
    setText(
      this.slice,
      t(tr.concat.cols === tr.config.d_model ? 'shapes.slice' : 'shapes.sliceWO', {
        h: h + 1,
        heads: tr.config.heads,
        dk: tr.config.d_k,
        d: tr.config.d_model,
        w: tr.concat.cols,
        a: first,
        b: first + tr.config.d_k - 1,
      }),
    );
    writeOnce(this.slice, 'data-head', h);
  }
}
