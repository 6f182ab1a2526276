// element.js: <attention-playground>, the custom element (the entry of the embed bundle). Each
// element has its own shadow root (host-page CSS cannot reach in, ids never clash), its own copy of
// the page's markup, its own state and its own core session (custom model, caches); the
// WebAssembly module under the sessions is loaded once and shared. Removing an element frees its
// session; moving it (removed and inserted again in one task) keeps everything. Attributes mirror
// the URL keys (`sentence` for s); events: ready, stepchange, change, error. Needs the bundler's AP_SHELL
// (index.html's markup), AP_CSS (the page's styles) and AP_TRAIN_BASE (where the hosted page's
// train-worker.js and wasm/ are, relative to this script): it does not work unbundled.
import { loadModule, CoreError } from '../core.js';
import { translatorFor } from '../strings.js';
import { mountPlayground } from '../playground.js';
import { TABLE, outsideName } from '../state.js';
import { shadowShell, memo } from './shell.js';
import { Commands } from './commands.js';
import { unsupportedMessage, bootFailedMessage } from '../support.js';
import { webAddress } from '../outside-api.js';

/* global AP_TRAIN_BASE */
const KEYS = TABLE.filter((e) => e.name !== 'parent');
const ENTRY_OF = Object.fromEntries(KEYS.map((e) => [outsideName(e), e]));
// This script's URL, captured while it runs: a classic script (the bundle with the WebAssembly
// inline) names itself in document.currentScript, which is null later and in an ES module; the ES
// module build (lib/element.js) has import.meta.url, which the classic bundle leaves empty.
const SCRIPT_URL =
  /** @type {HTMLScriptElement | null} */ (document.currentScript)?.src ||
  import.meta.url ||
  location.href;

// The hosted page this script belongs to (AP_TRAIN_BASE: dist/site/ from dist/embed/, the site
// itself from dist/site/embed/ and dist/site/lib/): its share links, licence links and training.
const SITE_URL = new URL(AP_TRAIN_BASE, SCRIPT_URL).href;

// One module for every element on the page, made on first use (each element makes its own session
// over it). The classic bundle has it inline; the ES module build loads the site's wasm/.
const sharedModule = memo(() => loadModule({ base: new URL('wasm/', SITE_URL).href }));
// A real model's module (the site's wasm/attention-real.js, fetched when one is first loaded):
// the cache keeps it for every element of the page once fetched.
const realModels = { moduleUrl: new URL('wasm/attention-real.js', SITE_URL).href, cache: {} };

// attribute value -> URL value (a bare boolean attribute means on)
/** @param {import('../state.js').Entry} entry @param {string} v */
function urlValue(entry, v) {
  return entry.type === 'bool' && v === '' ? '1' : v;
}

export class AttentionPlayground extends HTMLElement {
  static get observedAttributes() {
    return Object.keys(ENTRY_OF);
  }

  constructor() {
    super();
    /** @type {Awaited<ReturnType<typeof mountPlayground>> | null} */
    this.app = null;
    /** @type {Promise<void> | null} */
    this.mounting = null;
    this.generation = 0; // bumped by unmount(): a mount still loading then throws its App away
    // what the element is told before its playground is ready (attribute changes after it began
    // loading, setSentence, goToStep, setOptions), applied in order once it is: the last wins
    this.waiting = new Commands();
  }

  connectedCallback() {
    if (this.mounting) return;
    const root = shadowShell(this);
    const params = new URLSearchParams();
    for (const [attr, entry] of Object.entries(ENTRY_OF)) {
      if (this.hasAttribute(attr))
        params.set(entry.name, urlValue(entry, this.getAttribute(attr) ?? ''));
    }
    this.mounting = this.mount(root, params, this.generation).catch(async (e) => {
      const message = e && e.message ? e.message : String(e);
      const code = (e && e.code) || 'boot_failed';
      this.fire('error', { code, message });
      const box = root.getElementById('boot-error');
      if (!box) throw e;
      box.hidden = false;
      box.textContent =
        code === 'unsupported'
          ? message
          : await bootFailedMessage(message, params.toString(), translatorFor);
      throw e;
    });
  }

