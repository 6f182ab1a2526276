// format.js: numbers for reading (fmt, pct), the colour tint of a value, and reading a
// {rows, cols, data} matrix. No DOM and no attention maths: numbers come from the core.

/** @typedef {import('../../types/index.js').Matrix} Matrix */
/** @typedef {import('./view-types.js').MatrixLike} MatrixLike */

/**
 * A number for reading: `digits` decimals (2 unless asked), a real minus sign, no "−0.00",
 * ±∞ as symbols, NaN as "NaN" (never hidden: it would mean the core produced one), and
 * |v| >= 1000 in exponent form so a cell stays narrow.
 * @param {number} v
 * @param {number} [digits]
 */
export function fmt(v, digits = 2) {
  if (v === -Infinity) return '−∞';
  if (v === Infinity) return '∞';
  if (Number.isNaN(v)) return 'NaN';
  const s = Math.abs(v) >= 1000 ? v.toExponential(1) : v.toFixed(digits);
  return s.startsWith('-') ? (/^-0(\.0*)?$/.test(s) ? s.slice(1) : '−' + s.slice(1)) : s;
}

/** Like fmt, but wraps a negative in parentheses so "a × (−b)" reads correctly.
 * @param {number} x @param {number} [digits] */
export function fmtFactor(x, digits = 2) {
  const s = fmt(x, digits);
  return s.startsWith('−') ? `(${s})` : s;
}

/** A whole number with its digits grouped (6000 -> "6,000"), as both languages of the page write
 *  counts.
 * @param {number} n */
export function grouped(n) {
  return n.toLocaleString('en-US');
}

/** A weight as a percentage. @param {number} w */
export function pct(w) {
  return `${(w * 100).toFixed(w >= 0.995 || w < 0.1 ? 1 : 0)}%`;
}

/** Row r of a {rows, cols, data} matrix as a view into m.data (no copy: do not write to it).
 * @param {Matrix} m @param {number} r */
export function rowOf(m, r) {
  return m.data.subarray(r * m.cols, (r + 1) * m.cols);
}

/** Column c of a matrix, as a new Float32Array. @param {MatrixLike} m @param {number} c */
export function colOf(m, c) {
  const out = new Float32Array(m.rows);
  for (let r = 0; r < m.rows; r++) out[r] = m.data[r * m.cols + c];
  return out;
}

/** Element (i, j) of a row-major matrix. @param {MatrixLike} m @param {number} i @param {number} j */
export function at(m, i, j) {
  return m.data[i * m.cols + j];
}

/** The largest finite |value|, 1 when there is none. @param {ArrayLike<number>} data */
export function maxAbsFinite(data) {
  let m = 0;
  for (let i = 0; i < data.length; i++) {
    // indexed: an iterator per call is garbage per keystroke
    const x = data[i];
    if (Number.isFinite(x) && Math.abs(x) > m) m = Math.abs(x);
  }
  return m || 1;
}

/** Background tint for a value: blue for positive, orange for negative, light enough that dark
 *  text keeps a contrast above 4.5:1. `weight` mode: 0..1 in one green hue. Two decimals of
 *  alpha (invisible steps), so a small change of scale repaints few cells.
 * @param {number} v @param {number} scale @param {boolean} [weight] */
export function tint(v, scale, weight = false) {
  if (!Number.isFinite(v)) return '';
  const a = Math.min(1, Math.abs(v) / scale);
  if (weight) return `rgba(22, 163, 74, ${(0.08 + 0.5 * a).toFixed(2)})`;
  return v >= 0
    ? `rgba(37, 99, 235, ${(0.06 + 0.42 * a).toFixed(2)})`
    : `rgba(234, 88, 12, ${(0.06 + 0.42 * a).toFixed(2)})`;
}

/** The tint scale for a table: its largest |value| rounded up to a step of 10^(1/10) (about
 *  26%), so a keystroke that moves the maximum a little repaints only the cells that changed.
 * @param {number} maxAbs */
export function tintScale(maxAbs) {
  const step = Math.ceil(10 * Math.log10(maxAbs) - 1e-9);
  return 10 ** (step / 10);
}

/** Clamp an index into [0, n-1]; non-numbers become 0. @param {unknown} i @param {number} n */
export function clampIndex(i, n) {
  const k = Number.isInteger(i) ? /** @type {number} */ (i) : 0;
  return Math.max(0, Math.min(n - 1, k));
}
