// gradient.js: one example's gradient. For the followed token (它) and a target token the learner
// picks (by default the one the model reads it as: its antecedent), core.gradientRow gives, per
// head, dLoss/dScore for every key; the view draws them as diverging bars (negative = the loss
// pushes that score up) with the loss, the probability and a one-sentence reason. Only a trained
// model (default or custom) has a loss to follow. It draws; the core computes.
import { el, says, setSays } from './dom.js';
import { fmt } from './format.js';
import { isRealTrace } from '../core.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').ViewState} ViewState */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./dom.js').Says} Says */
/** @typedef {import('../../types/index.js').Trace} Trace */
/** @typedef {import('../../types/index.js').Settings} Settings */
/** What update draws from: the shown trace, the page state, the core's inputs.
 *  @typedef {{result: ShownTrace, state: ViewState, text: string, settings: Partial<Settings>}}
 *  GradientArgs */
/** core.gradientRow's result. @typedef {ReturnType<import('../../types/index.js').Core['gradientRow']>} GradientRow */
/** A direction of a push: 'up', 'down' or 'flat'. @typedef {'up' | 'down' | 'flat'} Direction */

export class GradientView {
  /** ctx: {t, core, actions: {setSetting}, errorText(e): an error's locale string}
   * @param {HTMLElement} root
   * @param {Pick<ViewContext, 't' | 'core' | 'actions'> & {errorText: (e: unknown) => string}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {{key: string, target: number} | null} */
    this.picked = null; // {key, target}: the learner's target for this sentence and token
    /** @type {GradientArgs | null} */
    this.last = null;
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    if (this.last) this.update(this.last);
  }

  /** {result, state, text, settings}: the shown trace, the page state, the core's inputs.
   * @param {GradientArgs} args */
  update(args) {
    this.last = args;
    const { t, core, actions } = this.ctx;
    const { result, state, text, settings } = args;
    const tokens = result.tokens;
    const q = state.q;
    if (!result.model || isRealTrace(result)) {
      this.root.replaceChildren(
        el('p', { class: 'grad-off', text: t('train.gradNeedsModel') }),
        el('button', {
          class: 'action small',
          text: t('train.gradUseTrained'),
          type: 'button',
          on: { click: () => actions.setSetting('model', 'default') },
        }),
      );
      return;
    }
    const key = `${text}\u0000${q}\u0000${tokens.length}`;
    let target =
      this.picked && this.picked.key === key
        ? this.picked.target
        : this.defaultTarget(result, state, text, settings);
    target = Math.min(tokens.length - 1, Math.max(0, target));
    /** @type {GradientRow} */
    let g;
    try {
      g = core.gradientRow(text, settings, q, target);
    } catch (e) {
      this.root.replaceChildren(el('p', { class: 'grad-off', text: this.ctx.errorText(e) }));
      return;
    }
    const select = el(
      'select',
      {
        id: 'grad-target',
        on: {
          /** @param {Event & {target: HTMLSelectElement}} ev */
          change: (ev) => {
            this.picked = { key, target: Number(ev.target.value) };
            if (this.last) this.update(this.last);
          },
        },
      },
      tokens.map((tok, j) => el('option', { text: `${j + 1} · ${tok}`, value: j })),
    );
    select.value = String(target);
    const word = g.target_word;
    const qTok = tokens[q];
    let scale = 1e-12;
    for (const h of g.heads)
      for (const v of h.d_scores) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
    const heads = g.heads.map((h, hi) => this.headBars(h.d_scores, hi, q, tokens, scale, target));
    const why = el('p', { class: 'grad-why' });
    setSays(why, this.why(g, target, q, tokens, word, scale));
    this.root.replaceChildren(
      ...[
        el('div', { class: 'grad-pick' }, [
          el('span', { text: t('train.gradQuery', { tok: qTok, i: q + 1 }) }),
          el('label', { for: 'grad-target', text: t('train.gradTarget') }),
          select,
        ]),
        why,
        el('p', { class: 'grad-loss', 'data-loss': g.loss, 'data-probability': g.probability }, [
          t('train.gradLoss', { word, p: g.probability.toFixed(3), loss: small(g.loss) }),
        ]),
        g.loss < 1e-3 ? el('p', { class: 'hint', text: t('train.gradTiny') }) : null,
        el('p', { class: 'hint', text: t('train.gradLegend') }),
        el('div', { class: 'grad-heads' }, heads),
        el('p', { class: 'hint', text: t('train.gradSum') }),
      ].filter(Boolean),
    );
  }

  /** The default target: the token whose word the shipped model reads at q (a pronoun's
   * antecedent: the answer a model in training is being taught), else the key the chosen head
   * weights most.
   * @param {ShownTrace} result @param {ViewState} state @param {string} text
   * @param {Partial<Settings>} settings */
  defaultTarget(result, state, text, settings) {
    const q = state.q;
    const tokens = result.tokens;
    /** @type {{word: string, probability: number} | null} */
    let g = null;
    try {
      /** @type {Trace & {guesses: NonNullable<Trace['guesses']>}} a trained model's, with guesses */
      const shipped = this.ctx.core.trace(text, { ...settings, model: 'default' });
      g = shipped.guesses[q];
    } catch {
      /* the shown trace is the last good one: fall back to the weights */
    }
    if (g) {
      const j = tokens.findIndex((x, i) => i !== q && x === g.word);
      if (j >= 0) return j;
    }
    const w = result.heads[Math.min(state.head, result.config.heads - 1)].weights;
    let best = -1;
    for (let j = 0; j < w.cols; j++) {
      if (j === q && w.cols > 1) continue;
      if (best < 0 || w.data[q * w.cols + j] > w.data[q * w.cols + best]) best = j;
    }
    return Math.max(0, best);
  }

  /** The sentence follows the directions the bars show: the target up in some heads, down in
   * others, ~0 in the rest; and whether any other key is pushed up too (beyond "~0", like the bars).
   * @param {GradientRow} g @param {number} target @param {number} qi @param {string[]} tokens
   * @param {string} word @param {number} scale @returns {Says} */
  why(g, target, qi, tokens, word, scale) {
    const { t } = this.ctx;
    const dirs = g.heads.map((h) => direction(h.d_scores[target], scale));
    const heads = (/** @type {Direction} */ d) =>
      dirs.map((x, i) => (x === d ? i + 1 : 0)).filter(Boolean);
    const up = heads('up');
    const down = heads('down');
    const flat = heads('flat');
    /** @type {[number, number][]} [head (1-based), key] */
    const others = [];
    g.heads.forEach((h, i) =>
      h.d_scores.forEach((v, j) => {
        if (j !== target && direction(v, scale) === 'up') others.push([i + 1, j]);
      }),
    );
    const sep = t('list.sep');
    const vars = {
      q: tokens[qi],
      word,
      key: tokens[target],
      up: up.join(sep),
      down: down.join(sep),
      flat: flat.join(sep),
      others: others.map(([h, j]) => t('train.gradOther', { tok: tokens[j], h })).join(sep),
    };
    const key = whyKey(up, down, others);
    const said = says(t, key, vars, { q: qi, target, up, down, flat, others });
    // the mixed, "down" and "~0" sentences name the other keys pushed up in a sentence of their own
    if (others.length && key !== 'train.gradWhy' && key !== 'train.gradWhyAlso')
      said.text = `${said.text} ${t('train.gradAlsoUp', vars)}`;
    if (flat.length && up.length + down.length)
      said.text = `${said.text} ${t('train.gradFlatToo', vars)}`;
    return said;
  }

  /** @param {Float32Array} d_scores @param {number} h @param {number} q @param {string[]} tokens
   * @param {number} scale @param {number} target */
  headBars(d_scores, h, q, tokens, scale, target) {
    const { t } = this.ctx;
    const list = el('ul', { class: 'dbars', 'aria-label': t('train.gradHead', { h: h + 1 }) });
    d_scores.forEach((v, j) => {
      const up = v < 0;
      const size = Number.isFinite(v) ? Math.min(50, (Math.abs(v) / scale) * 50) : 0;
      const fill = el('span', { class: `dfill ${up ? 'up' : 'down'}` });
      fill.style.width = `${size}%`;
      fill.style[up ? 'left' : 'right'] = '50%';
      const dir = direction(v, scale);
      const val = el('span', {
        class: `dval ${dir}`,
        text: `${small(v)} ${t(`train.grad.${dir}`)}`,
        'data-matrix': 'd_scores',
        'data-head': h,
        'data-row': q,
        'data-col': j,
        'data-value': String(v),
      });
      list.append(
        el('li', { class: j === target ? 'target' : '' }, [
          el('span', { class: 'blabel', text: tokens[j] }),
          el('span', { class: 'dtrack' }, [el('span', { class: 'dzero' }), fill]),
          val,
        ]),
      );
    });
    return el('figure', { class: 'grad-head' }, [
      el('figcaption', { text: t('train.gradHead', { h: h + 1 }) }),
      list,
    ]);
  }
}

