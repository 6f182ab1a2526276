// real-helpers.mjs: what the tests of attention-real (real-model.test.mjs, converted.test.mjs)
// both need: a matrix compared with the CLI's JSON rows, and the module with its heap buffers
// counted. Not a test itself.
import assert from 'node:assert/strict';

/** JSON rows (null = -inf) against {rows, cols, data}, within tol of the matrix's largest entry. */
export function assertClose(name, rows, m, tol = 1e-5) {
  assert.equal(m.rows, rows.length, `${name} rows`);
  let big = 1;
  for (const r of rows) for (const v of r) if (v !== null) big = Math.max(big, Math.abs(v));
  for (let r = 0; r < m.rows; r++) {
    assert.equal(rows[r].length, m.cols, `${name} cols`);
    for (let c = 0; c < m.cols; c++) {
      const want = rows[r][c];
      const got = m.data[r * m.cols + c];
      if (want === null) assert.equal(got, -Infinity, `${name}[${r}][${c}] should be masked`);
      else
        assert.ok(
          Math.abs(got - want) <= tol * big,
          `${name}[${r}][${c}]: wasm ${got} vs CLI ${want}`,
        );
    }
  }
}

/**
 * `m` with its buffers counted: outstanding() is those _malloc gave that were neither freed with
 * _free nor handed to loadRealModel or loadConvertedModel (which own the one they are given).
 * @param {any} m
 */
export function counted(m) {
  const live = new Set();
  const spy = Object.create(m);
  spy._malloc = (/** @type {number} */ n) => {
    const p = m._malloc(n);
    if (p) live.add(p);
    return p;
  };
  spy._free = (/** @type {number} */ p) => {
    live.delete(p);
    m._free(p);
  };
  spy.loadRealModel = (/** @type {any} */ files) => {
    live.delete(files.weightsPtr);
    return m.loadRealModel(files);
  };
  spy.loadConvertedModel = (/** @type {any} */ file) => {
    live.delete(file.bytesPtr);
    return m.loadConvertedModel(file);
  };
  return { spy, outstanding: () => live.size };
}
