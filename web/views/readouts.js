// readouts.js: the small pieces the teaching panels build numbers from: a number that carries
// its full value, a vector, a bar, a list of bars. Layout only: the values come from the core.

import { el, setText, setWidth, writeOnce } from './dom.js';
import { fmt, pct } from './format.js';

const LONG_LIST = 24;

/** @typedef {import('./view-types.js').Translate} Translate */
/** One bar of a BarList: its row, label, fill and number.
 *  @typedef {{li: HTMLElement, label: HTMLElement, fill: HTMLElement, val: HTMLElement}} BarItem */

/**
 * Horizontal bars for a row of non-negative values (weights, exps), with the number beside.
 * Kept between traces: update() rewrites the bars in place. A long list (many tokens) scrolls in
 * its own box instead of making the page very tall.
 */
export class BarList {
  constructor() {
    this.list = el('ul', { class: 'bars' });
    this.el = el('div', {}, [this.list]);
    /** @type {BarItem[]} */
    this.items = [];
  }

  /**
   * name: the values carry data-matrix etc.
   * @param {string[]} labels
   * @param {number[] | Float32Array} values
   * @param {{max?: number, name?: string, head?: number, row?: number, digits?: number,
   *          asPct?: boolean}} [opts]
   */
  update(labels, values, { max, name, head, row, digits = 3, asPct = false } = {}) {
    const top = max ?? Math.max(...values.filter(Number.isFinite), 1e-12);
    while (this.items.length > values.length) this.items.pop()?.li.remove();
    while (this.items.length < values.length) {
      const label = el('span', { class: 'blabel' });
      const fill = el('span', { class: 'fill' });
      const val = el('span', { class: 'bval' });
      const li = el('li', {}, [label, el('span', { class: 'track' }, [fill]), val]);
      this.list.append(li);
      this.items.push({ li, label, fill, val });
    }
    values.forEach((v, j) => {
      const { label, fill, val } = this.items[j];
      setText(label, labels[j]);
      setWidth(fill, Number.isFinite(v) ? Math.max(0, Math.min(100, (v / top) * 100)) : 0);
      setText(val, asPct ? pct(v) : fmt(v, digits));
      if (name) {
        writeOnce(val, 'data-matrix', name);
        writeOnce(val, 'data-head', head ?? '');
        writeOnce(val, 'data-row', row ?? '');
        writeOnce(val, 'data-col', j);
        writeOnce(val, 'data-value', v);
      }
    });
    const long = values.length > LONG_LIST;
    this.el.className = long ? 'bars-scroll' : '';
    if (long) {
      this.el.setAttribute('tabindex', '0');
      this.el.setAttribute('role', 'group');
      this.el.setAttribute('aria-label', `${labels[0]} … ${labels[labels.length - 1]}`);
    } else {
      for (const a of ['tabindex', 'role', 'aria-label']) this.el.removeAttribute(a);
    }
    return this;
  }
}

/** A number in a matrix-like cell: shows `fmt(value)` and carries the full-precision value.
 * @param {number} value @param {string} matrix @param {number | string} row
 * @param {number | string} col @param {number} [digits] @param {string} [tag]
 * @param {string} [extraClass] @returns {HTMLElement} */
export function num(value, matrix, row, col, digits = 3, tag = 'span', extraClass = '') {
  return el(tag, {
    class: `panel-num${extraClass ? ' ' + extraClass : ''}`,
    text: fmt(value, digits),
    dataset: { matrix, row: String(row), col: String(col), value: String(value) },
  });
}

/** A vector shown as [a, b, c]; long vectors show the first `limit` entries and "+N". Each entry
 *  keeps its bracket or comma, so a wrapped vector never starts a line with "]" or ",".
 * @param {ArrayLike<number>} values @param {string} matrix @param {number} row @param {Translate} t
 * @param {number} [digits] @param {number} [limit] @param {number} [colOffset]
 * @returns {HTMLElement} */
export function vector(values, matrix, row, t, digits = 3, limit = 8, colOffset = 0) {
  const box = el('span', { class: 'panel-vec' });
  const shown = Math.min(values.length, limit);
  for (let c = 0; c < shown; c++) {
    const item = el('span', { class: 'panel-vec-item' });
    if (c === 0)
      item.append(el('span', { class: 'panel-bracket', text: '[', 'aria-hidden': 'true' }));
    item.append(num(values[c], matrix, row, c + colOffset, digits));
    const last = c === shown - 1;
    if (!last) item.append(el('span', { class: 'panel-sep', text: ',', 'aria-hidden': 'true' }));
    else if (values.length === shown)
      item.append(el('span', { class: 'panel-bracket', text: ']', 'aria-hidden': 'true' }));
    box.append(item);
  }
  if (values.length > shown) {
    box.append(
      el('span', { class: 'panel-vec-item' }, [
        el('span', {
          class: 'panel-more',
          text: t('panel.common.more', { n: values.length - shown }),
        }),
        el('span', { class: 'panel-bracket', text: ']', 'aria-hidden': 'true' }),
      ]),
    );
  }
  return box;
}

/** A horizontal bar for a value in [0, 1] (a weight). Width is layout, not maths.
 * @param {number} fraction @param {string} [label] @returns {HTMLElement} */
export function bar(fraction, label) {
  const outer = el('span', { class: 'panel-bar', 'aria-hidden': 'true', title: label || null });
  const inner = el('span', { class: 'panel-bar-fill' });
  const f = Number.isFinite(fraction) ? Math.max(0, Math.min(1, fraction)) : 0;
  inner.style.width = `${(f * 100).toFixed(2)}%`;
  outer.append(inner);
  return outer;
}
