// i18n.js: loads the page's strings for one language (locales/{lang}.json, English as the fallback
// for a missing key) and translates keys with {name} params; numbers() groups the digits of
// counts and limits in the language's way. Never writes HTML.

export class Translator {
  constructor(lang, strings, fallback = {}) {
    this.lang = lang;
    this.strings = strings;
    this.fallback = fallback;
    /** @type {Map<string, string[]>} key -> its string split at the {name}s (odd entries) */
    this.parts = new Map();
  }

  /** t('key', {name: value}) -> string; an unknown key returns the key itself, so it is visible.
   *  A {name} without a param stays as written. Each string is split once (typing translates some
   *  hundred strings per keystroke). */
  t(key, params = {}) {
    let parts = this.parts.get(key);
    if (!parts) {
      const s = this.strings[key] ?? this.fallback[key];
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
  numbers(params = {}) {
    const f = new Intl.NumberFormat(this.lang, { maximumFractionDigits: 20 });
    return Object.fromEntries(
      Object.entries(params).map(([k, v]) => [k, typeof v === 'number' ? f.format(v) : v]),
    );
  }

  has(key) {
    return typeof (this.strings[key] ?? this.fallback[key]) === 'string';
  }

  /** Fill every [data-i18n] element's text and [data-i18n-attr="attr:key;attr:key"] attributes. */
  apply(root) {
    for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = this.t(el.dataset.i18n);
    for (const el of root.querySelectorAll('[data-i18n-attr]')) {
      for (const pair of el.dataset.i18nAttr.split(';')) {
        const [attr, key] = pair.split(':');
        if (attr && key) el.setAttribute(attr.trim(), this.t(key.trim()));
      }
    }
  }
}

async function fetchJson(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`could not load ${url}: ${res.status}`);
  return res.json();
}

const localesBase = () => new URL('./locales/', import.meta.url).href;

/** The strings of {lang}.json (an object of key -> string). */
export async function loadStrings(lang, base = localesBase()) {
  return fetchJson(`${base}${lang}.json`);
}

/** Loads {lang}.json, with English as the fallback for missing keys. */
export async function loadTranslator(lang, base = localesBase()) {
  const [strings, fallback] = await Promise.all([
    loadStrings(lang, base),
    lang === 'en' ? Promise.resolve({}) : loadStrings('en', base),
  ]);
  return new Translator(lang, strings, fallback);
}
