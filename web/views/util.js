// util.js: small DOM helpers shared by the views: element creation, number formatting, colour
// tints and the matrix table every stage draws. Formatting only: no attention maths here.

/** el('div', {class: 'a', text: 'b', attrs: {...}, on: {click}}, [children]) */
export function el(tag, opts = {}, children = []) {
  const e = document.createElement(tag);
  if (opts.class) e.className = opts.class;
  if (opts.text != null) e.textContent = opts.text;
  if (opts.attrs) for (const k in opts.attrs) if (opts.attrs[k] != null) e.setAttribute(k, String(opts.attrs[k]));
  if (opts.on) for (const k in opts.on) e.addEventListener(k, opts.on[k]);
  for (const c of children) if (c != null) e.append(c);
  return e;
}

/** Sets a node's text only when it differs from what was last set here (see writeOnce). */
export function setText(node, text) { writeOnce(node, 'text', text); }

/**
 * Writes a node's text (what = 'text') or an attribute only when it differs from what was last
 * written here, compared in JS: reading textContent or getAttribute back makes a new string
 * each time, and on every keystroke that garbage adds up to collector pauses.
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

/** Sets a width in percent, to 0.1% (finer is invisible), only when it differs: a bar that did
 *  not move costs no style recalculation. */
export function setWidth(node, percent) {
  const w = `${percent.toFixed(1)}%`;
  if (node.apWidth !== w) { node.apWidth = w; node.style.width = w; }
}

export function svg(tag, attrs = {}) {
  const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const k in attrs) e.setAttribute(k, String(attrs[k]));
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
  for (let i = 0; i < data.length; i++) {   // indexed: an iterator per call is garbage per keystroke
    const x = data[i];
    if (Number.isFinite(x) && Math.abs(x) > m) m = Math.abs(x);
  }
  return m || 1;
}

/** Background tint for a value: blue for positive, orange for negative, light enough that dark
 *  text keeps a contrast above 4.5:1. `weight` mode: 0..1 in one green hue. Two decimals of
 *  alpha (invisible steps), so a small change of scale repaints few cells. */
export function tint(v, scale, weight = false) {
  if (!Number.isFinite(v)) return '';
  const a = Math.min(1, Math.abs(v) / scale);
  if (weight) return `rgba(22, 163, 74, ${(0.08 + 0.5 * a).toFixed(2)})`;
  return v >= 0 ? `rgba(37, 99, 235, ${(0.06 + 0.42 * a).toFixed(2)})`
    : `rgba(234, 88, 12, ${(0.06 + 0.42 * a).toFixed(2)})`;
}

/** The tint scale for a table: its largest |value| rounded up to a step of 10^(1/10) (about
 *  26%), so a keystroke that moves the maximum a little repaints only the cells that changed. */
export function tintScale(maxAbs) {
  const step = Math.ceil(10 * Math.log10(maxAbs) - 1e-9);
  return 10 ** (step / 10);
}

/**
 * A matrix as a DOM table. Every cell carries data-matrix, data-head, data-row, data-col and
 * data-value (full precision), so tests and assistive tools read exactly what is shown.
 * update() refreshes it in place for the next trace: rows and columns added or removed at the
 * end, and only the cells whose value or tint changed are touched (typing stays within a frame).
 */
