// state.js: every setting of the page, read from and written to the URL through one declarative
// table (name, type, default, range). Parsing never throws: bad values fall back or are clamped,
// and each fix is reported as a notice. Not the place for DOM or for attention maths.
import { DEFAULT_SETTINGS as D, MODELS, MAX_SEED, LIMITS } from './core.js';
import { LANGS, pickLang } from './lang.js';

/** Presets shown as buttons; the first is the default sentence. */
export const PRESETS = Object.freeze([
  '小猫吃鱼，它很开心',
  '我爱你',
  '苹果很好吃',
  "The animal didn't cross the street because it was too tired.",
]);

/** The sentence of the preset "The article's NumPy example": as many tokens as the article's
 *  seq_len (a test checks it against the core's numpyArticle().n). */
export const NUMPY_SENTENCE = '小猫爱吃鱼';

/** The preset "The article's NumPy example" as URL keys: the seed article's program (its seed and
 *  sizes from the core: core.numpyArticle()) on NUMPY_SENTENCE, with nothing the program does not
 *  do (one head, no mask, no positions, scaling on, temperature 1, W_K not tied). */
/** @param {{seed: string, d_model: number, d_k: number}} article */
export function numpyPreset(article) {
  return {
    s: NUMPY_SENTENCE,
    model: 'numpy',
    seed: article.seed,
    dmodel: article.d_model,
    dk: article.d_k,
    heads: 1,
    causal: false,
    scale: true,
    temp: 1,
    tie: false,
    pos: false,
  };
}

/** Minimal pairs: one changed word makes the pronoun mean a different noun (the model note shows
 *  the first one the model's heads get wrong). Not a test set: the honest evaluation is the model's. */
export const LIMIT_PAIRS = Object.freeze([
  {
    lang: 'en',
    pronoun: 'it',
    a: "The trophy didn't fit in the suitcase because it was too big.",
    b: "The trophy didn't fit in the suitcase because it was too small.",
  },
  {
    lang: 'en',
    pronoun: 'it',
    a: "The animal didn't cross the street because it was too tired.",
    b: "The animal didn't cross the street because it was too wide.",
  },
  {
    lang: 'zh',
    pronoun: '它',
    a: '奖杯放不进箱子里，因为它太大了。',
    b: '奖杯放不进箱子里，因为它太小了。',
  },
  {
    lang: 'zh',
    pronoun: '它',
    a: '小鸟飞不过那座山，因为它太累了。',
    b: '小鸟飞不过那座山，因为它太高了。',
  },
]);

/** Sentences of ours whose pronoun people read one way: the guess in the softmax stage may say
 *  which reading people give (predict.js). A sentence matches with or without its final stop. */
export const READINGS = Object.freeze([
  { s: PRESETS[0], pronoun: '它', word: '小猫' },
  { s: PRESETS[3], pronoun: 'it', word: 'animal' },
  { s: LIMIT_PAIRS[0].a, pronoun: 'it', word: 'trophy' },
  { s: LIMIT_PAIRS[0].b, pronoun: 'it', word: 'suitcase' },
  { s: LIMIT_PAIRS[1].b, pronoun: 'it', word: 'street' },
  { s: LIMIT_PAIRS[2].a, pronoun: '它', word: '奖杯' },
  { s: LIMIT_PAIRS[2].b, pronoun: '它', word: '箱子' },
  { s: LIMIT_PAIRS[3].a, pronoun: '它', word: '小鸟' },
  { s: LIMIT_PAIRS[3].b, pronoun: '它', word: '山' },
  {
    s: 'The city council refused the demonstrators a permit because they feared violence.',
    pronoun: 'they',
    word: 'council',
  },
  {
    s: 'The city council refused the demonstrators a permit because they advocated violence.',
    pronoun: 'they',
    word: 'demonstrators',
  },
  { s: '老鼠躲着猫，因为它害怕。', pronoun: '它', word: '老鼠' },
]);

/** The reading people give for token q of `text` (tokens: the trace's), as {col} (the key that
 *  names the antecedent), or null when the sentence, its pronoun or the word is not ours. */
/** @param {string} text @param {readonly string[]} tokens @param {number} q */
export function readingOf(text, tokens, q) {
  const bare = (/** @type {string} */ x) => x.trim().replace(/[.。!！]+$/u, '');
  const low = (/** @type {unknown} */ x) => String(x).toLowerCase();
  const r = READINGS.find((x) => bare(x.s) === bare(text));
  if (!r || low(tokens[q]) !== r.pronoun) return null;
  const col = tokens.findIndex((x) => low(x) === r.word);
  return col < 0 ? null : { col };
}

/** The walkthrough's stages, in the core's pass order; `step` in the URL is 1-based. */
export const STAGES = Object.freeze([
  'tokens',
  'embeddings',
  'project',
  'score',
  'scale',
  'mask',
  'softmax',
  'mix',
  'heads',
]);

