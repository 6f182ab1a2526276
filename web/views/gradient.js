// gradient.js: one example's gradient. For the followed token (它) and a target token the learner
// picks (by default the one the model reads it as: its antecedent), core.gradientRow gives, per
// head, dLoss/dScore for every key; the view draws them as diverging bars (negative = the loss
// pushes that score up) with the loss, the probability and a one-sentence reason. Only a trained
// model (default or custom) has a loss to follow. It draws; the core computes.
import { el, fmt } from './util.js';

export class GradientView {
  /** ctx: {t, core, actions: {setSetting}} */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.picked = null;     // {key, target}: the learner's target for this sentence and token
    this.last = null;
  }

  setTranslator(t) { this.ctx = { ...this.ctx, t }; if (this.last) this.update(this.last); }

  /** {result, state, text, settings}: the shown trace, the page state, the core's inputs. */
  update(args) {
    this.last = args;
    const { t, core, actions } = this.ctx;
    const { result, state, text, settings } = args;
    const tokens = result.tokens;
    const q = state.q;
    if (!result.model) {
      this.root.replaceChildren(
        el('p', { class: 'grad-off', text: t('train.gradNeedsModel') }),
        el('button', { class: 'action small', text: t('train.gradUseTrained'), attrs: { type: 'button' },
          on: { click: () => actions.setSetting('model', 'default') } }),
      );
      return;
    }
    const key = `${text}\u0000${q}\u0000${tokens.length}`;
    let target = this.picked && this.picked.key === key ? this.picked.target : this.defaultTarget(result, state, text, settings);
    target = Math.min(tokens.length - 1, Math.max(0, target));
    let g;
    try {
      g = core.gradientRow(text, settings, q, target);
    } catch (e) {
      this.root.replaceChildren(el('p', { class: 'grad-off', text: e.message }));
      return;
    }
    const select = el('select', { attrs: { id: 'grad-target' }, on: { change: (ev) => {
      this.picked = { key, target: Number(ev.target.value) };
      this.update(this.last);
    } } }, tokens.map((tok, j) => el('option', { text: `${j + 1} · ${tok.text}`, attrs: { value: j } })));
    select.value = String(target);
    const word = g.targetWord;
    const qTok = tokens[q].text;
    const tTok = tokens[target].text;
    let scale = 1e-12;
    for (const h of g.head) for (const v of h.dScores) if (Number.isFinite(v)) scale = Math.max(scale, Math.abs(v));
    const heads = g.head.map((h, hi) => this.headBars(h.dScores, hi, q, tokens, scale, target));
    this.root.replaceChildren(...[
      el('div', { class: 'grad-pick' }, [
        el('span', { text: t('train.gradQuery', { tok: qTok, i: q + 1 }) }),
        el('label', { attrs: { for: 'grad-target' }, text: t('train.gradTarget') }), select,
      ]),
      el('p', { class: 'grad-why', text: this.why(g, target, qTok, word, tTok) }),
      el('p', { class: 'grad-loss', attrs: { 'data-loss': g.loss, 'data-probability': g.probability } },
        [t('train.gradLoss', { word, p: g.probability.toFixed(3), loss: small(g.loss) })]),
      g.loss < 1e-3 ? el('p', { class: 'hint', text: t('train.gradTiny') }) : null,
      el('p', { class: 'hint', text: t('train.gradLegend') }),
      el('div', { class: 'grad-heads' }, heads),
      el('p', { class: 'hint', text: t('train.gradSum') }),
    ].filter(Boolean));
  }

  // The default target: the token whose word the shipped model reads at q (a pronoun's antecedent:
  // the answer a model in training is being taught), else the key the chosen head weights most.
  defaultTarget(result, state, text, settings) {
    const q = state.q;
    const tokens = result.tokens;
    let g = null;
    try {
      g = this.ctx.core.trace(text, { ...settings, model: 'default' }).guesses[q];
    } catch { /* the shown trace is the last good one: fall back to the weights */ }
    if (g) {
      const j = tokens.findIndex((x, i) => i !== q && x.text === g.word);
      if (j >= 0) return j;
    }
    const w = result.trace.head[Math.min(state.head, result.trace.heads - 1)].weights;
    let best = -1;
    for (let j = 0; j < w.cols; j++) {
      if (j === q && w.cols > 1) continue;
      if (best < 0 || w.data[q * w.cols + j] > w.data[q * w.cols + best]) best = j;
    }
    return Math.max(0, best);
  }

  // The sentence follows the signs the core returned: up in every head, in some, or in none.
  why(g, target, q, word, key) {
    const { t } = this.ctx;
    const up = g.head.map((h, i) => (h.dScores[target] < 0 ? i + 1 : 0)).filter(Boolean);
    const down = g.head.map((h, i) => (h.dScores[target] < 0 ? 0 : i + 1)).filter(Boolean);
    const sep = t('list.sep');
    if (!down.length) return t('train.gradWhy', { q, word, key });
    if (!up.length) return t('train.gradWhyNone', { q, word, key });
    return t('train.gradWhyMixed', { q, word, key, up: up.join(sep), down: down.join(sep) });
  }

  headBars(dScores, h, q, tokens, scale, target) {
    const { t } = this.ctx;
    const list = el('ul', { class: 'dbars', attrs: { 'aria-label': t('train.gradHead', { h: h + 1 }) } });
    dScores.forEach((v, j) => {
      const up = v < 0;
      const size = Number.isFinite(v) ? Math.min(50, (Math.abs(v) / scale) * 50) : 0;
      const fill = el('span', { class: `dfill ${up ? 'up' : 'down'}` });
      fill.style.width = `${size}%`;
      fill.style[up ? 'left' : 'right'] = '50%';
      const dir = Math.abs(v) < scale * 1e-3 ? 'flat' : up ? 'up' : 'down';
      const val = el('span', {
        class: `dval ${dir}`,
        text: `${small(v)} ${t(`train.grad.${dir}`)}`,
        attrs: { 'data-matrix': 'dScores', 'data-head': h, 'data-row': q, 'data-col': j, 'data-value': String(v) },
      });
      list.append(el('li', { class: j === target ? 'target' : '' }, [
        el('span', { class: 'blabel', text: tokens[j].text }),
        el('span', { class: 'dtrack' }, [el('span', { class: 'dzero' }), fill]),
        val,
      ]));
    });
    return el('figure', { class: 'grad-head' }, [el('figcaption', { text: t('train.gradHead', { h: h + 1 }) }), list]);
  }
}

// 3 decimals, or 3 significant digits when the number is tiny (a well-trained model's pushes)
function small(v) {
  if (!Number.isFinite(v) || v === 0 || Math.abs(v) >= 1e-3) return fmt(v, 3);
  const [m, e] = v.toExponential(2).split('e');
  return `${fmt(Number(m), 2)}×10${String(Number(e)).replace(/-/g, '⁻').replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[d])}`;
}
