// formula.js: Attention(Q,K,V) = softmax(QKᵀ/√d_k)V as MathML built with createElementNS (no
// font bundle, no TeX). Each term is focusable; hover or focus explains it and highlights its
// matrices. It does not compute: √d_k is the core's norm of a d_k-long vector of ones.

import { uid, el, mathml, clear } from '../dom.js';
import { fmt } from '../format.js';
import { num } from '../readouts.js';
/** @typedef {import('../view-types.js').ViewContext} ViewContext */
/** @typedef {import('../view-types.js').ShownTrace} ShownTrace */

// term -> the matrices it names on the page (the trace's field names)
const TERMS = [
  { id: 'attention', highlight: ['head_output'] },
  { id: 'softmax', highlight: ['weights'] },
  { id: 'Q', highlight: ['Q'] },
  { id: 'KT', highlight: ['K'] },
  { id: 'sqrt', highlight: ['scores', 'scaled'] },
  { id: 'V', highlight: ['V'] },
];

export class FormulaPanel {
  /** @param {Element} container
   *  @param {Pick<ViewContext, 'core' | 't'> & {onHighlight?: (names: string[]) => void}} ctx */
  constructor(container, { core, t, onHighlight = (_names) => {} }) {
    this.core = core;
    this.t = t;
    this.onHighlight = onHighlight;
    /** @type {string | null} the term explained (one of TERMS' ids) */
    this.active = null;
    this.dk = 0;
    this.sqrtDk = NaN;
    this.scale = true;
    const titleId = uid('panel-title');
    this.root = el('section', { class: 'panel-card panel-formula', 'aria-labelledby': titleId });
    this.title = el('h2', { id: titleId, class: 'panel-title' });
    this.intro = el('p', { class: 'panel-intro' });
    this.mathBox = el('div', { class: 'panel-math-box' });
    this.explain = el('p', { class: 'panel-term-explain', 'aria-live': 'polite' });
    this.sqrtLine = el('p', { class: 'panel-sqrt-line' });
    this.root.append(this.title, this.intro, this.mathBox, this.explain, this.sqrtLine);
    container.append(this.root);
    /** @type {Map<string, Element>} each term's node, by id */
    this.terms = new Map();
    /** @type {HTMLElement} */ this.math; // buildMath
    this.buildMath();
  }

  /** @param {string} id one of TERMS' @param {Element | Element[]} child */
  term(id, child) {
    const node = mathml(
      'mrow',
      { class: 'panel-term', tabindex: '0', 'data-term': id },
      [child].flat(),
    );
    const spec = /** @type {(typeof TERMS)[number]} */ (TERMS.find((x) => x.id === id));
    const on = () => this.activate(id, spec.highlight);
    node.addEventListener('mouseenter', on);
    node.addEventListener('focus', on);
    node.addEventListener('mouseleave', () => {
      if (document.activeElement !== node) this.deactivate();
    });
    node.addEventListener('blur', () => this.deactivate());
    this.terms.set(id, node);
    return node;
  }

  buildMath() {
    /** @param {string} s @param {Record<string, string>} [attrs] */
    const mi = (s, attrs = {}) => mathml('mi', attrs, [s]);
    /** @param {string} s @param {Record<string, string>} [attrs] */
    const mo = (s, attrs = {}) => mathml('mo', attrs, [s]);
    // two <math> pieces in a wrapping row, so the right side moves under the left on a phone
    // (MathML Core has no line breaking of its own)
    const left = mathml('math', { class: 'panel-math' }, [
      mathml('mrow', {}, [
        this.term('attention', [
          mi('Attention', { mathvariant: 'normal' }),
          mo('('),
          mi('Q'),
          mo(','),
          mi('K'),
          mo(','),
          mi('V'),
          mo(')'),
        ]),
        mo('='),
      ]),
    ]);
    const right = mathml('math', { class: 'panel-math' }, [
      mathml('mrow', {}, [
        this.term('softmax', mi('softmax', { mathvariant: 'normal' })),
        mo('(', { class: 'panel-paren' }),
        mathml('mfrac', {}, [
          mathml('mrow', {}, [
            this.term('Q', mi('Q')),
            this.term('KT', mathml('msup', {}, [mi('K'), mi('T', { mathvariant: 'normal' })])),
          ]),
          this.term('sqrt', mathml('msqrt', {}, [mathml('msub', {}, [mi('d'), mi('k')])])),
        ]),
        mo(')', { class: 'panel-paren' }),
        this.term('V', mi('V')),
      ]),
    ]);
    this.math = el('div', { class: 'panel-math-row', role: 'group' }, [left, right]);
    this.mathBox.append(this.math);
  }

  /** @param {string} id @param {string[]} highlight the matrices the term names */
  activate(id, highlight) {
    this.active = id;
    for (const [k, node] of this.terms) node.classList.toggle('panel-active', k === id);
    this.renderExplain();
    this.onHighlight(highlight);
  }

  deactivate() {
    this.active = null;
    for (const node of this.terms.values()) node.classList.remove('panel-active');
    this.renderExplain();
    this.onHighlight([]);
  }

  renderExplain() {
    const t = this.t;
    clear(this.explain);
    if (!this.active) {
      this.explain.textContent = t('panel.formula.hint');
      return;
    }
    const key =
      this.active === 'sqrt' && !this.scale
        ? 'panel.formula.term.sqrt.off'
        : `panel.formula.term.${this.active}`;
    this.explain.textContent = t(key, { dk: this.dk, root: fmt(this.sqrtDk, 3) });
  }

  /** @param {{result: ShownTrace | null}} model */
  update({ result }) {
    const t = this.t;
    this.dk = result ? result.config.d_k : 0;
    this.scale = result ? result.config.scale : true;
    // √d_k is the length of a vector of d_k ones: the core's norm, not the view's square root
    this.sqrtDk =
      this.dk > 0
        ? this.core.dotSteps(new Float32Array(this.dk).fill(1), new Float32Array(this.dk).fill(1))
            .norm_q
        : NaN;
    this.title.textContent = t('panel.formula.title');
    this.intro.textContent = t('panel.formula.intro');
    this.math.setAttribute('aria-label', t('panel.formula.aria'));
    for (const { id } of TERMS)
      /** @type {Element} */ (this.terms.get(id)).setAttribute(
        'aria-label',
        t(`panel.formula.name.${id}`),
      );
    clear(this.sqrtLine);
    if (this.dk > 0) {
      this.sqrtLine.append(
        t('panel.formula.sqrtLine', { dk: this.dk }),
        ' ',
        num(this.sqrtDk, 'sqrtDk', 0, 0, 3, 'span', 'panel-strong'),
        ' ',
        el('span', {
          class: 'panel-aside',
          text: t(this.scale ? 'panel.formula.scaleOn' : 'panel.formula.scaleOff'),
        }),
      );
    }
    this.renderExplain();
  }
}
