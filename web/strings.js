// strings.js: where the page's strings come from. Unbundled, locales/*.json are fetched (i18n.js).
// The bundles (scripts/bundle.mjs) inline them as AP_LOCALES, because file:// cannot fetch: the
// single file and the element every language, the hosted page only English (its default and every
// language's fallback), fetching another language's locales/{lang}.json when it is first shown.
import { Translator, loadTranslator, loadStrings } from './i18n.js';

/* global AP_LOCALES */
export async function translatorFor(lang) {
  if (typeof AP_LOCALES === 'undefined') return loadTranslator(lang);
  const strings = AP_LOCALES[lang] ?? (await loadStrings(lang));
  return new Translator(lang, strings, lang === 'en' ? {} : AP_LOCALES.en);
}
