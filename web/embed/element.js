// element.js: <attention-playground>, the custom element (the entry of the embed bundle). Each
// element has its own shadow root (host-page CSS cannot reach in, ids never clash), its own copy of
// the page's markup and its own state; the WebAssembly core is shared, since it keeps nothing
// between calls. Attributes mirror the URL keys (`sentence` for s). Needs the bundler's AP_SHELL
// (index.html's markup) and AP_CSS (the page's styles): it does not work unbundled.
import { loadCore } from '../core.js';
import { translatorFor } from '../strings.js';
import { mountPlayground } from '../playground.js';
import { TABLE } from '../state.js';

/* global AP_SHELL, AP_CSS */
const KEYS = TABLE.filter((e) => e.name !== 'parent');
const ATTR_OF = (name) => (name === 's' ? 'sentence' : name);
const ENTRY_OF = Object.fromEntries(KEYS.map((e) => [ATTR_OF(e.name), e]));
// captured while the script runs (document.currentScript is null later)
const SCRIPT_URL = (document.currentScript && document.currentScript.src) || location.href;

// One core and one style sheet for every element on the page, made on first use.
const sharedCore = memo(() => loadCore({ base: new URL('./', SCRIPT_URL).href }));
const sharedSheet = memo(() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(AP_CSS);   // adopted sheets are not inline styles: a strict CSP allows them
  return sheet;
});

function memo(make) {
  let value = null;
  return () => (value ??= make());
}

// attribute value -> URL value (a bare boolean attribute means on)
function urlValue(entry, v) {
  return entry.type === 'bool' && v === '' ? '1' : v;
}

export class AttentionPlayground extends HTMLElement {
  static get observedAttributes() { return Object.keys(ENTRY_OF); }

  constructor() {
    super();
    this.app = null;
    this.mounting = null;
  }

  connectedCallback() {
    if (this.mounting) return;
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [sharedSheet()];
    const shell = document.createElement('div');
    shell.id = 'ap';
    shell.className = 'ap-body';
    shell.innerHTML = AP_SHELL;   // our own static markup (index.html's body), never user text
    root.append(shell);
    this.mounting = this.mount(root).catch((e) => {
      const box = root.getElementById('boot-error');
      box.hidden = false;
      box.textContent = `${box.dataset.prefix || 'The playground could not start:'} ${e && e.message ? e.message : e}`;
      throw e;
    });
  }

  async mount(root) {
    const params = new URLSearchParams();
    for (const [attr, entry] of Object.entries(ENTRY_OF)) {
      if (this.hasAttribute(attr)) params.set(entry.name, urlValue(entry, this.getAttribute(attr)));
    }
    const pageUrl = this.getAttribute('page-url') || new URL('../', SCRIPT_URL).href;
    this.app = await mountPlayground(root, {
      core: await sharedCore(), translatorFor, host: this, search: params.toString(),
      languages: navigator.languages, url: false, keyTarget: root,
      pageUrl, embedScriptUrl: SCRIPT_URL,
      onEvent: (type, detail) => this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true })),
    });
  }

  attributeChangedCallback(attr, old, value) {
    if (!this.app || old === value) return;
    const entry = ENTRY_OF[attr];
    this.app.setOptions({ [entry.name]: value == null ? entry.def : urlValue(entry, value) });
  }

  disconnectedCallback() {
    // kept alive: moving an element in the DOM must not lose its state
  }

  setSentence(s) { this.app && this.app.setSentence(s); }
  goToStep(step) { this.app && this.app.goToStep(step); }
  setOptions(o) { this.app && this.app.setOptions(o); }
  get ready() { return this.mounting || Promise.resolve(); }
}

if (!customElements.get('attention-playground')) customElements.define('attention-playground', AttentionPlayground);
