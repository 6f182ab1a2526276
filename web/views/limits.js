// limits.js: what a small trained model cannot be trusted with, said where the learner looks.
// LimitsView sits next to the narration: words the model never saw (tokens outside its lexicon)
// and pronouns with two earlier nouns of one kind (core.sameKindCandidates). LimitsNote is the
// model's "can and cannot" note: the honest numbers from the model file's info (written there by
// the evaluation, never typed here) and a minimal pair it gets wrong, traced live by the core.
// Words and numbers only: no attention maths, no model logic.
import { el, says, setSays } from './dom.js';
import { pct } from './format.js';
import { isRealTrace } from '../core.js';
import { LIMIT_PAIRS } from '../state.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('../../types/index.js').Trace} Trace */
/** @typedef {import('../../types/index.js').Settings} Settings */
/** A minimal pair: two sentences one word apart, and the pronoun whose row decides it.
 *  @typedef {{lang?: string, pronoun: string, a: string, b: string}} LimitPair */
/** A pronoun with two or more earlier nouns of one kind (core.sameKindCandidates).
 *  @typedef {{pronoun: number, category: string, candidates: number[]}} SameKind */

// how many different same-kind warnings are written out before "and N more"
const MAX_SAME_KIND = 3;

// a measured share, one decimal: a share just under 1 is never shown as 100%
const measured = (/** @type {number} */ x) => `${(100 * x).toFixed(1)}%`;

/** The token whose row decides a pair: the first token whose lower-cased text is `pronoun`.
 * @param {string[]} tokens @param {string} pronoun */
function pronounAt(tokens, pronoun) {
  return tokens.findIndex((x) => x.toLowerCase() === pronoun);
}

/** For one trace and its pronoun: per head, the key with the largest weight and that weight.
 * @param {Trace} trace @param {number} i */
function tops(trace, i) {
  const n = trace.config.n;
  return trace.heads.map((hd) => {
    const w = hd.weights.data.subarray(i * n, (i + 1) * n);
    let best = 0;
    for (let j = 1; j < w.length; j++) if (w[j] > w[best]) best = j;
    return { j: best, p: w[best] };
  });
}

/**
 * A minimal pair traced with `settings`: {pair, a, b} with a/b = {tokens, i (the pronoun), tops}.
 * `same` is true when every head of the last layer (the trace's heads) looks hardest at the same
 * word in both sentences: since the one changed word makes the pronoun mean a different noun, then
 * at least one is wrong. `layers` is the model's layer count, the number of that last layer.
 * @param {ViewContext['core']} core @param {LimitPair} pair @param {Partial<Settings>} settings
 */
export function tracePair(core, pair, settings) {
  /** @param {string} text */
  const one = (text) => {
    /** @type {Trace} */
    const r = core.trace(text, settings);
    const i = pronounAt(r.tokens, pair.pronoun);
    return { tokens: r.tokens, i, tops: i < 0 ? [] : tops(r, i), layers: r.model?.layers ?? 1 };
  };
  const a = one(pair.a);
  const b = one(pair.b);
  const same =
    a.i >= 0 && b.i >= 0 && a.tops.every((x, h) => a.tokens[x.j] === b.tokens[b.tops[h].j]);
  return { pair, a, b, same };
}

export class LimitsView {
  /** ctx: {t, core}
   * @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'core'>} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {string | null} what the root shows (the key of update) */
    this.shown = null;
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    this.shown = null;
  }

  /** {result, text}: the shown trace and the text it came from.
   * @param {{result: ShownTrace, text: string}} shown */
  update({ result, text }) {
    const { t, core } = this.ctx;
    const tokens = result.tokens;
    // the shipped model's vocabulary and word kinds say nothing about a real model's (isRealTrace)
    const trained = !!result.model && !isRealTrace(result);
    const unknown = trained
      ? result.token_details.map((x, i) => (x.known === false ? i : -1)).filter((i) => i >= 0)
      : [];
    /** @type {SameKind[]} */
    let same = [];
    if (trained) {
      try {
        same = core.sameKindCandidates(text, result.config.max_tokens);
      } catch {
        same = [];
      }
      same = same.filter((c) => c.pronoun < tokens.length);
    }
    const key = JSON.stringify([
      unknown.map((i) => tokens[i]),
      same,
      tokens.length,
      t('limits.link'),
    ]);
    if (key === this.shown) return;
    this.shown = key;
    /** @type {HTMLElement[]} */
    const parts = [];
    if (unknown.length) {
      // each word with what it is read as, if anything (小白兔 → 兔子)
      const words = [
        ...new Set(
          unknown.map((i) => {
            const via = result.token_details[i].read_as;
            return via && via.length
              ? t('model.readAs', { tok: tokens[i], pieces: via.join(' + ') })
              : tokens[i];
          }),
        ),
      ];
      const p = el('p', { class: 'limit limit-unknown' });
      setSays(
        p,
        says(
          t,
          'limits.unknown',
          { list: words.join(t('list.sep')), n: words.length },
          { tokens: unknown },
        ),
      );
      parts.push(p);
    }
    // one sentence per distinct (pronoun, kind, candidates), at most MAX_SAME_KIND of them: a long
    // text with the same pronoun many times says it once, then how many more there are
    /** @type {Map<string, SameKind>} */
    const groups = new Map();
    for (const c of same) {
      const words = [tokens[c.pronoun], c.category, ...c.candidates.map((j) => tokens[j])];
      const k = JSON.stringify(words);
      if (!groups.has(k)) groups.set(k, c);
    }
    const distinct = [...groups.values()];
    for (const c of distinct.slice(0, MAX_SAME_KIND)) {
      const p = el('p', { class: 'limit limit-same-kind' });
      setSays(
        p,
        says(
          t,
          'limits.sameKind',
          {
            pronoun: tokens[c.pronoun],
            list: c.candidates.map((j) => tokens[j]).join(t('list.sep')),
            kind: t(`category.${c.category}`),
          },
          { pronoun: c.pronoun, candidates: c.candidates, category: c.category },
        ),
      );
      parts.push(p);
    }
    if (distinct.length > MAX_SAME_KIND) {
      const n = distinct.length - MAX_SAME_KIND;
      parts.push(
        el('p', { class: 'limit limit-same-kind-more', text: t('limits.sameKindMore', { n }) }),
      );
    }
    if (parts.length) {
      parts.push(
        el('a', {
          class: 'limit-link',
          text: t('limits.link'),
          href: '#model-limits',
          on: {
            click: () => {
              const root = /** @type {Document | ShadowRoot} */ (this.root.getRootNode()); // the page or an embed's shadow root
              const d = /** @type {HTMLDetailsElement | null} */ (
                root.querySelector('#model-limits')
              );
              if (d) d.open = true;
            },
          },
        }),
      );
    }
    this.root.hidden = !parts.length;
    this.root.replaceChildren(...parts);
  }
}

