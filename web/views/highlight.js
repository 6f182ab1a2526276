// highlight.js: the cells a teaching panel names (['Q', 'K'] or {matrix, head, row, col}) lit up
// in the walkthrough, going to the stage that shows the matrix when none is on screen. Not a view
// of its own: it only sets the panel-hl class on cells the stage views drew.

/** Cells a panel names: one matrix's (by the trace's field name), narrowed to a head, row or
 *  column when given.
 *  @typedef {{matrix: string, head?: number, row?: number, col?: number}} CellTarget */
/** What a panel asks to light up: whole matrices by name, or one CellTarget (null: nothing).
 *  @typedef {string[] | CellTarget | null | undefined} CellSpec */

/** which stage shows a matrix, for panels that ask to highlight one
 *  @type {Record<string, number>} */
const MATRIX_STAGE = {
  X: 1,
  W_Q: 2,
  W_K: 2,
  W_V: 2,
  Q: 2,
  K: 2,
  V: 2,
  scores: 3,
  scaled: 4,
  masked: 5,
  weights: 6,
  head_output: 7,
  concat: 8,
  W_O: 8,
  output: 8,
};

/** Lights up the cells `spec` names under `root`; gotoStage(index) shows a stage (the player's).
 * @param {ParentNode} root @param {CellSpec} spec @param {(stage: number) => void} gotoStage */
export function highlightCells(root, spec, gotoStage) {
  for (const e of root.querySelectorAll('.panel-hl')) e.classList.remove('panel-hl');
  /** @type {CellTarget[]} */
  const specs = Array.isArray(spec)
    ? spec.map((m) => ({ matrix: m }))
    : spec && spec.matrix
      ? [spec]
      : [];
  for (const one of specs) {
    let sel = `#walkthrough [data-matrix="${CSS.escape(String(one.matrix))}"]`;
    for (const k of /** @type {const} */ (['head', 'row', 'col']))
      if (one[k] != null) sel += `[data-${k}="${CSS.escape(String(one[k]))}"]`;
    let found = root.querySelectorAll(sel);
    if (!found.length && !Array.isArray(spec) && one.matrix in MATRIX_STAGE) {
      gotoStage(MATRIX_STAGE[one.matrix]);
      found = root.querySelectorAll(sel);
    }
    for (const e of found) e.classList.add('panel-hl');
  }
}
