// real-heads.js: a real model's heads at a glance, shown while the page shows a real model (GPT-2,
// BERT): every layer's every head's weights on the learner's sentence as one small map each (row =
// query, column = key), the shown head marked; a click opens that head in the stages. Beside it,
// "find a head": pick a query token and a key token, and the heads are listed by the weight that
// query gives that key, read from the trace; the first opens. Drawing and ordering only: every
// weight is the core's.
import { el } from './dom.js';
import { pct } from './format.js';
import { paintWeights } from './heatmap.js';
import { isRealTrace } from '../core.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').ViewState} ViewState */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('../../types/index.js').Trace} Trace */
/** @typedef {import('../../types/index.js').Layer} Layer */
/** @typedef {import('../../types/index.js').ModelCard} ModelCard */
/** A real model's trace (isRealTrace): its card, its layers and the layer traced in full.
 *  @typedef {ShownTrace & {model: ModelCard, layers: Layer[],
 *    config: Trace['config'] & {layer: number}}} RealTrace */
/** A head as "find a head" ranks it: layer, head and the weight query q gives key k.
 *  @typedef {{l: number, h: number, w: number}} RankedHead */

// how many heads "find a head" lists
const LISTED = 5;

export class RealHeadsView {
  /** @param {HTMLElement} root
   *  @param {{t: Translate, actions: Pick<ViewContext['actions'], 'openHead'>}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {RealTrace | null} */
    this.shown = null; // the trace the grid was drawn from
    /** @type {{q: number, k: number} | null} */
    this.pair = null; // {q, k}: the pair "find a head" ranks by, as token indices
    /** @type {HTMLElement[][] | undefined} per layer, per head: its map's button (build) */
    this.cells;
    /** @type {HTMLSelectElement} */ this.qSel;
    /** @type {HTMLSelectElement} */ this.kSel;
    /** @type {HTMLElement} */ this.ranking;
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    this.shown = null;
  }

  /** @param {{result: ShownTrace, state: ViewState}} model */
  update({ result: shown, state }) {
    const real = isRealTrace(shown) && Array.isArray(shown.layers);
    this.root.hidden = !real;
    if (!real) {
      this.shown = null;
      return;
    }
    const result = /** @type {RealTrace} */ (shown); // a real model's, with its layers
    if (this.shown !== result) {
      this.shown = result;
      if (!this.pair || this.pair.q >= result.config.n || this.pair.k >= result.config.n)
        this.pair = null;
      this.build(result, state);
    }
    this.mark(result.config.layer, state.head);
  }

  /** @param {RealTrace} result @param {ViewState} state */
  build(result, state) {
    const { t } = this.ctx;
    const card = result.model;
    this.cells = result.layers.map((layer, l) =>
      layer.heads.map((head, h) => {
        const canvas = el('canvas', { class: 'rh-map', 'aria-hidden': 'true' });
        paintWeights(canvas, head.weights);
        return el(
          'button',
          {
            type: 'button',
            class: 'rh-cell',
            'data-layer': l,
            'data-head': h,
            'aria-label': t('realHeads.cell', { l: l + 1, h: h + 1 }),
            title: t('realHeads.cell', { l: l + 1, h: h + 1 }),
            on: { click: () => this.ctx.actions.openHead(l, h) },
          },
          [canvas],
        );
      }),
    );
    const grid = el('div', { class: 'rh-grid', role: 'group' }, [
      el('span', { class: 'rh-corner' }),
      ...headNumbers(card).map((h) => el('span', { class: 'rh-col', text: String(h + 1) })),
      ...this.cells.flatMap((row, l) => [
        el('span', { class: 'rh-row', text: String(l + 1) }),
        ...row,
      ]),
    ]);
    grid.style.setProperty('--heads', String(card.heads));
    grid.setAttribute(
      'aria-label',
      t('realHeads.gridLabel', { layers: card.layers, heads: card.heads }),
    );
    const tokens = result.tokens;
    /** @param {string} id @returns {HTMLSelectElement} */
    const choose = (id) =>
      el(
        'select',
        { id, on: { change: () => this.find() } },
        tokens.map((tok, i) => el('option', { value: i, text: `${i + 1}: ${tok}` })),
      );
    this.qSel = choose('rh-q');
    this.kSel = choose('rh-k');
    const q = this.pair ? this.pair.q : Math.min(state.q, tokens.length - 1);
    this.qSel.value = String(Math.max(0, q));
    this.kSel.value = String(this.pair ? this.pair.k : 0);
    this.ranking = el('ol', { class: 'rh-ranking' });
    this.root.replaceChildren(
      el('h3', {
        class: 'rh-title',
        text: t('realHeads.title', { name: card.name || card.model_type }),
      }),
      el('p', {
        class: 'hint',
        text: t('realHeads.hint', { layers: card.layers, heads: card.heads }),
      }),
      grid,
      el('div', { class: 'rh-find' }, [
        el('h4', { text: t('realHeads.findTitle') }),
        el('p', { class: 'hint', text: t('realHeads.findHint') }),
        el('div', { class: 'rh-pick' }, [
          el('label', { for: 'rh-q', text: t('realHeads.query') }),
          this.qSel,
          el('label', { for: 'rh-k', text: t('realHeads.key') }),
          this.kSel,
          el('button', {
            class: 'action small',
            type: 'button',
            'data-find': '',
            text: t('realHeads.find'),
            on: { click: () => this.find() },
          }),
        ]),
        this.ranking,
      ]),
    );
    if (this.pair) this.list(this.rank());
  }

  /** @param {number} layer @param {number} head */
  mark(layer, head) {
    for (const row of this.cells || [])
      for (const c of row) {
        const on = Number(c.dataset.layer) === layer && Number(c.dataset.head) === head;
        if (on) c.setAttribute('aria-current', 'true');
        else c.removeAttribute('aria-current');
      }
  }

  /** every head of every layer with the weight query q gives key k, the largest first
   * @returns {RankedHead[]} */
  rank() {
    const { pair, shown } = this;
    if (!pair || !shown) return []; // ranks only a drawn grid's pair
    const { q, k } = pair;
    const n = shown.config.n;
    return shown.layers
      .flatMap((layer, l) =>
        layer.heads.map((head, h) => ({ l, h, w: head.weights.data[q * n + k] })),
      )
      .sort((a, b) => b.w - a.w || a.l - b.l || a.h - b.h);
  }

  find() {
    this.pair = { q: +this.qSel.value, k: +this.kSel.value };
    const ranked = this.rank();
    this.list(ranked);
    this.ctx.actions.openHead(ranked[0].l, ranked[0].h);
  }

  /** @param {RankedHead[]} ranked */
  list(ranked) {
    const { t } = this.ctx;
    const { pair, shown } = this;
    if (!pair || !shown) return; // lists only a drawn grid's pair
    const tokens = shown.tokens;
    const { q, k } = pair;
    this.ranking.dataset.q = String(q);
    this.ranking.dataset.k = String(k);
    this.ranking.replaceChildren(
      ...ranked.slice(0, LISTED).map((x) =>
        el('li', { 'data-layer': x.l, 'data-head': x.h, 'data-value': x.w }, [
          el('button', {
            type: 'button',
            class: 'link',
            text: t('realHeads.ranked', {
              l: x.l + 1,
              h: x.h + 1,
              p: pct(x.w),
              q: tokens[q],
              k: tokens[k],
            }),
            on: { click: () => this.ctx.actions.openHead(x.l, x.h) },
          }),
        ]),
      ),
    );
  }
}

