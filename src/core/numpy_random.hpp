// numpy_random.hpp: NumPy's legacy generator (np.random.seed / np.random.randn, i.e. RandomState),
// reproduced so that the core draws exactly NumPy's float64 numbers, in NumPy's order. This is
// what lets the page show the article's NumPy program number for number. Not our own
// generator (rng.hpp, which the random model uses) and not cryptographic.
//
// What NumPy 1.x does, and this file copies (numpy/random/_mt19937.pyx, src/mt19937,
// src/legacy/legacy-distributions.c):
//   seed(s), 0 <= s <= 2^32-1: MT19937's init_genrand(s) (key[0] = s, key[i] = 1812433253 *
//     (key[i-1] ^ (key[i-1] >> 30)) + i), position 624, and no cached normal.
//   random_sample(): a = next32 >> 5, b = next32 >> 6, (a * 2^26 + b) / 2^53.
//   randn(): the polar method. x1 = 2u - 1, x2 = 2u - 1 until 0 < r2 = x1^2 + x2^2 < 1;
//     f = sqrt(-2 log(r2) / r2); returns f * x2 and keeps f * x1 for the next call, across calls
//     (so randn(3, 5) then randn(5, 3) starts the second matrix with the cached value).
#pragma once
#include <array>
#include <cstdint>

#include "matrix.hpp"

namespace ap {

class NumpyRandomState {
 public:
  static constexpr std::uint64_t kMaxSeed = 0xFFFFFFFFULL;  // np.random.seed's range is 0..2^32-1

  // Throws ap::Error("numpy_seed") outside 0..kMaxSeed, as NumPy raises ValueError.
  explicit NumpyRandomState(std::uint64_t seed);
  static void check_seed(std::uint64_t seed);

  std::uint32_t next_u32();  // MT19937 genrand_int32
  double random_sample();    // uniform in [0, 1), 53 bits
  double gauss();            // one standard normal (np.random.randn's legacy_gauss)

  // np.random.randn(rows, cols): rows x cols gauss() draws in row-major (C) order, each rounded
  // to float32 (the core computes in float32).
  Matrix randn(int rows, int cols);

 private:
  static constexpr int kN = 624;
  std::array<std::uint32_t, kN> key_{};
  int pos_ = kN;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace ap