export { LANGS, pickLang }; // lang.js

/** Colour themes: auto follows the system's (prefers-color-scheme). */
export const THEMES = Object.freeze(['auto', 'light', 'dark']);

/** Parts an embedding can hide (`hide=controls,panels`, classroom mode) -> the ids they hide. */
export const HIDE_PARTS = Object.freeze({
  header: ['top'],
  input: ['input'],
  settings: ['whatif'],
  controls: ['stage-nav-wrap', 'toolbar'],
  arcs: ['arcs'],
  panels: ['panels'],
  share: ['share'],
  export: ['export'],
  footer: ['foot'],
  train: ['train'],
});
export const HIDEABLE = Object.freeze(Object.keys(HIDE_PARTS));

/** The most heads the page's controls offer: one colour each (style.css .head-0 … .head-7). */
const PAGE_HEADS = Math.min(8, LIMITS.max_heads);

// One line per key. `core` names the field of core.trace's settings that the key feeds; those
// keys start from the core's defaults (D). The ranges here are the page's (its sliders), inside
// the core's limits.
// Adding a key (for example `model`) is one more line here. `attr`: the key's name outside the
// URL (the element's attribute, setOptions, the element snippet), when it is not `name`.
/**
 * One key of the table. Each type's parser reads its own fields: text and address maxLength,
 * int and number min and max, enum and list values.
 * @typedef {object} Entry
 * @property {string} name
 * @property {'text' | 'seed' | 'enum' | 'int' | 'number' | 'bool' | 'list' | 'origin' | 'address'} type
 * @property {string | number | boolean | null} def
 * @property {string} [attr]
 * @property {string} [core]
 * @property {number} [min]
 * @property {number} [max]
 * @property {number} [maxLength]
 * @property {readonly string[]} [values]
 */
/** @typedef {Entry & {maxLength: number}} TextEntry */
/** @typedef {Entry & {min: number, max: number}} RangeEntry */
/** @typedef {Entry & {values: readonly string[]}} ValuesEntry */
/** What a parser gives: the value, and 'malformed' or 'clamped' when the raw one was not used.
 *  @typedef {{value: unknown, problem?: string}} Parsed */
/** A fix parse() reports; `raw` comes from the URL.
 *  @typedef {{key: string, problem: string, raw?: string, used?: string, count?: number,
 *             min?: number, max?: number}} Notice */

/** @type {readonly Entry[]} */
export const TABLE = Object.freeze([
  { name: 's', attr: 'sentence', type: 'text', def: PRESETS[0], maxLength: 2000 },
  { name: 'seed', type: 'seed', def: D.seed, core: 'seed' },
  // default = the trained model shipped in the core (fixes heads/dmodel/dk), random = seeded weights,
  // numpy = the seed article's NumPy program (fixes one head, no positions);
  // custom = a model trained in this page (only exists until the page is left: links fall back)
  { name: 'model', type: 'enum', def: D.model, values: MODELS, core: 'model' },
  { name: 'heads', type: 'int', def: D.heads, min: 1, max: PAGE_HEADS, core: 'heads' },
  { name: 'dmodel', type: 'int', def: D.d_model, min: 2, max: 64, core: 'd_model' },
  { name: 'dk', type: 'int', def: D.d_k, min: 0, max: 64, core: 'd_k' },
  { name: 'causal', type: 'bool', def: D.causal, core: 'causal' },
  { name: 'scale', type: 'bool', def: D.scale, core: 'scale' },
  { name: 'temp', type: 'number', def: D.temperature, min: 0.05, max: 20, core: 'temperature' },
  { name: 'tie', type: 'bool', def: D.tie_qk, core: 'tie_qk' },
  { name: 'pos', type: 'bool', def: D.positions, core: 'positions' },
  {
    name: 'max',
    type: 'int',
    def: D.max_tokens,
    min: 1,
    max: LIMITS.max_tokens,
    core: 'max_tokens',
  }, // the token cap
  { name: 'step', type: 'int', def: 1, min: 1, max: STAGES.length },
  // the head the stages show, 0-based, up to the core's widest, a real model's included (a trace
  // with fewer clamps it)
  {
    name: 'head',
    type: 'int',
    def: 0,
    min: 0,
    max: Math.max(LIMITS.max_heads, LIMITS.max_real_heads) - 1,
  },
  // the layer the stages show, 0-based; -1: the last (a trained model's; random weights have one)
  {
    name: 'layer',
    type: 'int',
    def: -1,
    min: -1,
    max: Math.max(LIMITS.max_layers, LIMITS.max_real_layers) - 1,
  },
  { name: 'q', type: 'int', def: -1, min: -1, max: LIMITS.max_tokens - 1 }, // -1: the pronoun (它, it) if any, else 0
  // guess the followed token's top key before its weights show; null: on in the page, off in embeds
  { name: 'predict', type: 'bool', def: null },
  { name: 'lang', type: 'enum', def: '', values: LANGS },
  // '' and auto: the system's colour scheme; light or dark: that one (playground.js applyTheme)
  { name: 'theme', type: 'enum', def: '', values: THEMES },
  { name: 'hide', type: 'list', def: '', values: HIDEABLE },
  { name: 'parent', type: 'origin', def: '' }, // the iframe parent allowed to talk to the page
  // a converted real model (.apm) to download: an http(s) address, relative to the host page.
  // The element and an embedded page load it at once; a link opened as a page offers a button
  // (playground.js followModelSrc, docs/embedding.md)
  { name: 'model-src', type: 'address', def: '', maxLength: 2000 },
]);

