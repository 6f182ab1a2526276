// lang.js: the page's languages, where each one's strings live and how one is picked. Its own
// small file so that the first script of the single file (single-check.js, which runs before
// anything is unpacked) can pick the language of its message without the state table and the
// core; state.js re-exports LANGS and pickLang, and scripts/bundle.mjs reads both facts here.

export const LANGS = Object.freeze(['en', 'zh']);

/** Where {lang}'s strings are, relative to the page's script: web/ unbundled, dist/site/ hosted. */
export const localePath = (lang) => `locales/${lang}.json`;

/** The language: the URL's if given, else the browser's first en/zh preference, else en. */
export function pickLang(state, browserLangs) {
  if (LANGS.includes(state.lang)) return state.lang;
  for (const l of browserLangs || []) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANGS.includes(base)) return base;
  }
  return 'en';
}