export class LimitsNote {
  /** ctx: {t, core, lang()}
   * @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'core'> & {lang: () => string}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {string | null} what the root shows (the key of update) */
    this.shown = null;
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    this.shown = null;
  }

  /** {result, settings}: the shown trace (for its model) and the core settings it came from.
   * @param {{result: ShownTrace, settings: Partial<Settings>}} shown */
  update({ result, settings }) {
    const { t, core, lang } = this.ctx;
    const model = result.model;
    const key = JSON.stringify([
      model && model.name,
      model && model.info,
      lang(),
      settings.model,
      t('limits.title'),
    ]);
    if (key === this.shown) return;
    this.shown = key;
    if (!model) {
      this.root.replaceChildren(el('p', { text: t('limits.random') }));
      return;
    }
    if (isRealTrace(result)) {
      this.root.replaceChildren(
        el('p', { text: t('limits.real', { name: model.name || model.model_type }) }),
      );
      return;
    }
    const parts = [el('p', { text: t('limits.intro') })];
    const info = model.info || {};
    const need = [
      'eval_pronoun_count',
      'eval_pronoun_coref_head',
      'eval_pronoun_baseline_category_rule',
      'eval_pairs',
      'eval_pairs_both_right_coref_head',
    ];
    if (model.name !== 'custom' && need.every((k) => info[k] != null && info[k] !== '')) {
      const p = el('p', { class: 'limit-numbers' });
      const v = Object.fromEntries(need.map((k) => [k, Number(info[k])]));
      setSays(
        p,
        says(
          t,
          'limits.numbers',
          {
            n: v.eval_pronoun_count,
            head: measured(v.eval_pronoun_coref_head),
            rule: measured(v.eval_pronoun_baseline_category_rule),
            pairs: v.eval_pairs,
            pairsHead: v.eval_pairs_both_right_coref_head,
          },
          v,
        ),
      );
      parts.push(p);
    }
    parts.push(
      el(
        'ul',
        { class: 'limit-list' },
        ['limits.cannot1', 'limits.cannot2', 'limits.cannot3'].map((k) => el('li', { text: t(k) })),
      ),
    );
    // the first minimal pair (in the page's language first) that every last-layer head gets wrong
    const order = [...LIMIT_PAIRS].sort(
      (x, y) => Number(y.lang === lang()) - Number(x.lang === lang()),
    );
    /** @type {ReturnType<typeof tracePair> | null} */
    let shown = null;
    for (const pair of order) {
      let r;
      try {
        r = tracePair(core, pair, settings);
      } catch {
        continue;
      }
      if (r.same) {
        shown = r;
        break;
      }
    }
    const p = el('p', { class: 'limit-pair' });
    if (shown) {
      const { a, b, pair } = shown;
      const list = a.tops
        .map((x, h) =>
          t('limits.pairHead', {
            h: h + 1,
            tok: a.tokens[x.j],
            pa: pct(x.p),
            pb: pct(b.tops[h].p),
          }),
        )
        .join(t('list.sep'));
      setSays(
        p,
        says(
          t,
          'limits.pair',
          { a: pair.a, b: pair.b, pronoun: pair.pronoun, list, layer: a.layers },
          {
            a: pair.a,
            b: pair.b,
            pronoun: pair.pronoun,
            layer: a.layers,
            heads: a.tops.map((x, h) => ({ ja: x.j, jb: b.tops[h].j, pa: x.p, pb: b.tops[h].p })),
          },
        ),
      );
    } else {
      setSays(
        p,
        says(t, 'limits.pairNone', { n: LIMIT_PAIRS.length }, { pairs: LIMIT_PAIRS.length }),
      );
    }
    parts.push(p);
    this.root.replaceChildren(...parts);
  }
}
