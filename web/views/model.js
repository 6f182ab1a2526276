// model.js: what model the page is showing, in one line, with what each head does on demand. The
// line names the model's shape and its numbers on the hand-written dev set (from the model file's
// info); the details list every layer's heads by role (a locale key per role, the measured numbers
// from the model file), the project version that trained it, the dev and held-out sets' numbers
// with the baselines, the model's reading of the followed token (trace.guesses) and the tokens
// outside the vocabulary. It formats what the core returns: no maths, no model logic.
import { el, says } from './dom.js';
import { grouped } from './format.js';
import { isRealTrace } from '../core.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').ViewState} ViewState */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./dom.js').Says} Says */
/** @typedef {import('../../types/index.js').Trace} Trace */
/** @typedef {import('../../types/index.js').ModelCard} ModelCard */
/** A real model's card (GPT-2, BERT): the trained card's fields and what its file says.
 *  @typedef {ModelCard & {parameters: number, file_bytes: number, dtype: string}} RealCard */

/** An element whose text is a says() sentence: the text plus data-says (key and raw values).
 * @param {string} tag @param {Record<string, unknown>} attrs @param {Says} s */
const said = (tag, attrs, s) =>
  el(tag, { ...attrs, text: s.text, 'data-says': JSON.stringify(s.data) });

// a share as measured, one decimal: a share just under 1 is never shown as 100%
const pct = (/** @type {unknown} */ x) =>
  x == null || Number.isNaN(Number(x)) ? '—' : `${(100 * Number(x)).toFixed(1)}%`;

