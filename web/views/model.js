// model.js: what model the page is showing and what its heads learned. One line for the model
// (trained / random / trained in this page), each head's note with its measured accuracy (from the
// model file), the model's reading of the followed token (trace.guesses) and the tokens outside
// the lexicon. The notes carry the measured accuracy in their text. It formats what the core returns: no maths, no model logic.
import { el } from './util.js';

export class ModelInfoView {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  setTranslator(t) { this.ctx = { ...this.ctx, t }; this.shown = null; }

  update({ result, state }) {
    const { t, lang } = this.ctx;
    const model = result.model;
    const tokens = result.tokens;
    const q = state.q;
    const g = result.guesses && result.guesses[q];
    const unknown = [...new Set(tokens.filter((x) => x.known === false).map((x) => x.text))];
    // typing changes little here: build again only when what is shown changed
    const shown = JSON.stringify([model && model.name, model && model.dModel, result.settings.seed, state.head, q,
      tokens[q] && tokens[q].text, g && g.word, g && g.probability, unknown, this.ctx.lang()]);
    if (shown === this.shown) return;
    this.shown = shown;
    const parts = [];
    if (!model) {
      parts.push(el('p', { class: 'model-line', text: t('model.random', { seed: result.settings.seed }) }));
    } else {
      const info = model.info || {};
      const key = model.name === 'custom' ? 'model.custom' : 'model.trained';
      parts.push(el('p', { class: 'model-line', text: t(key, {
        d: model.dModel, h: model.heads, dk: model.dK, n: info.train_sentences ?? '?', steps: info.steps ?? '?',
      }) }));
      const notes = el('ul', { class: 'head-notes', attrs: { 'aria-label': t('model.notesLabel') } });
      model.notes.forEach((n, h) => {
        const note = lang() === 'zh' ? n.noteZh : n.note;
        const li = el('li', { class: `head-note${h === state.head ? ' chosen' : ''}`, attrs: { 'data-head': h, 'data-role': n.role, 'data-pronoun-accuracy': n.pronounAccuracy, 'data-verb-accuracy': n.verbAccuracy } }, [
          el('strong', { text: t('model.headNote', { h: h + 1 }) }), ' ', el('span', { class: 'note-text', text: note }),
        ]);
        notes.append(li);
      });
      parts.push(notes);
      if (g && tokens[q]) {
        parts.push(el('p', { class: 'model-reads', attrs: { 'data-row': q, 'data-word': g.word, 'data-value': g.probability } }, [
          t('model.reads', { tok: tokens[q].text, word: g.word, p: g.probability.toFixed(2) }), ' ',
          el('span', { class: 'hint', text: t('model.readsHint') }),
        ]));
      }
    }
    if (unknown.length) {
      parts.push(el('p', { class: 'unknown-legend' }, [
        el('span', { class: 'unknown-mark', text: '?', attrs: { 'aria-hidden': 'true' } }), ' ',
        t('model.unknown', { list: unknown.join(t('list.sep')) }),
      ]));
    }
    this.root.replaceChildren(...parts);
  }
}
