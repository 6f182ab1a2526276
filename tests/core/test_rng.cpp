// test_rng.cpp: the seeded generator (splitmix64 + Box-Muller), hash_text and mix_seed.
// Reference values are the published splitmix64 and FNV-1a test vectors, not our own output.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <set>

#include "rng.hpp"

TEST_CASE("splitmix64 matches the reference stream") {
  // Vigna's splitmix64.c seeded with 0
  ap::Rng r(0);
  CHECK(r.next_u64() == 0xE220A8397B1DCDAFULL);
  CHECK(r.next_u64() == 0x6E789E6AA1B965F4ULL);
  CHECK(r.next_u64() == 0x06C45D188009454FULL);
}

TEST_CASE("determinism: same seed, same stream; different seeds differ") {
  ap::Rng a(42), b(42), c(43);
  bool any_diff = false;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = a.next_u64();
    CHECK(x == b.next_u64());
    any_diff = any_diff || x != c.next_u64();
  }
  CHECK(any_diff);

  SUBCASE("normal() is deterministic too, spare included") {
    ap::Rng p(7), q(7), s(8);
    for (int i = 0; i < 101; ++i) {  // odd count: exercises the cached spare
      const double x = p.normal();
      CHECK(x == q.normal());
      CHECK(x != s.normal());
    }
  }
  SUBCASE("uniform() is in [0, 1) and not stuck") {
    ap::Rng u(1);
    std::set<double> seen;
    for (int i = 0; i < 10000; ++i) {
      const double x = u.uniform();
      CHECK(x >= 0.0);
      CHECK(x < 1.0);
      seen.insert(x);
    }
    CHECK(seen.size() == 10000);
  }
}

TEST_CASE("normal(): mean about 0, variance about 1 over 100k draws") {
  ap::Rng r(2024);
  const int n = 100000;
  double sum = 0, sum2 = 0;
  int beyond_1_96 = 0;
  bool finite = true;
  for (int i = 0; i < n; ++i) {
    const double x = r.normal();
    finite = finite && std::isfinite(x);
    sum += x;
    sum2 += x * x;
    if (std::fabs(x) > 1.959964) ++beyond_1_96;
  }
  CHECK(finite);
  const double mean = sum / n;
  const double var = sum2 / n - mean * mean;
  CHECK(std::fabs(mean) < 0.02);       // standard error 0.003
  CHECK(std::fabs(var - 1.0) < 0.03);  // standard error 0.0045
  const double tail = static_cast<double>(beyond_1_96) / n;
  CHECK(tail > 0.045);  // 5% expected, standard error 0.0007
  CHECK(tail < 0.055);

  SUBCASE("the two halves of each Box-Muller pair are independent") {
    ap::Rng p(99);
    double sxy = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
    int equal = 0;
    const int pairs = 50000;
    for (int i = 0; i < pairs; ++i) {
      const double x = p.normal(), y = p.normal();
      equal += x == y;
      sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
    }
    CHECK(equal == 0);
    const double cov = sxy / pairs - (sx / pairs) * (sy / pairs);
    const double rho = cov / std::sqrt((sxx / pairs - sx * sx / pairs / pairs) *
                                       (syy / pairs - sy * sy / pairs / pairs));
    CHECK(std::fabs(rho) < 0.02);  // standard error 0.0045
  }
}

TEST_CASE("hash_text is FNV-1a 64 and stable") {
  CHECK(ap::hash_text("") == 0xCBF29CE484222325ULL);
  CHECK(ap::hash_text("a") == 0xAF63DC4C8601EC8CULL);
  CHECK(ap::hash_text("foobar") == 0x85944171F73967E8ULL);
  CHECK(ap::hash_text("小猫") == ap::hash_text("小猫"));
  CHECK(ap::hash_text("小猫") != ap::hash_text("小狗"));
  CHECK(ap::hash_text("cat") != ap::hash_text("Cat"));
}

TEST_CASE("mix_seed separates streams") {
  CHECK(ap::mix_seed(42, 1) == ap::mix_seed(42, 1));
  CHECK(ap::mix_seed(42, 1) != ap::mix_seed(42, 2));
  CHECK(ap::mix_seed(42, 1) != ap::mix_seed(43, 1));
  CHECK(ap::mix_seed(1, 42) != ap::mix_seed(42, 1));
  std::set<std::uint64_t> seeds;
  for (std::uint64_t a = 0; a < 32; ++a)
    for (std::uint64_t b = 0; b < 32; ++b) seeds.insert(ap::mix_seed(a, b));
  CHECK(seeds.size() == 32 * 32);
}