export class ModelInfoView {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't'> & {lang: () => string}} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.open = false;
    /** @type {string | null | undefined} what the root shows (the key of update) */
    this.shown;
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    this.shown = null;
  }

  /** A real model's card: what it is, and that its heads' patterns are its training's, not ours
   * @param {RealCard} card */
  showReal(card) {
    const { t, lang } = this.ctx;
    const shown = JSON.stringify([card, lang()]);
    if (shown === this.shown) return;
    this.shown = shown;
    this.root.replaceChildren(
      el('p', {
        class: 'model-line',
        text: t('model.real', {
          name: card.name || card.model_type,
          type: card.model_type,
          layers: card.layers,
          heads: card.heads,
          d_k: card.d_k,
          d_model: card.d_model,
          parameters: grouped(card.parameters),
          bytes: (card.file_bytes / 1048576).toFixed(1),
          dtype: card.dtype,
        }),
      }),
      el('p', { class: 'hint', text: t('model.realNone') }),
    );
  }

  /** one list item per head of every layer: "Layer 2, head 1: <role sentence>"
   * @param {ModelCard} model @param {ViewState} state */
  headNotes(model, state) {
    const { t } = this.ctx;
    const list = el('ul', { class: 'head-notes', 'aria-label': t('model.notesLabel') });
    model.notes.forEach((perLayer, l) =>
      perLayer.forEach((n, h) => {
        const nums = n.numbers || {};
        const vars = {
          pronoun: pct(nums.pronoun),
          verb: pct(nums.verb),
          self: pct(nums.self),
          previous: pct(nums.previous),
          steps: nums.steps ?? '?',
        };
        const last = l === model.notes.length - 1;
        // the trainer marks each head its attention loss taught (numbers.taught = that weight)
        const taught = Number(nums.taught || 0) > 0;
        list.append(
          el(
            'li',
            {
              class: `head-note${last && h === state.head ? ' chosen' : ''}`,
              'data-layer': l,
              'data-head': h,
              'data-role': n.role,
            },
            [
              el('strong', { text: t('model.headNote', { l: l + 1, h: h + 1 }) }),
              ' ',
              said(
                'span',
                { class: 'note-text' },
                says(t, `role.${n.role}`, vars, { layer: l, head: h, numbers: nums }),
              ),
              taught ? el('span', { class: 'note-taught', text: ` ${t('model.taught')}` }) : null,
            ],
          ),
        );
      }),
    );
    return list;
  }

  /** "Taught heads: layer 1 head 1, …": the heads whose note carries the trainer's taught mark
   * @param {ModelCard} model */
  taughtList(model) {
    const { t } = this.ctx;
    /** @type {string[]} */
    const names = [];
    /** @type {[number, number][]} [layer, head] */
    const heads = [];
    model.notes.forEach((perLayer, l) =>
      perLayer.forEach((n, h) => {
        if (Number((n.numbers || {}).taught || 0) > 0) {
          names.push(t('model.headShort', { l: l + 1, h: h + 1 }));
          heads.push([l, h]);
        }
      }),
    );
    if (!names.length) return null;
    return said(
      'p',
      { class: 'model-taught' },
      says(t, 'model.taughtList', { list: names.join(t('list.sep')) }, { heads }),
    );
  }

  /** guesses: the trace's guesses when it was traced without them (playground.js guesses());
   *  veiled: the learner may still guess the followed token's top key, so its reading waits
   * @param {{result: ShownTrace, state: ViewState, guesses?: Trace['guesses'], veiled?: boolean}} shown */
  update({ result, state, guesses = result.guesses, veiled = false }) {
    const { t, lang } = this.ctx;
    if (isRealTrace(result)) {
      this.showReal(/** @type {RealCard} */ (result.model)); // isRealTrace: a real card
      return;
    }
    const model = result.model;
    const tokens = result.tokens;
    const q = state.q;
    const g = guesses && guesses[q];
    // "小白兔 → 兔子" for a word read as another, "bedroom → bed + room" for one read through
    // known words inside it, "zork (hashed)" else
    const unknown = [
      ...new Set(
        result.token_details
          .filter((x) => x.known === false)
          .map((x) =>
            x.read_as && x.read_as.length
              ? t('model.readAs', { tok: x.text, pieces: x.read_as.join(' + ') })
              : t('model.hashed', { tok: x.text }),
          ),
      ),
    ];
    // typing changes little here: build again only when what is shown changed
    const shown = JSON.stringify([
      model && model.name,
      !!result.program,
      model && model.d_model,
      model && model.info,
      result.config.seed,
      state.head,
      q,
      tokens[q],
      g && g.word,
      g && g.probability,
      unknown,
      veiled,
      lang(),
    ]);
    if (shown === this.shown) return;
    this.shown = shown;
    /** @type {HTMLElement[]} */
    const parts = [];
    if (result.program) {
      parts.push(
        el('p', { class: 'model-line', text: t('model.numpy', { seed: result.config.seed }) }),
      );
    } else if (!model) {
      parts.push(
        el('p', { class: 'model-line', text: t('model.random', { seed: result.config.seed }) }),
      );
    } else {
      const info = model.info || {};
      const vars = {
        d: model.d_model,
        h: model.heads,
        dk: model.d_k,
        layers: model.layers,
        steps: info.steps ?? '?',
        n: info.eval_pronoun_count ?? '?',
        head: pct(info.eval_pronoun_coref_head),
        any: pct(info.eval_pronoun_any_head),
        rule: pct(info.eval_pronoun_baseline_category_rule),
        two: pct(info.eval_pronoun_baseline_rule_or_nearest),
      };
      const key = model.name === 'custom' ? 'model.custom' : 'model.trained';
      const honestKeys = [
        'eval_sentences',
        'eval_pairs',
        'eval_pairs_both_right_any_head',
        'eval_pairs_both_right_coref_head',
        'eval_pronoun_baseline_category_rule',
        'eval_pronoun_baseline_nearest_noun',
        'eval_pronoun_baseline_first_noun',
        'eval_verb_any_head',
        'eval_pronoun_baseline_rule_or_nearest',
        'eval_pairs_both_right_baseline_rule_or_nearest',
      ];
      const heldoutKeys = [
        'heldout_sentences',
        'heldout_pronoun_count',
        'heldout_pronoun_coref_head',
        'heldout_pronoun_any_head',
        'heldout_pronoun_zh_any_head',
        'heldout_pronoun_en_any_head',
        'heldout_pronoun_baseline_category_rule',
        'heldout_pronoun_baseline_nearest_noun',
        'heldout_pronoun_baseline_first_noun',
        'heldout_pronoun_baseline_rule_or_nearest',
        'heldout_pairs',
        'heldout_pairs_both_right_any_head',
        'heldout_pairs_both_right_coref_head',
        'heldout_pairs_both_right_baseline_rule_or_nearest',
      ];
      // the visible line leads with the blind numbers (sentences never used for any choice) in one
      // plain sentence; the dev set's numbers, the heads and the baselines follow inside
      const blind = model.name !== 'custom' && info.heldout_pronoun_coref_head != null;
      const acc = Number(info.heldout_pronoun_coref_head);
      const lead = blind
        ? said(
            'summary',
            { class: 'model-line' },
            says(
              t,
              'model.blind',
              {
                k: Math.round(5 * acc),
                acc: pct(acc),
                pron: info.heldout_pronoun_count,
                pairs: info.heldout_pairs,
                pairsHead: info.heldout_pairs_both_right_coref_head,
                rule: pct(info.heldout_pronoun_baseline_category_rule),
              },
              {
                info: Object.fromEntries(
                  [
                    'heldout_pronoun_coref_head',
                    'heldout_pronoun_count',
                    'heldout_pairs',
                    'heldout_pairs_both_right_coref_head',
                    'heldout_pronoun_baseline_category_rule',
                  ].map((k) => [k, info[k] ?? null]),
                ),
              },
            ),
          )
        : null;
      const details = el('details', { class: 'model-details' }, [
        lead,
        said(
          blind ? 'p' : 'summary',
          { class: blind ? 'model-dev' : 'model-line' },
          says(t, key, vars, {
            info: Object.fromEntries(
              [
                'steps',
                'eval_pronoun_count',
                'eval_pronoun_coref_head',
                'eval_pronoun_any_head',
                'eval_pronoun_baseline_category_rule',
                'eval_pronoun_baseline_rule_or_nearest',
              ].map((k) => [k, info[k] ?? null]),
            ),
          }),
        ),
        this.headNotes(model, state),
        this.taughtList(model),
        info.project_version
          ? said(
              'p',
              { class: 'model-version' },
              says(
                t,
                'model.version',
                { version: info.project_version },
                { version: info.project_version },
              ),
            )
          : null,
        model.name === 'custom'
          ? null
          : said(
              'p',
              { class: 'model-honest' },
              says(
                t,
                'model.honest',
                {
                  n: info.eval_sentences ?? '?',
                  pairs: info.eval_pairs ?? '?',
                  pairsAny: info.eval_pairs_both_right_any_head ?? '?',
                  pairsHead: info.eval_pairs_both_right_coref_head ?? '?',
                  rule: pct(info.eval_pronoun_baseline_category_rule),
                  nearest: pct(info.eval_pronoun_baseline_nearest_noun),
                  first: pct(info.eval_pronoun_baseline_first_noun),
                  verb: pct(info.eval_verb_any_head),
                  two: pct(info.eval_pronoun_baseline_rule_or_nearest),
                  pairsTwo: info.eval_pairs_both_right_baseline_rule_or_nearest ?? '?',
                },
                { info: Object.fromEntries(honestKeys.map((k) => [k, info[k] ?? null])) },
              ),
            ),
        model.name === 'custom' || info.heldout_pronoun_count === undefined
          ? null
          : said(
              'p',
              { class: 'model-heldout' },
              says(
                t,
                'model.heldout',
                {
                  n: info.heldout_sentences,
                  pron: info.heldout_pronoun_count,
                  head: pct(info.heldout_pronoun_coref_head),
                  any: pct(info.heldout_pronoun_any_head),
                  zh: pct(info.heldout_pronoun_zh_any_head),
                  en: pct(info.heldout_pronoun_en_any_head),
                  rule: pct(info.heldout_pronoun_baseline_category_rule),
                  nearest: pct(info.heldout_pronoun_baseline_nearest_noun),
                  first: pct(info.heldout_pronoun_baseline_first_noun),
                  two: pct(info.heldout_pronoun_baseline_rule_or_nearest),
                  pairs: info.heldout_pairs,
                  pairsAny: info.heldout_pairs_both_right_any_head,
                  pairsHead: info.heldout_pairs_both_right_coref_head,
                  pairsTwo: info.heldout_pairs_both_right_baseline_rule_or_nearest,
                },
                { info: Object.fromEntries(heldoutKeys.map((k) => [k, info[k] ?? null])) },
              ),
            ),
      ]);
      details.open = this.open;
      details.addEventListener('toggle', () => {
        this.open = details.open;
      });
      parts.push(details);
      if (g && tokens[q] && veiled) {
        parts.push(
          el('p', { class: 'model-reads', 'data-veiled': '' }, [
            el('span', { class: 'veil-why', text: t('veil.reads', { tok: tokens[q] }) }),
          ]),
        );
      } else if (g && tokens[q] && !knownWord(g.word)) {
        // the read-out's best row is one with no word (an unknown row): no word to name
        parts.push(
          said(
            'p',
            { class: 'model-reads', 'data-row': q },
            says(t, 'model.readsNone', { tok: tokens[q] }, { q, word: null }),
          ),
        );
      } else if (g && tokens[q]) {
        const reads = says(
          t,
          'model.reads',
          { tok: tokens[q], word: spelled(g.word, tokens), p: g.probability.toFixed(2) },
          { q, word: g.word, p: g.probability },
        );
        parts.push(
          el(
            'p',
            {
              class: 'model-reads',
              'data-row': q,
              'data-word': g.word,
              'data-value': g.probability,
            },
            [
              said('span', { class: 'model-reads-text' }, reads),
              ' ',
              el('span', { class: 'hint', text: t('model.readsHint') }),
            ],
          ),
        );
      }
    }
    if (unknown.length) {
      parts.push(
        el('p', { class: 'unknown-legend' }, [
          el('span', { class: 'unknown-mark', text: '?', 'aria-hidden': 'true' }),
          ' ',
          t('model.unknown', { list: unknown.join(t('list.sep')) }),
        ]),
      );
    }
    this.root.replaceChildren(...parts);
  }
}

/** Whether a read-out word is a word (not one of the vocabulary's unknown rows, "<unk:N>").
 * @param {string} word */
function knownWord(word) {
  return !/^<.*>$/.test(word);
}

/** A vocabulary word as the sentence spells it ("tom" → "Tom" when the sentence has Tom): the
 *  read-out names a row by its lower-cased key.
 * @param {string} word @param {string[]} tokens */
function spelled(word, tokens) {
  return tokens.find((x) => x.toLowerCase() === word) ?? word;
}
