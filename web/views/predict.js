// predict.js: "predict, then reveal" in the softmax stage. Before the followed token's weights are
// shown, the learner may click the token they expect it to attend to most (or skip); the reveal
// then sets the learner's pick beside what this model does, from the trace's weights: the pick's
// share and rank, the model's top two keys and their shares. The model is never the answer key:
// the card says the reading is the learner's to judge, with the model's measured accuracy on
// sentences it never saw, and, for a sentence of ours, the reading people give (state.js
// READINGS). Guesses are remembered per sentence and followed token, in the page's own Map
// (ctx.predictions). Ranking only: the weights are the core's.
import { el, setText, says, setSays } from './dom.js';
import { pct } from './format.js';
import { isRealTrace } from '../core.js';
import { readingOf } from '../state.js';

/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./view-types.js').Translate} Translate */
/** A learner's answer: the key they picked, or that they skipped.
 *  @typedef {{guess: number, skipped?: false} | {skipped: true, guess?: undefined}} Answer */
/** @typedef {ReturnType<typeof judge>} Verdict */
/** Predict's context: the answers kept per sentence and followed token (only answer() writes
 *  them), and the wiring's calls.
 *  @typedef {Pick<ViewContext, 't' | 'actions' | 'predictOn'> & Partial<Pick<ViewContext, 'sentence'>>
 *    & {predictions: Map<string, unknown>}} PredictContext */

/** The guess's place in a weight row: {rank (1 = top), weight, top, topWeight, second,
 *  secondWeight} (second = -1 for a row of one). Ties share a rank.
 * @param {ArrayLike<number>} weights @param {number} guess */
export function judge(weights, guess) {
  let top = 0;
  let above = 0;
  for (let j = 0; j < weights.length; j++) {
    if (weights[j] > weights[top]) top = j;
    if (weights[j] > weights[guess]) above++;
  }
  let second = -1;
  for (let j = 0; j < weights.length; j++)
    if (j !== top && (second < 0 || weights[j] > weights[second])) second = j;
  return {
    rank: above + 1,
    weight: weights[guess],
    top,
    topWeight: weights[top],
    second,
    secondWeight: second < 0 ? 0 : weights[second],
  };
}

/** The locale key of the verdict: the pick beside the model's top keys, never right or wrong.
 * @param {Verdict} v @param {Answer} answer */
export function verdictKey(v, answer) {
  if (v.second < 0) return 'predict.only';
  if (answer.skipped) return 'predict.skipped';
  if (v.rank === 1) return 'predict.agree';
  if (v.rank === 2) return 'predict.differ2';
  return 'predict.differ';
}

/** The sentence about how far to trust the model: its accuracy on held-out pronouns (a trained
 *  model with a held-out check), or why it has none. result: the trace.
 * @param {Translate} t @param {ShownTrace} result */
export function trustLine(t, result) {
  /** @type {Record<string, string | undefined>} */
  const info = result.model?.info || {};
  if (result.program || !result.model) return says(t, 'predict.judgeRandom', {});
  if (isRealTrace(result)) {
    const name = result.model.name || result.model.model_type;
    return says(t, 'predict.judgeReal', { name }, {});
  }
  if (info.heldout_pronoun_coref_head == null) return says(t, 'predict.judgeCustom', {});
  const acc = Number(info.heldout_pronoun_coref_head);
  return says(
    t,
    'predict.judge',
    { acc: `${(100 * acc).toFixed(1)}%`, pron: info.heldout_pronoun_count },
    { acc, pron: info.heldout_pronoun_count },
  );
}

/** The key a guess is remembered under: the sentence's tokens and the followed token.
 * @param {string[]} tokens @param {number} q */
export function predictionKey(tokens, q) {
  return `${tokens.join('\u241f')}#${q}`;
}

