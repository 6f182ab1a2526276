// util.js: DOM building and number formatting shared by the four teaching panels.
// Not maths: nothing here computes an attention quantity; every value shown comes from the core.

export const SVG_NS = 'http://www.w3.org/2000/svg';
export const MATH_NS = 'http://www.w3.org/1998/Math/MathML';

/** Creates an element. attrs: {class, text, dataset, on: {event: fn}, ...plain attributes}. */
export function el(tag, attrs = {}, children = [], ns = null) {
  const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const k in attrs) {   // for-in, not Object.entries: no arrays made per element
    const v = attrs[k];
    if (v == null || v === false) continue;
    if (k === 'class') node.setAttribute('class', v);
    else if (k === 'text') node.textContent = v;
    else if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'on') for (const ev in v) node.addEventListener(ev, v[ev]);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of Array.isArray(children) ? children : [children]) {
    if (c == null || c === false) continue;
    node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return node;
}

export const svg = (tag, attrs, children) => el(tag, attrs, children, SVG_NS);
export const mathml = (tag, attrs, children) => el(tag, attrs, children, MATH_NS);

/** A number for reading: fixed digits, a true minus sign, ±∞ spelled as symbols. */
export function fmt(x, digits = 3) {
  if (x === -Infinity) return '−∞';
  if (x === Infinity) return '∞';
  if (Number.isNaN(x)) return '—';
  let s = Number(x).toFixed(digits);
  if (/^-0\.?0*$/.test(s)) s = s.slice(1); // no "−0.00"
  return s.replace('-', '−');
}

/** Like fmt, but wraps a negative in parentheses so "a × (−b)" reads correctly. */
export function fmtFactor(x, digits = 2) {
  const s = fmt(x, digits);
  return s.startsWith('−') ? `(${s})` : s;
}

/** A number in a matrix-like cell: shows `fmt(value)` and carries the full-precision value. */
export function num(value, matrix, row, col, digits = 3, tag = 'span', extraClass = '') {
  return el(tag, {
    class: `pn-num${extraClass ? ' ' + extraClass : ''}`,
    text: fmt(value, digits),
    dataset: { matrix, row: String(row), col: String(col), value: String(value) },
  });
}

/** Row i of a row-major {rows, cols, data} matrix, as a copy. */
export function rowOf(m, i) { return m.data.slice(i * m.cols, (i + 1) * m.cols); }

/** Column c of a row-major matrix, as a copy. */
export function colOf(m, c) {
  const out = new Float32Array(m.rows);
  for (let i = 0; i < m.rows; i++) out[i] = m.data[i * m.cols + c];
  return out;
}

/** Element m[i][j]. */
export function at(m, i, j) { return m.data[i * m.cols + j]; }

/** Remove all children. */
export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

/** A vector shown as [a, b, c]; long vectors show the first `limit` entries and "+N". Each entry
 *  keeps its bracket or comma, so a wrapped vector never starts a line with "]" or ",". */
export function vector(values, matrix, row, t, digits = 3, limit = 8, colOffset = 0) {
  const box = el('span', { class: 'pn-vec' });
  const shown = Math.min(values.length, limit);
  for (let c = 0; c < shown; c++) {
    const item = el('span', { class: 'pn-vec-item' });
    if (c === 0) item.append(el('span', { class: 'pn-bracket', text: '[', 'aria-hidden': 'true' }));
    item.append(num(values[c], matrix, row, c + colOffset, digits));
    const last = c === shown - 1;
    if (!last) item.append(el('span', { class: 'pn-sep', text: ',', 'aria-hidden': 'true' }));
    else if (values.length === shown) item.append(el('span', { class: 'pn-bracket', text: ']', 'aria-hidden': 'true' }));
    box.append(item);
  }
  if (values.length > shown) {
    box.append(el('span', { class: 'pn-vec-item' }, [
      el('span', { class: 'pn-more', text: t('panel.common.more', { n: values.length - shown }) }),
      el('span', { class: 'pn-bracket', text: ']', 'aria-hidden': 'true' }),
    ]));
  }
  return box;
}

/** A horizontal bar for a value in [0, 1] (a weight). Width is layout, not maths. */
export function bar(fraction, label) {
  const outer = el('span', { class: 'pn-bar', 'aria-hidden': 'true', title: label || null });
  const inner = el('span', { class: 'pn-bar-fill' });
  const f = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  inner.style.width = `${(f * 100).toFixed(2)}%`;
  outer.append(inner);
  return outer;
}

/** Clamp an index into [0, n-1]; non-numbers become 0. */
export function clampIndex(i, n) {
  const k = Number.isInteger(i) ? i : 0;
  return Math.max(0, Math.min(n - 1, k));
}

let nextId = 0;
/** A document-unique id for label/aria wiring, so two copies of a panel never clash. */
export function uid(prefix) { nextId += 1; return `${prefix}-${nextId}`; }
