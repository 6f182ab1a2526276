// strings.js: where the page's strings come from. The single file, the custom element and the
// npm package's modules have every language inline (AP_LOCALES, scripts/bundle.mjs), because
// file:// cannot fetch and an element is one script. The hosted page and the unbundled page
// carry none: each language's locale file (lang.js localePath) is fetched when it is shown, so a
// visitor downloads one language. Not a cache: the browser's HTTP cache is one.
import { Translator, loadTranslator } from './i18n.js';
import { LANGS } from './lang.js';

/* global AP_LOCALES */
const inlined = typeof AP_LOCALES === 'undefined' ? null : AP_LOCALES;

/** A Translator for `lang`; rejects when its strings cannot be fetched (offline, a 404).
 *  @param {string} lang @returns {Promise<Translator>} */
export async function translatorFor(lang) {
  return inlined ? new Translator(lang, inlined[lang]) : loadTranslator(lang);
}

/** The Translator a page starts with: `lang`'s, else that of the first other language whose
 *  strings load. With none, an Error that says which files could not be loaded: there are no
 *  strings to say it in a language.
 *  @param {string} lang @returns {Promise<Translator>} */
export async function startingTranslator(lang) {
  const failed = [];
  for (const l of [lang, ...LANGS.filter((x) => x !== lang)]) {
    try {
      return await translatorFor(l);
    } catch (e) {
      failed.push(e instanceof Error ? e.message : String(e));
    }
  }
  throw new Error(`the page's strings could not be loaded (${failed.join('; ')})`);
}
