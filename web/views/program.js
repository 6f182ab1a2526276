// program.js: the seed article's NumPy program beside the stages, when the model is "numpy". It
// shows the program the core hands back (result.program: its lines with this trace's sizes, and
// the stage each line computes), highlights the lines of the stage being shown, offers a copy,
// and says whether running it gives the page's numbers (result.program.matches, from the core).
// No maths and no program text of its own.
import { el } from './dom.js';
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** The program a numpy trace carries: its lines and whether its numbers match.
 *  @typedef {NonNullable<ShownTrace['program']>} Program */

export class ProgramView {
  /** root: the panel (hidden unless the model is numpy); ctx: {t}
   *  @param {HTMLElement} root @param {{t: Translate}} ctx */
  constructor(root, { t }) {
    this.root = root;
    this.t = t;
    /** @type {Program | null} */
    this.program = null;
    this.stage = '';
    this.key = '';
    // what build() draws from and makes
    /** @type {string} the program's text, for the clipboard */ this.text;
    /** @type {string} the seed its numbers come from */ this.seed;
    /** @type {HTMLElement[] | undefined} */ this.lineEls;
    /** @type {HTMLElement} */ this.code;
    /** @type {HTMLButtonElement} */ this.copyBtn;
    /** @type {HTMLElement} */ this.noLine;
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.t = t;
    this.key = '';
    if (this.program) this.build();
  }

  /** result: the core's trace result; shows nothing when it has no program.
   *  @param {{result: ShownTrace | null}} model */
  update({ result }) {
    const program = result && result.program;
    if (this.root.hidden !== !program) this.root.hidden = !program; // unchanged: no style work
    this.root.closest('.walk-grid')?.classList.toggle('with-program', !!program);
    if (!result || !program) {
      this.program = null;
      this.key = '';
      return;
    }
    const text = program.lines.map((l) => l.text).join('\n');
    const key = `${program.matches}\n${result.config.seed}\n${text}`;
    this.program = program;
    this.text = `${text}\n`;
    this.seed = result.config.seed;
    if (key !== this.key) {
      this.key = key;
      this.build();
    }
  }

  // called with a program (update, setTranslator)
  build() {
    const { t } = this;
    const program = /** @type {Program} */ (this.program);
    this.lineEls = program.lines.map((l, i) =>
      el('span', {
        class: 'program-line',
        text: `${l.text}\n`, // the code's text (and a copy by hand) is the program
        'data-line': i + 1,
        'data-stage': l.stage || null,
      }),
    );
    this.code = el(
      'pre',
      { class: 'program-code', tabindex: '0', 'aria-label': t('program.codeLabel') },
      [el('code', { translate: 'no' }, this.lineEls)],
    );
    this.copyBtn = el('button', {
      class: 'action small',
      text: t('program.copy'),
      type: 'button',
      id: 'program-copy',
      on: { click: () => this.copy() },
    });
    this.noLine = el('p', { class: 'hint program-noline', text: t('program.noLine') });
    this.root.replaceChildren(
      el('h3', { text: t('program.title') }),
      el('p', {
        class: `program-claim ${program.matches ? 'same' : 'differs'}`,
        'data-matches': String(program.matches),
        text: t(program.matches ? 'program.same' : 'program.differs', { seed: this.seed }),
      }),
      el('p', { class: 'hint', text: t('program.source') }),
      el('div', { class: 'program-actions' }, [this.copyBtn]),
      this.noLine,
      this.code,
    );
    this.show(this.stage);
  }

  /** stage: the walkthrough stage shown ('score', ...); its lines are highlighted.
   *  @param {string} stage */
  show(stage) {
    this.stage = stage;
    if (!this.program || !this.lineEls) return;
    let any = false;
    /** @type {HTMLElement | null} */
    let first = null;
    for (const line of this.lineEls) {
      const on = line.dataset.stage === stage;
      line.classList.toggle('program-line-current', on);
      if (on) {
        any = true;
        first = first || line;
      }
    }
    this.root.dataset.stage = stage;
    this.noLine.hidden = any;
    // keep the highlighted lines in view inside the code box, without scrolling the page
    if (first) this.code.scrollTop = Math.max(0, first.offsetTop - this.code.offsetTop - 40);
  }

  async copy() {
    try {
      await navigator.clipboard.writeText(this.text);
      this.copyBtn.textContent = this.t('program.copied');
    } catch {
      // no clipboard permission: select the code so the learner can copy it by hand
      const range = document.createRange();
      range.selectNodeContents(this.code);
      // a shadow root has getSelection in Chromium (not in the DOM's types)
      const root = /** @type {Node & {getSelection?: () => Selection | null}} */ (
        this.root.getRootNode()
      );
      const sel = /** @type {Selection} */ (
        root.getSelection ? root.getSelection() : getSelection()
      );
      sel.removeAllRanges();
      sel.addRange(range);
      this.copyBtn.textContent = this.t('program.selected');
    }
  }
}
