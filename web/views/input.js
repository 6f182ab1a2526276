// input.js: the sentence box, the preset buttons and the message list (errors and URL notices).
// Text from the learner or the URL is only ever set with textContent / value.
import { el } from './dom.js';
import { PRESETS } from '../state.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('../playground.js').Message} Message */

export class InputView {
  /** @param {{text: HTMLTextAreaElement, presets: HTMLElement, messages: HTMLElement,
   *    count: HTMLElement}} dom
   *  @param {Pick<ViewContext, 't' | 'actions'>} ctx */
  constructor(dom, { t, actions }) {
    this.dom = dom; // {text, presets, messages, count}
    this.t = t;
    this.actions = actions;
    /** @type {string | undefined} the messages last shown, as JSON (showMessages) */ this.shown;
    dom.text.addEventListener('input', () => actions.setText(dom.text.value));
    this.build();
  }

  build() {
    this.dom.presets.replaceChildren(
      ...PRESETS.map((p) =>
        el('button', {
          class: 'preset',
          text: p,
          type: 'button',
          lang: /[a-z]/i.test(p) ? 'en' : 'zh',
          on: { click: () => this.actions.setText(p, true) },
        }),
      ),
    );
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.t = t;
  }

  /** @param {string} s */
  setText(s) {
    if (this.dom.text.value !== s) this.dom.text.value = s;
  }

  /** messages: [{kind: 'error'|'notice', text, action?: {label, run}}] (action: a button after
   *  the text)
   *  @param {Message[]} messages */
  showMessages(messages) {
    const shown = JSON.stringify(messages);
    if (shown === this.shown) return; // typing mostly repeats "no messages"
    this.shown = shown;
    this.dom.messages.replaceChildren(
      ...messages.map((m) =>
        el('li', { class: `msg ${m.kind}` }, [
          m.text,
          m.action ? ' ' : null,
          m.action
            ? el('button', {
                type: 'button',
                class: 'action small msg-action',
                text: m.action.label,
                on: { click: m.action.run },
              })
            : null,
        ]),
      ),
    );
    this.dom.text.setAttribute('aria-invalid', String(messages.some((m) => m.kind === 'error')));
  }

  /** @param {string} text */
  showCount(text) {
    if (this.dom.count.textContent !== text) this.dom.count.textContent = text;
  }
}
