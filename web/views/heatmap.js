// heatmap.js: a large matrix (many tokens) drawn on a canvas, one block of pixels per cell, with
// the focus row as real cells (values and data-*), a readout of any cell under the pointer or the
// keyboard cursor, zoom, and every value as a table on demand, a page of rows at a time.
// It has MatrixTable's interface (table, reveal, revealRows, mark, cell), so a stage picks either
// with matrixView(). Drawing only: the numbers are shown as given, never computed here.
import { el, setText } from './dom.js';
import { fmt, maxAbsFinite } from './format.js';
import { MatrixTable, keyCols } from './matrix-table.js';

/** Above this many tokens a matrix with a row per token (o.tokenRows) is drawn as a heatmap, and
 *  so is any matrix this many rows and columns (d_model 64 x d_k 64 weights). Above it a table is
 *  not read as numbers any more, and rewriting thousands of cells per keystroke costs frames. */
export const HEATMAP_ROWS = 48;
/** Any matrix with more cells than this is a heatmap too (512 tokens x d_model 32). */
export const HEATMAP_CELLS = 8192;
const PAGE_ROWS = 16;

/** @typedef {import('../../types/index.js').Matrix} Matrix */
/** @typedef {import('./matrix-table.js').MatrixOptions} MatrixOptions */
/** A view matrixView made, refreshed in place (refreshViews).
 *  @typedef {MatrixTable | Heatmap} MatrixView */
/** matrixView's arguments. @typedef {[Matrix, MatrixOptions]} ViewArgs */
/** A view and matrixView's arguments for its next matrix.
 *  @typedef {[MatrixView | null | undefined, ViewArgs]} ViewPair */

/** Whether matrixView draws m as a heatmap. @param {Matrix} m @param {MatrixOptions} [o] */
export function useHeatmap(m, o = {}) {
  return (
    (m.rows > HEATMAP_ROWS && (o.tokenRows || m.cols > HEATMAP_ROWS)) ||
    m.rows * m.cols > HEATMAP_CELLS
  );
}

/** A MatrixTable for small matrices, a Heatmap for large ones. o: MatrixTable's options + t,
 *  tokenRows (a row per token).
 * @param {Matrix} m @param {MatrixOptions} o @returns {MatrixView} */
export function matrixView(m, o) {
  return useHeatmap(m, o) ? new Heatmap(m, o) : new MatrixTable(m, o);
}

/**
 * matrixView's arguments for one head's n × n map of a trace (row = query i, column = key j): its
 * matrix `name` with the tokens on both sides and a window of keyCols() key columns. `more` adds
 * to those options or replaces them (weight, extra, a window with rows, onSelect).
 * @param {import('./view-types.js').Translate} t
 * @param {import('../../types/index.js').Trace} result
 * @param {number} head
 * @param {'scores' | 'scaled' | 'masked' | 'weights'} name
 * @param {MatrixOptions} [more]
 * @returns {[Matrix, MatrixOptions]}
 */
export function tokenMapView(t, result, head, name, more = {}) {
  const labels = result.tokens;
  return [
    result.heads[head][name],
    {
      t,
      name,
      head,
      tokenRows: true,
      rowLabels: labels,
      colLabels: labels,
      corner: 'q \\ k',
      window: { cols: keyCols() },
      ...more,
    },
  ];
}

/** The steps of a stage that walks a map row by row (one per query) and then comes back to the
 *  followed row: n + 1.
 * @param {import('./view-types.js').StageModel} model */
export function rowSteps(model) {
  return model.result.config.n + 1;
}

/**
 * Refreshes views in place for the next trace: pairs of [view, [m, o]] (what matrixView took);
 * views out of sight are refreshed a little later (later.js).
 * All or nothing: false, with nothing touched, when a matrix now needs the other kind of view
 * (it crossed the heatmap size) and the stage must be drawn anew.
 */
