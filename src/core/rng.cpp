// rng.cpp: splitmix64 (Steele, Lea, Flood 2014) and Box-Muller.
#include "rng.hpp"

#include <cmath>

namespace ap {

namespace {
std::uint64_t finalise(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
constexpr double kTwoPi = 6.283185307179586476925286766559;
}  // namespace

std::uint64_t Rng::next_u64() {
  state_ += 0x9E3779B97F4A7C15ULL;
  return finalise(state_);
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();  // log(0) is -inf
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(kTwoPi * u2);
  has_spare_ = true;
  return r * std::cos(kTwoPi * u2);
}

std::uint64_t hash_text(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  return finalise(a ^ (b + 0x9E3779B97F4A7C15ULL + (a << 6) + (a >> 2)));
}

}  // namespace ap
