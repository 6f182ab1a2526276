// tokens.js: stage 1. The sentence as token chips (index, text, kind), appearing one by one.
// Clicking a chip follows that token; a multi-character Chinese chip can be split by the learner.
import { el } from './util.js';

export class TokensStage {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  units(model) { return model.result.tokens.length; }

  render(model) {
    const { t } = this.ctx;
    this.model = model;
    this.list = el('ol', { class: 'chips big', attrs: { 'aria-label': t('tokens.list') } });
    this.chips = [];
    this.keys = [];
    this.legend = el('p', { class: 'unknown-legend' }, [el('span', { class: 'unknown-mark', text: '?', attrs: { 'aria-hidden': 'true' } }), ' ', t('model.unknownLegend')]);
    this.root.replaceChildren(this.list, this.legend, el('p', { class: 'hint', text: t('tokens.hint') }));
    this.update(model);
  }

  // chips are kept: only a chip whose token (or focus) changed is built again
  update(model) {
    this.model = model;
    const tokens = model.result.tokens;
    while (this.chips.length > tokens.length) { this.chips.pop().remove(); this.keys.pop(); }
    tokens.forEach((tok, i) => {
      const key = `${tok.text}\u0000${tok.kind}\u0000${tok.known}\u0000${i === model.state.q}`;
      if (this.keys[i] === key) return;
      const chip = this.chip(tok, i, i === model.state.q);
      if (this.chips[i]) this.chips[i].replaceWith(chip); else this.list.append(chip);
      this.chips[i] = chip;
      this.keys[i] = key;
    });
    this.legend.hidden = !tokens.some((x) => x.known === false);
    return true;
  }

  chip(tok, i, focus) {
    const { t, actions } = this.ctx;
    const chars = [...tok.text];
    const kind = t(`kind.${tok.kind}`) + (tok.known ? '' : ` · ${t('tokens.unknown')}`);
    const unknown = tok.known === false;
    return el('li', {
      class: `chip kind-${tok.kind}${focus ? ' focus' : ''}${unknown ? ' unknown' : ''}`,
      attrs: unknown ? { title: t('model.unknownMark'), 'data-unknown': '1' } : {},
    }, [
      unknown ? el('span', { class: 'unknown-mark', text: '?', attrs: { 'aria-hidden': 'true' } }) : null,
      el('button', {
        class: 'chip-main',
        // the name is the visible text plus the action (label in name, WCAG 2.5.3)
        attrs: { type: 'button', 'aria-pressed': focus },
        on: { click: () => actions.setFocus(i) },
      }, [el('span', { class: 'idx', text: String(i + 1) }), el('span', { class: 'tok', text: tok.text }),
        el('span', { class: 'kind', text: kind }), el('span', { class: 'vh', text: ` (${t('tokens.follow', { i: i + 1, tok: tok.text })})` })]),
      chars.length > 1 && tok.kind === 'han'
        ? el('button', {
          class: 'split', text: '|',
          attrs: { type: 'button', title: t('tokens.split', { tok: tok.text }), 'aria-label': t('tokens.split', { tok: tok.text }) },
          on: { click: () => actions.splitToken(i) },
        })
        : null,
    ]);
  }

  show(k) { this.chips.forEach((c, i) => c.classList.toggle('pending', i >= k)); }

  narrate(k) {
    const toks = this.model.result.tokens.slice(0, Math.max(1, k)).map((x) => x.text);
    return this.ctx.t('narr.tokens', { n: this.model.result.tokens.length, list: toks.join(' · ') });
  }
}

/** The text with '|' forced between the characters of `token` (located by its UTF-8 bytes). */
export function splitTokenText(text, token) {
  let bytes = 0;
  let begin = -1;
  let end = text.length;
  let i = 0;
  for (const ch of text) {
    if (bytes === token.byteBegin) begin = i;
    if (bytes === token.byteEnd) { end = i; break; }
    bytes += new TextEncoder().encode(ch).length;
    i += ch.length;
  }
  if (begin < 0) return text;
  return text.slice(0, begin) + [...text.slice(begin, end)].join('|') + text.slice(end);
}