/**
 * A stage's update(model): its views refreshed in place and `model` kept, or false with nothing
 * touched (the stage is then drawn anew) when what its structure depends on, shape(model) (e.g.
 * [head, causal]), differs from the drawn model's, or a view must change kind.
 * pairs(model): the [view, [m, o]] pairs for refreshViews.
 * @template M
 * @param {{model: M, ctx: {later: import('./later.js').Later}}} stage
 * @param {M} model
 * @param {(model: M) => unknown} shape
 * @param {(model: M) => ViewPair[]} pairs
 */
export function refreshStage(stage, model, shape, pairs) {
  if (String(shape(model)) !== String(shape(stage.model))) return false;
  if (!refreshViews(pairs(model), stage.ctx.later)) return false;
  stage.model = model;
  return true;
}

/** @param {ViewPair[]} pairs @param {import('./later.js').Later} later */
export function refreshViews(pairs, later) {
  if (pairs.some(([v, [m, o]]) => !v || useHeatmap(m, o) !== v instanceof Heatmap)) return false;
  // every view is there (checked above)
  for (const [v, [m, o]] of pairs) later.refresh(/** @type {MatrixView} */ (v), m, o);
  return true;
}

// cell colours as bytes, written at px[i..i+3]: the same hues as util.tint, stronger because no
// text sits on them
/** @param {Uint8ClampedArray} px @param {number} i @param {number} v @param {number} scale
 *  @param {boolean | undefined} weight */
function rgbInto(px, i, v, scale, weight) {
  if (v === -Infinity) {
    px[i] = 110;
    px[i + 1] = 117;
    px[i + 2] = 130;
    px[i + 3] = 255;
    return;
  } // masked: mid grey
  if (!Number.isFinite(v)) {
    px[i] = 0;
    px[i + 1] = 0;
    px[i + 2] = 0;
    px[i + 3] = 255;
    return;
  }
  const a = 0.04 + 0.9 * Math.min(1, Math.abs(v) / scale);
  const c = weight ? HUE_WEIGHT : v >= 0 ? HUE_POS : HUE_NEG;
  px[i] = Math.round(255 + (c[0] - 255) * a);
  px[i + 1] = Math.round(255 + (c[1] - 255) * a);
  px[i + 2] = Math.round(255 + (c[2] - 255) * a);
  px[i + 3] = 255;
}
/** Paints an attention-weights matrix (n × n, each in [0, 1]) into `canvas`, one pixel per cell
 *  (CSS scales it); masked cells grey, as in the stages' heatmaps.
 * @param {HTMLCanvasElement} canvas @param {Matrix} m */
export function paintWeights(canvas, m) {
  canvas.width = Math.max(1, m.cols);
  canvas.height = Math.max(1, m.rows);
  const g = canvas.getContext('2d');
  if (!g) return;
  const img = g.createImageData(canvas.width, canvas.height);
  for (let i = 0; i < m.rows * m.cols; i++) rgbInto(img.data, 4 * i, m.data[i], 1, true);
  g.putImageData(img, 0, 0);
}
const HUE_WEIGHT = [22, 120, 60];
const HUE_POS = [29, 78, 216];
const HUE_NEG = [194, 65, 12];
const PENDING = [236, 238, 242];

