// matrix-table.js: the matrix table every stage draws (cells that carry their full value, a
// compact window on a phone), its labelled block, and the window of a row strip. Drawing only.

import { el, setText, writeOnce } from './dom.js';
import { fmt, maxAbsFinite, tint, tintScale } from './format.js';

/** Labels longer than this many characters are cut to their column's width (th.long): only
 *  those, since a clipped cell is a paint chunk of its own, placed again on every frame. */
const LONG_LABEL = 8;

/** @typedef {import('./view-types.js').MatrixLike} MatrixLike */
/** @typedef {import('./view-types.js').Translate} Translate */
/** A table cell as MatrixTable keeps it: apHidden (outside the window), apValue (the extra
 *  column's value as written).
 *  @typedef {HTMLTableCellElement & {apHidden?: boolean, apValue?: number}} Cell */
/** One row's elements: its <tr>, its cells, its extra cell (with o.extra).
 *  @typedef {{tr: HTMLTableRowElement, cells: Cell[], extra: Cell | null}} RowEls */
/**
 * A matrix view's options (MatrixTable's; Heatmap reads the same).
 * @typedef {object} MatrixOptions
 * @property {string} [name] the matrix's name (data-matrix)
 * @property {number} [head] its head (data-head)
 * @property {string} [caption]
 * @property {readonly string[]} [rowLabels]
 * @property {readonly string[]} [colLabels]
 * @property {string} [corner] the top-left cell's text
 * @property {boolean} [weight] attention weights: 0..1 in one hue
 * @property {number} [scale] the tint scale (default: from the values)
 * @property {(r: number, c: number) => void} [onSelect] a cell picked (click or keys)
 * @property {number} [digits] decimals shown
 * @property {{title: string, values: ArrayLike<number>, name: string}} [extra] one more column
 *   after the matrix, e.g. row sums; not part of the matrix
 * @property {number} [firstRow] the matrix holds rows firstRow.. of a larger one
 * @property {{cols?: number, rows?: number}} [window] a compact view of so many columns and rows
 * @property {Translate} [t] the translator (Heatmap; MatrixTable takes it in matrixBlock)
 * @property {boolean} [tokenRows] a row per token (matrixView: a heatmap above HEATMAP_ROWS)
 * @property {boolean} [selectOnMove] Heatmap: false when the arrow keys only move the cursor
 */

/** @param {Cell} th @param {string} text */
function writeLabel(th, text) {
  writeOnce(th, 'text', text);
  const long = [...text].length > LONG_LABEL;
  if (th.classList.contains('long') !== long) th.classList.toggle('long', long);
  writeOnce(th, 'title', long ? text : null);
}

/**
 * A matrix as a DOM table. Every cell carries data-matrix, data-head, data-row, data-col and
 * data-value (full precision), so tests and assistive tools read exactly what is shown.
 * update() refreshes it in place for the next trace: rows and columns added or removed at the
 * end, and only the cells whose value or tint changed are touched (typing stays within a frame).
 */
