// shortcuts.js: the keyboard shortcuts and the dialog that lists them ("?" opens it). Keys are
// ignored while typing in a field, so the sentence box and number inputs behave normally.
import { el } from './dom.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').Translate} Translate */

const KEYS = [
  ['Space / K', 'key.play'],
  ['← / →', 'key.step'],
  ['PageUp / PageDown', 'key.stage'],
  ['1 … 9', 'key.goto'],
  ['R', 'key.replay'],
  ['+ / −', 'key.speed'],
  [', / .', 'key.focus'],
  ['H', 'key.head'],
  ['L', 'key.lang'],
  ['T', 'key.text'],
  ['?', 'key.help'],
  ['Esc', 'key.close'],
];

export class Shortcuts {
  /** @param {{dialog: HTMLDialogElement, open: HTMLElement}} dom the list's dialog, its button
   *  @param {Pick<ViewContext, 't' | 'actions'> & {player: import('../player.js').Player}} ctx
   *  @param {Document | ShadowRoot} [keyTarget] */
  constructor(dom, { t, player, actions }, keyTarget = document) {
    this.dom = dom;
    this.player = player;
    this.actions = actions;
    /** @type {Translate} */ this.t; // setTranslator
    this.setTranslator(t);
    dom.open.addEventListener('click', () => this.open());
    // the page listens on the document; an embedded copy only on its own shadow root
    this.keyTarget = keyTarget;
    // a shadow root's keydown events are keyboard events too (its event map lacks them)
    this.listener = (/** @type {Event} */ e) => this.onKey(/** @type {KeyboardEvent} */ (e));
    keyTarget.addEventListener('keydown', this.listener);
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.t = t;
    const list = el('dl', { class: 'keys' });
    for (const [k, key] of KEYS)
      list.append(el('dt', {}, [el('kbd', { text: k })]), el('dd', { text: t(key) }));
    this.dom.dialog.replaceChildren(
      el('h2', { text: t('key.title') }),
      list,
      el('button', {
        class: 'action',
        text: t('key.closeBtn'),
        type: 'button',
        on: { click: () => this.dom.dialog.close() },
      }),
    );
  }

  destroy() {
    this.keyTarget.removeEventListener('keydown', this.listener);
  }

  open() {
    if (!this.dom.dialog.open) this.dom.dialog.showModal();
  }

  /** @param {KeyboardEvent} e */
  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    // a node (or the document), so closest() is checked for before it is called
    const target = /** @type {Element} */ (e.target);
    const typing =
      target.closest && target.closest('input, textarea, select, [contenteditable="true"]');
    if (typing || this.dom.dialog.open) return;
    const onButton = target.closest && target.closest('button, a, summary, td[tabindex]');
    const p = this.player;
    const a = this.actions;
    const speeds = [0.5, 1, 2, 4];
    const k = e.key;
    if ((k === ' ' || k === 'Enter') && onButton) return;
    if (k === ' ' || k === 'k' || k === 'K') p.toggle();
    else if (k === 'ArrowRight') p.stepForward();
    else if (k === 'ArrowLeft') p.stepBack();
    else if (k === 'PageDown' || k === ']') p.nextStage();
    else if (k === 'PageUp' || k === '[') p.prevStage();
    else if (/^[1-9]$/.test(k)) p.goto(+k - 1);
    else if (k === 'r' || k === 'R') p.replay();
    else if (k === '+' || k === '=') p.setSpeed(speeds[Math.min(3, speeds.indexOf(p.speed) + 1)]);
    else if (k === '-' || k === '_') p.setSpeed(speeds[Math.max(0, speeds.indexOf(p.speed) - 1)]);
    else if (k === '.') a.moveFocus(1);
    else if (k === ',') a.moveFocus(-1);
    else if (k === 'h' || k === 'H') a.cycleHead();
    else if (k === 'l' || k === 'L') a.toggleLang();
    else if (k === 't' || k === 'T') a.focusText();
    else if (k === '?') this.open();
    else return;
    e.preventDefault();
  }
}
