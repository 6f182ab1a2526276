// strings.js: where the page's strings come from. Unbundled, locales/*.json are fetched (i18n.js);
// the bundles (scripts/bundle.mjs) inline them as AP_LOCALES, because file:// cannot fetch.
import { Translator, loadTranslator } from './i18n.js';

/* global AP_LOCALES */
export async function translatorFor(lang) {
  if (typeof AP_LOCALES === 'undefined') return loadTranslator(lang);
  return new Translator(lang, AP_LOCALES[lang], lang === 'en' ? {} : AP_LOCALES.en);
}
