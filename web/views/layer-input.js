// layer-input.js: "X for this layer", at the top of stage 3. Follows one token's row from stage
// 2's X = E + P through every step before the shown layer's attention (each layer's walk from the
// core's trace: LayerNorm with its mean and spread, attention output, residual add, feed-forward,
// residual add), each step with the row's first numbers and its first number worked out, so the
// first number of stage 3's X can be traced back to stage 2. Reads the walk as data (any order of
// steps, any number of layers); computes nothing (equation.js prints, the core made every number).
import { el } from './dom.js';
import { isRealTrace } from '../core.js';
import { fmt, rowOf, at } from './format.js';
import { normEquation, sumEquation } from './equation.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('../../types/index.js').Matrix} Matrix */
/** @typedef {import('../../types/index.js').Layer} Layer */
/** @typedef {import('../../types/index.js').LayerWalk} LayerWalk */
/** @typedef {import('../../types/index.js').WalkStep} WalkStep */
/** A LayerNorm step of a walk, which always carries its statistics (schema.hpp walk()).
 *  @typedef {WalkStep & Required<Pick<WalkStep, 'mean' | 'std' | 'gain' | 'bias'>>} NormStep */

/** A LayerNorm's mean and spread of row q, unrounded, as data-* values.
 * @param {{mean: Float32Array, std: Float32Array}} n @param {number} q */
const stats = (n, q) => ({ mean: String(n.mean[q]), std: String(n.std[q]) });

/** Numbers of the followed row shown per step (the first is the one followed). */
const NUMS = 6;

export class LayerInputPanel {
  /** @param {Pick<ViewContext, 't' | 'actions' | 'layers'>} ctx {t, actions, layers: () => every
   *  layer of the shown trace (or undefined)} */
  constructor(ctx) {
    this.ctx = ctx;
    // closed at first (compact first): its title says where stage 3's X comes from, the walk is
    // one click away; open or closed stays as the learner left it across sentences
    this.el = el('details', { class: 'layer-input' });
  }

  /** @param {StageModel} model */
  render(model) {
    const { t, actions } = this.ctx;
    const tr = model.result;
    const q = Math.min(model.state.q, tr.config.n - 1);
    const tok = tr.tokens[q];
    this.el.dataset.row = String(q); // the followed token, for the tests
    const title = el('summary', {}, [el('h3', { text: t('layerIn.title') })]);
    const embed = tr.embed_sum || tr.input || tr.X;
    const list = el('ol', { class: 'walk' });
    list.append(
      this.item(
        t('layerIn.embed'),
        embed,
        q,
        null,
        el('button', {
          type: 'button',
          class: 'linkish',
          text: t('layerIn.goStage2'),
          on: { click: () => actions.gotoStage(1) },
        }),
      ),
    );
    if (isRealTrace(tr)) {
      // a real model: the same walk, from the core's steps for its architecture (gpt2: ln_1 of
      // the residual stream before each attention; bert: its embedding LayerNorm, then each
      // layer's attention, add and LayerNorm, feed-forward, add and LayerNorm)
      const shown = /** @type {number} */ (tr.config.layer); // the layer traced in full
      let input = embed;
      if (tr.embed_sum && tr.embed_norm && tr.input) {
        const n = tr.embed_norm;
        const li = list.appendChild(
          this.item(t('layerIn.step.embedNorm'), tr.input, q, [
            t('layerIn.stats', {
              mean: fmt(n.mean[q], 3),
              std: fmt(n.std[q], 3),
              gain: fmt(n.gain[0], 3),
              bias: fmt(n.bias[0], 3),
            }),
            normEquation(
              at(tr.embed_sum, q, 0),
              n.mean[q],
              n.std[q],
              n.gain[0],
              n.bias[0],
              at(tr.input, q, 0),
            ).text,
          ]),
        );
        li.dataset.step = 'embed';
        Object.assign(li.dataset, stats(n, q));
        input = tr.input;
      }
      this.walkLayers(list, tr, tr.layers || [], shown, input, q);
      this.el.replaceChildren(
        title,
        el('p', {
          class: 'hint',
          text: t(`layerIn.real.${tr.model?.model_type}`, { tok, l: shown + 1 }),
        }),
        list,
      );
      return this.el;
    }
    const layers = tr.model && (tr.layerCount ?? 0) > 0 ? this.ctx.layers() : null;
    if (!layers || !layers.length) {
      // random or NumPy weights: one attention, no LayerNorm, X is stage 2's X itself
      this.el.replaceChildren(
        title,
        el('p', { class: 'hint', text: t('layerIn.direct', { tok }) }),
        list,
      );
      return this.el;
    }
    const shown = tr.layer ?? layers.length - 1;
    this.walkLayers(list, tr, layers, shown, embed, q);
    this.el.replaceChildren(
      title,
      el('p', { class: 'hint', text: t('layerIn.follow', { tok, l: shown + 1 }) }),
      list,
    );
    return this.el;
  }