// the card's head numbers 0 .. heads-1
const headNumbers = (/** @type {ModelCard} */ card) =>
  Array.from({ length: card.heads }, (_, h) => h);

// the stages about one head, and the stage about one layer's heads (state.js STAGES)
const HEAD_STAGES = new Set(['project', 'score', 'scale', 'mask', 'softmax', 'mix']);
const LAYER_STAGES = new Set(['heads']);

/** The words that name what stage `stage` (a STAGES id) shows of a real model's trace: "gpt2,
 *  layer 5, head 2" (1-based, as the pickers show them; the name is the model card's), the model
 *  and layer on the heads stage, the model alone before them; '' for any other model's trace
 *  (stage null: the head, as the arcs beside the stages show it).
 * @param {Translate} t @param {ShownTrace} trace @param {number} head @param {string | null} stage */
export function realHeadName(t, trace, head, stage) {
  if (!isRealTrace(trace)) return '';
  const result = /** @type {RealTrace} */ (trace);
  const vars = {
    name: result.model.name || result.model.model_type,
    l: (result.config.layer ?? result.model.layers - 1) + 1,
    h: head + 1,
  };
  if (stage === null || HEAD_STAGES.has(stage)) return t('realHeads.which', vars);
  if (LAYER_STAGES.has(stage)) return t('realHeads.whichLayer', vars);
  return vars.name;
}

/** Words around realHeadName's: kind 'narr' (vars {which, text}: the narration, the head named
 *  first), 'stageTitle' ({which, text}: a stage's title, the head named after it) or 'arcsTitle'
 *  ({which, tok}: the arcs beside the stages).
 * @param {Translate} t @param {string} kind @param {Record<string, unknown>} vars */
export function realWords(t, kind, vars) {
  if (kind === 'narr') return t('realHeads.narr', vars);
  if (kind === 'stageTitle') return t('realHeads.stageTitle', vars);
  return t('realHeads.arcsTitle', vars);
}
