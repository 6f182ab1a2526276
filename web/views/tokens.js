// tokens.js: stage 1. The sentence as token chips (index, text, kind), appearing one by one.
// Clicking a chip follows that token; a multi-character Chinese chip can be split by the learner.
import { el } from './dom.js';
import { isRealTrace } from '../core.js';
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('../../types/index.js').TokenDetail} TokenDetail */

export class TokensStage {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions' | 'later' | 'core'>} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {StageModel} */
    this.model;
    /** @type {HTMLElement} */
    this.list;
    /** @type {HTMLElement} */
    this.legend;
    /** @type {StageModel} the model drawn (render) */
    this.model;
    /** @type {HTMLElement} the chips' list (render) */
    this.list;
    /** @type {HTMLElement[]} one per token */
    this.chips;
    /** @type {string[]} what each chip was built from */
    this.keys;
    /** @type {HTMLElement} */
    this.legend;
  }

  /** @param {StageModel} model */
  units(model) {
    return model.result.token_details.length;
  }

  /** the stage's introduction: a real model cuts text with its own tokenizer
   * @param {StageModel} model */
  whatKey(model) {
    const r = model.result;
    // a real trace's card names its model_type (isRealTrace)
    return isRealTrace(r) ? `stage.tokens.what_${r.model?.model_type}` : null;
  }

  /** @param {StageModel} model */
  render(model) {
    const { t } = this.ctx;
    this.model = model;
    this.list = el('ol', { class: 'chips big', 'aria-label': t('tokens.list') });
    this.chips = [];
    this.keys = [];
    this.legend = el('p', { class: 'unknown-legend' }, [
      el('span', { class: 'unknown-mark', text: '?', 'aria-hidden': 'true' }),
      ' ',
      t('model.unknownLegend'),
    ]);
    this.root.replaceChildren(
      this.list,
      this.legend,
      el('p', { class: 'hint', text: t('tokens.hint') }),
    );
    this.update(model);
  }

  /** chips are kept: only a chip whose token (or focus) changed is built again
   * @param {StageModel} model */
  update(model) {
    this.model = model;
    const tokens = model.result.token_details;
    while (this.chips.length > tokens.length) {
      this.chips.pop()?.remove();
      this.keys.pop();
    }
    tokens.forEach((tok, i) => {
      const key = [tok.text, tok.kind, tok.known, tok.read_as, i === model.state.q].join('\u0000');
      if (this.keys[i] === key) return;
      const chip = this.chip(tok, i, i === model.state.q);
      const old = this.chips[i];
      if (old) {
        // a keyboard user who followed this token keeps focus on it (the chip is built anew)
        const active = /** @type {Document | ShadowRoot} */ (this.root.getRootNode()).activeElement;
        old.replaceWith(chip);
        if (active && old.contains(active)) chip.querySelector('.chip-main').focus();
      } else this.list.append(chip);
      this.chips[i] = chip;
      this.keys[i] = key;
    });
    this.legend.hidden = !tokens.some((x) => x.known === false);
    return true;
  }

  /** @param {TokenDetail} tok @param {number} i @param {boolean} focus */
  chip(tok, i, focus) {
    const { t, actions } = this.ctx;
    const chars = [...tok.text];
    const kind = t(`kind.${tok.kind}`) + (tok.known ? '' : ` · ${t('tokens.unknown')}`);
    const unknown = tok.known === false;
    return el(
      'li',
      {
        class: `chip kind-${tok.kind}${focus ? ' focus' : ''}${unknown ? ' unknown' : ''}`,
        title: !unknown
          ? null
          : tok.read_as && tok.read_as.length
            ? t(tok.read_as.length === 1 ? 'model.readAsOne' : 'model.readAsMark', {
                pieces: tok.read_as.join(' + '),
              })
            : t('model.unknownMark'),
        'data-unknown': unknown ? '1' : null,
      },
      [
        unknown ? el('span', { class: 'unknown-mark', text: '?', 'aria-hidden': 'true' }) : null,
        el(
          'button',
          {
            class: 'chip-main',
            // the name is the visible text plus the action (label in name, WCAG 2.5.3)
            type: 'button',
            'aria-pressed': String(focus),
            on: { click: () => actions.setFocus(i) },
          },
          [
            el('span', { class: 'idx', text: String(i + 1) }),
            el('span', { class: 'tok', text: tok.text }),
            el('span', { class: 'kind', text: kind }),
            el('span', {
              class: 'vh',
              text: ` (${t('tokens.follow', { i: i + 1, tok: tok.text })})`,
            }),
          ],
        ),
        chars.length > 1 && tok.kind === 'han'
          ? el('button', {
              class: 'split',
              text: '|',
              type: 'button',
              title: t('tokens.split', { tok: tok.text }),
              'aria-label': t('tokens.split', { tok: tok.text }),
              on: { click: () => actions.splitToken(i) },
            })
          : null,
      ],
    );
  }

  /** @param {number} k */
  show(k) {
    this.chips.forEach((c, i) => c.classList.toggle('pending', i >= k));
  }

  /** while chips appear, the newest one; once all are shown, the whole list
   * @param {number} k */
  narrate(k) {
    const tokens = this.model.result.token_details;
    if (k >= tokens.length)
      return this.ctx.t('narr.tokens', {
        n: tokens.length,
        list: this.model.result.tokens.join(' · '),
      });
    const i = Math.max(0, k - 1);
    return this.ctx.t('narr.tokenStep', {
      i: i + 1,
      n: tokens.length,
      tok: tokens[i].text,
      kind: this.ctx.t(`kind.${tokens[i].kind}`),
    });
  }

  /** @param {number} k */
  active(k) {
    const n = this.model.result.token_details.length;
    return k >= n ? [this.chips[this.model.state.q]] : [this.chips[Math.max(0, k - 1)]];
  }
}

/** The text with '|' forced between the characters of `token` (located by its UTF-8 bytes).
 * @param {string} text @param {{byte_begin: number, byte_end: number}} token */
export function splitTokenText(text, token) {
  let bytes = 0;
  let begin = -1;
  let end = text.length;
  let i = 0;
  for (const ch of text) {
    if (bytes === token.byte_begin) begin = i;
    if (bytes === token.byte_end) {
      end = i;
      break;
    }
    bytes += new TextEncoder().encode(ch).length;
    i += ch.length;
  }
  if (begin < 0) return text;
  return text.slice(0, begin) + [...text.slice(begin, end)].join('|') + text.slice(end);
}
