// analogy.js: the library analogy filled in with the current sentence's real numbers, for one
// reader (the focus token) and one head. It only arranges trace values; it computes no attention.
// The weighted value rows come from core.dotSteps (its element-wise products), not from the view.
// A long sentence (more than FEW tokens) shows only the TOP books with the most weight, plus the
// reader itself; one line says how many books are left out and how much weight they hand over.

import { uid, el, clear } from '../dom.js';
import { rowOf, colOf, at, clampIndex, fmt } from '../format.js';
import { num, vector, bar } from '../readouts.js';

const FEW = 12; // up to this many tokens every book is shown
const TOP = 8; // above it, the books with the most weight (a learner cannot read 64 cards)

/** @typedef {import('../view-types.js').ViewContext} ViewContext */
/** @typedef {import('../view-types.js').StageModel} StageModel */

/** The books to show for weight row `weights` (length n) and reader q, in sentence order: all of
 *  them when n <= FEW or `all`; otherwise the TOP largest weights (ties: the earlier book) and q.
 *  Sorting only: the weights are the core's.
 * @param {ArrayLike<number>} weights @param {number} q @param {boolean} [all] @returns {number[]} */
export function pickBooks(weights, q, all = false) {
  const n = weights.length;
  const every = Array.from({ length: n }, (_, j) => j);
  if (all || n <= FEW) return every;
  const top = every.sort((a, b) => weights[b] - weights[a] || a - b).slice(0, TOP);
  if (!top.includes(q)) top.push(q);
  return top.sort((a, b) => a - b);
}

export class AnalogyPanel {
  /** @param {HTMLElement} container
   *  @param {Pick<ViewContext, 'core' | 't'> & {onHighlight?: (names: string[]) => void}} ctx */
  constructor(container, { core, t, onHighlight = (_names) => {} }) {
    this.core = core;
    this.t = t;
    this.onHighlight = onHighlight;
    const titleId = uid('panel-title');
    this.root = el('section', { class: 'panel-card panel-analogy', 'aria-labelledby': titleId });
    this.title = el('h2', { id: titleId, class: 'panel-title' });
    this.intro = el('p', { class: 'panel-intro' });
    this.body = el('div', { class: 'panel-analogy-body' });
    this.root.append(this.title, this.intro, this.body);
    container.append(this.root);
    // long sentences: the learner's choice (a few books or all of them) survives every update
    this.showAll = false;
    /** @type {StageModel | null} the last update's model, drawn again when the toggle flips */
    this.last = null;
    this.listId = uid('panel-books');
    this.toggle = el('button', {
      type: 'button',
      class: 'panel-button panel-books-toggle',
      'aria-controls': this.listId,
      on: { click: () => this.toggleAll() },
    });
  }

  toggleAll() {
    this.showAll = !this.showAll;
    if (this.last) this.update(this.last);
    this.toggle.focus(); // the button was rebuilt around; keep the keyboard where it was
  }

  /** Hover or focus on a part of the story highlights the matching matrices on the page.
   * @param {HTMLElement} node @param {string[]} names */
  linkHighlight(node, names) {
    node.dataset.highlight = names.join(' ');
    const on = () => this.onHighlight(names);
    const off = () => this.onHighlight([]);
    node.addEventListener('mouseenter', on);
    node.addEventListener('mouseleave', off);
    node.addEventListener('focusin', on);
    node.addEventListener('focusout', off);
  }