export class MatrixTable {
  /**
   * @param {MatrixLike} m {rows, cols, data}
   * @param {MatrixOptions} o firstRow: m holds rows firstRow.. of a larger matrix (data-row says
   *   so); not with onSelect.
   */
  constructor(m, o) {
    /** @type {MatrixLike} */
    this.m = { rows: 0, cols: 0, data: new Float32Array(0) };
    this.o = o;
    this.revealed = 0;
    /** @type {Record<'row' | 'col' | 'cell', Element[]>} the marked elements of each kind */
    this.marks = { row: [], col: [], cell: [] };
    const table = el('table', {
      class: `matrix${o.weight ? ' weights' : ''}${o.onSelect ? ' selectable' : ''}`,
    });
    if (o.caption) table.append(el('caption', { text: o.caption }));
    this.headRow = el('tr', {}, [
      el('th', { class: 'corner', text: o.corner || '', scope: 'col' }),
    ]);
    this.extraHead = o.extra
      ? el('th', { class: 'extra', text: o.extra.title, scope: 'col' })
      : null;
    if (this.extraHead) this.headRow.append(this.extraHead);
    this.tbody = el('tbody');
    table.append(el('thead', {}, [this.headRow]), this.tbody);
    this.table = table;
    /** @type {Cell[]} */
    this.colHeads = [];
    /** @type {Cell[]} */
    this.rowHeads = [];
    /** @type {RowEls[]} */
    this.rowEls = [];
    /** @type {Cell[]} */
    this.cells = [];
    /** per cell: [value, text, tint, scale, data-value] as written (update() writes only changes)
     *  @type {([number | undefined, string | null, string | null | undefined, number, number | undefined] | null)[]} */
    this.shown = [];
    this.firstRow = o.firstRow ?? 0;
    /** @type {HTMLElement | null} the "rows × cols" line, when matrixBlock shows the table */
    this.shapeEl = null;
    // compact: a window of o.window = {cols, rows} columns / rows is shown (the rest stay in the
    // table, hidden, with their data-*); moveWindow() slides it, setFull() shows everything
    this.win = o.window
      ? {
          c0: 0,
          r0: 0,
          cols: Math.min(o.window.cols ?? Infinity, phone() ? PHONE_COLS : Infinity),
          rows: o.window.rows ?? Infinity,
        }
      : null;
    this.full = false;
    /** @type {Set<Element>} */
    this.offEls = new Set();
    /** whether cells outside the window wait for their data-value (catchUp) */
    this.behind = false;
    /** @type {((t: MatrixTable) => void) | null} told when the window moves (matrixBlock's line) */
    this.onWindow = null;
    /** the cell in the tab order (makeSelectable) */
    this.active = 0;
    /** @type {HTMLTableCellElement | undefined} cell()'s detached spare */
    this.spare = undefined;
    /** the tint scale the cells are painted with */
    this.scale = 1;
    if (o.onSelect) this.makeSelectable();
    this.update(m, o);
  }

  /** Whether a window hides part of the matrix right now (false when all of it fits). */
  get cut() {
    return !!this.win && !this.full && (this.m.cols > this.winCols || this.m.rows > this.win.rows);
  }

  /** The columns the window shows: all of a row of up to UNCUT_COLS numbers, else its width. */
  get winCols() {
    return this.m.cols <= UNCUT_COLS ? this.m.cols : /** @type {{cols: number}} */ (this.win).cols;
  }

  /** Slides the window (if any) so that column c and row r are inside it.
   * @param {number} c @param {number} [r] */
  moveWindow(c, r = this.win ? this.win.r0 : 0) {
    if (!this.win) return;
    const w = this.win;
    /** @param {number} start @param {number} x @param {number} size @param {number} total */
    const fit = (start, x, size, total) => {
      if (x < start) start = x;
      else if (x >= start + size) start = x - size + 1;
      return Math.max(0, Math.min(start, Math.max(0, total - size)));
    };
    const c0 = fit(w.c0, Math.max(0, c), this.winCols, this.m.cols);
    const r0 = fit(w.r0, Math.max(0, r), w.rows, this.m.rows);
    if (c0 === w.c0 && r0 === w.r0) return;
    w.c0 = c0;
    w.r0 = r0;
    this.applyWindow();
  }

  /** @param {boolean} full */
  setFull(full) {
    this.full = full;
    this.applyWindow();
  }

  // hides (class "off") the cells, heads and extras outside the window; onWindow tells the block.
  // A cell that comes into the window gets the text and tint its value was waiting for (paintCell).
  applyWindow() {
    /** @type {Set<Element>} */
    const off = new Set();
    const cut = this.cut;
    const { c0, r0, rows } = this.win || { c0: 0, r0: 0, rows: 0 };
    const cols = this.win ? this.winCols : 0;
    const outC = (/** @type {number} */ c) => cut && (c < c0 || c >= c0 + cols);
    const outR = (/** @type {number} */ r) => cut && (r < r0 || r >= r0 + rows);
    if (cut) {
      this.colHeads.forEach((th, c) => {
        if (outC(c)) off.add(th);
      });
    }
    const mc = this.m.cols;
    this.rowEls.forEach((row, r) => {
      const rowOut = outR(r);
      if (rowOut) off.add(row.tr);
      row.cells.forEach((td, c) => {
        const hidden = rowOut || outC(c);
        if (!rowOut && hidden) off.add(td);
        if (td.apHidden === hidden) return;
        td.apHidden = hidden;
        const i = r * mc + c;
        if (!hidden && this.cells[i] === td) this.paintCell(i, this.m.data[i], this.scale);
      });
    });
    for (const e of this.offEls) if (!off.has(e)) e.classList.remove('off');
    for (const e of off) if (!this.offEls.has(e)) e.classList.add('off');
    this.offEls = off;
    this.table.classList.toggle('cut', cut);
    if (this.onWindow) this.onWindow(this);
  }