export class MatrixTable {
  /**
   * @param {object} m {rows, cols, data}
   * @param {object} o {name, head, caption, rowLabels, colLabels, corner, weight, scale,
   *                    onSelect(r, c), digits, extra: {title, values, name}, firstRow}
   *   extra: one more column after the matrix, e.g. row sums; not part of the matrix.
   *   firstRow: m holds rows firstRow.. of a larger matrix (data-row says so); not with onSelect.
   */
  constructor(m, o) {
    this.m = { rows: 0, cols: 0, data: new Float32Array(0) };
    this.o = o;
    this.revealed = 0;
    this.marks = { row: [], col: [], cell: [] };
    const table = el('table', { class: `matrix${o.weight ? ' weights' : ''}${o.onSelect ? ' selectable' : ''}` });
    if (o.caption) table.append(el('caption', { text: o.caption }));
    this.headRow = el('tr', {}, [el('th', { class: 'corner', text: o.corner || '', attrs: { scope: 'col' } })]);
    this.extraHead = o.extra ? el('th', { class: 'extra', text: o.extra.title, attrs: { scope: 'col' } }) : null;
    if (this.extraHead) this.headRow.append(this.extraHead);
    this.tbody = el('tbody');
    table.append(el('thead', {}, [this.headRow]), this.tbody);
    this.table = table;
    this.colHeads = [];
    this.rowHeads = [];
    this.rowEls = [];     // per row: {tr, cells: [td], extra: td|null}
    this.cells = [];
    this.shown = [];      // per cell: [value, text, tint, scale] as written (update() writes only changes)
    this.firstRow = o.firstRow ?? 0;
    if (o.onSelect) this.makeSelectable();
    this.update(m, o);
  }

  /** The next trace's matrix (same meaning; the shape may differ). Labels and extra come from o. */
  update(m, o = this.o) {
    const prev = this.m;
    this.o = o;
    const scale = o.scale ?? (o.weight ? 1 : tintScale(maxAbsFinite(m.data)));
    const resized = prev.rows !== m.rows || prev.cols !== m.cols;
    // columns: header cells, then every kept row's cells
    while (this.colHeads.length > m.cols) this.colHeads.pop().remove();
    while (this.colHeads.length < m.cols) {
      const c = this.colHeads.length;
      const th = el('th', { attrs: { scope: 'col', 'data-col': c } });
      this.headRow.insertBefore(th, this.extraHead);
      this.colHeads.push(th);
    }
    this.colHeads.forEach((th, c) => writeOnce(th, 'text', o.colLabels ? o.colLabels[c] : String(c + 1)));
    while (this.rowEls.length > m.rows) this.rowEls.pop().tr.remove();
    this.rowHeads.length = this.rowEls.length;
    this.rowEls.forEach((row, r) => {
      while (row.cells.length > m.cols) row.cells.pop().remove();
      while (row.cells.length < m.cols) row.tr.insertBefore(this.newCell(r, row.cells.length), row.extra);
    });
    while (this.rowEls.length < m.rows) this.addRow(this.rowEls.length, m.cols);
    if ((o.firstRow ?? 0) !== this.firstRow) {
      this.firstRow = o.firstRow ?? 0;
      this.rowEls.forEach((row, r) => {
        for (const e of [this.rowHeads[r], ...row.cells, row.extra]) if (e) e.dataset.row = this.firstRow + r;
      });
    }
    this.rowHeads.forEach((th, r) => writeOnce(th, 'text', o.rowLabels ? o.rowLabels[r] : String(r + 1)));
    if (resized) {
      if (this.shapeEl) this.shapeEl.textContent = `${m.rows} × ${m.cols}`;
      this.cells = this.rowEls.flatMap((row) => row.cells);
      const shown = new Array(m.rows * m.cols);
      for (let r = 0; r < m.rows; r++) {
        for (let c = 0; c < m.cols; c++) shown[r * m.cols + c] = r < prev.rows && c < prev.cols ? this.shown[r * prev.cols + c] : null;
      }
      this.shown = shown;
    }
    this.m = m;
    for (let i = 0; i < this.cells.length; i++) this.paintCell(i, m.data[i], scale);
    if (o.extra) {
      this.rowEls.forEach((row, r) => {
        const x = o.extra.values[r];
        if (Object.is(row.extra.apValue, x)) return;
        row.extra.apValue = x;
        row.extra.dataset.value = String(x);
        row.extra.textContent = fmt(x, 3);
      });
    }
    if (resized) {
      // a fully shown table stays fully shown; a partly revealed one keeps its count
      const full = this.revealed >= prev.rows * prev.cols;
      this.revealed = full ? this.cells.length : Math.min(this.revealed, this.cells.length);
      this.cells.forEach((td, i) => td.classList.toggle('pending', i >= this.revealed));
      if (o.onSelect) {
        if (this.active >= this.cells.length) this.active = 0;
        this.cells[this.active]?.setAttribute('tabindex', '0');
      }
    }
    return this;
  }