  /** Above the list of a long sentence: which books are shown, what the others hand over together,
   *  and the button that shows all of them (or only the few again).
   * @param {{weights: Float32Array, shown: number[], hidden: number, q: number, n: number,
   *          masked: (j: number) => boolean, word: (j: number) => string}} shelf */
  shelfSummary({ weights, shown, hidden, q, n, masked, word }) {
    const t = this.t;
    this.toggle.textContent = t(
      hidden ? 'panel.analogy.books.showAll' : 'panel.analogy.books.showTop',
      { n, top: TOP },
    );
    this.toggle.setAttribute('aria-expanded', String(!hidden));
    const box = el('div', { class: 'panel-shelf' });
    if (!hidden) {
      box.append(
        el('p', { class: 'panel-shelf-line', text: t('panel.analogy.books.allShown', { n }) }),
        this.toggle,
      );
      return box;
    }
    const readerAdded = shown.length > TOP; // the reader was not among the TOP and was added
    box.append(
      el('p', {
        class: 'panel-shelf-line',
        text: t(readerAdded ? 'panel.analogy.books.topPlusReader' : 'panel.analogy.books.top', {
          top: TOP,
          n,
          token: word(q),
        }),
      }),
    );
    // The weight the hidden books hand over together, summed by the core: the dot product of the
    // weight row with a 0/1 row that marks the hidden books (dotSteps(weights, hiddenMarks).dot).
    const marks = new Float32Array(n).fill(1);
    for (const j of shown) marks[j] = 0;
    const rest = this.core.dotSteps(weights, marks).dot;
    let maskedCount = 0;
    for (let j = 0; j < n; j++) if (marks[j] === 1 && masked(j)) maskedCount += 1;
    const restNum = num(rest, 'weightsHidden', q, 'others', 3, 'span', 'panel-strong');
    restNum.dataset.cols = [...marks.keys()].filter((j) => marks[j] === 1).join(' ');
    box.append(
      el('p', { class: 'panel-shelf-line panel-others' }, [
        el('span', { text: t('panel.analogy.books.others', { count: hidden }) }),
        ' ',
        bar(rest),
        restNum,
        el('span', {
          class: 'panel-aside',
          text: t('panel.common.percent', { p: fmt(rest * 100, 1) }),
        }),
        maskedCount
          ? el('span', {
              class: 'panel-aside',
              text: t('panel.analogy.books.othersMasked', { count: maskedCount }),
            })
          : null,
      ]),
      this.toggle,
    );
    return box;
  }