  /** The next trace's matrix (same meaning; the shape may differ). Labels and extra come from o.
   * @param {MatrixLike} m @param {MatrixOptions} [o] */
  update(m, o = this.o) {
    const prev = this.m;
    this.o = o;
    const scale = o.scale ?? (o.weight ? 1 : tintScale(maxAbsFinite(m.data)));
    const resized = prev.rows !== m.rows || prev.cols !== m.cols;
    // columns: header cells, then every kept row's cells
    while (this.colHeads.length > m.cols) this.colHeads.pop()?.remove();
    while (this.colHeads.length < m.cols) {
      const c = this.colHeads.length;
      const th = el('th', { scope: 'col', 'data-col': c });
      this.headRow.insertBefore(th, this.extraHead);
      this.colHeads.push(th);
    }
    this.colHeads.forEach((th, c) => writeLabel(th, o.colLabels ? o.colLabels[c] : String(c + 1)));
    while (this.rowEls.length > m.rows) this.rowEls.pop()?.tr.remove();
    this.rowHeads.length = this.rowEls.length;
    this.rowEls.forEach((row, r) => {
      while (row.cells.length > m.cols) row.cells.pop()?.remove();
      while (row.cells.length < m.cols)
        row.tr.insertBefore(this.newCell(r, row.cells.length), row.extra);
    });
    while (this.rowEls.length < m.rows) this.addRow(this.rowEls.length, m.cols);
    if ((o.firstRow ?? 0) !== this.firstRow) {
      this.firstRow = o.firstRow ?? 0;
      this.rowEls.forEach((row, r) => {
        for (const e of [this.rowHeads[r], ...row.cells, row.extra])
          if (e) e.dataset.row = String(this.firstRow + r);
      });
    }
    this.rowHeads.forEach((th, r) => writeLabel(th, o.rowLabels ? o.rowLabels[r] : String(r + 1)));
    if (resized) {
      if (this.shapeEl) this.shapeEl.textContent = `${m.rows} × ${m.cols}`;
      this.cells = this.rowEls.flatMap((row) => row.cells);
      const shown = new Array(m.rows * m.cols);
      for (let r = 0; r < m.rows; r++) {
        for (let c = 0; c < m.cols; c++)
          shown[r * m.cols + c] =
            r < prev.rows && c < prev.cols ? this.shown[r * prev.cols + c] : null;
      }
      this.shown = shown;
    }
    this.m = m;
    this.scale = scale;
    for (let i = 0; i < this.cells.length; i++) this.paintCell(i, m.data[i], scale);
    const extra = o.extra;
    if (extra) {
      this.rowEls.forEach((row, r) => {
        const x = extra.values[r];
        const td = /** @type {Cell} a table built with o.extra has the cell in every row */ (
          row.extra
        );
        if (Object.is(td.apValue, x)) return;
        td.apValue = x;
        td.dataset.value = String(x);
        td.textContent = fmt(x, 3);
      });
    }
    if (resized && this.win) this.applyWindow();
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

  /** @param {number} r @param {number} cols */
  addRow(r, cols) {
    const th = el('th', { scope: 'row', 'data-row': this.firstRow + r });
    const tr = el('tr', {}, [th]);
    /** @type {RowEls} */
    const row = { tr, cells: [], extra: null };
    this.rowEls.push(row);
    this.rowHeads.push(th);
    for (let c = 0; c < cols; c++) tr.append(this.newCell(r, c));
    if (this.o.extra) {
      row.extra = el('td', {
        class: 'extra',
        'data-matrix': this.o.extra.name,
        'data-head': this.o.head ?? '',
        'data-row': this.firstRow + r,
      });
      tr.append(row.extra);
    }
    this.tbody.append(tr);
  }

  /** a blank cell of row r, column c (painted by update); kept in rowEls
   * @param {number} r @param {number} c */
  newCell(r, c) {
    const td = document.createElement('td');
    // dataset writes convert to strings (an absent name is written "undefined", as before)
    td.dataset.matrix = String(this.o.name);
    td.dataset.head = String(this.o.head ?? '');
    td.dataset.row = String(this.firstRow + r);
    td.dataset.col = String(c);
    if (this.o.onSelect) td.setAttribute('tabindex', '-1');
    this.rowEls[r].cells.push(td);
    return td;
  }

  // writes only what changed: the value, the text, the tint (same value and scale: nothing).
  // shown[i] = [painted value, text, tint, scale, data-value], kept and rewritten in place. A cell
  // outside the compact window (apHidden, applyWindow) waits: nobody sees it, and a compact
  // 32 x 32 map has 640 of them per keystroke. It is painted when applyWindow shows it; its
  // data-value is written by catchUp(), which Later runs once refreshes pause (until then the page
  // says data-settled="0").
  /** @param {number} i @param {number} v @param {number} scale */
  paintCell(i, v, scale) {
    const td = this.cells[i];
    let s = this.shown[i];
    if (!s) s = this.shown[i] = [undefined, null, undefined, NaN, undefined];
    if (td.apHidden) {
      if (!Object.is(s[4], v)) this.behind = true;
      return;
    }
    if (!Object.is(s[4], v)) {
      td.dataset.value = String(v);
      s[4] = v;
    }
    if (Object.is(s[0], v) && s[3] === scale) return;
    const text = fmt(v, this.o.digits);
    const bg = v === -Infinity ? null : tint(v, scale, this.o.weight);
    if (s[1] !== text) td.textContent = text;
    if (s[2] !== bg) {
      td.classList.toggle('neg-inf', bg === null);
      td.style.backgroundColor = bg ?? '';
    }
    s[0] = v;
    s[1] = text;
    s[2] = bg;
    s[3] = scale;
  }

  /** Writes the data-value of the cells outside the compact window (paintCell left them). */
  catchUp() {
    const data = this.m.data;
    for (let i = 0; i < this.cells.length; i++) {
      const s = this.shown[i];
      if (s && !Object.is(s[4], data[i])) {
        this.cells[i].dataset.value = String(data[i]);
        s[4] = data[i];
      }
    }
    this.behind = false;
  }

  /** The cell at (r, c); a detached spare when (r, c) is outside (a view refreshed later).
   * @param {number} r @param {number} c @returns {HTMLTableCellElement} */
  cell(r, c) {
    if (r >= 0 && r < this.m.rows && c >= 0 && c < this.m.cols)
      return this.cells[r * this.m.cols + c];
    if (!this.spare) this.spare = document.createElement('td');
    return this.spare;
  }

  /** Show only the first `count` cells in row-major order (the rest are blank placeholders).
   * @param {number} count */
  reveal(count) {
    count = Math.max(0, Math.min(this.cells.length, count));
    const [lo, hi] = count < this.revealed ? [count, this.revealed] : [this.revealed, count];
    const hide = count < this.revealed;
    for (let i = lo; i < hi; i++) this.cells[i].classList.toggle('pending', hide);
    this.revealed = count;
  }

  /** Show the first `rows` rows. @param {number} rows */
  revealRows(rows) {
    this.reveal(rows * this.m.cols);
  }

  /** Highlight rows, columns and cells (replacing the previous marks of that kind).
   * @param {'row' | 'col' | 'cell'} kind @param {readonly (number | readonly number[])[]} list
   *   row and column indices, or [r, c] cells */
  mark(kind, list) {
    for (const e of this.marks[kind]) e.classList.remove(`mark-${kind}`);
    /** @type {Element[]} */
    const out = [];
    for (const x of list) {
      // a row or column index for 'row' and 'col', an [r, c] pair for 'cell'
      if (typeof x === 'number') {
        if (kind === 'row' && x >= 0 && x < this.m.rows) {
          out.push(this.rowHeads[x]);
          for (let c = 0; c < this.m.cols; c++) out.push(this.cell(x, c));
        } else if (kind === 'col' && x >= 0 && x < this.m.cols) {
          out.push(this.colHeads[x]);
          for (let r = 0; r < this.m.rows; r++) out.push(this.cell(r, x));
        }
      } else if (
        kind === 'cell' &&
        x[0] >= 0 &&
        x[0] < this.m.rows &&
        x[1] >= 0 &&
        x[1] < this.m.cols
      ) {
        out.push(this.cell(x[0], x[1]));
      }
    }
    for (const e of out) e.classList.add(`mark-${kind}`);
    this.marks[kind] = out;
  }

  // One cell is in the tab order; arrow keys move, Enter/Space/click select (a roving tabindex).
  makeSelectable() {
    this.active = 0; // new cells get tabindex -1 (newCell); update() gives the active one 0
    const onSelect = /** @type {(r: number, c: number) => void} only called with o.onSelect */ (
      this.o.onSelect
    );
    this.table.addEventListener('click', (/** @type {MouseEvent} */ ev) => {
      const td = /** @type {Element} */ (ev.target).closest('td');
      if (!td) return;
      this.focusCell(Number(td.dataset.row), Number(td.dataset.col), false);
      onSelect(Number(td.dataset.row), Number(td.dataset.col));
    });
    this.table.addEventListener('keydown', (/** @type {KeyboardEvent} */ ev) => {
      const td = /** @type {Element} */ (ev.target).closest('td');
      if (!td) return;
      let r = Number(td.dataset.row);
      let c = Number(td.dataset.col);
      /** @type {Record<string, [number, number]>} */
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      const move = moves[ev.key];
      if (move) {
        r = Math.min(this.m.rows - 1, Math.max(0, r + move[0]));
        c = Math.min(this.m.cols - 1, Math.max(0, c + move[1]));
        this.focusCell(r, c, true);
        onSelect(r, c);
      } else if (ev.key === 'Enter' || ev.key === ' ') {
        onSelect(r, c);
      } else return;
      ev.preventDefault();
      ev.stopPropagation();
    });
  }

  /** @param {number} r @param {number} c @param {boolean} focus */
  focusCell(r, c, focus) {
    const i = r * this.m.cols + c;
    this.cells[this.active]?.setAttribute('tabindex', '-1');
    this.active = i;
    this.cells[i].setAttribute('tabindex', '0');
    if (focus) this.cells[i].focus();
  }
}

/**
 * A labelled matrix block: title, shape line, orientation note, and the table in a scroller.
 * A compact table (MatrixTable with o.window) gets a line saying which part is shown and how much
 * more there is, and a button that shows the whole matrix (t: the translator, needed then).
 * @param {string} title
 * @param {string} shape
 * @param {MatrixTable | import('./heatmap.js').Heatmap} table
 * @param {string | null} [note]
 * @param {Translate} [t]
 */
export function matrixBlock(title, shape, table, note, t) {
  table.shapeEl = el('span', { class: 'mshape', text: shape }); // the view's update() rewrites it
  /** @type {HTMLElement | null} */
  let more = null;
  if (table instanceof MatrixTable && table.win && t) {
    const text = el('span', { class: 'mmore-text' });
    const btn = el('button', {
      class: 'action small mmore-btn',
      type: 'button',
      on: { click: () => table.setFull(!table.full) },
    });
    const line = el('p', { class: 'mmore' }, [text, ' ', btn]);
    more = line;
    table.onWindow = (tb) => {
      const { m } = tb;
      const win = /** @type {NonNullable<MatrixTable['win']>} */ (tb.win);
      const cols = tb.winCols;
      const hidden = tb.cut;
      line.hidden = !hidden && !tb.full;
      const parts = [];
      if (m.cols > cols)
        parts.push(
          t('matrix.cols', { a: win.c0 + 1, b: Math.min(m.cols, win.c0 + cols), n: m.cols }),
        );
      if (m.rows > win.rows)
        parts.push(
          t('matrix.rows', { a: win.r0 + 1, b: Math.min(m.rows, win.r0 + win.rows), n: m.rows }),
        );
      const moreN = m.rows * m.cols - Math.min(m.rows, win.rows) * Math.min(m.cols, cols);
      setText(
        text,
        hidden ? t('matrix.shown', { parts: parts.join(t('list.sep')), more: moreN }) : '',
      );
      setText(btn, t(tb.full ? 'matrix.fewer' : 'matrix.all', { n: m.rows * m.cols }));
      writeOnce(btn, 'aria-expanded', tb.full);
    };
    table.applyWindow();
  }
  return el('figure', { class: 'mblock' }, [
    el('figcaption', {}, [el('span', { class: 'mtitle', text: title }), table.shapeEl]),
    note ? el('p', { class: 'orient', text: note }) : null,
    el('div', { class: 'scroller', tabindex: '0', role: 'group', 'aria-label': title }, [
      table.table,
    ]),
    more, // under the table: the rows (where a step's cell is) start as high as without it
  ]);
}

/** A stage's whole result matrix (a matrixBlock) in a closed <details>, its title in the summary:
 *  the stage shows its one row first, and the matrix keeps its data-* cells one click away.
 * @param {Translate} t @param {HTMLElement} block @param {string} title */
export function wholeMatrix(t, block, title) {
  return el('details', { class: 'stage-inputs whole-matrix' }, [
    el('summary', { text: t('matrix.whole', { title }) }),
    el('div', { class: 'row-blocks' }, [block]),
  ]);
}

/** Key columns of an n × n matrix or a row strip shown before "… more" (a toggle shows all):
 *  12 fit a 1280 px window without sideways scrolling, 4 a phone's. */
export const keyCols = () => (phone() ? PHONE_COLS : 12);
/** A row of this many numbers or fewer is never cut to a window (it scrolls sideways instead):
 *  a sentence of up to 8 tokens shows every key, on a phone too. */
export const UNCUT_COLS = 8;
/** Columns a compact table shows on a phone (600 px wide or less), whatever it shows elsewhere. */
export const PHONE_COLS = 4;
/** Token rows an n × n map shows on a phone (a window that follows the followed token), so the
 *  step's cell and the operation under the map fit one screen; everywhere else, every row. */
export const keyRows = () => (phone() ? 10 : Infinity);
// one live query for the module (asking matchMedia anew on every call cost 0.1 ms a keystroke)
const PHONE = typeof matchMedia === 'function' ? matchMedia('(max-width: 600px)') : null;
const phone = () => !!PHONE && PHONE.matches;

/**
 * The compact view of a row strip (a small table with one column per key, label cells first):
 * the columns outside a window of `cols` are hidden (class "off"; their cells keep data-*), and a
 * line says which are shown and how many numbers more, with a button that shows them all.
 * `el` is that line; put it above the strip.
 */
export class StripWindow {
  /** t: the translator; values: numbers per column (rows of values, not of labels)
   * @param {Translate} t @param {number} [values] */
  constructor(t, values = 1) {
    this.t = t;
    this.values = values;
    this.cols = keyCols();
    this.full = false;
    this.c0 = 0;
    /** @type {HTMLElement[]} */
    this.rows = [];
    this.skip = 0;
    this.n = 0;
    this.text = el('span', { class: 'mmore-text' });
    this.btn = el('button', {
      class: 'action small mmore-btn',
      type: 'button',
      on: {
        click: () => {
          this.full = !this.full;
          this.apply();
        },
      },
    });
    this.el = el('p', { class: 'mmore' }, [this.text, ' ', this.btn]);
  }

