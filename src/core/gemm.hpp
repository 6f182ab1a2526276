// gemm.hpp: the matrix products of the forward pass. Under WebAssembly SIMD128 they run on a
// packed micro-kernel (Eigen has no wasm SIMD path); everywhere else they forward to Eigen, which
// stays the readable reference. Not a general BLAS: float32, row-major, one thread, no alpha/beta.
//
// Shapes: A: m x k. gemm: B: k x n. gemm_abt: B: n x k (used as B^T). C: m x n, resized.
// C must not alias A or B.
#pragma once
#include <vector>

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

// B (k x n) packed once for many products C = A B: a model's weights, packed when it is loaded
// rather than on every product. Holds the kernel's panels of kNR columns, not B; B may go.
class PackedB {
 public:
  PackedB() = default;
  // Panels where gemm has a packed kernel (SIMD128), otherwise an empty PackedB: natively the
  // products go to Eigen on B itself, which has nothing to gain from it.
  static PackedB pack(MatrixRef B);
  // Panels in every build (the native tests of the packed path).
  static PackedB panels_of(MatrixRef B);
  // The panels of a k x n B that is all zeros, to be filled in place (set_row, set_column): a
  // model's weights packed as they are read, with no plain copy of B beside them.
  static PackedB zeros(Eigen::Index k, Eigen::Index n);
  bool empty() const { return panels_.empty(); }
  Eigen::Index rows() const { return k_; }
  Eigen::Index cols() const { return n_; }
  // B(t, j0 + i) = v[i] for i in [0, count): part of row t.
  void set_row(Eigen::Index t, Eigen::Index j0, const float* v, Eigen::Index count);
  // B(t0 + i, j) = v[i] for i in [0, count): part of column j.
  void set_column(Eigen::Index j, Eigen::Index t0, const float* v, Eigen::Index count);
  // Columns [j0, j0 + count) of B read back from the panels: k x count, exactly B's numbers.
  Matrix columns(Eigen::Index j0, Eigen::Index count) const;

 private:
  friend void gemm(MatrixRef A, const PackedB& B, Matrix& C);
  friend void gemm_packed_portable(MatrixRef A, const PackedB& B, Matrix& C);
  int k_ = 0, n_ = 0;
  std::vector<float> panels_;
};

// C = A B from B packed beforehand (B not empty): the same tiles and sums as gemm(A, B, C) under
// SIMD128, and as gemm_packed_portable natively.
void gemm(MatrixRef A, const PackedB& B, Matrix& C);
// The same product with scalar lanes, in every build: bit-identical to gemm_packed_portable(A, B).
void gemm_packed_portable(MatrixRef A, const PackedB& B, Matrix& C);

}  // namespace ap
