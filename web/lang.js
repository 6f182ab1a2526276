// lang.js: the page's languages, where each one's strings live and how one is picked. Its own
// small file so that the first script of the single file (single-check.js, which runs before
// anything is unpacked) can pick the language of its message without the state table and the
// core; state.js re-exports LANGS and pickLang, and scripts/bundle.mjs reads both facts here.

export const LANGS = Object.freeze(['en', 'zh']);

/** Where {lang}'s strings are, relative to the page's script: web/ unbundled, dist/site/ hosted.
 *  The hosted page's strings come in two parts: `locales/{lang}.json`, fetched with the page, and
 *  the `later` part (`locales/{lang}.later.json`), fetched with the first view that needs it. */
export const localePath = (/** @type {string} */ lang, part = '') =>
  `locales/${lang}${part ? `.${part}` : ''}.json`;

/** The keys of the hosted page's `later` part: the strings of the views whose code is itself
 *  fetched when they are first shown (the stage pictures, the export panel, a real model's views).
 *  The source has one file per language; scripts/bundle.mjs splits it by this rule, and
 *  tests/node/locales.test.mjs checks that no code fetched with the page uses one of these keys. */
export const LATER_KEYS =
  /^(?:panel\.(?:softmax|analogy|plane)|export\.(?!heading$)|lens|npz|real|realHeads|sdemo)\./;

/** The later part's name, and the key by which a first part says that it has one. */
export const LATER_PART = 'later';
export const LATER_PART_KEY = '@later';

/** The language: the URL's if given, else the browser's first en/zh preference, else en. */
/** @param {{lang?: unknown}} state @param {readonly unknown[]} [browserLangs] @returns {string} */
export function pickLang(state, browserLangs) {
  if (typeof state.lang === 'string' && LANGS.includes(state.lang)) return state.lang;
  for (const l of browserLangs || []) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANGS.includes(base)) return base;
  }
  return 'en';
}
