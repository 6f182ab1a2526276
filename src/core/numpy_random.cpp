// numpy_random.cpp: MT19937 (Matsumoto & Nishimura 1998) with NumPy's legacy seeding, doubles and
// polar-method normals. Every operation is an exactly rounded IEEE double operation (no FMA: the
// build passes -ffp-contract=off) or sqrt/log, so native and WebAssembly agree with NumPy bit for
// bit.
#include "numpy_random.hpp"

#include <cmath>
#include <string>

#include "error.hpp"

namespace ap {

namespace {
constexpr int kM = 397;
constexpr std::uint32_t kMatrixA = 0x9908B0DFU;
constexpr std::uint32_t kUpper = 0x80000000U;
constexpr std::uint32_t kLower = 0x7FFFFFFFU;
}  // namespace

void NumpyRandomState::check_seed(std::uint64_t seed) {
  if (seed > kMaxSeed)
    throw Error("numpy_seed",
                "the NumPy generator's seed must be between 0 and 4294967295 "
                "(np.random.seed's range), got " +
                    std::to_string(seed));
}

NumpyRandomState::NumpyRandomState(std::uint64_t seed) {
  check_seed(seed);
  std::uint32_t s = static_cast<std::uint32_t>(seed);
  for (int i = 0; i < kN; ++i) {
    key_[static_cast<std::size_t>(i)] = s;
    s = 1812433253U * (s ^ (s >> 30)) + static_cast<std::uint32_t>(i + 1);
  }
  pos_ = kN;
}

std::uint32_t NumpyRandomState::next_u32() {
  if (pos_ >= kN) {  // regenerate the whole block, as mt19937_gen does
    int i = 0;
    for (; i < kN - kM; ++i) {
      const std::uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + kM] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    for (; i < kN - 1; ++i) {
      const std::uint32_t y = (key_[i] & kUpper) | (key_[i + 1] & kLower);
      key_[i] = key_[i + (kM - kN)] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    const std::uint32_t y = (key_[kN - 1] & kUpper) | (key_[0] & kLower);
    key_[kN - 1] = key_[kM - 1] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    pos_ = 0;
  }
  std::uint32_t y = key_[static_cast<std::size_t>(pos_++)];
  // tempering
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9D2C5680U;
  y ^= (y << 15) & 0xEFC60000U;
  y ^= (y >> 18);
  return y;
}

double NumpyRandomState::random_sample() {
  const std::int32_t a = static_cast<std::int32_t>(next_u32() >> 5);
  const std::int32_t b = static_cast<std::int32_t>(next_u32() >> 6);
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

double NumpyRandomState::gauss() {
  if (has_gauss_) {
    has_gauss_ = false;
    const double g = gauss_;
    gauss_ = 0.0;
    return g;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * random_sample() - 1.0;
    x2 = 2.0 * random_sample() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

Matrix NumpyRandomState::randn(int rows, int cols) {
  Matrix m(rows, cols);  // row-major, like NumPy's C order
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(gauss());
  return m;
}

}  // namespace ap