  /** @param {ShadowRoot} root @param {URLSearchParams} params @param {number} generation */
  async mount(root, params, generation) {
    const unsupported = await unsupportedMessage('element', params.toString(), translatorFor);
    if (unsupported) throw new CoreError('unsupported', unsupported);
    // page-url: an http(s) address (relative: against the host page); anything else is refused
    // with a notice and the site's own address is used
    const given = this.getAttribute('page-url');
    const pageUrl = given ? webAddress(given, document.baseURI) : SITE_URL;
    // no pageUrl: the attribute was given and refused
    const notices = pageUrl
      ? []
      : [{ key: 'page-url', problem: 'notWebAddress', raw: String(given) }];
    const module = await sharedModule();
    if (generation !== this.generation) return; // removed while the module loaded
    const app = await mountPlayground(root, {
      module,
      translatorFor,
      host: this,
      search: params.toString(),
      languages: navigator.languages,
      url: false,
      keyTarget: root,
      pageUrl: pageUrl || SITE_URL,
      notices,
      embedScriptUrl: SCRIPT_URL,
      training: { base: SITE_URL },
      realModels,
      // model-src: the host page chose it, so it downloads at once
      modelSrcAuto: true,
      onEvent: (type, detail) => this.fire(type, detail),
    });
    if (generation !== this.generation) {
      app.destroy(); // removed while it mounted
      return;
    }
    this.app = app;
    this.waiting.applyTo(app);
  }

  // Events come out of the element and bubble, all but `error`: an `error` reaching window would
  // look like a script error to the host page's error handlers.
  /** @param {string} type @param {unknown} detail */
  fire(type, detail) {
    const bubbles = type !== 'error';
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles, composed: bubbles }));
  }

  // Before connectedCallback the attributes are read as they are when it runs; after, a change
  // goes to the playground, or waits for it while it loads.
  /** @param {string} attr @param {string | null} old @param {string | null} value */
  attributeChangedCallback(attr, old, value) {
    if (!this.mounting || old === value) return;
    const entry = ENTRY_OF[attr];
    this.setOptions({ [entry.name]: value == null ? entry.def : urlValue(entry, value) });
  }

  // Removed for good (still out of the document once the current task's microtasks run): free the
  // session and the markup. A move re-inserts the element before that, and keeps its state.
  disconnectedCallback() {
    queueMicrotask(() => {
      if (!this.isConnected) this.unmount();
    });
  }

  unmount() {
    this.generation++;
    this.app?.destroy();
    this.app = null;
    this.mounting = null;
    this.waiting = new Commands();
    this.shadowRoot?.replaceChildren();
  }

  /** @param {unknown} s */
  setSentence(s) {
    if (this.app) this.app.setSentence(s);
    else this.waiting.setSentence(s);
  }
  /** @param {unknown} step */
  goToStep(step) {
    if (this.app) this.app.goToStep(step);
    else this.waiting.goToStep(step);
  }
  /** @param {unknown} o */
  setOptions(o) {
    if (this.app) this.app.setOptions(o);
    else this.waiting.setOptions(o);
  }
  get ready() {
    return this.mounting || Promise.resolve();
  }
  /** What the element shows, as a copy (App.traceSnapshot): {sentence, tokens, config, heads:
   *  [{weights}]}; null before the first trace. Read-only: there is no setter. */
  get trace() {
    return this.app ? this.app.traceSnapshot() : null;
  }
}

if (typeof customElements === 'undefined') {
  // Without custom elements none of this runs: each <attention-playground> of the page says why,
  // as its own text, in its `lang` or the browser's language.
  const explain = () => {
    for (const el of document.querySelectorAll('attention-playground')) {
      const search = el.hasAttribute('lang')
        ? `lang=${encodeURIComponent(el.getAttribute('lang') ?? '')}`
        : '';
      unsupportedMessage('element', search, translatorFor).then((message) => {
        el.setAttribute('role', 'alert');
        el.textContent = message;
      });
    }
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', explain);
  else explain();
} else if (!customElements.get('attention-playground')) {
  customElements.define('attention-playground', AttentionPlayground);
}
