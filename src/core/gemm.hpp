// gemm.hpp: the matrix products of the forward pass. Under WebAssembly SIMD128 they run on a
// packed micro-kernel (Eigen has no wasm SIMD path); everywhere else they forward to Eigen, which
// stays the readable reference. Not a general BLAS: float32, row-major, one thread, no alpha/beta.
//
// Shapes: A: m x k. gemm: B: k x n. gemm_abt: B: n x k (used as B^T). C: m x n, resized.
// C must not alias A or B.
#pragma once
#include "matrix.hpp"

namespace ap {

// C = A B. The fast path under __wasm_simd128__, Eigen otherwise.
void gemm(MatrixRef A, MatrixRef B, Matrix& C);
// C = A B^T (scores = Q K^T). The fast path under __wasm_simd128__, Eigen otherwise.
void gemm_abt(MatrixRef A, MatrixRef B, Matrix& C);

// The same products always through Eigen: the reference the fast path is tested against.
void gemm_eigen(MatrixRef A, MatrixRef B, bool transpose_b, Matrix& C);

// The packed path with scalar lanes, compiled on every platform so it can be tested natively.
// Same packing, blocking and summation order as the SIMD128 kernel: every C(i, j) is
// ((0 + A(i,0) B(0,j)) + A(i,1) B(1,j)) + ... in k order, so with no fused multiply-add
// (-ffp-contract=off; wasm SIMD128 has none) both give bit-identical results.
void gemm_packed_portable(MatrixRef A, MatrixRef B, bool transpose_b, Matrix& C);

// True when gemm/gemm_abt use the SIMD128 kernel in this build.
bool gemm_uses_simd128();

}  // namespace ap
