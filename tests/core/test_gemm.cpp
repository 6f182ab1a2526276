// test_gemm.cpp: the packed matrix-product path (gemm.hpp) against Eigen and against the textbook
// loop, on ragged shapes (m, k, n not multiples of the 4 x 8 tile). The SIMD128 lanes are checked
// in tests/node/gemm.test.mjs; this file checks the portable twin that shares their layout.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include "error.hpp"
#include "gemm.hpp"
#include "rng.hpp"

using ap::Matrix;

namespace {

Matrix random_matrix(int rows, int cols, std::uint64_t seed) {
  ap::Rng rng(seed);
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal());
  return m;
}

// C(i, j) = ((0 + a0 b0) + a1 b1) + ...: the order the packed path promises
Matrix textbook(const Matrix& A, const Matrix& B, bool transpose_b) {
  const Matrix Bt = transpose_b ? Matrix(B.transpose()) : B;
  Matrix C(A.rows(), Bt.cols());
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < Bt.cols(); ++j) {
      float s = 0.0f;
      for (Eigen::Index t = 0; t < A.cols(); ++t) {
        const float p = A(i, t) * Bt(t, j);
        s = s + p;
      }
      C(i, j) = s;
    }
  return C;
}

// |got - want| within 1e-5 of sum_t |a_t b_t| (float32 rounding grows with that sum, not |want|)
void check_close(const Matrix& A, const Matrix& B, bool transpose_b, const Matrix& got,
                 const Matrix& want) {
  REQUIRE(got.rows() == want.rows());
  REQUIRE(got.cols() == want.cols());
  const Matrix absB = transpose_b ? Matrix(B.cwiseAbs().transpose()) : Matrix(B.cwiseAbs());
  const Matrix bound = A.cwiseAbs() * absB;
  for (Eigen::Index i = 0; i < got.rows(); ++i)
    for (Eigen::Index j = 0; j < got.cols(); ++j)
      REQUIRE(std::abs(got(i, j) - want(i, j)) <= 1e-5f * (bound(i, j) + 1e-30f));
}

bool bit_identical(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<std::size_t>(a.size())) == 0;
}

const int kDims[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 31, 33, 64, 65, 100};

}  // namespace

TEST_CASE("packed product equals Eigen and the textbook loop on ragged shapes") {
  std::uint64_t seed = 1;
  int shapes = 0;
  for (int m : kDims)
    for (int k : {1, 3, 8, 13, 64, 77})
      for (int n : kDims) {
        if ((m * 7 + k * 3 + n) % 3 != 0 && m != 1 && n != 1) continue;  // a spread, not all
        for (bool transpose_b : {false, true}) {
          const Matrix A = random_matrix(m, k, ++seed);
          const Matrix B = transpose_b ? random_matrix(n, k, ++seed) : random_matrix(k, n, ++seed);
          Matrix fast, eigen;
          ap::gemm_packed_portable(A, B, transpose_b, fast);
          ap::gemm_eigen(A, B, transpose_b, eigen);
          CAPTURE(m);
          CAPTURE(k);
          CAPTURE(n);
          CAPTURE(transpose_b);
          check_close(A, B, transpose_b, fast, eigen);
          CHECK(bit_identical(fast, textbook(A, B, transpose_b)));
          ++shapes;
        }
      }
  CHECK(shapes > 200);
}

TEST_CASE("packed product: large depth and wide outputs cross the column blocks") {
  for (auto [m, k, n] :
       {std::tuple{37, 768, 70}, std::tuple{9, 1025, 131}, std::tuple{70, 5, 300}}) {
    for (bool transpose_b : {false, true}) {
      const Matrix A = random_matrix(m, k, 11);
      const Matrix B = transpose_b ? random_matrix(n, k, 12) : random_matrix(k, n, 12);
      Matrix fast, eigen;
      ap::gemm_packed_portable(A, B, transpose_b, fast);
      ap::gemm_eigen(A, B, transpose_b, eigen);
      check_close(A, B, transpose_b, fast, eigen);
      CHECK(bit_identical(fast, textbook(A, B, transpose_b)));
    }
  }
}

TEST_CASE("packed product reads strided blocks, and gemm/gemm_abt agree with Eigen") {
  const Matrix big = random_matrix(20, 30, 5);
  const Matrix W = random_matrix(11, 9, 6);
  // A = a block with row stride 30; B^T from a middleCols block
  const Eigen::Ref<const Matrix> A = big.block(3, 4, 13, 11);
  Matrix fast, eigen, abt;
  ap::gemm_packed_portable(A, W, false, fast);
  ap::gemm_eigen(A, W, false, eigen);
  check_close(A, W, false, fast, eigen);
  const Matrix Bt = big.middleCols(7, 11);  // 20 x 11, used as B^T
  ap::gemm_packed_portable(A, Bt, true, fast);
  ap::gemm_abt(A, Bt, abt);
  check_close(A, Bt, true, fast, abt);
  ap::gemm(A, W, eigen);
  CHECK(eigen.rows() == 13);
  CHECK(eigen.cols() == 9);
}