export class Heatmap {
  /** @param {Matrix} m {rows, cols, data}  @param {MatrixOptions} o see MatrixTable, plus t */
  constructor(m, o) {
    this.m = m;
    this.o = o;
    /** @type {HTMLElement | null} the "rows × cols" line, when matrixBlock shows the view */
    this.shapeEl = null;
    /** @type {import('./view-types.js').Translate} */
    const t = o.t || ((k) => k);
    this.t = t;
    this.revealed = m.rows * m.cols;
    /** @type {{row: number[], col: number[], cell: [number, number][]}} at most one of each */
    this.marks = { row: [], col: [], cell: [] };
    this.scale = maxAbsFinite(m.data);
    this.zoom = Math.max(1, Math.min(12, Math.floor(1024 / Math.max(m.rows, m.cols))));
    this.cursor = [0, 0];
    this.stripRow = -1;

    this.canvas = el('canvas', {
      class: 'heatmap-canvas',
      width: m.cols,
      height: m.rows,
      tabindex: '0',
      role: 'img',
      'aria-label': t('heat.label', { name: o.name, rows: m.rows, cols: m.cols }),
    });
    this.ctx2d = /** @type {CanvasRenderingContext2D} a new canvas has its 2d context */ (
      this.canvas.getContext('2d')
    );
    /** @type {ImageData} the matrix as pixels */
    this.full = /** @type {any} set by images() */ (null);
    /** @type {ImageData} the not-yet-revealed look */
    this.blank = /** @type {any} set by images() */ (null);
    this.images(m);
    this.ctx2d.putImageData(this.full, 0, 0);
    this.boxes = {
      row: el('div', { class: 'heatmap-mark heatmap-row' }),
      col: el('div', { class: 'heatmap-mark heatmap-col' }),
      cell: el('div', { class: 'heatmap-mark heatmap-cell' }),
      cursor: el('div', { class: 'heatmap-mark heatmap-cursor' }),
    };
    for (const b of Object.values(this.boxes)) b.hidden = true;
    this.plane = el('div', { class: 'heatmap-plane' }, [this.canvas, ...Object.values(this.boxes)]);
    this.readout = el('p', { class: 'heatmap-readout', 'aria-live': 'polite' });
    this.zoomText = el('span', { class: 'heatmap-zoom' });
    /** @param {string} key @param {string} text @param {number} d */
    const zbtn = (key, text, d) =>
      el('button', {
        class: 'action small',
        text,
        type: 'button',
        'aria-label': t(key),
        title: t(key),
        on: { click: () => this.setZoom(this.zoom * (d > 0 ? 2 : 0.5)) },
      });
    this.legend = el('p', {
      class: 'hint heatmap-legend',
      text: t(o.weight ? 'heat.legendWeight' : 'heat.legend', { max: fmt(this.scale, 3) }),
    });
    this.strip = el('div', { class: 'heatmap-strip' });
    this.pageBox = el('div', { class: 'heatmap-page' });
    this.details = el('details', { class: 'heatmap-table' }, [
      el('summary', { text: t('heat.table') }),
      this.pageBox,
    ]);
    this.page = -1;
    /** @type {MatrixTable | null} the focus row's table */
    this.stripTable = null;
    /** @type {HTMLTableCellElement[] | null} its cells */
    this.stripCells = null;
    /** @type {HTMLElement} its title (showStrip) */
    this.stripTitle = el('p');
    /** @type {HTMLElement} its scroller (showStrip) */
    this.stripBox = el('div');
    /** @type {HTMLTableCellElement | undefined} cell()'s detached spare */
    this.spare = undefined;
    this.details.addEventListener('toggle', () => {
      if (this.details.open && this.page < 0) this.showPage(0);
    });
    this.table = el(
      'div',
      { class: 'heatmap', 'data-matrix-view': 'heatmap', 'data-heatmap': o.name },
      [
        this.legend,
        el('div', { class: 'heatmap-tools' }, [
          zbtn('heat.zoomOut', '−', -1),
          this.zoomText,
          zbtn('heat.zoomIn', '+', 1),
        ]),
        el('div', { class: 'heatmap-wrap' }, [this.plane]),
        this.readout,
        this.strip,
        this.details,
      ],
    );
    this.listen();
    this.setZoom(this.zoom);
    this.showStrip(0);
    this.read(0, 0);
  }