  /** @param {StageModel} model */
  update({ result, state }) {
    this.last = { result, state };
    const t = this.t;
    this.title.textContent = t('panel.analogy.title');
    clear(this.body);
    if (!result || !result.heads || result.heads.length === 0) {
      this.intro.textContent = t('panel.analogy.empty');
      return;
    }
    const tr = result;
    const tokens = result.tokens;
    const n = tr.config.n;
    const h = clampIndex(state.head, tr.heads.length);
    const q = clampIndex(state.q, n);
    const head = tr.heads[h];
    const word = (/** @type {number} */ j) => tokens[j] ?? String(j + 1);
    this.intro.textContent = t('panel.analogy.intro', {
      token: word(q),
      head: h + 1,
      heads: tr.config.heads,
    });

    // 1. the reader's query
    const query = el('div', { class: 'panel-block panel-query', tabindex: '0' }, [
      el('h3', { class: 'panel-sub', text: t('panel.analogy.query.title', { token: word(q) }) }),
      el('p', { class: 'panel-explain', text: t('panel.analogy.query.explain') }),
      el('p', { class: 'panel-line' }, [
        el('span', { class: 'panel-sym', text: t('panel.analogy.query.label', { i: q + 1 }) }),
        vector(rowOf(head.Q, q), 'Q', q, t),
      ]),
    ]);
    this.linkHighlight(query, ['Q']);

    // 2. one card per book, in sentence order (a long sentence: only the books that matter)
    const weights = rowOf(head.weights, q);
    const shown = pickBooks(weights, q, this.showAll);
    const hidden = n - shown.length;
    let best = 0;
    for (let j = 1; j < n; j++) if (weights[j] > weights[best]) best = j;
    // pass 6 written out by the core: for each value column c, dotSteps(weights row, V column c)
    // gives products[j] = weight_j x V[j][c] (what book j hands over) and their sum.
    const dk = head.V.cols;
    /** @type {(Float32Array | number[])[]} */
    const handed = [];
    for (let c = 0; c < dk; c++)
      handed.push(this.core.dotSteps(weights, colOf(head.V, c)).products);

    const list = el('ol', {
      id: this.listId,
      class: 'panel-books',
      'aria-label': t(hidden ? 'panel.analogy.books.labelTop' : 'panel.analogy.books.label', {
        n: shown.length,
        total: n,
      }),
    });
    for (const j of shown) {
      const masked = at(head.masked, q, j) === -Infinity;
      const give = new Float32Array(dk);
      for (let c = 0; c < dk; c++) give[c] = handed[c][j];
      const w = weights[j];
      const card = el(
        'li',
        {
          class: `panel-book${j === best ? ' panel-best' : ''}${masked ? ' panel-masked' : ''}${j === q ? ' panel-self' : ''}`,
        },
        [
          el('h4', { class: 'panel-book-title' }, [
            el('span', {
              class: 'panel-book-token',
              text: t('panel.analogy.book.title', { j: j + 1, token: word(j) }),
            }),
            j === q ? el('span', { class: 'panel-tag', text: t('panel.analogy.book.self') }) : null,
            j === best
              ? el('span', {
                  class: 'panel-tag panel-tag-best',
                  text: t('panel.analogy.book.best'),
                })
              : null,
          ]),
          el('dl', { class: 'panel-facts' }, [
            el('dt', { text: t('panel.analogy.key.label', { j: j + 1 }) }),
            el('dd', {}, [vector(rowOf(head.K, j), 'K', j, t)]),
            el('dt', { text: t('panel.analogy.match.label') }),
            el('dd', {}, [
              num(at(head.scores, q, j), 'scores', q, j, 3, 'span', 'panel-strong'),
              tr.config.scale
                ? el('span', { class: 'panel-aside' }, [
                    t('panel.analogy.scaled', { dk: tr.config.d_k }),
                    ' ',
                    num(at(head.scaled, q, j), 'scaled', q, j),
                  ])
                : null,
            ]),
            el('dt', { text: t('panel.analogy.weight.label') }),
            el(
              'dd',
              { class: 'panel-weight' },
              masked
                ? [
                    num(w, 'weights', q, j, 3),
                    ' ',
                    el('span', { class: 'panel-aside', text: t('panel.analogy.masked') }),
                  ]
                : [
                    bar(w),
                    num(w, 'weights', q, j, 3, 'span', 'panel-strong'),
                    el('span', {
                      class: 'panel-aside',
                      text: t('panel.common.percent', { p: fmt(w * 100, 1) }),
                    }),
                  ],
            ),
            el('dt', { text: t('panel.analogy.value.label', { j: j + 1 }) }),
            el('dd', {}, [vector(rowOf(head.V, j), 'V', j, t)]),
            el('dt', { text: t('panel.analogy.give.label') }),
            el('dd', {}, [vector(give, 'weightedV', j, t)]),
          ]),
        ],
      );
      this.linkHighlight(card, ['K', 'V', 'weights']);
      list.append(card);
    }

    // 3. what the reader takes home: the output row, the sum of what every book handed over
    const home = el('div', { class: 'panel-block panel-home', tabindex: '0' }, [
      el('h3', { class: 'panel-sub', text: t('panel.analogy.home.title', { token: word(q) }) }),
      el('p', {
        class: 'panel-explain',
        text: t(hidden ? 'panel.analogy.home.explainHidden' : 'panel.analogy.home.explain', {
          n: hidden,
        }),
      }),
      el('p', { class: 'panel-line' }, [
        el('span', { class: 'panel-sym', text: t('panel.analogy.home.label', { i: q + 1 }) }),
        vector(rowOf(head.output, q), 'head_output', q, t),
      ]),
    ]);
    this.linkHighlight(home, ['weights', 'V', 'head_output']);

    const books = el('div', { class: 'panel-block' }, [
      el('h3', {
        class: 'panel-sub',
        text: t(hidden ? 'panel.analogy.books.titleTop' : 'panel.analogy.books.title'),
      }),
      el('p', {
        class: 'panel-explain',
        text: t(
          tr.config.scale ? 'panel.analogy.books.explain' : 'panel.analogy.books.explainNoScale',
          { dk: tr.config.d_k },
        ),
      }),
      n > FEW
        ? this.shelfSummary({
            weights,
            shown,
            hidden,
            q,
            n,
            masked: (j) => at(head.masked, q, j) === -Infinity,
            word,
          })
        : null,
      list,
    ]);
    this.body.append(query, books, home);
    // the main page's cells say which head they belong to; so do these (names match the trace)
    for (const node of this.body.querySelectorAll('[data-matrix]')) node.dataset.head = String(h);
  }
}