const KNOWN = new Set(TABLE.map((e) => e.name));
const TEXT_ENTRY = /** @type {TextEntry} */ (TABLE.find((e) => e.name === 's'));
/** The most characters of the sentence a link carries (read or written). */
export const LINK_TEXT_CHARS = TEXT_ENTRY.maxLength;
// how much of a name or value from the URL a notice quotes
const NOTICE_CHARS = 100;

// Each parser returns {value} or {value, problem: 'malformed' | 'clamped'}.
const PARSERS = {
  /** @param {string} raw @param {TextEntry} e @returns {Parsed} */
  text(raw, e) {
    if (raw.length > e.maxLength) return { value: raw.slice(0, e.maxLength), problem: 'clamped' };
    return { value: raw };
  },
  /** @param {string} raw @param {Entry} e @returns {Parsed} */
  seed(raw, e) {
    if (!/^\d{1,20}$/.test(raw)) return { value: e.def, problem: 'malformed' };
    if (BigInt(raw) > MAX_SEED) return { value: MAX_SEED.toString(), problem: 'clamped' };
    return { value: BigInt(raw).toString() };
  },
  /** @param {string} raw @param {RangeEntry} e @returns {Parsed} */
  int(raw, e) {
    if (!/^[+-]?\d{1,12}$/.test(raw.trim())) return { value: e.def, problem: 'malformed' };
    const v = Number(raw);
    if (v < e.min) return { value: e.min, problem: 'clamped' };
    if (v > e.max) return { value: e.max, problem: 'clamped' };
    return { value: v };
  },
  /** @param {string} raw @param {RangeEntry} e @returns {Parsed} */
  number(raw, e) {
    const v = raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(v)) return { value: e.def, problem: 'malformed' };
    if (v < e.min) return { value: e.min, problem: 'clamped' };
    if (v > e.max) return { value: e.max, problem: 'clamped' };
    return { value: v };
  },
  /** @param {string} raw @param {Entry} e @returns {Parsed} */
  bool(raw, e) {
    const r = raw.trim().toLowerCase();
    if (['1', 'true', 'on', 'yes'].includes(r)) return { value: true };
    if (['0', 'false', 'off', 'no'].includes(r)) return { value: false };
    return { value: e.def, problem: 'malformed' };
  },
  /** @param {string} raw @param {ValuesEntry} e @returns {Parsed} */
  enum(raw, e) {
    const r = raw.trim().toLowerCase();
    if (e.values.includes(r)) return { value: r };
    return { value: e.def, problem: 'malformed' };
  },
  // comma list of known names, kept in the table's order (so a link has one spelling)
  /** @param {string} raw @param {ValuesEntry} e @returns {Parsed} */
  list(raw, e) {
    const items = raw
      .split(',')
      .map((x) => x.trim().toLowerCase())
      .filter(Boolean);
    const value = e.values.filter((v) => items.includes(v)).join(',');
    return items.every((x) => e.values.includes(x)) ? { value } : { value, problem: 'malformed' };
  },
  // an address, kept as written (the host page it is relative to is the page's to know: an
  // address that is not http(s) there is refused with a notice, outside-api.js webAddress);
  // one longer than maxLength would be a different address, so it is dropped
  /** @param {string} raw @param {TextEntry} e @returns {Parsed} */
  address(raw, e) {
    const r = raw.trim();
    if (r.length > e.maxLength) return { value: e.def, problem: 'malformed' };
    return { value: r };
  },
  // an http(s) origin: scheme://host[:port], nothing else
  /** @param {string} raw @param {Entry} e @returns {Parsed} */
  origin(raw, e) {
    const r = raw.trim().replace(/\/$/, '');
    let u = null;
    try {
      u = new URL(r);
    } catch {
      /* not a URL */
    }
    if (u && /^https?:$/.test(u.protocol) && u.origin === r) return { value: r };
    return { value: e.def, problem: 'malformed' };
  },
};

/** @type {Record<string, (v: unknown) => string>} */
const WRITERS = {
  bool: (v) => (v ? '1' : '0'),
};