// A push under this share of the largest one (scale) is shown as ~0, not as a direction.
const FLAT_SHARE = 1e-3;

/** 'up' (the loss falls as the score rises: d < 0), 'down', or 'flat' (~0 beside scale).
 * @param {number} v @param {number} scale @returns {Direction} */
function direction(v, scale) {
  if (!(Math.abs(v) >= scale * FLAT_SHARE)) return 'flat';
  return v < 0 ? 'up' : 'down';
}

/** The sentence for the target's directions: up in every moving head, down in every one, mixed,
 *  or ~0 everywhere.
 * @param {number[]} up @param {number[]} down @param {unknown[]} others */
function whyKey(up, down, others) {
  if (!up.length && !down.length) return 'train.gradWhyFlat';
  if (!down.length) return others.length ? 'train.gradWhyAlso' : 'train.gradWhy';
  return up.length ? 'train.gradWhyMixed' : 'train.gradWhyNone';
}

/** 3 decimals, or 3 significant digits when the number is tiny (a well-trained model's pushes)
 * @param {number} v */
function small(v) {
  if (!Number.isFinite(v) || v === 0 || Math.abs(v) >= 1e-3) return fmt(v, 3);
  const [m, e] = v.toExponential(2).split('e');
  return `${fmt(Number(m), 2)}×10${String(Number(e))
    .replace(/-/g, '⁻')
    .replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(d)])}`;
}