  // the matrix as pixels (full) and the not-yet-revealed look (blank); the buffers are kept
  // while the size stays
  /** @param {Matrix} m */
  images(m) {
    const { o } = this;
    if (!this.full || this.full.width !== m.cols || this.full.height !== m.rows) {
      this.full = this.ctx2d.createImageData(m.cols, m.rows);
      this.blank = this.ctx2d.createImageData(m.cols, m.rows);
      const blank = this.blank.data;
      for (let i = 0; i < blank.length; i += 4) {
        blank[i] = PENDING[0];
        blank[i + 1] = PENDING[1];
        blank[i + 2] = PENDING[2];
        blank[i + 3] = 255;
      }
    }
    const full = this.full.data;
    for (let i = 0; i < m.rows * m.cols; i++)
      rgbInto(full, 4 * i, m.data[i], this.scale, o.weight && m.data[i] !== -Infinity);
  }

  /** The next trace's matrix (same meaning; the shape may differ): redrawn in place; marks,
   *  zoom and cursor kept (clamped to the new size); the focus strip and an open page of the
   *  table rewritten.
   * @param {Matrix} m @param {MatrixOptions} [o] */
  update(m, o = this.o) {
    const total = this.m.rows * this.m.cols;
    const full = this.revealed >= total;
    const resized = m.rows !== this.m.rows || m.cols !== this.m.cols;
    this.m = m;
    this.o = o;
    this.scale = maxAbsFinite(m.data);
    if (resized) {
      if (this.shapeEl) this.shapeEl.textContent = `${m.rows} × ${m.cols}`;
      this.canvas.width = m.cols;
      this.canvas.height = m.rows;
      this.canvas.setAttribute(
        'aria-label',
        this.t('heat.label', { name: o.name, rows: m.rows, cols: m.cols }),
      );
    }
    this.images(m);
    this.revealed = full ? m.rows * m.cols : Math.min(this.revealed, m.rows * m.cols);
    this.ctx2d.putImageData(this.full, 0, 0);
    if (this.revealed < m.rows * m.cols) this.paint(this.revealed, m.rows * m.cols, this.blank);
    setText(
      this.legend,
      this.t(o.weight ? 'heat.legendWeight' : 'heat.legend', { max: fmt(this.scale, 3) }),
    );
    this.cursor = [Math.min(this.cursor[0], m.rows - 1), Math.min(this.cursor[1], m.cols - 1)];
    this.marks.row = this.marks.row.filter((r) => r < m.rows);
    this.marks.col = this.marks.col.filter((c) => c < m.cols);
    this.marks.cell = this.marks.cell.filter(([r, c]) => r < m.rows && c < m.cols);
    const strip = this.marks.row.length
      ? this.marks.row[0]
      : Math.min(Math.max(0, this.stripRow), m.rows - 1);
    this.stripRow = -1;
    this.showStrip(strip);
    if (resized) this.setZoom(this.zoom);
    else this.placeBoxes();
    this.read(this.cursor[0], this.cursor[1]);
    if (this.details.open) this.showPage(this.page);
    else this.page = -1;
    return this;
  }

  /** @param {number} z */
  setZoom(z) {
    this.zoom = Math.max(1, Math.min(16, Math.round(z)));
    const { rows, cols } = this.m;
    this.canvas.style.width = `${cols * this.zoom}px`;
    this.canvas.style.height = `${rows * this.zoom}px`;
    this.plane.style.width = `${cols * this.zoom}px`;
    this.zoomText.textContent = this.t('heat.zoom', { px: this.zoom });
    this.placeBoxes();
  }