/** The parser of an entry's type (the table gives each entry the fields its parser reads).
 *  @param {Entry} e @returns {(raw: string, e: Entry) => Parsed} */
const parserOf = (e) => /** @type {(raw: string, e: Entry) => Parsed} */ (PARSERS[e.type]);

/** A key's name outside the URL (the element's attributes, setOptions, the element snippet). */
/** @param {Entry} entry */
export function outsideName(entry) {
  return entry.attr || entry.name;
}

/** A name from outside ('sentence', or a URL key itself) -> the URL key. */
/** @param {string} name */
export function urlKey(name) {
  return TABLE.find((e) => e.attr === name)?.name ?? name;
}

/** Whether a name is one of the table's URL keys. */
/** @param {string} name */
export function isUrlKey(name) {
  return KNOWN.has(name);
}

/** The table's defaults as a fresh state object.
 *  @returns {Record<string, unknown>} */
export function defaults() {
  return Object.fromEntries(TABLE.map((e) => [e.name, e.def]));
}

/** URL search string -> {state, notices}. notices: [{key, problem, raw, used}]; `raw` comes from
 *  the URL, so it must only ever be shown with textContent.
 *  @param {string} search
 *  @returns {{state: Record<string, any>, notices: Notice[]}} */
export function parse(search) {
  const params = new URLSearchParams(search);
  const state = defaults();
  /** @type {Notice[]} */
  const notices = [];
  // one pass over the pairs (a link may carry any number of them): a known key's first value,
  // the unknown keys once each
  /** @type {Map<string, string>} */
  const given = new Map();
  /** @type {Map<string, string>} */
  const unknown = new Map();
  for (const [key, value] of params) {
    const into = KNOWN.has(key) ? given : unknown;
    if (!into.has(key)) into.set(key, value);
  }
  // one notice for the unknown keys, however many: it names the first
  if (unknown.size) {
    const [key, raw] = /** @type {[string, string]} */ (unknown.entries().next().value);
    notices.push({
      key: key.slice(0, NOTICE_CHARS),
      problem: unknown.size === 1 ? 'unknown' : 'unknownMany',
      raw: raw.slice(0, NOTICE_CHARS),
      used: '',
      count: unknown.size,
    });
  }
  for (const e of TABLE) {
    const raw = given.get(e.name);
    if (raw === undefined) continue;
    const { value, problem } = parserOf(e)(raw, e);
    state[e.name] = value;
    if (problem)
      notices.push({ key: e.name, problem, raw, used: String(value), min: e.min, max: e.max });
  }
  return { state, notices };
}

/** state -> search string (every key, so a link means the same thing if defaults change). */
/** @param {Record<string, unknown>} state */
export function serialize(state) {
  const params = new URLSearchParams();
  for (const e of TABLE) {
    const v = state[e.name];
    if (v === '' || v == null) continue;
    params.set(e.name, (WRITERS[e.type] || String)(v));
  }
  return params.toString();
}

/** The state as a link carries it: the sentence cut to as many characters as a link is read
 *  with (the `s` key's maxLength, never inside a surrogate pair), the rest as serialize writes it.
 *  -> {search, shortened: whether the sentence was cut}. The text beyond the cut stays in the
 *  page; an address of megabytes would be refused by servers (HTTP 414) or dropped by browsers. */
/** @param {Record<string, unknown>} state */
export function linkSearch(state) {
  const max = LINK_TEXT_CHARS;
  const s = state.s;
  if (typeof s !== 'string' || s.length <= max)
    return { search: serialize(state), shortened: false };
  const end = /[\uD800-\uDBFF]/.test(s[max - 1]) ? max - 1 : max;
  return { search: serialize({ ...state, s: s.slice(0, end) }), shortened: true };
}

/** Clamp one key to its range (for values coming from controls); returns the clamped value. */
/** @param {string} name @param {unknown} value */
export function clampValue(name, value) {
  const e = TABLE.find((x) => x.name === name);
  if (!e) throw new Error(`unknown state key ${name}`);
  return parserOf(e)(String(value), e).value;
}

/** The settings object core.trace expects, from the keys that have a `core` field. */
/** @param {Record<string, unknown>} state */
export function coreSettings(state) {
  return Object.fromEntries(TABLE.flatMap((e) => (e.core ? [[e.core, state[e.name]]] : [])));
}

/** The focus token for q = -1 (a new text nobody picked a token of): the first third-person
 *  pronoun (它 他 她 它们 他们 it he she they him her them his its their, as the core's tokenizer marks them),
 *  else token 0. details: the trace's token_details. */
/** @param {readonly {pronoun?: boolean}[]} details */
export function defaultFocus(details) {
  return Math.max(
    0,
    details.findIndex((x) => x.pronoun),
  );
}
