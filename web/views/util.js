// util.js: small DOM helpers shared by the views: element creation, number formatting, colour
// tints and the matrix table every stage draws. Formatting only: no attention maths here.

/** el('div', {class: 'a', text: 'b', attrs: {...}, on: {click}}, [children]) */
export function el(tag, opts = {}, children = []) {
  const e = document.createElement(tag);
  if (opts.class) e.className = opts.class;
  if (opts.text != null) e.textContent = opts.text;
  if (opts.attrs) for (const [k, v] of Object.entries(opts.attrs)) if (v != null) e.setAttribute(k, String(v));
  if (opts.on) for (const [k, v] of Object.entries(opts.on)) e.addEventListener(k, v);
  for (const c of children) if (c != null) e.append(c);
  return e;
}

export function svg(tag, attrs = {}) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** 2 decimals, a real minus sign, and -inf as −∞. */
export function fmt(v, digits = 2) {
  if (v === -Infinity) return '−∞';
  if (v === Infinity) return '∞';
  if (Number.isNaN(v)) return 'NaN';
  const s = Math.abs(v) >= 1000 ? v.toExponential(1) : v.toFixed(digits);
  return s.startsWith('-') ? (/^-0\.0*$/.test(s) ? s.slice(1) : '−' + s.slice(1)) : s;
}

export function pct(w) { return `${(w * 100).toFixed(w >= 0.995 || w < 0.1 ? 1 : 0)}%`; }

/** Row r of a {rows, cols, data} matrix as a Float32Array view. */
export function rowOf(m, r) { return m.data.subarray(r * m.cols, (r + 1) * m.cols); }

/** Column c of a matrix, as a new Float32Array. */
export function colOf(m, c) {
  const out = new Float32Array(m.rows);
  for (let r = 0; r < m.rows; r++) out[r] = m.data[r * m.cols + c];
  return out;
}

export function maxAbsFinite(data) {
  let m = 0;
  for (const x of data) if (Number.isFinite(x) && Math.abs(x) > m) m = Math.abs(x);
  return m || 1;
}

/** Background tint for a value: blue for positive, orange for negative, light enough that dark
 *  text keeps a contrast above 4.5:1. `weight` mode: 0..1 in one green hue. */
export function tint(v, scale, weight = false) {
  if (!Number.isFinite(v)) return '';
  const a = Math.min(1, Math.abs(v) / scale);
  if (weight) return `rgba(22, 163, 74, ${(0.08 + 0.5 * a).toFixed(3)})`;
  return v >= 0 ? `rgba(37, 99, 235, ${(0.06 + 0.42 * a).toFixed(3)})`
    : `rgba(234, 88, 12, ${(0.06 + 0.42 * a).toFixed(3)})`;
}

/**
 * A matrix as a DOM table. Every cell carries data-matrix, data-head, data-row, data-col and
 * data-value (full precision), so tests and assistive tools read exactly what is shown.
 */
export class MatrixTable {
  /**
   * @param {object} m {rows, cols, data}
   * @param {object} o {name, head, caption, rowLabels, colLabels, corner, weight, scale,
   *                    onSelect(r, c), digits, extra: {title, values, name}}  (extra: one more
   *                    column after the matrix, e.g. row sums; not part of the matrix)
   */
  constructor(m, o) {
    this.m = m;
    this.o = o;
    this.revealed = m.rows * m.cols;
    this.marks = { row: [], col: [], cell: [] };
    const scale = o.scale ?? (o.weight ? 1 : maxAbsFinite(m.data));
    const table = el('table', { class: `matrix${o.weight ? ' weights' : ''}${o.onSelect ? ' selectable' : ''}` });
    if (o.caption) table.append(el('caption', { text: o.caption }));
    const thead = el('thead');
    const hr = el('tr', {}, [el('th', { class: 'corner', text: o.corner || '', attrs: { scope: 'col' } })]);
    for (let c = 0; c < m.cols; c++) {
      hr.append(el('th', { text: o.colLabels ? o.colLabels[c] : String(c + 1), attrs: { scope: 'col', 'data-col': c } }));
    }
    if (o.extra) hr.append(el('th', { class: 'extra', text: o.extra.title, attrs: { scope: 'col' } }));
    thead.append(hr);
    const tbody = el('tbody');
    this.cells = new Array(m.rows * m.cols);
    this.rowHeads = [];
    this.colHeads = [...hr.children].slice(1);
    const head = o.head ?? '';
    for (let r = 0; r < m.rows; r++) {
      const th = el('th', { text: o.rowLabels ? o.rowLabels[r] : String(r + 1), attrs: { scope: 'row', 'data-row': r } });
      this.rowHeads.push(th);
      const tr = el('tr', {}, [th]);
      for (let c = 0; c < m.cols; c++) {
        const v = m.data[r * m.cols + c];
        const td = document.createElement('td');
        td.dataset.matrix = o.name;
        td.dataset.head = head;
        td.dataset.row = r;
        td.dataset.col = c;
        td.dataset.value = String(v);
        td.textContent = fmt(v, o.digits);
        if (v === -Infinity) td.className = 'neg-inf';
        else td.style.backgroundColor = tint(v, scale, o.weight);
        tr.append(td);
        this.cells[r * m.cols + c] = td;
      }
      if (o.extra) {
        const x = o.extra.values[r];
        tr.append(el('td', { class: 'extra', text: fmt(x, 3), attrs: { 'data-matrix': o.extra.name, 'data-head': head, 'data-row': r, 'data-value': x } }));
      }
      tbody.append(tr);
    }
    table.append(thead, tbody);
    this.table = table;
    if (o.onSelect) this.makeSelectable();
  }

