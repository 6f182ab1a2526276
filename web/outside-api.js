// outside-api.js: what an embedding page passes in (the element's setOptions and attributes, the
// npm mountPlayground's state, the iframe's messages), read as URL keys through state.js's table.
// It returns the changes; the wiring (playground.js) applies them. Not the place for the URL
// rules themselves (state.js) or for the iframe protocol (embed/frame.js).
import { parse, TABLE, urlKey, isUrlKey } from './state.js';

/** Outside options ({sentence|s, seed, heads, ...}, booleans as true or false) -> URL search
 *  params, and `unset`: the keys given as null whose default is "unset" (predict), as null.
 *  Names that are not keys of the table are left out (however many there are).
 *  @param {object} options */
export function optionsParams(options) {
  const params = new URLSearchParams();
  /** @type {Record<string, null>} */
  const unset = {};
  for (const [k, v] of /** @type {[string, unknown][]} */ (Object.entries(options))) {
    const key = urlKey(k);
    if (!isUrlKey(key)) continue;
    if (v === null && TABLE.some((e) => e.name === k && e.def === null)) unset[k] = null;
    if (v == null) continue;
    // a text key is read up to its maxLength: one more character says it was longer (clamped)
    const max = TABLE.find((e) => e.name === key)?.maxLength;
    const value = typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
    params.set(key, max ? value.slice(0, max + 1) : value);
  }
  return { params, unset };
}

/** setOptions' argument -> {changes: state keys and values (not step, lang or parent), step: the
 *  1-based step or null, lang: or null}; null when it is not an object. Values go through the
 *  table's parsers, so bad ones are ignored or clamped. null puts a key whose default is "unset"
 *  (predict: on in the page, off in embeds) back to it.
 *  @param {unknown} options */
export function readOptions(options) {
  if (!options || typeof options !== 'object') return null;
  const { params, unset } = optionsParams(options);
  const { state, notices } = parse(params.toString());
  const bad = new Set(notices.filter((n) => n.problem !== 'clamped').map((n) => n.key));
  const given = TABLE.filter((e) => params.has(e.name) && !bad.has(e.name)).map((e) => e.name);
  const changes = {
    ...unset,
    ...Object.fromEntries(
      given.filter((k) => !['step', 'lang', 'parent'].includes(k)).map((k) => [k, state[k]]),
    ),
  };
  return {
    changes,
    step: given.includes('step') ? state.step : null,
    lang: given.includes('lang') ? state.lang : null,
  };
}

/** An address given from outside (the element's page-url) -> its absolute form, resolved against
 *  `base` (the host page) when relative; null unless it is http: or https:. Links are made from
 *  it, and a javascript: or data: address would run script in the host page when clicked.
 *  @param {unknown} raw @param {string} [base] */
export function webAddress(raw, base) {
  let u;
  try {
    u = new URL(String(raw).trim(), base);
  } catch {
    return null;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
}

/** goToStep's argument -> the 1-based step (clamped to the stages), or null when malformed.
 *  @param {unknown} step */
export function readStep(step) {
  const { state, notices } = parse(`step=${encodeURIComponent(String(step))}`);
  return notices.some((n) => n.problem === 'malformed') ? null : state.step;
}

// The address the share and licence links are made from: an http(s) one, or a file: one when this
// page is itself a file (the single file opened from disk); anything else (javascript:, data:)
// would run script in the page that shows the link, and this page's own address is used instead.
/** @param {string | undefined} pageUrl */
export function linkBase(pageUrl) {
  const own = location.href.split(/[?#]/)[0];
  if (!pageUrl) return own;
  const web = webAddress(pageUrl, own);
  if (web) return web;
  let u;
  try {
    u = new URL(pageUrl, own);
  } catch {
    return own;
  }
  return u.protocol === 'file:' && location.protocol === 'file:' ? u.href : own;
}
