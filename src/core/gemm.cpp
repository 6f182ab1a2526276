// gemm.cpp: a packed micro-kernel for C = A B and C = A B^T, in SIMD128 lanes under WebAssembly
// and in scalar lanes everywhere (the portable twin the native tests check). Not used natively
// by the forward pass: there gemm() forwards to Eigen.
//
// Layout: B is packed once per call into panels of kNR columns (k x kNR each, zero-padded past n),
// so the kernel reads kNR consecutive floats per depth step; A is read in place, kMR rows at a
// time, one broadcast per row and step. Each kMR x kNR tile of C sums over the whole depth k in
// order, in registers, with one accumulator per element: the summation order is the textbook
// one, identical in both lane kinds.
#include "gemm.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "error.hpp"

namespace ap {

namespace {

constexpr int kMR = 4;   // rows of C per micro-tile
constexpr int kNR = 8;   // columns of C per micro-tile (two f32x4)
constexpr int kMC = 64;  // rows of A per block: kMC x k of A stays in L2 while B panels stream
// floats of packed B per column block: k x nc of B (about 256 KB) stays in L2 beside A's block
constexpr int kPackedBFloats = 64 * 1024;

struct View {
  const float* p;
  Eigen::Index ld;  // row stride
};

// Packs B into panels: panel q holds, for each depth t, column (q*kNR + j) of op(B) at
// [t*kNR + j]; op(B) = B (k x n) or B^T (B is n x k). Columns past n are zero.
void pack_b(View B, bool transpose, int k, int n, float* out) {
  const int panels = (n + kNR - 1) / kNR;
  for (int q = 0; q < panels; ++q) {
    float* dst = out + static_cast<std::size_t>(q) * k * kNR;
    const int j0 = q * kNR;
    const int w = std::min(kNR, n - j0);
    if (!transpose) {
      for (int t = 0; t < k; ++t) {
        const float* src = B.p + t * B.ld + j0;
        float* d = dst + t * kNR;
        for (int j = 0; j < w; ++j) d[j] = src[j];
        for (int j = w; j < kNR; ++j) d[j] = 0.0f;
      }
    } else {
      for (int j = 0; j < kNR; ++j) {
        if (j < w) {
          const float* src = B.p + (j0 + j) * B.ld;  // row j0+j of B = column of B^T
          for (int t = 0; t < k; ++t) dst[t * kNR + j] = src[t];
        } else {
          for (int t = 0; t < k; ++t) dst[t * kNR + j] = 0.0f;
        }
      }
    }
  }
}

// Writes a kMR x kNR tile (row-major in tile) to C, keeping only rows < rows and cols < cols.
inline void store_tile(const float* tile, float* c, Eigen::Index ldc, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < cols; ++j) c[r * ldc + j] = tile[r * kNR + j];
}

// One tile, scalar lanes. a[r] points at row r of A (rows past the edge repeat a valid row;
// their results are discarded).
void tile_scalar(int k, const float* const a[kMR], const float* bp, float* c, Eigen::Index ldc,
                 int rows, int cols) {
  float acc[kMR][kNR] = {};
  for (int t = 0; t < k; ++t) {
    const float* b = bp + t * kNR;
    for (int r = 0; r < kMR; ++r) {
      const float ar = a[r][t];
      for (int j = 0; j < kNR; ++j) acc[r][j] = acc[r][j] + ar * b[j];
    }
  }
  store_tile(&acc[0][0], c, ldc, rows, cols);
}

#ifdef __wasm_simd128__
// One tile, SIMD128 lanes: 8 accumulators (4 rows x 2 f32x4), 2 loads of B and 4 broadcasts of A
// per depth step. No FMA in wasm SIMD128: mul then add, the same rounding as tile_scalar.
void tile_simd(int k, const float* const a[kMR], const float* bp, float* c, Eigen::Index ldc,
               int rows, int cols) {
  const float* a0 = a[0];
  const float* a1 = a[1];
  const float* a2 = a[2];
  const float* a3 = a[3];
  v128_t c00 = wasm_f32x4_splat(0.0f), c01 = c00, c10 = c00, c11 = c00;
  v128_t c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  for (int t = 0; t < k; ++t) {
    const v128_t b0 = wasm_v128_load(bp);
    const v128_t b1 = wasm_v128_load(bp + 4);
    bp += kNR;
    v128_t x = wasm_v128_load32_splat(a0 + t);
    c00 = wasm_f32x4_add(c00, wasm_f32x4_mul(x, b0));
    c01 = wasm_f32x4_add(c01, wasm_f32x4_mul(x, b1));
    x = wasm_v128_load32_splat(a1 + t);
    c10 = wasm_f32x4_add(c10, wasm_f32x4_mul(x, b0));
    c11 = wasm_f32x4_add(c11, wasm_f32x4_mul(x, b1));
    x = wasm_v128_load32_splat(a2 + t);
    c20 = wasm_f32x4_add(c20, wasm_f32x4_mul(x, b0));
    c21 = wasm_f32x4_add(c21, wasm_f32x4_mul(x, b1));
    x = wasm_v128_load32_splat(a3 + t);
    c30 = wasm_f32x4_add(c30, wasm_f32x4_mul(x, b0));
    c31 = wasm_f32x4_add(c31, wasm_f32x4_mul(x, b1));
  }
  if (rows == kMR && cols == kNR) {
    wasm_v128_store(c, c00);
    wasm_v128_store(c + 4, c01);
    wasm_v128_store(c + ldc, c10);
    wasm_v128_store(c + ldc + 4, c11);
    wasm_v128_store(c + 2 * ldc, c20);
    wasm_v128_store(c + 2 * ldc + 4, c21);
    wasm_v128_store(c + 3 * ldc, c30);
    wasm_v128_store(c + 3 * ldc + 4, c31);
    return;
  }
  alignas(16) float tile[kMR * kNR];
  wasm_v128_store(tile, c00);
  wasm_v128_store(tile + 4, c01);
  wasm_v128_store(tile + 8, c10);
  wasm_v128_store(tile + 12, c11);
  wasm_v128_store(tile + 16, c20);
  wasm_v128_store(tile + 20, c21);
  wasm_v128_store(tile + 24, c30);
  wasm_v128_store(tile + 28, c31);
  store_tile(tile, c, ldc, rows, cols);
}
#endif

void require_inner(MatrixRef A, MatrixRef B, bool transpose_b) {
  const Eigen::Index inner = transpose_b ? B.cols() : B.rows();
  if (A.cols() != inner)
    throw Error("shape_mismatch", "matrix product: A has " + std::to_string(A.cols()) +
                                      " columns but op(B) has " + std::to_string(inner) + " rows");
}

using TileFn = void (*)(int, const float* const*, const float*, float*, Eigen::Index, int, int);

// columns per block of B: a multiple of kNR with k x nc about kPackedBFloats
int block_columns(int k) { return std::max(kNR, kPackedBFloats / k / kNR * kNR); }

// C[:, jc, jc + nb) = A op(B)[:, jc, jc + nb) from that block's packed panels bp (pack_b's layout).
void block_product(View a, int m, int k, const float* panels, int jc, int nb, float* c,
                   Eigen::Index ldc, int n, TileFn tile) {
  const int count = (nb + kNR - 1) / kNR;
  for (int i0 = 0; i0 < m; i0 += kMC) {
    const int i1 = std::min(m, i0 + kMC);
    for (int q = 0; q < count; ++q) {
      const float* bp = panels + static_cast<std::size_t>(q) * k * kNR;
      const int j0 = jc + q * kNR;
      const int cols = std::min(kNR, n - j0);
      for (int i = i0; i < i1; i += kMR) {
        const int rows = std::min(kMR, i1 - i);
        const float* rowp[kMR];
        for (int r = 0; r < kMR; ++r) rowp[r] = a.p + (i + std::min(r, rows - 1)) * a.ld;
        tile(k, rowp, bp, c + i * ldc + j0, ldc, rows, cols);
      }
    }
  }
}

// C = A op(B) with op(B) = B or B^T; m x k times k x n. B is packed here, one block of columns at
// a time.
void packed_product(MatrixRef A, MatrixRef B, bool transpose_b, Matrix& C, TileFn tile) {
  require_inner(A, B, transpose_b);
  const int m = static_cast<int>(A.rows());
  const int k = static_cast<int>(A.cols());
  const int n = static_cast<int>(transpose_b ? B.rows() : B.cols());
  C.resize(m, n);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    C.setZero();
    return;
  }
  const int nc = block_columns(k);
  const int block_panels = (std::min(nc, n) + kNR - 1) / kNR;
  // packed B block: uninitialised storage, every entry is written by pack_b
  std::unique_ptr<float[]> packed(new float[static_cast<std::size_t>(k) * block_panels * kNR]);
  const View a{A.data(), A.outerStride()};
  const View b{B.data(), B.outerStride()};
  for (int jc = 0; jc < n; jc += nc) {
    const int nb = std::min(nc, n - jc);
    const View bj{transpose_b ? b.p + jc * b.ld : b.p + jc, b.ld};
    pack_b(bj, transpose_b, k, nb, packed.get());
    block_product(a, m, k, packed.get(), jc, nb, C.data(), n, n, tile);
  }
}