  listen() {
    /** @param {MouseEvent} ev @returns {[number, number]} */
    const at = (ev) => {
      const r = Math.floor(ev.offsetY / this.zoom);
      const c = Math.floor(ev.offsetX / this.zoom);
      return [Math.min(this.m.rows - 1, Math.max(0, r)), Math.min(this.m.cols - 1, Math.max(0, c))];
    };
    this.canvas.addEventListener('pointermove', (/** @type {PointerEvent} */ ev) => {
      const [r, c] = at(ev);
      this.read(r, c);
    });
    this.canvas.addEventListener('click', (/** @type {MouseEvent} */ ev) => {
      const [r, c] = at(ev);
      this.moveCursor(r, c);
      if (this.o.onSelect) this.o.onSelect(r, c);
    });
    this.canvas.addEventListener('focus', () => this.moveCursor(this.cursor[0], this.cursor[1]));
    this.canvas.addEventListener('blur', () => {
      this.boxes.cursor.hidden = true;
    });
    this.canvas.addEventListener('keydown', (/** @type {KeyboardEvent} */ ev) => {
      let [r, c] = this.cursor;
      const big = 8;
      /** @type {Record<string, [number, number]>} */
      const moves = {
        ArrowUp: [-1, 0],
        ArrowDown: [1, 0],
        ArrowLeft: [0, -1],
        ArrowRight: [0, 1],
        PageUp: [-big, 0],
        PageDown: [big, 0],
      };
      if (moves[ev.key]) {
        r += moves[ev.key][0];
        c += moves[ev.key][1];
      } else if (ev.key === 'Home') c = 0;
      else if (ev.key === 'End') c = this.m.cols - 1;
      else if (ev.key === 'Enter' || ev.key === ' ') {
        if (this.o.onSelect) this.o.onSelect(r, c);
      } else return;
      ev.preventDefault();
      ev.stopPropagation();
      r = Math.min(this.m.rows - 1, Math.max(0, r));
      c = Math.min(this.m.cols - 1, Math.max(0, c));
      this.moveCursor(r, c);
      if (moves[ev.key] && this.o.onSelect && this.o.selectOnMove !== false) this.o.onSelect(r, c);
    });
  }

  /** @param {number} r @param {number} c */
  moveCursor(r, c) {
    this.cursor = [r, c];
    this.boxes.cursor.hidden = false;
    this.place(this.boxes.cursor, r, c, 1, 1);
    this.read(r, c);
    const wrap = this.plane.parentElement;
    if (wrap && document.activeElement === this.canvas) {
      const x = c * this.zoom;
      const y = r * this.zoom;
      if (x < wrap.scrollLeft || x > wrap.scrollLeft + wrap.clientWidth - this.zoom)
        wrap.scrollLeft = x - wrap.clientWidth / 2;
      if (y < wrap.scrollTop || y > wrap.scrollTop + wrap.clientHeight - this.zoom)
        wrap.scrollTop = y - wrap.clientHeight / 2;
    }
  }

  /** @param {readonly string[] | undefined} list @param {number} i */
  label(list, i) {
    return list ? list[i] : String(i + 1);
  }

  /** The readout: which cell, its labels and its value (and the row's extra value, e.g. the sum).
   * @param {number} r @param {number} c */
  read(r, c) {
    const o = this.o;
    const v = this.m.data[r * this.m.cols + c];
    const extra = o.extra ? ` · ${o.extra.title} = ${fmt(o.extra.values[r], 3)}` : '';
    this.readout.textContent =
      this.t('heat.cell', {
        i: r + 1,
        j: c + 1,
        row: this.label(o.rowLabels, r),
        col: this.label(o.colLabels, c),
        v: fmt(v, 3),
      }) + extra;
  }

  /** @param {HTMLElement} box @param {number} r @param {number} c @param {number} h
   *  @param {number} w */
  place(box, r, c, h, w) {
    box.style.top = `${r * this.zoom}px`;
    box.style.left = `${c * this.zoom}px`;
    box.style.width = `${Math.max(2, w * this.zoom)}px`;
    box.style.height = `${Math.max(2, h * this.zoom)}px`;
  }

  placeBoxes() {
    const { rows, cols } = this.m;
    const [r] = this.marks.row;
    const [c] = this.marks.col;
    const [cell] = this.marks.cell;
    this.boxes.row.hidden = r == null;
    if (r != null) this.place(this.boxes.row, r, 0, 1, cols);
    this.boxes.col.hidden = c == null;
    if (c != null) this.place(this.boxes.col, 0, c, rows, 1);
    this.boxes.cell.hidden = cell == null;
    if (cell) this.place(this.boxes.cell, cell[0], cell[1], 1, 1);
    if (!this.boxes.cursor.hidden)
      this.place(this.boxes.cursor, this.cursor[0], this.cursor[1], 1, 1);
  }