TEST_CASE("PackedB: products from B packed once equal the product that packs B, bit for bit") {
  // k x n past one block of packed columns (kPackedBFloats), ragged m and n
  for (auto [m, k, n] : {std::tuple{1, 7, 5}, {13, 30, 17}, {37, 300, 301}}) {
    CAPTURE(m);
    CAPTURE(k);
    CAPTURE(n);
    const Matrix A = random_matrix(m, k, 11);
    const Matrix B = random_matrix(k, n, 12);
    const ap::PackedB P = ap::PackedB::panels_of(B);
    CHECK(P.rows() == k);
    CHECK(P.cols() == n);
    Matrix once, each;
    ap::gemm_packed_portable(A, P, once);
    ap::gemm_packed_portable(A, B, false, each);
    REQUIRE(once.rows() == m);
    REQUIRE(once.cols() == n);
    CHECK(std::memcmp(once.data(), each.data(), sizeof(float) * once.size()) == 0);
    // A read through a strided block
    const Matrix wide = random_matrix(m, k + 9, 13);
    ap::gemm_packed_portable(wide.middleCols(4, k), P, once);
    ap::gemm_packed_portable(wide.middleCols(4, k), B, false, each);
    CHECK(std::memcmp(once.data(), each.data(), sizeof(float) * once.size()) == 0);
  }
  Matrix C;
  CHECK_THROWS_AS(ap::gemm_packed_portable(Matrix(2, 3), ap::PackedB::panels_of(Matrix(4, 5)), C),
                  ap::Error);
  // natively pack() keeps nothing: the products go to Eigen
  CHECK(ap::PackedB::pack(random_matrix(4, 5, 1)).empty() == !ap::gemm_uses_simd128());
}

TEST_CASE("packed product: empty depth gives zeros, mismatched shapes throw") {
  Matrix C;
  ap::gemm_packed_portable(Matrix(3, 0), Matrix(0, 5), false, C);
  CHECK(C.rows() == 3);
  CHECK(C.cols() == 5);
  CHECK(C.isZero(0.0f));
  CHECK_THROWS_AS(ap::gemm_packed_portable(Matrix(2, 3), Matrix(4, 5), false, C), ap::Error);
  CHECK_THROWS_AS(ap::gemm_packed_portable(Matrix(2, 3), Matrix(4, 5), true, C), ap::Error);
  CHECK_THROWS_AS(ap::gemm(Matrix(2, 3), Matrix(4, 5), C), ap::Error);
}

TEST_CASE("PackedB: filled in place by rows or columns, and read back by columns, is B") {
  // ragged n (a last panel part-filled) and a column range across panel edges
  for (auto [k, n] : {std::tuple{1, 1}, {7, 5}, {30, 17}, {12, 40}}) {
    CAPTURE(k);
    CAPTURE(n);
    const Matrix B = random_matrix(k, n, 21);
    const ap::PackedB packed = ap::PackedB::panels_of(B);
    ap::PackedB by_rows = ap::PackedB::zeros(k, n), by_cols = ap::PackedB::zeros(k, n);
    for (int t = 0; t < k; ++t) {
      // each row in two parts, split off the panel edges
      const int split = n / 3;
      by_rows.set_row(t, 0, B.row(t).data(), split);
      by_rows.set_row(t, split, B.row(t).data() + split, n - split);
    }
    for (int j = 0; j < n; ++j) {
      const Eigen::VectorXf column = B.col(j);
      by_cols.set_column(j, 0, column.data(), k);
    }
    for (const ap::PackedB* P : {&packed, static_cast<const ap::PackedB*>(&by_rows),
                                 static_cast<const ap::PackedB*>(&by_cols)}) {
      CHECK(P->columns(0, n) == B);
      const int j0 = std::min(3, n - 1), count = n - j0;
      CHECK(P->columns(j0, count) == B.middleCols(j0, count));
      // the product from panels filled in place is the one from panels_of, bit for bit
      const Matrix A = random_matrix(5, k, 22);
      Matrix want, got;
      ap::gemm_packed_portable(A, packed, want);
      ap::gemm_packed_portable(A, *P, got);
      CHECK(std::memcmp(want.data(), got.data(), sizeof(float) * want.size()) == 0);
    }
    CHECK_THROWS_AS(by_rows.set_row(k, 0, B.data(), 1), ap::Error);
    CHECK_THROWS_AS(by_rows.columns(n, 1), ap::Error);
  }
}