// C = A B from B's panels packed beforehand (PackedB): the same blocks and tiles as
// packed_product, so the same sums in the same order.
void prepacked_product(MatrixRef A, const std::vector<float>& panels, int k, int n, Matrix& C,
                       TileFn tile) {
  if (A.cols() != k)
    throw Error("shape_mismatch", "matrix product: A has " + std::to_string(A.cols()) +
                                      " columns but B has " + std::to_string(k) + " rows");
  const int m = static_cast<int>(A.rows());
  C.resize(m, n);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    C.setZero();
    return;
  }
  const int nc = block_columns(k);
  const View a{A.data(), A.outerStride()};
  for (int jc = 0; jc < n; jc += nc)  // jc is a multiple of kNR: its panels start at jc / kNR
    block_product(a, m, k, panels.data() + static_cast<std::size_t>(jc) * k, jc,
                  std::min(nc, n - jc), C.data(), n, n, tile);
}

}  // namespace

void gemm_eigen(MatrixRef A, MatrixRef B, bool transpose_b, Matrix& C) {
  require_inner(A, B, transpose_b);
  if (transpose_b)
    C.noalias() = A * B.transpose();
  else
    C.noalias() = A * B;
}

void gemm_packed_portable(MatrixRef A, MatrixRef B, bool transpose_b, Matrix& C) {
  packed_product(A, B, transpose_b, C, &tile_scalar);
}

