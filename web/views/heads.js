// heads.js: stage 9. Every head's weight map side by side, one per step (each head looks for
// something different; the followed row's top key is named under each), then the heads' outputs
// put side by side (concat: the followed row's slices coloured by head), then times W_O: the
// layer's output. Under it, the learner's shapes next to BERT-base and GPT-3 (head-shapes.js).
import { el, setText, says, setSays } from './dom.js';
import { pct, rowOf } from './format.js';
import { matrixBlock, MatrixTable, keyCols, keyRows } from './matrix-table.js';
import { headTaught, taughtSentence, withMark } from './taught.js';
import { matrixView, refreshStage, tokenMapView } from './heatmap.js';
import { HeadShapes } from './head-shapes.js';
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */
/** @typedef {import('./heatmap.js').ViewArgs} ViewArgs */
/** @typedef {import('./heatmap.js').ViewPair} ViewPair */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */

const COMPACT = 4; // columns of concat, W_O and output (and rows of W_O) shown before "… n more"

export class HeadsStage {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 'core' | 't' | 'actions' | 'later'>} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.shapes = new HeadShapes(ctx);
    /** @type {StageModel} the model drawn (render) */
    this.model;
    /** @type {MatrixView[]} each head's weights (render) */
    this.headViews;
    /** @type {HTMLElement[]} */
    this.topLines;
    /** @type {HTMLElement[]} */
    this.headBlocks;
    /** @type {MatrixView} */
    this.concat;
    /** @type {MatrixView} */
    this.wo;
    /** @type {MatrixView} */
    this.out;
    /** @type {HTMLElement} */
    this.concatBlock;
    /** @type {HTMLElement} */
    this.woBlock;
    /** @type {HTMLElement} */
    this.outBlock;
    /** @type {HTMLElement} */
    this.residual;
    /** @type {HTMLElement} */
    this.residualTitle;
    /** @type {HTMLElement} */
    this.residualBox;
    /** @type {HTMLElement} */
    this.merge;
    /** @type {number} the step shown */
    this.k;
  }

  /** @param {StageModel} model */
  units(model) {
    return model.result.config.heads + 2;
  }

  /** the matrices shown, as matrixView's arguments: each head's weights, concat, W_O, output
   * @param {StageModel} model
   * @returns {{heads: ViewArgs[], concat: ViewArgs, wo: ViewArgs, out: ViewArgs}} */
  views(model) {
    const { t } = this.ctx;
    const tr = model.result;
    const labels = model.result.tokens;
    const dims = Array.from({ length: tr.config.d_model }, (_, c) => `d${c + 1}`);
    const cdims = Array.from(
      { length: tr.config.heads * tr.config.d_k },
      (_, c) => `h${Math.floor(c / tr.config.d_k) + 1}.${(c % tr.config.d_k) + 1}`,
    );
    return {
      heads: tr.heads.map((_, h) =>
        tokenMapView(t, tr, h, 'weights', {
          weight: true,
          window: { cols: keyCols(), rows: keyRows() },
        }),
      ),
      concat: [
        tr.concat,
        {
          t,
          name: 'concat',
          tokenRows: true,
          rowLabels: labels,
          colLabels: cdims,
          corner: 'i \\ c',
          window: { cols: COMPACT, rows: keyRows() },
        },
      ],
      wo: [
        tr.W_O,
        {
          t,
          name: 'W_O',
          rowLabels: cdims,
          colLabels: dims,
          corner: 'c \\ d',
          window: { cols: COMPACT, rows: COMPACT },
        },
      ],
      out: [
        tr.output,
        {
          t,
          name: 'output',
          tokenRows: true,
          rowLabels: labels,
          colLabels: dims,
          corner: 'i \\ d',
          window: { cols: COMPACT, rows: keyRows() },
        },
      ],
    };
  }

  /** @param {StageModel} model */
  update(model) {
    if (
      !refreshStage(
        this,
        model,
        (m) => [m.result.config.heads, m.state.q],
        (m) => {
          const v = this.views(m);
          /** @type {ViewPair[]} */
          const pairs = [
            ...this.headViews.map((x, h) => /** @type {ViewPair} */ ([x, v.heads[h]])),
            [this.concat, v.concat],
            [this.wo, v.wo],
            [this.out, v.out],
          ];
          return pairs;
        },
      )
    )
      return false;
    this.markRows();
    this.fillTops();
    this.fillResidual();
    this.shapes.update(model);
    return true;
  }

  // a layered model: where this layer's output goes (the residual stream); words only
  fillResidual() {
    const { t } = this.ctx;
    const tr = this.model.result;
    this.residual.hidden = tr.layer == null;
    this.residualBox.hidden = tr.layer == null;
    if (tr.layer == null) return;
    const l = tr.layer + 1;
    const n = /** @type {number} layerView sets it with layer */ (tr.layerCount);
    setText(this.residualTitle, t('heads.residualTitle', { l, n }));
    setText(
      this.residual,
      `${t('heads.residual', { l, n })} ${
        l < n ? t('heads.residualNext', { next: l + 1 }) : t('heads.residualLast')
      }`,
    );
  }

  markRows() {
    const { q, head } = this.model.state;
    for (const m of [...this.headViews, this.concat, this.out]) m.mark('row', [q]);
    this.headBlocks.forEach((fig, h) => fig.classList.toggle('chosen', h === head));
  }

  // under each head: the key the followed token looks at most in that head
  tops() {
    const q = this.model.state.q;
    return this.model.result.heads.map((hd) => {
      const w = rowOf(hd.weights, q);
      let best = 0;
      for (let j = 1; j < w.length; j++) if (w[j] > w[best]) best = j;
      return { key: this.model.result.tokens[best], p: pct(w[best]), best };
    });
  }

  fillTops() {
    // taught or learned on its own (the model card's mark) in each head's title
    this.headBlocks.forEach((fig, h) => {
      fig.dataset.taught = String(headTaught(this.model.result, h));
      setText(
        /** @type {Element} matrixBlock's title */ (fig.querySelector('.mtitle')),
        withMark(this.ctx.t, this.model.result, h, this.ctx.t('heads.head', { h: h + 1 })),
      );
    });
    const q = this.model.state.q;
    const tok = this.model.result.tokens[q];
    this.tops().forEach((x, h) =>
      setSays(
        this.topLines[h],
        says(this.ctx.t, 'heads.top', { tok, key: x.key, p: x.p }, { q, head: h, k: x.best }),
      ),
    );
  }

  // the stage's introduction: the article's program runs one head with no W_O to mix
  /** @param {StageModel} model */
  whatKey(model) {
    return model.result.program ? 'stage.heads.whatNumpy' : null;
  }

  /** @param {StageModel} model */
  render(model) {
    const { t, actions } = this.ctx;
    const tr = model.result;
    this.model = model;
    const v = this.views(model);
    this.headViews = v.heads.map((a) => matrixView(...a));
    this.topLines = this.headViews.map(() => el('p', { class: 'head-top' }));
    this.headBlocks = this.headViews.map((m, h) => {
      const fig = matrixBlock(t('heads.head', { h: h + 1 }), `${tr.config.n} × ${tr.config.n}`, m);
      fig.classList.add(`head-${h % 8}`);
      fig.append(
        this.topLines[h],
        el('button', {
          class: 'action small',
          text: t('heads.follow', { h: h + 1 }),
          type: 'button',
          on: { click: () => actions.setHead(h) },
        }),
      );
      return fig;
    });
    this.concat = matrixView(...v.concat);
    // each head's slice of concat's columns in that head's colour
    if (this.concat instanceof MatrixTable)
      this.concat.colHeads.forEach((th, c) =>
        th.classList.add(`slice-${Math.floor(c / tr.config.d_k) % 8}`),
      );
    this.wo = matrixView(...v.wo);
    this.out = matrixView(...v.out);
    this.concatBlock = matrixBlock(
      t('heads.concat'),
      `${tr.config.n} × ${tr.config.heads * tr.config.d_k}`,
      this.concat,
      t(tr.config.heads === 1 ? 'heads.concatNoteOne' : 'heads.concatNote', {
        h: tr.config.heads,
        dk: tr.config.d_k,
      }),
      t,
    );
    this.woBlock = matrixBlock(
      'W_O',
      `${tr.config.heads * tr.config.d_k} × ${tr.config.d_model}`,
      this.wo,
      null,
      t,
    );
    this.outBlock = matrixBlock(
      t('heads.output'),
      `${tr.config.n} × ${tr.config.d_model}`,
      this.out,
      t('heads.orient'),
      t,
    );
    this.residual = el('p', { class: 'residual-note' });
    this.residualTitle = el('summary');
    this.residualBox = el('details', { class: 'stage-inputs heads-residual' }, [
      this.residualTitle,
      el('div', { class: 'extra-body' }, [this.residual]),
    ]);
    this.markRows();
    this.fillTops();
    this.fillResidual();
    this.merge = el('div', { class: 'row-blocks merge' }, [
      this.concatBlock,
      el('div', { class: 'op', text: '×' }),
      this.woBlock,
      el('div', { class: 'op', text: '=' }),
      this.outBlock,
    ]);
    this.root.replaceChildren(
      el('p', {
        class: 'lead',
        // the article's program has one head and no W_O (the page's is the identity)
        text: t(
          tr.program ? 'heads.leadNumpy' : tr.config.heads === 1 ? 'heads.leadOne' : 'heads.lead',
          {
            h: tr.config.heads,
            dk: tr.config.d_k,
            d: tr.config.d_model,
          },
        ),
      }),
      el('div', { class: 'row-blocks heads' }, this.headBlocks),
      this.merge,
      // compact first: where the output goes and the real-scale shapes are one click away
      this.residualBox,
      el('details', { class: 'stage-inputs heads-scale' }, [
        el('summary', { text: t('heads.scale') }),
        el('div', { class: 'extra-body' }, [this.shapes.el]),
      ]),
    );
    this.shapes.update(model);
  }

  /** @param {number} k */
  show(k) {
    this.k = k;
    const h = this.model.result.config.heads;
    const n = this.model.result.config.n;
    // compact maps follow the followed token's row
    const q = this.model.state.q;
    const tops = this.tops();
    // one column window for every head, so the maps side by side show the same keys: around the
    // top key of the head this step is about (step k: head k), else of the followed head
    const about = k >= 1 && k <= h ? k - 1 : Math.min(this.model.state.head, h - 1);
    const shared = tops[about].best;
    this.headViews.forEach((m) => m.moveWindow?.(shared, q));
    this.concat.moveWindow?.(0, q);
    this.out.moveWindow?.(0, q);
    this.headBlocks.forEach((b, i) => {
      b.classList.toggle('pending', i >= Math.max(1, k));
      b.classList.toggle('current', k >= 1 && k <= h && i === k - 1);
    });
    this.concat.reveal(k > h ? Infinity : 0);
    this.out.reveal(k > h + 1 ? Infinity : 0);
    this.concatBlock.classList.toggle('current', k === h + 1);
    this.woBlock.classList.toggle('current', k === h + 2);
    this.outBlock.classList.toggle('current', k === h + 2);
    this.merge.classList.toggle('pending', k <= h);
    void n;
  }

  /** @param {number} k */
  active(k) {
    const tr = this.model.result;
    const q = this.model.state.q;
    const live = (/** @type {Element} */ c, /** @type {Element} */ box) =>
      c.isConnected ? c : box;
    if (k >= 1 && k <= tr.config.heads)
      return [
        live(this.headViews[k - 1].cell(q, this.tops()[k - 1].best), this.headBlocks[k - 1]),
        this.headBlocks[k - 1],
      ];
    if (k === tr.config.heads + 1) return [this.concatBlock];
    if (k >= tr.config.heads + 2) return [this.outBlock];
    return [this.headBlocks[0]];
  }

  /** @param {number} k */
  narrate(k) {
    const tr = this.model.result;
    const labels = this.model.result.tokens;
    const q = this.model.state.q;
    const tops = this.tops();
    if (k >= 1 && k <= tr.config.heads) {
      return (
        this.ctx.t('narr.headStep', {
          tok: labels[q],
          h: k,
          key: tops[k - 1].key,
          p: tops[k - 1].p,
        }) + taughtSentence(this.ctx.t, tr, k - 1)
      );
    }
    if (k === tr.config.heads + 1)
      return this.ctx.t(tr.config.heads === 1 ? 'narr.headsConcatOne' : 'narr.headsConcat', {
        tok: labels[q],
        n: tr.config.heads,
        dk: tr.config.d_k,
        w: tr.concat.cols,
      });
    if (k === 0) return this.ctx.t('narr.headsStart', { n: tr.config.heads });
    const parts = tops.map((x, h) => this.ctx.t('narr.headPart', { h: h + 1, key: x.key, p: x.p }));
    // the article's program has no W_O: the page's is the identity, so nothing is mixed
    const key = tr.program
      ? 'narr.headsNumpy'
      : tr.config.heads === 1
        ? 'narr.headsOne'
        : 'narr.heads';
    return this.ctx.t(key, {
      tok: labels[q],
      parts: parts.join(this.ctx.t('list.sep')),
      n: tr.config.heads,
      d: tr.config.d_model,
    });
  }
}
