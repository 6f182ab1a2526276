// gemm.test.mjs: the WebAssembly module's SIMD128 matrix products (src/core/gemm.cpp) against
// Eigen inside the same module, against their portable scalar twin (bit for bit) and against a
// float64 JS loop, on ragged shapes. Not the attention passes (module.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreNode } from '../../web/core.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// the matrix-product paths are bench-and-test exports: only attention-test (build/wasm) has them
const core = await loadCoreNode(path.join(root, 'build/wasm'), 'attention-test');
const mod = core.module;

// deterministic normals (xorshift + Box-Muller), so a failure names a reproducible shape
function randomMatrix(rows, cols, seed) {
  let s = (seed * 2654435761) >>> 0 || 1;
  const u = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 4294967296;
  };
  const data = new Float32Array(rows * cols);
  for (let i = 0; i < data.length; i++)
    data[i] = Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  return { rows, cols, data };
}

function product(A, B, transposeB, which) {
  const r = mod.gemm(A, B, transposeB, which);
  assert.ok(r.ok, r.error && r.error.message);
  return r.C;
}

// float64 C and the error scale sum_t |a_t b_t| per element
function reference(A, B, transposeB) {
  const m = A.rows,
    k = A.cols,
    n = transposeB ? B.rows : B.cols;
  const b = (t, j) => (transposeB ? B.data[j * B.cols + t] : B.data[t * B.cols + j]);
  const C = new Float64Array(m * n),
    scale = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0,
        a = 0;
      for (let t = 0; t < k; t++) {
        const p = A.data[i * k + t] * b(t, j);
        s += p;
        a += Math.abs(p);
      }
      C[i * n + j] = s;
      scale[i * n + j] = a;
    }
  }
  return { C, scale, m, n };
}

function assertClose(name, got, want, tol) {
  assert.equal(got.rows, want.m, `${name} rows`);
  assert.equal(got.cols, want.n, `${name} cols`);
  for (let i = 0; i < got.data.length; i++) {
    const err = Math.abs(got.data[i] - want.C[i]);
    if (!(err <= tol * want.scale[i] + 1e-30)) {
      assert.fail(`${name}: element ${i} is ${got.data[i]}, want ${want.C[i]} (error ${err})`);
    }
  }
}

const dims = [1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 31, 33, 64, 65, 100];

test('this build uses the SIMD128 kernel', () => {
  const r = mod.gemm(randomMatrix(2, 2, 1), randomMatrix(2, 2, 2), false, 'fast');
  assert.equal(r.simd128, true);
});

test('SIMD128 products match Eigen, the portable path (bit for bit) and float64 on ragged shapes', () => {
  let seed = 1,
    shapes = 0;
  for (const m of dims) {
    for (const k of [1, 3, 8, 13, 64, 77]) {
      for (const n of dims) {
        if ((m * 7 + k * 3 + n) % 3 !== 0 && m !== 1 && n !== 1) continue;
        for (const transposeB of [false, true]) {
          const A = randomMatrix(m, k, ++seed);
          const B = transposeB ? randomMatrix(n, k, ++seed) : randomMatrix(k, n, ++seed);
          const name = `${m}x${k} times ${transposeB ? `(${n}x${k})^T` : `${k}x${n}`}`;
          const fast = product(A, B, transposeB, 'fast');
          const want = reference(A, B, transposeB);
          assertClose(`${name} SIMD128 vs float64`, fast, want, 1e-5);
          assertClose(`${name} Eigen vs float64`, product(A, B, transposeB, 'eigen'), want, 1e-5);
          assert.deepEqual(
            fast.data,
            product(A, B, transposeB, 'portable').data,
            `${name} SIMD128 vs portable`,
          );
          shapes++;
        }
      }
    }
  }
  assert.ok(shapes > 200, `${shapes} shapes`);
});

test('SIMD128 products at attention sizes, across column blocks', () => {
  for (const [m, k, n] of [
    [64, 768, 64],
    [37, 768, 70],
    [9, 1025, 131],
    [70, 5, 300],
    [128, 256, 256],
  ]) {
    for (const transposeB of [false, true]) {
      const A = randomMatrix(m, k, m + k);
      const B = transposeB ? randomMatrix(n, k, n) : randomMatrix(k, n, n);
      const fast = product(A, B, transposeB, 'fast');
      assertClose(`${m}x${k}x${n}`, fast, reference(A, B, transposeB), 1e-5);
      assert.deepEqual(fast.data, product(A, B, transposeB, 'portable').data);
    }
  }
});

test('mismatched shapes are an error, not a crash', () => {
  const r = mod.gemm(randomMatrix(2, 3, 1), randomMatrix(4, 5, 2), false, 'fast');
  assert.equal(r.ok, false);
  assert.equal(r.error.code, 'shape_mismatch');
  assert.equal(mod.gemm(randomMatrix(2, 3, 1), randomMatrix(3, 5, 2), false, 'fast').ok, true);
});