PackedB PackedB::panels_of(MatrixRef B) {
  PackedB p;
  p.k_ = static_cast<int>(B.rows());
  p.n_ = static_cast<int>(B.cols());
  const int panels = (p.n_ + kNR - 1) / kNR;
  p.panels_.resize(static_cast<std::size_t>(p.k_) * panels * kNR);
  if (p.k_ > 0 && p.n_ > 0)
    pack_b(View{B.data(), B.outerStride()}, false, p.k_, p.n_, p.panels_.data());
  return p;
}

PackedB PackedB::zeros(Eigen::Index k, Eigen::Index n) {
  PackedB p;
  p.k_ = static_cast<int>(k);
  p.n_ = static_cast<int>(n);
  const Eigen::Index panels = (n + kNR - 1) / kNR;
  p.panels_.assign(static_cast<std::size_t>(k * panels * kNR), 0.0f);
  return p;
}

// panel j / kNR, depth t, lane j % kNR (pack_b's layout)
void PackedB::set_row(Eigen::Index t, Eigen::Index j0, const float* v, Eigen::Index count) {
  if (t < 0 || t >= k_ || j0 < 0 || count < 0 || j0 + count > n_)
    throw Error("shape_mismatch", "PackedB::set_row: outside B");
  for (Eigen::Index i = 0; i < count;) {
    const Eigen::Index j = j0 + i;
    const Eigen::Index lane = j % kNR;
    const Eigen::Index w = std::min<Eigen::Index>(kNR - lane, count - i);
    float* d = panels_.data() + (j / kNR) * k_ * kNR + t * kNR + lane;
    for (Eigen::Index r = 0; r < w; ++r) d[r] = v[i + r];
    i += w;
  }
}

void PackedB::set_column(Eigen::Index j, Eigen::Index t0, const float* v, Eigen::Index count) {
  if (j < 0 || j >= n_ || t0 < 0 || count < 0 || t0 + count > k_)
    throw Error("shape_mismatch", "PackedB::set_column: outside B");
  float* d = panels_.data() + (j / kNR) * k_ * kNR + t0 * kNR + j % kNR;
  for (Eigen::Index i = 0; i < count; ++i) d[i * kNR] = v[i];
}

Matrix PackedB::columns(Eigen::Index j0, Eigen::Index count) const {
  if (j0 < 0 || count < 0 || j0 + count > n_)
    throw Error("shape_mismatch", "PackedB::columns: outside B");
  Matrix out(k_, count);
  for (Eigen::Index t = 0; t < k_; ++t) {
    float* o = out.row(t).data();
    for (Eigen::Index i = 0; i < count;) {
      const Eigen::Index j = j0 + i;
      const Eigen::Index lane = j % kNR;
      const Eigen::Index w = std::min<Eigen::Index>(kNR - lane, count - i);
      const float* s = panels_.data() + (j / kNR) * k_ * kNR + t * kNR + lane;
      for (Eigen::Index r = 0; r < w; ++r) o[i + r] = s[r];
      i += w;
    }
  }
  return out;
}

PackedB PackedB::pack(MatrixRef B) { return gemm_uses_simd128() ? panels_of(B) : PackedB(); }

void gemm_packed_portable(MatrixRef A, const PackedB& B, Matrix& C) {
  prepacked_product(A, B.panels_, B.k_, B.n_, C, &tile_scalar);
}

#ifdef __wasm_simd128__
bool gemm_uses_simd128() { return true; }
void gemm(MatrixRef A, const PackedB& B, Matrix& C) {
  prepacked_product(A, B.panels_, B.k_, B.n_, C, &tile_simd);
}
void gemm(MatrixRef A, MatrixRef B, Matrix& C) { packed_product(A, B, false, C, &tile_simd); }
void gemm_abt(MatrixRef A, MatrixRef B, Matrix& C) { packed_product(A, B, true, C, &tile_simd); }
#else
bool gemm_uses_simd128() { return false; }
void gemm(MatrixRef A, const PackedB& B, Matrix& C) { gemm_packed_portable(A, B, C); }
void gemm(MatrixRef A, MatrixRef B, Matrix& C) { gemm_eigen(A, B, false, C); }
void gemm_abt(MatrixRef A, MatrixRef B, Matrix& C) { gemm_eigen(A, B, true, C); }
#endif

}  // namespace ap