  // every layer's walk up to the shown one's attention input (the core's steps, layers[l].walk),
  // each step with the followed row and its first number worked out; then where X is
  /** @param {HTMLElement} list @param {ShownTrace} tr @param {Layer[]} layers @param {number} shown
   *  @param {Matrix} embed @param {number} q */
  walkLayers(list, tr, layers, shown, embed, q) {
    const { t, actions } = this.ctx;
    let input = embed;
    for (let l = 0; l <= shown; l++) {
      // every layer up to the one traced in full has its walk (types/index.d.ts Layer.walk)
      const walk = /** @type {LayerWalk} */ (layers[l].walk);
      const outs = walk.steps.map((s) => s.out);
      const read = (/** @type {number} */ f) => (f < 0 ? input : outs[f]);
      const last = l === shown ? walk.attention_input : walk.steps.length - 1;
      list.append(
        el('li', {
          class: 'walk-layer',
          text: t(l === shown ? 'layerIn.layerShown' : 'layerIn.layer', { l: l + 1 }),
        }),
      );
      for (let s = 0; s <= last; s++) {
        const step = walk.steps[s];
        // a real model's feed-forward has its own activation
        const label =
          isRealTrace(tr) && step.kind === 'feed_forward'
            ? t('layerIn.step.feedForwardAct', { act: tr.model?.activation })
            : t(`layerIn.step.${step.kind}`, { l: l + 1 });
        /** @type {string[] | null} */
        let worked = null;
        /** @type {HTMLElement | null} */
        let action = null;
        if (step.kind === 'norm') {
          const norm = /** @type {NormStep} */ (step);
          const x = at(read(norm.from[0]), q, 0);
          worked = [
            t('layerIn.stats', {
              mean: fmt(norm.mean[q], 3),
              std: fmt(norm.std[q], 3),
              gain: fmt(norm.gain[0], 3),
              bias: fmt(norm.bias[0], 3),
            }),
            normEquation(
              x,
              norm.mean[q],
              norm.std[q],
              norm.gain[0],
              norm.bias[0],
              at(norm.out, q, 0),
            ).text,
          ];
        } else if (step.kind === 'add') {
          worked = [
            sumEquation(
              step.from.map((f) => at(read(f), q, 0)),
              at(step.out, q, 0),
            ).text,
          ];
        } else if (step.kind === 'attention') {
          action = el('button', {
            type: 'button',
            class: 'linkish',
            text: t('layerIn.goAttention', { l: l + 1 }),
            on: { click: () => actions.gotoLayerStage(l, 8) },
          });
        } else if (step.kind === 'feed_forward') {
          worked = [t('layerIn.ffn', { dff: tr.model?.d_ff })];
        }
        const li = this.item(label, step.out, q, worked, action);
        li.dataset.layer = String(l);
        li.dataset.step = String(s);
        // a LayerNorm's row statistics as the core gave them (the tests compare them)
        if (step.kind === 'norm')
          Object.assign(li.dataset, stats(/** @type {NormStep} */ (step), q));
        list.append(li);
      }
      input = outs[outs.length - 1];
    }
    list.append(el('li', { class: 'walk-end', text: t('layerIn.isX', { l: shown + 1 }) }));
  }

  // one step: its name, the followed row's first numbers (the first in bold), its worked cell
  /** @param {string} label @param {Matrix} m @param {number} q @param {string[] | null} worked
   *  @param {HTMLElement | null} [action] @returns {HTMLElement} */
  item(label, m, q, worked, action) {
    const row = rowOf(m, q);
    const nums = [...row.subarray(0, NUMS)].map((v, c) =>
      el(c === 0 ? 'strong' : 'span', { class: 'n', text: fmt(v) }),
    );
    return el('li', { class: 'walk-step' }, [
      el('span', { class: 'walk-name', text: label }),
      el('span', { class: 'walk-nums' }, [
        ...nums,
        row.length > NUMS ? el('span', { class: 'n', text: '…' }) : null,
      ]),
      ...(worked || []).map((w) => el('span', { class: 'walk-worked', text: w })),
      action,
    ]);
  }
}
