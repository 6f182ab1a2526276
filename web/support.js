// support.js: what the playground needs from the browser, per way of running it, and the message a
// browser lacking something shows instead of a blank widget. The one home of the list: the
// "Browser support" table of docs/embedding.md is checked against it (tests/node/support.test.mjs).
// Feature tests only, no polyfills. Written for old browsers too: it must run where the rest cannot.
import { pickLang } from './lang.js';

/** A language's Translator (strings.js translatorFor); only its t() is used here.
 *  @typedef {(lang: string) => Promise<{t: (key: string, params?: Record<string, unknown>) => string}>} TranslatorFor */

// The smallest modules that use an instruction of each WebAssembly extension the core is built
// with (-msimd128, -fwasm-exceptions): a browser without it fails to validate them.
const SIMD_MODULE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11,
];
const EH_MODULE = [
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 8, 1, 6, 0, 6, 64, 25, 11, 11,
];
const hasWasm = () => typeof WebAssembly === 'object' && typeof WebAssembly.validate === 'function';
const validates = (/** @type {number[]} */ bytes) =>
  hasWasm() && WebAssembly.validate(new Uint8Array(bytes));

/** The ways the playground runs: the hosted page (and the iframe), the single file, the custom
 *  element's script, and the npm package's mountPlayground and element modules. */
export const KINDS = Object.freeze(['page', 'single', 'element', 'module']);

/**
 * Every browser feature the playground needs: id (its locale string is support.feature.<id>),
 * the first versions of Chrome/Edge, Firefox and Safari that have it, the kinds that need it, and
 * its test.
 * @type {readonly {id: string, min: Browsers, kinds: readonly string[], test: () => boolean}[]}
 */
export const FEATURES = Object.freeze([
  {
    id: 'wasm',
    min: { chrome: 57, firefox: 52, safari: 11 },
    kinds: KINDS,
    test: hasWasm,
  },
  {
    id: 'wasm_simd',
    min: { chrome: 91, firefox: 89, safari: 16.4 },
    kinds: KINDS,
    test: () => validates(SIMD_MODULE),
  },
  {
    id: 'wasm_exceptions',
    min: { chrome: 95, firefox: 100, safari: 15.2 },
    kinds: KINDS,
    test: () => validates(EH_MODULE),
  },
  {
    // core.js refuses broken text with it before the text reaches the core
    id: 'well_formed',
    min: { chrome: 111, firefox: 119, safari: 16.4 },
    kinds: KINDS,
    test: () => typeof ''.isWellFormed === 'function',
  },
  {
    // the single file and the element carry their code and WebAssembly gzipped
    id: 'decompression',
    min: { chrome: 80, firefox: 113, safari: 16.4 },
    kinds: ['single', 'element'],
    test: () => typeof DecompressionStream === 'function',
  },
  {
    id: 'shadow_dom',
    min: { chrome: 73, firefox: 101, safari: 16.4 },
    kinds: ['element', 'module'],
    test: () =>
      typeof customElements === 'object' &&
      typeof ShadowRoot === 'function' &&
      'adoptedStyleSheets' in ShadowRoot.prototype &&
      typeof CSSStyleSheet === 'function' &&
      'replaceSync' in CSSStyleSheet.prototype,
  },
]);

/** A first version of Chrome/Edge, Firefox and Safari.
 *  @typedef {{chrome: number, firefox: number, safari: number}} Browsers */

/** The ids of the features `kind` needs that this browser lacks ([] = it can run).
 *  @param {string} kind */
export function missingFeatures(kind) {
  return FEATURES.filter((f) => f.kinds.includes(kind) && !f.test()).map((f) => f.id);
}

/** The first version of each browser that has everything `kind` needs.
 *  @param {string} kind @returns {Browsers} */
export function minimumVersions(kind) {
  const min = { chrome: 0, firefox: 0, safari: 0 };
  for (const f of FEATURES) {
    if (!f.kinds.includes(kind)) continue;
    for (const b of /** @type {(keyof Browsers)[]} */ (Object.keys(min)))
      min[b] = Math.max(min[b], f.min[b]);
  }
  return min;
}

/** The message for a browser that lacks what `kind` needs, in the language of `search` (the URL
 *  keys; `lang`) or of the browser; '' when nothing is missing.
 *  @param {string} kind @param {string} search @param {TranslatorFor} translatorFor
 *  @param {readonly string[]} [languages] */
export async function unsupportedMessage(kind, search, translatorFor, languages) {
  const missing = missingFeatures(kind);
  if (!missing.length) return '';
  const lang = new URLSearchParams(search).get('lang');
  const t = await translatorFor(pickLang({ lang }, languages || navigator.languages));
  return t.t('support.missing', {
    features: missing.map((id) => t.t(`support.feature.${id}`)).join(t.t('support.separator')),
    ...minimumVersions(kind),
  });
}

/** The words for a playground that failed to start for another reason (boot.failed), in the
 *  language of `search` or of the browser; the bare message if even the strings cannot load.
 *  @param {string} message @param {string} search @param {TranslatorFor} translatorFor
 *  @param {readonly string[]} [languages] */
export async function bootFailedMessage(message, search, translatorFor, languages) {
  const lang = new URLSearchParams(search).get('lang');
  try {
    const t = await translatorFor(pickLang({ lang }, languages || navigator.languages));
    return t.t('boot.failed', { message });
  } catch {
    return message;
  }
}