  /** paint cells [lo, hi) (row-major) from `src`
   * @param {number} lo @param {number} hi @param {ImageData} src */
  paint(lo, hi, src) {
    const cols = this.m.cols;
    while (lo < hi) {
      const r = Math.floor(lo / cols);
      const c = lo % cols;
      if (c === 0 && hi - lo >= cols) {
        const rowsWhole = Math.floor((hi - lo) / cols);
        this.ctx2d.putImageData(src, 0, 0, 0, r, cols, rowsWhole);
        lo += rowsWhole * cols;
      } else {
        const w = Math.min(cols - c, hi - lo);
        this.ctx2d.putImageData(src, 0, 0, c, r, w, 1);
        lo += w;
      }
    }
  }

  /** Show only the first `count` cells in row-major order (the rest are blank).
   * @param {number} count */
  reveal(count) {
    const total = this.m.rows * this.m.cols;
    count = Math.max(0, Math.min(total, count));
    if (count < this.revealed) this.paint(count, this.revealed, this.blank);
    else if (count > this.revealed) this.paint(this.revealed, count, this.full);
    this.revealed = count;
    this.pendStrip();
  }

  /** @param {number} rows */
  revealRows(rows) {
    this.reveal(rows * this.m.cols);
  }

  /** MatrixTable's compact window: a heatmap always shows the whole matrix, so nothing moves.
   *  @param {number} _c  @param {number} [_r] */
  moveWindow(_c, _r) {}

  /** Marks: one row, one column or one cell is outlined; the focus row's cells are shown as DOM.
   * @param {'row' | 'col' | 'cell'} kind @param {readonly (number | readonly number[])[]} list
   *   row and column indices, or [r, c] cells */
  mark(kind, list) {
    if (kind === 'cell') {
      const ok = /** @type {[number, number][]} a cell mark is a list of [r, c] */ (
        list.filter(
          (x) =>
            typeof x !== 'number' &&
            x[0] >= 0 &&
            x[0] < this.m.rows &&
            x[1] >= 0 &&
            x[1] < this.m.cols,
        )
      );
      this.marks.cell = ok.slice(0, 1);
      this.placeBoxes();
      if (ok.length && !this.marks.row.length) this.showStrip(ok[0][0]);
      for (const td of this.stripCells || []) td.classList.remove('mark-cell');
      if (ok.length && ok[0][0] === this.stripRow && this.stripCells)
        this.stripCells[ok[0][1]].classList.add('mark-cell');
      return;
    }
    const ok = /** @type {number[]} a row or column mark is a list of indices */ (
      list.filter(
        (x) => typeof x === 'number' && x >= 0 && x < this.m[kind === 'col' ? 'cols' : 'rows'],
      )
    );
    this.marks[kind] = ok.slice(0, 1);
    this.placeBoxes();
    if (kind === 'row' && ok.length) this.showStrip(ok[0]);
    for (const td of this.stripCells || []) td.classList.remove('mark-cell');
  }

  /** The DOM cell of (r, c) when it is in the focus row; a detached cell otherwise.
   * @param {number} r @param {number} c @returns {HTMLTableCellElement} */
  cell(r, c) {
    if (r === this.stripRow && this.stripCells?.[c]) return this.stripCells[c];
    if (!this.spare) this.spare = document.createElement('td');
    return this.spare;
  }