  cell(r, c) { return this.cells[r * this.m.cols + c]; }

  /** Show only the first `count` cells in row-major order (the rest are blank placeholders). */
  reveal(count) {
    count = Math.max(0, Math.min(this.cells.length, count));
    const [lo, hi] = count < this.revealed ? [count, this.revealed] : [this.revealed, count];
    const hide = count < this.revealed;
    for (let i = lo; i < hi; i++) this.cells[i].classList.toggle('pending', hide);
    this.revealed = count;
  }

  revealRows(rows) { this.reveal(rows * this.m.cols); }

  /** Highlight rows, columns and cells (replacing the previous marks of that kind). */
  mark(kind, list) {
    for (const e of this.marks[kind]) e.classList.remove(`mark-${kind}`);
    const out = [];
    for (const x of list) {
      if (kind === 'row' && x >= 0 && x < this.m.rows) {
        out.push(this.rowHeads[x]);
        for (let c = 0; c < this.m.cols; c++) out.push(this.cell(x, c));
      } else if (kind === 'col' && x >= 0 && x < this.m.cols) {
        out.push(this.colHeads[x]);
        for (let r = 0; r < this.m.rows; r++) out.push(this.cell(r, x));
      } else if (kind === 'cell' && x[0] >= 0 && x[0] < this.m.rows && x[1] >= 0 && x[1] < this.m.cols) {
        out.push(this.cell(x[0], x[1]));
      }
    }
    for (const e of out) e.classList.add(`mark-${kind}`);
    this.marks[kind] = out;
  }

  // One cell is in the tab order; arrow keys move, Enter/Space/click select (a roving tabindex).
  makeSelectable() {
    this.active = 0;
    this.cells.forEach((td, i) => td.setAttribute('tabindex', i === 0 ? '0' : '-1'));
    this.table.addEventListener('click', (ev) => {
      const td = ev.target.closest('td');
      if (!td) return;
      this.focusCell(+td.dataset.row, +td.dataset.col, false);
      this.o.onSelect(+td.dataset.row, +td.dataset.col);
    });
    this.table.addEventListener('keydown', (ev) => {
      const td = ev.target.closest('td');
      if (!td) return;
      let r = +td.dataset.row;
      let c = +td.dataset.col;
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (moves[ev.key]) {
        r = Math.min(this.m.rows - 1, Math.max(0, r + moves[ev.key][0]));
        c = Math.min(this.m.cols - 1, Math.max(0, c + moves[ev.key][1]));
        this.focusCell(r, c, true);
        this.o.onSelect(r, c);
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        this.o.onSelect(r, c);
      } else return;
      ev.preventDefault();
      ev.stopPropagation();
    });
  }

  focusCell(r, c, focus) {
    const i = r * this.m.cols + c;
    this.cells[this.active]?.setAttribute('tabindex', '-1');
    this.active = i;
    this.cells[i].setAttribute('tabindex', '0');
    if (focus) this.cells[i].focus();
  }
}

/** A labelled matrix block: title, shape line, orientation note, and the table in a scroller. */
export function matrixBlock(title, shape, table, note) {
  return el('figure', { class: 'mblock' }, [
    el('figcaption', {}, [el('span', { class: 'mtitle', text: title }), el('span', { class: 'mshape', text: shape })]),
    note ? el('p', { class: 'orient', text: note }) : null,
    el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group', 'aria-label': title } }, [table.table]),
  ]);
}

const LONG_LIST = 24;

/** Horizontal bars for a row of non-negative values (weights, exps), with the number beside. */
export function barList(labels, values, { max, name, head, row, digits = 3, asPct = false } = {}) {
  const top = max ?? Math.max(...values.filter(Number.isFinite), 1e-12);
  const list = el('ul', { class: 'bars' });
  values.forEach((v, j) => {
    const fill = el('span', { class: 'fill' });
    fill.style.width = `${Number.isFinite(v) ? Math.max(0, Math.min(100, (v / top) * 100)) : 0}%`;
    const val = el('span', { class: 'bval', text: asPct ? pct(v) : fmt(v, digits) });
    if (name) {
      Object.assign(val.dataset, { matrix: name, head: head ?? '', row: row ?? '', col: j, value: String(v) });
    }
    list.append(el('li', {}, [el('span', { class: 'blabel', text: labels[j] }), el('span', { class: 'track' }, [fill]), val]));
  });
  // a long list (many tokens) scrolls in its own box instead of making the page very tall
  if (values.length > LONG_LIST) return el('div', { class: 'bars-scroll', attrs: { tabindex: '0', role: 'group', 'aria-label': labels.length ? `${labels[0]} … ${labels[labels.length - 1]}` : '' } }, [list]);
  return list;
}
