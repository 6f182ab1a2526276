// close.mjs: a matrix from the WebAssembly module compared with reference rows (the native CLI's
// JSON, NumPy's). Shared by the Node tests of both modules; not a test itself.
import assert from 'node:assert/strict';

/**
 * JSON rows (null = -inf) against {rows, cols, data}, within tol of the matrix's largest entry:
 * a dot product's rounding error scales with the size of its terms, not of its sum (a score near
 * 0 made of terms near 20 carries their error), so the scale is the matrix's largest entry.
 */
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
          `${name}[${r}][${c}]: wasm ${got} vs reference ${want}`,
        );
    }
  }
}
