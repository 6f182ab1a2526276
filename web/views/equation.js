// equation.js: the one rule for printing an equation a learner can check with the numbers on
// screen. The parts are printed with as many decimals as it takes (2, then 3, then 4) for the
// printed parts to give the printed total; when no such count exists the total is the core's,
// the parts are rounded, and the sign is "≈". A negative term is written "a − b", never
// "a + −b". Not a number formatter (format.js fmt) and not maths on the trace: it only reads back
// the decimals it printed.
import { fmt, fmtFactor, pct } from './format.js';

/** Decimals tried for the parts, fewest first. */
const PART_DIGITS = [2, 3, 4];

// a printed number back as a number (fmt writes "−" for minus)
const num = (/** @type {string} */ s) => Number(s.replace('−', '-'));
const decimals = (/** @type {string} */ s) => (s.split('.')[1] || '').length;

/**
 * Whether a value worked out from printed parts gives the printed total: it rounds to the
 * total's last decimal (|value − total| ≤ half a unit of it).
 * @param {number} value @param {string} total
 */
export function rounds(value, total) {
  return Math.abs(value - num(total)) <= 0.5 * 10 ** -decimals(total) + 1e-9;
}

/**
 * Whether printed parts give a printed total.
 * @param {string[][]} terms each term: one printed number, or two printed factors
 * @param {string} total
 */
export function holds(terms, total) {
  return rounds(
    terms.reduce((a, t) => a + t.reduce((p, s) => p * num(s), 1), 0),
    total,
  );
}

/**
 * A sum printed so it can be checked: terms are numbers or [a, b] products, total the core's
 * value. -> {terms: [printed term, ...] (a product as "a×b"), signs: ['', '+', '−', ...], total,
 * rel: '=' or '≈', digits, text: "0.20 − 0.76 = −0.56"}
 * @param {(number | number[])[]} terms
 * @param {number} total
 * @param {number} [totalDigits] decimals of the printed total
 * @param {number[]} [tries] the decimals tried for the parts, fewest first
 */
export function sumEquation(terms, total, totalDigits = 2, tries = PART_DIGITS) {
  const printedTotal = fmt(total, totalDigits);
  let pick = null;
  for (const digits of tries) {
    const printed = terms.map((t) => (Array.isArray(t) ? t : [t]).map((v) => fmt(v, digits)));
    if (holds(printed, printedTotal)) {
      pick = { printed, digits, rel: '=' };
      break;
    }
  }
  if (!pick)
    pick = {
      printed: terms.map((t) => (Array.isArray(t) ? t : [t]).map((v) => fmt(v, 2))),
      digits: 2,
      rel: '≈',
    };
  /** @type {string[]} */
  const signs = [];
  const shown = pick.printed.map((p, n) => {
    // the sign of a term moves onto the operator: "a − b", "a − 0.12×0.50"
    const neg = p[0].startsWith('−') && n > 0;
    const first = neg ? p[0].slice(1) : p[0];
    signs.push(n === 0 ? '' : neg ? '−' : '+');
    return p.length === 1
      ? first
      : `${first}×${fmtFactor(Number(p[1].replace('−', '-')), pick.digits)}`;
  });
  const text = shown.map((s, n) => (n === 0 ? s : ` ${signs[n]} ${s}`)).join('');
  return {
    terms: shown,
    signs,
    total: printedTotal,
    rel: pick.rel,
    digits: pick.digits,
    text: `${text} ${pick.rel} ${printedTotal}`,
  };
}

/**
 * One product a × b = total, printed so it can be checked. -> as sumEquation
 * @param {number} a @param {number} b @param {number} total @param {number} [totalDigits]
 */
export function productEquation(a, b, total, totalDigits = 2) {
  // a product of two rounded factors needs about two more decimals than its total
  const tries = [2, 3, 4, 5, 6].filter((d) => d <= Math.max(4, totalDigits + 2));
  const e = sumEquation([[a, b]], total, totalDigits, tries);
  // a lone product keeps its own sign: "−2.47 × 0.16 = −0.40"
  const [x, y] = [fmt(a, e.digits), fmtFactor(b, e.digits)];
  return { ...e, terms: [`${x}×${y}`], text: `${x} × ${y} ${e.rel} ${e.total}` };
}

/**
 * One LayerNorm cell, (x − mean) ÷ std × gain + bias = y, printed so it can be checked. -> {text,
 * rel, digits}
 * @param {number} x @param {number} mean @param {number} std @param {number} gain
 * @param {number} bias @param {number} y @param {number} [totalDigits]
 */
export function normEquation(x, mean, std, gain, bias, y, totalDigits = 2) {
  const total = fmt(y, totalDigits);
  const write = (/** @type {number} */ d) => {
    const p = [x, mean, std, gain, bias].map((v) => fmt(v, d));
    const value = ((num(p[0]) - num(p[1])) / num(p[2])) * num(p[3]) + num(p[4]);
    const minus = (/** @type {string} */ s) => (s.startsWith('−') ? `+ ${s.slice(1)}` : `− ${s}`);
    const plus = (/** @type {string} */ s) => (s.startsWith('−') ? `− ${s.slice(1)}` : `+ ${s}`);
    const text = `(${p[0]} ${minus(p[1])}) ÷ ${p[2]} × ${fmtFactor(gain, d)} ${plus(p[4])}`;
    return { text, ok: rounds(value, total), digits: d };
  };
  for (const d of PART_DIGITS) {
    const w = write(d);
    if (w.ok) return { text: `${w.text} = ${total}`, rel: '=', digits: d };
  }
  const w = write(PART_DIGITS[PART_DIGITS.length - 1]);
  return { text: `${w.text} ≈ ${total}`, rel: '≈', digits: w.digits };
}

/** Decimals tried for a weight printed as a percentage (pct's own first). */
const PERCENT_DIGITS = [null, 1, 2, 3];

/**
 * A weight (as a percentage) and the values it multiplies, printed so that each printed
 * weight × value gives its printed product (totals, already printed). -> {weight: (a percentage),
 * values: ["0.12", ...], rel: '=' or '≈' (when no decimals up to 3 and 4 do)}
 * @param {number} w @param {number[]} values @param {string[]} totals
 */
export function fitFactors(w, values, totals) {
  for (const d of PERCENT_DIGITS) {
    const weight = d == null ? pct(w) : `${(w * 100).toFixed(d)}%`;
    const frac = num(weight.slice(0, -1)) / 100;
    const printed = values.map((v, c) => {
      for (const vd of PART_DIGITS) {
        const text = fmt(v, vd);
        if (rounds(frac * num(text), totals[c])) return text;
      }
      return null;
    });
    if (printed.every((p) => p !== null)) return { weight, values: printed, rel: '=' };
  }
  return { weight: pct(w), values: values.map((v) => fmt(v)), rel: '≈' };
}
