// analogy.js: the library analogy filled in with the current sentence's real numbers, for one
// reader (the focus token) and one head. It only arranges trace values; it computes no attention.
// The weighted value rows come from core.dotSteps (its element-wise products), not from the view.

import { uid, el, num, vector, bar, clear, rowOf, colOf, at, clampIndex, fmt } from './util.js';

export class AnalogyPanel {
  constructor(container, { core, t, onHighlight = () => {} }) {
    this.core = core;
    this.t = t;
    this.onHighlight = onHighlight;
    const titleId = uid('pn-title');
    this.root = el('section', { class: 'pn-panel pn-analogy', 'aria-labelledby': titleId });
    this.title = el('h2', { id: titleId, class: 'pn-title' });
    this.intro = el('p', { class: 'pn-intro' });
    this.body = el('div', { class: 'pn-analogy-body' });
    this.root.append(this.title, this.intro, this.body);
    container.append(this.root);
  }

  /** Hover or focus on a part of the story highlights the matching matrices on the page. */
  linkHighlight(node, names) {
    node.dataset.highlight = names.join(' ');
    const on = () => this.onHighlight(names);
    const off = () => this.onHighlight([]);
    node.addEventListener('mouseenter', on);
    node.addEventListener('mouseleave', off);
    node.addEventListener('focusin', on);
    node.addEventListener('focusout', off);
  }

  update({ result, state }) {
    const t = this.t;
    this.title.textContent = t('panel.analogy.title');
    clear(this.body);
    if (!result || !result.trace || !result.trace.head || result.trace.head.length === 0) {
      this.intro.textContent = t('panel.analogy.empty');
      return;
    }
    const tr = result.trace;
    const tokens = result.tokens;
    const n = tr.n;
    const h = clampIndex(state.head, tr.head.length);
    const q = clampIndex(state.q, n);
    const head = tr.head[h];
    const word = (j) => (tokens[j] ? tokens[j].text : String(j + 1));
    this.intro.textContent = t('panel.analogy.intro', { token: word(q), head: h + 1, heads: tr.heads });

    // 1. the reader's query
    const query = el('div', { class: 'pn-block pn-query', tabindex: '0' }, [
      el('h3', { class: 'pn-sub', text: t('panel.analogy.query.title', { token: word(q) }) }),
      el('p', { class: 'pn-explain', text: t('panel.analogy.query.explain') }),
      el('p', { class: 'pn-line' }, [
        el('span', { class: 'pn-sym', text: t('panel.analogy.query.label', { i: q + 1 }) }),
        vector(rowOf(head.Q, q), 'Q', q, t),
      ]),
    ]);
    this.linkHighlight(query, ['Q']);

    // 2. one card per book (every token), in sentence order
    const weights = rowOf(head.weights, q);
    let best = 0;
    for (let j = 1; j < n; j++) if (weights[j] > weights[best]) best = j;
    // pass 6 written out by the core: for each value column c, dotSteps(weights row, V column c)
    // gives products[j] = weight_j x V[j][c] (what book j hands over) and their sum.
    const dk = head.V.cols;
    const handed = [];
    for (let c = 0; c < dk; c++) handed.push(this.core.dotSteps(weights, colOf(head.V, c)).products);

    const list = el('ol', { class: 'pn-books', 'aria-label': t('panel.analogy.books.label') });
    for (let j = 0; j < n; j++) {
      const masked = at(head.masked, q, j) === -Infinity;
      const give = new Float32Array(dk);
      for (let c = 0; c < dk; c++) give[c] = handed[c][j];
      const w = weights[j];
      const card = el('li', {
        class: `pn-book${j === best ? ' pn-best' : ''}${masked ? ' pn-masked' : ''}${j === q ? ' pn-self' : ''}`,
      }, [
        el('h4', { class: 'pn-book-title' }, [
          el('span', { class: 'pn-book-token', text: t('panel.analogy.book.title', { j: j + 1, token: word(j) }) }),
          j === q ? el('span', { class: 'pn-tag', text: t('panel.analogy.book.self') }) : null,
          j === best ? el('span', { class: 'pn-tag pn-tag-best', text: t('panel.analogy.book.best') }) : null,
        ]),
        el('dl', { class: 'pn-facts' }, [
          el('dt', { text: t('panel.analogy.key.label', { j: j + 1 }) }),
          el('dd', {}, [vector(rowOf(head.K, j), 'K', j, t)]),
          el('dt', { text: t('panel.analogy.match.label') }),
          el('dd', {}, [
            num(at(head.scores, q, j), 'scores', q, j, 3, 'span', 'pn-strong'),
            tr.scale
              ? el('span', { class: 'pn-aside' }, [t('panel.analogy.scaled', { dk: tr.dK }), ' ', num(at(head.scaled, q, j), 'scaled', q, j)])
              : null,
          ]),
          el('dt', { text: t('panel.analogy.weight.label') }),
          el('dd', { class: 'pn-weight' }, masked
            ? [num(w, 'weights', q, j, 3), ' ', el('span', { class: 'pn-aside', text: t('panel.analogy.masked') })]
            : [bar(w), num(w, 'weights', q, j, 3, 'span', 'pn-strong'),
              el('span', { class: 'pn-aside', text: t('panel.common.percent', { p: fmt(w * 100, 1) }) })]),
          el('dt', { text: t('panel.analogy.value.label', { j: j + 1 }) }),
          el('dd', {}, [vector(rowOf(head.V, j), 'V', j, t)]),
          el('dt', { text: t('panel.analogy.give.label') }),
          el('dd', {}, [vector(give, 'weightedV', j, t)]),
        ]),
      ]);
      this.linkHighlight(card, ['K', 'V', 'weights']);
      list.append(card);
    }

    // 3. what the reader takes home: the output row, the sum of what every book handed over
    const home = el('div', { class: 'pn-block pn-home', tabindex: '0' }, [
      el('h3', { class: 'pn-sub', text: t('panel.analogy.home.title', { token: word(q) }) }),
      el('p', { class: 'pn-explain', text: t('panel.analogy.home.explain') }),
      el('p', { class: 'pn-line' }, [
        el('span', { class: 'pn-sym', text: t('panel.analogy.home.label', { i: q + 1 }) }),
        vector(rowOf(head.output, q), 'head_output', q, t),
      ]),
    ]);
    this.linkHighlight(home, ['weights', 'V', 'head_output']);

    const books = el('div', { class: 'pn-block' }, [
      el('h3', { class: 'pn-sub', text: t('panel.analogy.books.title') }),
      el('p', { class: 'pn-explain', text: t(tr.scale ? 'panel.analogy.books.explain' : 'panel.analogy.books.explainNoScale', { dk: tr.dK }) }),
      list,
    ]);
    this.body.append(query, books, home);
    // the main page's cells say which head they belong to; so do these (names match the trace)
    for (const node of this.body.querySelectorAll('[data-matrix]')) node.dataset.head = String(h);
  }
}
