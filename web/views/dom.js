// dom.js: the DOM helper every view and panel uses: element creation (HTML, SVG, MathML), writes
// that touch a node only when its text or attribute changes, and the says() sentences. No numbers.

export const SVG_NS = 'http://www.w3.org/2000/svg';
export const MATH_NS = 'http://www.w3.org/1998/Math/MathML';

/** @typedef {import('./view-types.js').Translate} Translate */
/** A sentence with its data-says: {text, data: {key, ...the raw values it names}}.
 *  @typedef {{text: string, data: Record<string, unknown>}} Says */

/**
 * Creates an element: el(tag, {class, text, dataset, on: {click: fn}, ...attributes}, children).
 * Every other key is an attribute: null, undefined and false leave it out, true writes it empty
 * (boolean attributes), anything else is written as a string. Children may be nodes or strings;
 * null and false are skipped.
 * @param {string} tag
 * @param {Record<string, any>} [opts]
 * @param {any} [children] a node, a string, or an array of them
 * @param {string | null} [ns] a namespace (SVG_NS, MATH_NS), or null for HTML
 * @returns {any}
 */
export function el(tag, opts = {}, children = [], ns = null) {
  const node = /** @type {HTMLElement} */ (
    ns ? document.createElementNS(ns, tag) : document.createElement(tag)
  );
  for (const k in opts) {
    // for-in, not Object.entries: no arrays made per element
    const v = opts[k];
    if (v == null || v === false) continue;
    if (k === 'class') node.setAttribute('class', v);
    else if (k === 'text') node.textContent = String(v);
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'on') for (const ev in v) node.addEventListener(ev, v[ev]);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of Array.isArray(children) ? children : [children]) {
    if (c == null || c === false) continue;
    node.append(c);
  }
  return node;
}

/** An SVG element; attrs as for el.
 * @param {string} tag @param {Record<string, any>} [attrs] @param {any} [children] */
export const svg = (tag, attrs = {}, children = []) => el(tag, attrs, children, SVG_NS);
/** A MathML element; attrs as for el.
 * @param {string} tag @param {Record<string, any>} [attrs] @param {any} [children] */
export const mathml = (tag, attrs = {}, children = []) => el(tag, attrs, children, MATH_NS);

/** Sets a node's text only when it differs from what was last set here (see writeOnce).
 * @param {Element} node @param {string | number | null | undefined} text */
export function setText(node, text) {
  writeOnce(node, 'text', text);
}

/**
 * A sentence the page says about numbers: its text (locale key + vars) and, for data-says, the
 * key and the raw values it names (token indices, unformatted numbers), so a test can check the
 * sentence against the trace without parsing prose.
 * @param {Translate} t
 * @param {string} key
 * @param {Record<string, unknown>} [vars]
 * @param {Record<string, unknown>} [data]
 * @returns {Says}
 */
export function says(t, key, vars, data = {}) {
  return { text: t(key, vars), data: { key, ...data } };
}

/** Writes a says() sentence into a node: its text and its data-says.
 * @param {Element} node @param {Says} s */
export function setSays(node, s) {
  setText(node, s.text);
  writeOnce(node, 'data-says', JSON.stringify(s.data));
}

/**
 * Writes a node's text (what = 'text') or an attribute only when it differs from what was last
 * written here, compared in JS: reading textContent or getAttribute back makes a new string
 * each time, and on every keystroke that garbage adds up to collector pauses.
 * @param {Element & {apWritten?: Record<string, string | null>}} node
 * @param {string} what
 * @param {unknown} value
 */
export function writeOnce(node, what, value) {
  const v = value == null ? null : String(value);
  const last = node.apWritten || (node.apWritten = {});
  if (what in last && last[what] === v) return;
  last[what] = v;
  if (what === 'text') node.textContent = v ?? '';
  else if (v == null) node.removeAttribute(what);
  else node.setAttribute(what, v);
}

/**
 * A teaching panel that throws is a bug: it is reported as an error (the browser tests fail on
 * any) and its box says so; the walkthrough and the other panels keep working.
 * @param {Element} box @param {unknown} error @param {Translate} t
 */
export function panelFailed(box, error, t) {
  console.error('a teaching panel failed', error);
  box.replaceChildren(
    el('p', { class: 'msg error', role: 'alert', text: t('panel.common.failed') }),
  );
}

/**
 * Plays the CSS animations under `node` (class "play") from their start: the first time by adding
 * the class, after that through the Web Animations API, which needs styles but not layout (taking
 * the class off and reading offsetWidth to put it back forced a layout of the page in the middle of
 * drawing). `still` (the stage is only being refreshed: a keystroke, another query) leaves running
 * or finished animations as they are.
 * @param {Element} node @param {boolean} [still]
 */
export function replay(node, still = false) {
  if (!node.classList.contains('play')) {
    node.classList.add('play');
    return;
  }
  if (still) return;
  for (const a of node.getAnimations({ subtree: true })) {
    a.cancel();
    a.play();
  }
}

/** Sets a width in percent, to a tenth of a percent (finer is invisible), only when it differs: a bar that did
 *  not move costs no style recalculation.
 * @param {HTMLElement & {apWidth?: string}} node @param {number} percent */
export function setWidth(node, percent) {
  const w = `${percent.toFixed(1)}%`;
  if (node.apWidth !== w) {
    node.apWidth = w;
    node.style.width = w;
  }
}

/** Remove all children. @param {Node} node */
export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** An id for label/aria wiring that two copies of a panel on one document never share: 64 random
 *  bits (no counter kept between calls).
 * @param {string} prefix */
export function uid(prefix) {
  const [a, b] = crypto.getRandomValues(new Uint32Array(2));
  return `${prefix}-${a.toString(36)}${b.toString(36)}`;
}
