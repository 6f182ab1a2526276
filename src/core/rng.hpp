// rng.hpp: a seeded generator we own (splitmix64 + Box-Muller), so native and WebAssembly give
// bit-identical numbers for the same seed. Not cryptographic; not the standard library's
// distributions (their output differs between platforms).
#pragma once
#include <cstdint>
#include <string_view>

namespace ap {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64();
  // uniform in [0, 1) with 53 random bits
  double uniform();
  // standard normal by Box-Muller; uses double internally, so every platform agrees
  double normal();

 private:
  std::uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// FNV-1a 64-bit of the bytes of s; used to give each token text its own stream.
std::uint64_t hash_text(std::string_view s);
// mixes two 64-bit values into one seed (splitmix64 finaliser)
std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b);

}  // namespace ap