  /** rows: the strip's <tr>s, each with `skip` label cells first, then n key cells; the window
   *  slides (least) to keep column `focus` inside it.
   * @param {HTMLElement[]} rows @param {number} skip @param {number} n @param {number} [focus] */
  set(rows, skip, n, focus = 0) {
    this.rows = rows;
    this.skip = skip;
    this.n = n;
    const c = n <= UNCUT_COLS ? n : this.cols;
    if (focus < this.c0) this.c0 = focus;
    else if (focus >= this.c0 + c) this.c0 = focus - c + 1;
    this.c0 = Math.max(0, Math.min(this.c0, n - c));
    this.apply();
  }

  apply() {
    const { n, c0, t } = this;
    const cols = n <= UNCUT_COLS ? n : this.cols;
    const cut = !this.full && n > cols;
    for (const tr of this.rows) {
      for (let j = 0; j < n; j++) {
        const cell = /** @type {any} */ (tr.children[j + this.skip]);
        if (!cell) continue;
        const off = cut && (j < c0 || j >= c0 + cols);
        if (cell.apOff !== off) {
          cell.apOff = off;
          cell.classList.toggle('off', off);
        }
      }
    }
    this.el.hidden = n <= cols;
    setText(
      this.text,
      cut
        ? t('matrix.shown', {
            parts: t('matrix.cols', { a: c0 + 1, b: Math.min(n, c0 + cols), n }),
            more: (n - cols) * this.values,
          })
        : '',
    );
    setText(this.btn, t(this.full ? 'matrix.fewer' : 'matrix.all', { n: n * this.values }));
    writeOnce(this.btn, 'aria-expanded', this.full);
  }
}