  addRow(r, cols) {
    const th = el('th', { attrs: { scope: 'row', 'data-row': this.firstRow + r } });
    const tr = el('tr', {}, [th]);
    const row = { tr, cells: [], extra: null };
    this.rowEls.push(row);
    this.rowHeads.push(th);
    for (let c = 0; c < cols; c++) tr.append(this.newCell(r, c));
    if (this.o.extra) {
      row.extra = el('td', { class: 'extra', attrs: { 'data-matrix': this.o.extra.name, 'data-head': this.o.head ?? '', 'data-row': this.firstRow + r } });
      tr.append(row.extra);
    }
    this.tbody.append(tr);
  }

  // a blank cell of row r, column c (painted by update); kept in rowEls
  newCell(r, c) {
    const td = document.createElement('td');
    td.dataset.matrix = this.o.name;
    td.dataset.head = this.o.head ?? '';
    td.dataset.row = this.firstRow + r;
    td.dataset.col = c;
    if (this.o.onSelect) td.setAttribute('tabindex', '-1');
    this.rowEls[r].cells.push(td);
    return td;
  }

  // writes only what changed: the value, the text, the tint (same value and scale: nothing)
  paintCell(i, v, scale) {
    const was = this.shown[i];
    if (was && Object.is(was[0], v) && was[3] === scale) return;
    const td = this.cells[i];
    const text = fmt(v, this.o.digits);
    const bg = v === -Infinity ? null : tint(v, scale, this.o.weight);
    if (!was || !Object.is(was[0], v)) td.dataset.value = String(v);
    if (!was || was[1] !== text) td.textContent = text;
    if (!was || was[2] !== bg) {
      td.classList.toggle('neg-inf', bg === null);
      td.style.backgroundColor = bg ?? '';
    }
    this.shown[i] = [v, text, bg, scale];
  }

  /** The cell at (r, c); a detached spare when (r, c) is outside (a view refreshed later). */
  cell(r, c) {
    if (r >= 0 && r < this.m.rows && c >= 0 && c < this.m.cols) return this.cells[r * this.m.cols + c];
    if (!this.spare) this.spare = document.createElement('td');
    return this.spare;
  }

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
    this.active = 0;   // new cells get tabindex -1 (newCell); update() gives the active one 0
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
  table.shapeEl = el('span', { class: 'mshape', text: shape });   // the view's update() rewrites it
  return el('figure', { class: 'mblock' }, [
    el('figcaption', {}, [el('span', { class: 'mtitle', text: title }), table.shapeEl]),
    note ? el('p', { class: 'orient', text: note }) : null,
    el('div', { class: 'scroller', attrs: { tabindex: '0', role: 'group', 'aria-label': title } }, [table.table]),
  ]);
}

const LONG_LIST = 24;

/**
 * Horizontal bars for a row of non-negative values (weights, exps), with the number beside.
 * Kept between traces: update() rewrites the bars in place. A long list (many tokens) scrolls in
 * its own box instead of making the page very tall.
 */
export class BarList {
  constructor() {
    this.list = el('ul', { class: 'bars' });
    this.el = el('div', {}, [this.list]);
    this.items = [];
  }

  /** opts: {max, name, head, row, digits, asPct}; name: the values carry data-matrix etc. */
  update(labels, values, { max, name, head, row, digits = 3, asPct = false } = {}) {
    const top = max ?? Math.max(...values.filter(Number.isFinite), 1e-12);
    while (this.items.length > values.length) this.items.pop().li.remove();
    while (this.items.length < values.length) {
      const item = { label: el('span', { class: 'blabel' }), fill: el('span', { class: 'fill' }), val: el('span', { class: 'bval' }) };
      item.li = el('li', {}, [item.label, el('span', { class: 'track' }, [item.fill]), item.val]);
      this.list.append(item.li);
      this.items.push(item);
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
