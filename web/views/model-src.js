// model-src.js: the model a course author's `model-src` names (a converted .apm at an http(s)
// address): the offer to download it (a link opened as a page), then the bytes received of the
// total, a Cancel, and what came of it. It downloads nothing and computes nothing itself:
// actions.loadRealFrom (playground.js, real-model.js fetchConvertedModel) does.
import { el, setText } from './dom.js';
import { cardVars } from './real-loader.js';
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./view-types.js').Actions} Actions */
/** @typedef {import('../playground.js').LoadHow} LoadHow */
/** What the box says: the offer, the progress or the outcome (vars.key: the outcome's string).
 *  @typedef {{what: 'offer' | 'loading' | 'done', vars: Record<string, unknown>}} Shown */

export class ModelSrcView {
  /** @param {HTMLElement} root
   *  @param {{t: Translate, actions: Pick<Actions, 'realInfo' | 'errorText'> &
   *    {loadRealFrom?: (address: string, how: LoadHow) => Promise<void>}}} ctx
   *    actions.loadRealFrom is absent where real models cannot load (the single file) */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {AbortController | null} the running download's */
    this.abort = null;
    /** @type {string | null} */
    this.address = null;
    /** @type {Shown | null} */
    this.shown = null;
    // the progress bar while loading (draw)
    /** @type {HTMLProgressElement | undefined} */ this.bar;
    /** @type {HTMLElement} */ this.barText;
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    if (this.shown && !this.abort) this.draw();
  }

  /** Shows `address` (absolute http(s)): downloads it at once when `auto`, else offers a button.
   *  @param {string} address @param {{auto: boolean}} how */
  show(address, { auto }) {
    // a new address replaces a download still running (its outcome is then not shown)
    this.abort?.abort();
    this.abort = null;
    this.address = address;
    if (!this.ctx.actions.loadRealFrom) return this.say('done', { key: 'real.needsHosted' });
    if (auto) return this.load();
    this.say('offer');
    this.root.dataset.state = 'offered';
  }

  /** the box's content: the address's host, then the offer, the progress or the outcome
   *  @param {Shown['what']} what @param {Shown['vars']} [vars] */
  say(what, vars = {}) {
    this.shown = { what, vars };
    this.draw();
  }

  draw() {
    const { t } = this.ctx;
    // drawn once show() has given an address and said what the box says
    const host = hostOf(/** @type {string} */ (this.address));
    const { what, vars } = /** @type {Shown} */ (this.shown);
    const parts = [];
    if (what === 'offer') {
      parts.push(
        el('p', { text: t('real.srcOffer', { host }) }),
        el('button', {
          type: 'button',
          class: 'action small',
          'data-model-src': 'load',
          text: t('real.srcLoad', { host }),
          on: { click: () => this.load() },
        }),
      );
    } else if (what === 'loading') {
      this.bar = el('progress', { class: 'real-progress', max: 1 });
      this.barText = el('span', { class: 'real-progress-text' });
      parts.push(
        el('p', { text: t('real.srcLoading', { host }) }),
        el('div', { class: 'real-loading' }, [
          this.bar,
          this.barText,
          el('button', {
            type: 'button',
            class: 'action small',
            'data-model-src': 'cancel',
            text: t('real.cancel'),
            on: { click: () => this.abort?.abort() },
          }),
        ]),
      );
    } else {
      // an outcome names its string
      parts.push(
        el('p', { class: 'real-status', text: t(/** @type {string} */ (vars.key), vars) }),
      );
    }
    this.root.replaceChildren(...parts);
    this.root.hidden = false;
  }

  /** the bytes received of the total (total 0: not known until the end)
   *  @param {{loaded: number, total: number}} p */
  progress({ loaded, total }) {
    if (!this.bar) return;
    if (total) {
      this.bar.max = total;
      this.bar.value = loaded;
    } else this.bar.removeAttribute('value');
    setText(
      this.barText,
      this.ctx.t(total ? 'real.progress' : 'real.srcProgressUnknown', {
        loaded: megabytes(loaded),
        total: megabytes(total),
      }),
    );
    this.root.dataset.loaded = String(loaded);
    this.root.dataset.total = String(total);
  }

  async load() {
    if (this.abort) return;
    const { actions } = this.ctx;
    const abort = new AbortController();
    this.abort = abort;
    this.say('loading');
    this.root.dataset.state = 'loading';
    try {
      // show() gave the address, and offers a load only where there is loadRealFrom
      await /** @type {Required<typeof actions>} */ (actions).loadRealFrom(
        /** @type {string} */ (this.address),
        {
          signal: abort.signal,
          onProgress: (p) => this.abort === abort && this.progress(p),
        },
      );
      if (this.abort !== abort) return;
      this.abort = null;
      // the model just loaded has its card
      const card = /** @type {Record<string, unknown>} */ (actions.realInfo());
      this.say('done', { key: 'real.loaded', ...cardVars(card) });
      this.root.dataset.state = 'loaded';
    } catch (/** @type {any} */ e) {
      if (this.abort !== abort) return; // another address replaced this one
      this.abort = null;
      const cancelled = e?.code === 'aborted';
      this.say(
        'done',
        cancelled
          ? { key: 'real.cancelled' }
          : { key: 'real.failed', why: this.ctx.actions.errorText(e) },
      );
      this.root.dataset.state = cancelled ? 'cancelled' : 'failed';
    }
  }
}

// the host an address names (what the offer tells the learner the bytes would come from)
const hostOf = (/** @type {string} */ address) => {
  try {
    return new URL(address).host;
  } catch {
    return String(address);
  }
};

// bytes in MB with one decimal, as the file loader shows them
const megabytes = (/** @type {number} */ n) => (n / 1048576).toFixed(1);
