// test_numpy_random.cpp: NumPy's legacy generator against NumPy itself
// (tests/fixtures/numpy_random_v1.json, written by scripts/gen_fixtures), bit for bit in float64.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "numpy_random.hpp"
#include "test_util.hpp"

using nlohmann::json;

namespace {

json fixtures() { return json::parse(ap_test::read_file(AP_FIXTURES_DIR "/numpy_random_v1.json")); }

std::uint64_t bits(double d) {
  std::uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// the fixture's float.hex() string as a double (strtod reads C99 hex floats exactly)
double from_hex(const json& v) { return std::strtod(v.get<std::string>().c_str(), nullptr); }

// bit-for-bit equality, with both values in the message when it fails
void check_same(double got, const json& want, const std::string& where) {
  const double w = from_hex(want);
  CHECK_MESSAGE(bits(got) == bits(w), where << ": got " << got << ", NumPy " << w);
}

}  // namespace

TEST_CASE("NumPy legacy generator: seeding, random_sample and randn match NumPy bit for bit") {
  const json doc = fixtures();
  REQUIRE(doc.at("format_version") == 1);
  REQUIRE(doc.at("seeds").size() >= 6);
  for (const json& e : doc.at("seeds")) {
    const std::uint64_t seed = e.at("seed").get<std::uint64_t>();
    const std::string at = "seed " + std::to_string(seed);
    CAPTURE(at);

    SUBCASE("the first doubles of random_sample") {
      ap::NumpyRandomState rs(seed);
      int i = 0;
      for (const json& v : e.at("random_sample"))
        check_same(rs.random_sample(), v, at + " #" + std::to_string(i++));
    }
    SUBCASE("randn in sequence: a cached normal carries from one call to the next") {
      for (const json& seq : e.at("sequences")) {
        ap::NumpyRandomState rs(seed);
        const json& shapes = seq.at("shapes");
        for (std::size_t m = 0; m < shapes.size(); ++m) {
          const int rows = shapes[m][0], cols = shapes[m][1];
          const json& want = seq.at("values")[m];
          REQUIRE(want.size() == static_cast<std::size_t>(rows * cols));
          for (int k = 0; k < rows * cols; ++k)
            check_same(rs.gauss(), want[static_cast<std::size_t>(k)],
                       at + " matrix " + std::to_string(m) + " entry " + std::to_string(k));
        }
      }
    }
    SUBCASE("800 normals: the last 16 (MT19937 regenerated several times)") {
      ap::NumpyRandomState rs(seed);
      for (int k = 0; k < 800 - 16; ++k) rs.gauss();
      int i = 0;
      for (const json& v : e.at("long_randn_40x20_last16"))
        check_same(rs.gauss(), v, at + " tail " + std::to_string(i++));
    }
    SUBCASE("randn() rounds NumPy's doubles to float32 in row-major order") {
      ap::NumpyRandomState rs(seed);
      const ap::Matrix m = rs.randn(4, 8);
      const json& want = e.at("sequences")[0].at("values")[0];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 8; ++c)
          CHECK(m(r, c) == static_cast<float>(from_hex(want[static_cast<std::size_t>(r * 8 + c)])));
    }
  }
}

TEST_CASE("NumPy legacy generator: the seed range is np.random.seed's, 0 to 2^32-1") {
  CHECK(ap_test::code_of([] { ap::NumpyRandomState rs(4294967296ULL); }) == "numpy_seed");
  CHECK(ap_test::code_of([] { ap::NumpyRandomState rs(~0ULL); }) == "numpy_seed");
  CHECK(ap_test::code_of([] { ap::NumpyRandomState rs(4294967295ULL); }) == "no error");
  CHECK(ap_test::code_of([] { ap::NumpyRandomState rs(0); }) == "no error");
}

TEST_CASE("NumPy legacy generator: MT19937's reference output for init_genrand(5489)") {
  // Matsumoto and Nishimura's mt19937ar.c seeded with init_genrand(5489): the standard first words
  ap::NumpyRandomState rs(5489);
  CHECK(rs.next_u32() == 3499211612U);
  CHECK(rs.next_u32() == 581869302U);
  CHECK(rs.next_u32() == 3890346734U);
}
