// state.js: every setting of the page, read from and written to the URL through one declarative
// table (name, type, default, range). Parsing never throws: bad values fall back or are clamped,
// and each fix is reported as a notice. Not the place for DOM or for attention maths.

/** Presets shown as buttons; the first is the default sentence. */
export const PRESETS = Object.freeze([
  '小猫吃鱼，它很开心',
  '我爱你',
  '苹果很好吃',
  "The animal didn't cross the street because it was too tired.",
]);

/** The walkthrough's stages, in the core's pass order; `step` in the URL is 1-based. */
export const STAGES = Object.freeze(['tokens', 'embed', 'project', 'score', 'scale', 'mask', 'softmax', 'mix', 'heads']);

export const LANGS = Object.freeze(['en', 'zh']);

/** Parts an embedding can hide (`hide=controls,panels`): classroom mode. */
export const HIDEABLE = Object.freeze(['header', 'input', 'settings', 'controls', 'arcs', 'share', 'export', 'panels', 'footer', 'train']);

// One line per key. `core` names the field of core.trace's settings that the key feeds.
// Adding a key (for example `model`) is one more line here.
export const TABLE = Object.freeze([
  { name: 's', type: 'text', def: PRESETS[0], maxLength: 2000 },
  { name: 'seed', type: 'seed', def: '42', core: 'seed' },
  // default = the trained model shipped in the core (fixes heads/dmodel/dk), random = seeded weights;
  // custom = a model trained in this page (only exists until the page is left: links fall back)
  { name: 'model', type: 'enum', def: 'default', values: ['default', 'random', 'custom'], core: 'model' },
  { name: 'heads', type: 'int', def: 2, min: 1, max: 8, core: 'heads' },
  { name: 'dmodel', type: 'int', def: 8, min: 2, max: 64, core: 'dModel' },
  { name: 'dk', type: 'int', def: 0, min: 0, max: 64, core: 'dK' },
  { name: 'causal', type: 'bool', def: false, core: 'causal' },
  { name: 'scale', type: 'bool', def: true, core: 'scale' },
  { name: 'temp', type: 'number', def: 1, min: 0.05, max: 20, core: 'temperature' },
  { name: 'tie', type: 'bool', def: false, core: 'tieQK' },
  { name: 'pos', type: 'bool', def: true, core: 'positions' },
  { name: 'max', type: 'int', def: 64, min: 1, max: 512, core: 'maxTokens' },   // the token cap
  { name: 'step', type: 'int', def: 1, min: 1, max: STAGES.length },
  { name: 'head', type: 'int', def: 0, min: 0, max: 7 },
  { name: 'q', type: 'int', def: -1, min: -1, max: 511 },   // -1: the pronoun (它, it) if any, else 0
  { name: 'lang', type: 'enum', def: '', values: LANGS },
  { name: 'hide', type: 'list', def: '', values: HIDEABLE },
  { name: 'parent', type: 'origin', def: '' },   // the iframe parent allowed to talk to the page
]);

const MAX_SEED = 18446744073709551615n;

// Each parser returns {value} or {value, problem: 'malformed' | 'clamped'}.
const PARSERS = {
  text(raw, e) {
    if (raw.length > e.maxLength) return { value: raw.slice(0, e.maxLength), problem: 'clamped' };
    return { value: raw };
  },
  seed(raw, e) {
    if (!/^\d{1,20}$/.test(raw)) return { value: e.def, problem: 'malformed' };
    if (BigInt(raw) > MAX_SEED) return { value: MAX_SEED.toString(), problem: 'clamped' };
    return { value: BigInt(raw).toString() };
  },
  int(raw, e) {
    if (!/^[+-]?\d{1,12}$/.test(raw.trim())) return { value: e.def, problem: 'malformed' };
    const v = Number(raw);
    if (v < e.min) return { value: e.min, problem: 'clamped' };
    if (v > e.max) return { value: e.max, problem: 'clamped' };
    return { value: v };
  },
  number(raw, e) {
    const v = raw.trim() === '' ? NaN : Number(raw);
    if (!Number.isFinite(v)) return { value: e.def, problem: 'malformed' };
    if (v < e.min) return { value: e.min, problem: 'clamped' };
    if (v > e.max) return { value: e.max, problem: 'clamped' };
    return { value: v };
  },
  bool(raw, e) {
    const r = raw.trim().toLowerCase();
    if (['1', 'true', 'on', 'yes'].includes(r)) return { value: true };
    if (['0', 'false', 'off', 'no'].includes(r)) return { value: false };
    return { value: e.def, problem: 'malformed' };
  },
  enum(raw, e) {
    const r = raw.trim().toLowerCase();
    if (e.values.includes(r)) return { value: r };
    return { value: e.def, problem: 'malformed' };
  },
  // comma list of known names, kept in the table's order (so a link has one spelling)
  list(raw, e) {
    const items = raw.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean);
    const value = e.values.filter((v) => items.includes(v)).join(',');
    return items.every((x) => e.values.includes(x)) ? { value } : { value, problem: 'malformed' };
  },
  // an http(s) origin: scheme://host[:port], nothing else
  origin(raw, e) {
    const r = raw.trim().replace(/\/$/, '');
    let u = null;
    try { u = new URL(r); } catch { /* not a URL */ }
    if (u && /^https?:$/.test(u.protocol) && u.origin === r) return { value: r };
    return { value: e.def, problem: 'malformed' };
  },
};

const WRITERS = {
  bool: (v) => (v ? '1' : '0'),
};

/** The table's defaults as a fresh state object. */
export function defaults() {
  return Object.fromEntries(TABLE.map((e) => [e.name, e.def]));
}

/** URL search string -> {state, notices}. notices: [{key, problem, raw, used}]; `raw` comes from
 *  the URL, so it must only ever be shown with textContent. */
export function parse(search) {
  const params = new URLSearchParams(search);
  const state = defaults();
  const notices = [];
  const known = new Set(TABLE.map((e) => e.name));
  for (const key of new Set(params.keys())) {
    if (!known.has(key)) notices.push({ key, problem: 'unknown', raw: params.get(key), used: '' });
  }
  for (const e of TABLE) {
    if (!params.has(e.name)) continue;
    const raw = params.get(e.name);
    const { value, problem } = PARSERS[e.type](raw, e);
    state[e.name] = value;
    if (problem) notices.push({ key: e.name, problem, raw, used: String(value), min: e.min, max: e.max });
  }
  return { state, notices };
}

/** state -> search string (every key, so a link means the same thing if defaults change). */
export function serialize(state) {
  const params = new URLSearchParams();
  for (const e of TABLE) {
    const v = state[e.name];
    if (v === '' || v == null) continue;
    params.set(e.name, (WRITERS[e.type] || String)(v));
  }
  return params.toString();
}

/** Clamp one key to its range (for values coming from controls); returns the clamped value. */
export function clampValue(name, value) {
  const e = TABLE.find((x) => x.name === name);
  if (!e) throw new Error(`unknown state key ${name}`);
  return PARSERS[e.type](String(value), e).value;
}

/** The settings object core.trace expects, from the keys that have a `core` field. */
export function coreSettings(state) {
  return Object.fromEntries(TABLE.filter((e) => e.core).map((e) => [e.core, state[e.name]]));
}

/** The language: the URL's if given, else the browser's first en/zh preference, else en. */
export function pickLang(state, browserLangs) {
  if (LANGS.includes(state.lang)) return state.lang;
  for (const l of browserLangs || []) {
    const base = String(l).toLowerCase().split('-')[0];
    if (LANGS.includes(base)) return base;
  }
  return 'en';
}