  /** the focus row as a one-row table of real cells (a MatrixTable of that row, kept and refreshed)
   * @param {number} r */
  showStrip(r) {
    if (r === this.stripRow) return;
    this.stripRow = r;
    const { m, o } = this;
    const row = { rows: 1, cols: m.cols, data: m.data.subarray(r * m.cols, (r + 1) * m.cols) };
    /** @type {MatrixOptions} */
    const so = {
      name: o.name,
      head: o.head,
      colLabels: o.colLabels,
      corner: o.corner,
      weight: o.weight,
      digits: o.digits,
      rowLabels: [this.label(o.rowLabels, r)],
      firstRow: r,
      scale: o.scale ?? (o.weight ? 1 : this.scale),
      extra: o.extra ? { ...o.extra, values: [o.extra.values[r]] } : undefined,
    };
    const title = this.t('heat.row', { i: r + 1, row: this.label(o.rowLabels, r) });
    if (this.stripTable && !o.extra === !this.stripTable.o.extra) {
      this.stripTable.update(row, so);
      this.stripTitle.textContent = title;
      this.stripBox.setAttribute('aria-label', title);
    } else {
      this.stripTable = new MatrixTable(row, so);
      if (o.onSelect) {
        this.stripTable.table.classList.add('selectable');
        this.stripTable.table.addEventListener('click', (/** @type {MouseEvent} */ ev) => {
          const td = /** @type {Element} */ (ev.target).closest('td[data-col]');
          if (td instanceof HTMLElement && this.o.onSelect) {
            this.moveCursor(this.stripRow, Number(td.dataset.col));
            this.o.onSelect(this.stripRow, Number(td.dataset.col));
          }
        });
      }
      this.stripTitle = el('p', { class: 'heatmap-strip-title', text: title });
      this.stripBox = el(
        'div',
        { class: 'scroller', tabindex: '0', role: 'group', 'aria-label': title },
        [this.stripTable.table],
      );
      this.strip.replaceChildren(this.stripTitle, this.stripBox);
    }
    this.stripCells = this.stripTable.cells;
    this.pendStrip();
  }

  pendStrip() {
    if (!this.stripCells) return;
    const base = this.stripRow * this.m.cols;
    this.stripCells.forEach((td, c) => td.classList.toggle('pending', base + c >= this.revealed));
  }

  /** every value as a table, PAGE_ROWS rows at a time (a 512 x 512 table at once would be 262,144
   *  cells) @param {number} p */
  showPage(p) {
    const { m, o, t } = this;
    const pages = Math.ceil(m.rows / PAGE_ROWS);
    this.page = Math.max(0, Math.min(pages - 1, p));
    const lo = this.page * PAGE_ROWS;
    const hi = Math.min(m.rows, lo + PAGE_ROWS);
    const page = new MatrixTable(
      { rows: hi - lo, cols: m.cols, data: m.data.subarray(lo * m.cols, hi * m.cols) },
      {
        name: o.name,
        head: o.head,
        colLabels: o.colLabels,
        corner: o.corner,
        weight: o.weight,
        digits: o.digits,
        rowLabels: Array.from({ length: hi - lo }, (_, i) => this.label(o.rowLabels, lo + i)),
        firstRow: lo,
        scale: o.scale ?? (o.weight ? 1 : this.scale),
        caption: t('heat.label', { name: o.name, rows: m.rows, cols: m.cols }),
      },
    );
    /** @param {string} key @param {number} d @param {boolean} disabled */
    const nav = (key, d, disabled) =>
      el('button', {
        class: 'action small',
        text: t(key),
        type: 'button',
        ...(disabled ? { disabled: '' } : {}),
        on: {
          click: () => {
            this.showPage(this.page + d);
            this.pageBox.querySelector('button:not([disabled])')?.focus();
          },
        },
      });
    this.pageBox.replaceChildren(
      el('div', { class: 'heatmap-tools' }, [
        nav('heat.prev', -1, this.page === 0),
        el('span', { text: t('heat.rows', { a: lo + 1, b: hi, n: m.rows }) }),
        nav('heat.next', 1, this.page === pages - 1),
      ]),
      el(
        'div',
        {
          class: 'scroller',
          tabindex: '0',
          role: 'group',
          'aria-label': t('heat.rows', { a: lo + 1, b: hi, n: m.rows }),
        },
        [page.table],
      ),
    );
  }
}
