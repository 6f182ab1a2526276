// context-lens.js: "the same word in two contexts". One word in two sentences (苹果 as a fruit and
// as a phone maker; bank of a river and of money), each traced by the core with the model shown:
// the word's row of E (the same in both when the model knows the word), its attention output
// (different, because the words around it differ), the cosine of each pair (core.dotSteps) and
// the keys each attention output drew most from. Says plainly when the model does not know the
// word. Computes nothing: the traces and cosines are the core's.
import { el, setText } from '../dom.js';
import { fmt, pct, rowOf } from '../format.js';
/** @typedef {import('../view-types.js').ViewContext} ViewContext */
/** @typedef {import('../view-types.js').StageModel} StageModel */
/** @typedef {import('../view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('../../../types/index.js').Matrix} Matrix */
/** @typedef {import('../../../types/index.js').Head} Head */

/** The pairs, by locale key: the word and its two sentences (web/locales, lens.*). */
const PAIRS = ['apple', 'bank'];
/** Numbers of a row shown, and keys named per head. */
const NUMS = 4;
const TOP = 2;
/** A head giving the word itself at least this share looks at no neighbour. */
const SELF = 0.9;

export class ContextLens {
  /** @param {Pick<ViewContext, 'core' | 't'>} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    this.pair = 0;
    /** @type {ShownTrace} the trace whose model and settings both sentences use (update) */
    this.result;
    this.out = el('div', { class: 'lens-out', 'aria-live': 'polite' });
    this.picker = el(
      'p',
      { class: 'lens-pick' },
      PAIRS.map((p, i) =>
        el('button', {
          type: 'button',
          class: 'action small',
          text: ctx.t(`lens.${p}.word`),
          'aria-pressed': String(i === 0),
          on: {
            click: () => {
              this.pair = i;
              this.draw();
            },
          },
        }),
      ),
    );
    this.el = el('div', { class: 'context-lens' }, [
      el('p', { class: 'hint', text: ctx.t('lens.intro') }),
      this.picker,
      this.out,
    ]);
  }

  /** @param {Pick<StageModel, 'result'>} model */
  update({ result }) {
    this.result = result;
    this.draw();
  }

  draw() {
    const { core, t } = this.ctx;
    const c = this.result.config;
    const key = PAIRS[this.pair];
    [...this.picker.children].forEach((b, i) =>
      b.setAttribute('aria-pressed', String(i === this.pair)),
    );
    const word = t(`lens.${key}.word`);
    // the shown model and settings, for both sentences
    const settings = {
      model: c.weights,
      causal: c.causal,
      scale: c.scale,
      temperature: c.temperature,
      positions: c.positions,
      tie_qk: c.tie_qk,
      seed: c.seed,
      d_model: c.d_model,
      heads: c.heads,
      d_k: c.d_k,
    };
    const sides = ['a', 'b'].map((s) => {
      const text = t(`lens.${key}.${s}`);
      const r = core.trace(text, settings, { layers: false, guesses: false });
      const i = r.tokens.indexOf(word);
      return { text, r, i };
    });
    if (sides.some((s) => s.i < 0)) {
      this.out.replaceChildren(el('p', { text: t('lens.notToken', { word }) }));
      return;
    }
    const known = sides.every((s) => s.r.token_details[s.i].known);
    /** @param {Matrix} m @param {number} i */
    const rowText = (m, i) =>
      [...rowOf(m, i).subarray(0, NUMS)].map((v) => fmt(v)).join(', ') + ', …';
    const eCos = core.dotSteps(
      rowOf(sides[0].r.embeddings, sides[0].i),
      rowOf(sides[1].r.embeddings, sides[1].i),
    ).cosine;
    const oCos = core.dotSteps(
      rowOf(sides[0].r.output, sides[0].i),
      rowOf(sides[1].r.output, sides[1].i),
    ).cosine;
    // per head, the keys the word's row drew most from (the output mixes every head's)
    let selfOnly = true;
    const rows = sides.map((s, n) => {
      const drew = s.r.heads.map((/** @type {Head} */ hd, /** @type {number} */ h) => {
        const w = rowOf(hd.weights, s.i);
        const order = [...w.keys()].sort((a, b) => w[b] - w[a]).slice(0, TOP);
        if (w[s.i] < SELF) selfOnly = false;
        return el('div', {
          text: t('lens.head', {
            h: h + 1,
            keys: order.map((j) => `${s.r.tokens[j]} ${pct(w[j])}`).join(t('list.sep')),
          }),
        });
      });
      return el('tr', {}, [
        el('th', { scope: 'row', text: `${n + 1}. ${s.text}` }),
        el('td', { class: 'n', text: rowText(s.r.embeddings, s.i) }),
        el('td', { class: 'n', text: rowText(s.r.output, s.i) }),
        el('td', {}, drew),
      ]);
    });
    const table = el('table', { class: 'lens-table' }, [
      el('thead', {}, [
        el('tr', {}, [
          el('th', { text: t('lens.sentence') }),
          el('th', { text: t('lens.embedding', { word }) }),
          el('th', { text: t('lens.output', { word }) }),
          el('th', { text: t('lens.drew') }),
        ]),
      ]),
      el('tbody', {}, rows),
    ]);
    const verdict = el('p');
    setText(
      verdict,
      t(!known ? 'lens.unknown' : selfOnly ? 'lens.self' : 'lens.cosines', {
        word,
        e: fmt(eCos, 3),
        o: fmt(oCos, 3),
      }),
    );
    this.out.replaceChildren(el('div', { class: 'scroller' }, [table]), verdict);
  }
}