export class Predict {
  /** ctx: {t, predictions: Map, predictOn(): boolean, sentence(): the traced text,
   *  actions: {guessMade(), setSetting}}
   * @param {PredictContext} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    /** @type {StageModel | undefined} the model last shown */
    this.model = undefined;
    /** @type {string | undefined} the tokens the buttons were made for */
    this.sig = undefined;
    /** @type {HTMLButtonElement[]} one per token */
    this.buttons = [];
    this.el = el('section', { class: 'predict', 'aria-live': 'polite' });
    this.title = el('h4', { class: 'predict-title' });
    this.choices = el('div', { class: 'predict-choices', role: 'group' });
    this.result = el('p', { class: 'predict-result' });
    this.people = el('p', { class: 'predict-people' });
    this.trust = el('p', { class: 'predict-trust' });
    this.skip = el('button', {
      type: 'button',
      class: 'action small predict-skip',
      on: { click: () => this.answer({ skipped: true }) },
    });
    this.off = el('button', {
      type: 'button',
      class: 'linkish predict-off',
      on: { click: () => this.ctx.actions.setSetting('predict', false) },
    });
    this.again = el('button', {
      type: 'button',
      class: 'linkish predict-again',
      on: { click: () => this.forget() },
    });
    this.el.append(
      this.title,
      this.choices,
      el('p', { class: 'predict-tools' }, [this.skip, ' ', this.again, ' ', this.off]),
      this.result,
      this.people,
      this.trust,
    );
  }

  /** @param {StageModel} model */
  key(model) {
    return predictionKey(model.result.tokens, model.state.q);
  }

  /** Whether the stage is asking and must keep the followed row's weights hidden.
   * @param {StageModel} model */
  asking(model) {
    return this.ctx.predictOn() && !this.ctx.predictions.has(this.key(model));
  }

  /** The learner's answer for this sentence ({guess} or {skipped}), or undefined.
   * @param {StageModel} model */
  answerOf(model) {
    return /** @type {Answer | undefined} */ (this.ctx.predictions.get(this.key(model)));
  }

  /** @param {Answer} a */
  answer(a) {
    if (!this.model) return;
    this.ctx.predictions.set(this.key(this.model), a);
    this.ctx.actions.guessMade();
  }

  forget() {
    if (!this.model) return;
    this.ctx.predictions.delete(this.key(this.model));
    this.ctx.actions.guessMade();
  }

  /** Draws the card for `model`: the question with one button per token while asking, then the
   *  verdict from weights (the followed row of the shown head). Hidden when predicting is off.
   * @param {StageModel} model @param {ArrayLike<number>} weights @param {number} head */
  show(model, weights, head) {
    this.model = model;
    const { t } = this.ctx;
    const on = this.ctx.predictOn();
    this.el.hidden = !on;
    if (!on) return;
    const labels = model.result.tokens;
    const tok = labels[model.state.q];
    const asking = this.asking(model);
    this.el.classList.toggle('asking', asking);
    this.el.dataset.state = asking ? 'asking' : 'revealed';
    setText(this.title, t(asking ? 'predict.ask' : 'predict.asked', { tok }));
    this.choices.setAttribute('aria-label', t('predict.ask', { tok }));
    setText(this.skip, t('predict.skip'));
    setText(this.off, t('predict.off'));
    setText(this.again, t('predict.again'));
    this.skip.hidden = !asking;
    this.again.hidden = asking;
    const a = this.answerOf(model);
    // one button per token (rebuilt only when the sentence's tokens change)
    const sig = labels.join('\u241f');
    if (this.sig !== sig) {
      this.sig = sig;
      this.buttons = labels.map((label, j) =>
        el('button', {
          type: 'button',
          class: 'chip predict-choice',
          'data-col': j,
          text: label,
          on: {
            click: () => {
              if (this.model && this.asking(this.model)) this.answer({ guess: j });
            },
          },
        }),
      );
      this.choices.replaceChildren(...this.buttons);
    }
    this.buttons.forEach((b, j) => {
      b.disabled = !asking;
      b.classList.toggle('guessed', !!a && a.guess === j);
      b.setAttribute('aria-pressed', String(!!a && a.guess === j));
    });
    if (asking || !a) {
      setText(this.result, asking ? t('predict.hint', { tok }) : '');
      this.people.hidden = this.trust.hidden = true;
      delete this.el.dataset.rank;
      return;
    }
    const v = judge(weights, a.skipped ? 0 : a.guess);
    this.buttons.forEach((b, j) => b.classList.toggle('top', j === v.top));
    const p = {
      tok,
      head: head + 1,
      top: labels[v.top],
      pt: pct(v.topWeight),
      second: v.second < 0 ? '' : labels[v.second],
      ps: pct(v.secondWeight),
      guess: a.skipped ? '' : labels[a.guess],
      pg: pct(v.weight),
      rank: v.rank,
      n: labels.length,
    };
    setText(this.result, t(verdictKey(v, a), p));
    // a sentence of ours: the reading people give (the pronoun's antecedent)
    const reading = readingOf(this.ctx.sentence?.() ?? '', labels, model.state.q);
    this.people.hidden = !reading;
    if (reading)
      setSays(
        this.people,
        says(t, 'predict.people', { tok, word: labels[reading.col] }, { col: reading.col }),
      );
    this.trust.hidden = false;
    setSays(this.trust, trustLine(t, model.result));
    if (a.skipped) delete this.el.dataset.rank;
    else this.el.dataset.rank = String(v.rank);
  }
}
