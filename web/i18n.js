// i18n.js: loads the page's strings for one language (its locale file, lang.js localePath) and
// translates keys with {name} params; numbers() groups the digits of counts and limits in the
// language's way. Never writes HTML.
import { localePath, LATER_PART_KEY } from './lang.js';

export class Translator {
  /** `fetchLater`: how to fetch the strings of the `later` part (lang.js), when `strings` names one
   *  (the hosted page); else every string is in `strings`.
   *  @param {string} lang @param {Record<string, string>} strings
   *  @param {(() => Promise<Record<string, string>>) | null} [fetchLater] */
  constructor(lang, strings, fetchLater = null) {
    this.lang = lang;
    this.strings = strings;
    /** @type {Map<string, string[]>} key -> its string split at the {name}s (odd entries) */
    this.parts = new Map();
    /** @type {(() => Promise<Record<string, string>>) | null} */
    this.fetchLater = typeof strings[LATER_PART_KEY] === 'string' ? fetchLater : null;
    /** @type {Promise<void> | null} the `later` part on its way or in (whole()) */
    this.laterLoading = null;
  }

  /** Resolves once every string is here: the `later` part is fetched once (again after a failure);
   *  rejects, naming the file, when it cannot be. Views fetched on demand wait for it. */
  whole() {
    if (!this.fetchLater) return Promise.resolve();
    if (!this.laterLoading)
      this.laterLoading = this.fetchLater().then(
        (more) => {
          this.strings = { ...this.strings, ...more };
          this.fetchLater = null;
        },
        (e) => {
          this.laterLoading = null;
          throw e;
        },
      );
    return this.laterLoading;
  }

  /** Whether a view asked for the `later` part (another language is then made whole before it
   *  is shown). */
  wholeAsked() {
    return this.laterLoading !== null;
  }

  /** t('key', {name: value}) -> string; an unknown key returns the key itself, so it is visible.
   *  A {name} without a param stays as written. Each string is split once (typing translates some
   *  hundred strings per keystroke).
   *  @param {string} key @param {Record<string, unknown>} [params] @returns {string} */
  t(key, params = {}) {
    let parts = this.parts.get(key);
    if (!parts) {
      const s = this.strings[key];
      if (typeof s !== 'string') return key;
      parts = s.split(/\{(\w+)\}/);
      this.parts.set(key, parts);
    }
    if (parts.length === 1) return parts[0];
    let out = parts[0];
    for (let i = 1; i < parts.length; i += 2) {
      const name = parts[i];
      out += (name in params ? String(params[name]) : `{${name}}`) + parts[i + 1];
    }
    return out;
  }

  /** The same params with every number grouped as the language writes it (100000 -> "100,000"). */
  /** @param {Record<string, unknown>} [params] */
  numbers(params = {}) {
    const f = new Intl.NumberFormat(this.lang, { maximumFractionDigits: 20 });
    return Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, typeof v === 'number' ? f.format(v) : v]),
    );
  }

  /** @param {string} key */
  has(key) {
    return typeof this.strings[key] === 'string';
  }

  /** Fill every [data-i18n] element's text and [data-i18n-attr="attr:key;attr:key"] attributes.
   *  @param {ParentNode} root */
  apply(root) {
    // the selectors match elements with the attribute: dataset has the key
    const all = (/** @type {string} */ sel) =>
      /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(sel));
    for (const el of all('[data-i18n]')) el.textContent = this.t(el.dataset.i18n ?? '');
    for (const el of all('[data-i18n-attr]')) {
      for (const pair of (el.dataset.i18nAttr ?? '').split(';')) {
        const [attr, key] = pair.split(':');
        if (attr && key) el.setAttribute(attr.trim(), this.t(key.trim()));
      }
    }
  }
}

/** The JSON at `url`; a failure (offline, a 404) is an Error that names the file. */
/** @param {string} url */
async function fetchJson(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`could not load ${url}: ${e instanceof Error ? e.message : e}`, { cause: e });
  }
  if (!res.ok) throw new Error(`could not load ${url}: ${res.status}`);
  return res.json();
}

// the folder localePath is relative to: this script's (web/ unbundled, dist/site/ in app.js)
const scriptBase = () => new URL('./', import.meta.url).href;

/** The strings of {lang}'s locale file (an object of key -> string), or of its `part`.
 *  @param {string} lang @param {string} [base] @param {string} [part]
 *  @returns {Promise<Record<string, string>>} */
export async function loadStrings(lang, base = scriptBase(), part = '') {
  return fetchJson(new URL(localePath(lang, part), base).href);
}

/** A Translator over {lang}'s locale file alone: every file has every key
 *  (tests/node/locales.test.mjs), so no other language is loaded as a fallback.
 *  @param {string} lang @param {string} [base] */
export async function loadTranslator(lang, base = scriptBase()) {
  const strings = await loadStrings(lang, base);
  return new Translator(lang, strings, () => loadStrings(lang, base, strings[LATER_PART_KEY]));
}
