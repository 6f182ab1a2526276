// test_io.cpp: read_at_most stops one byte past its cap, whatever the input.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "io.hpp"

TEST_CASE("read_at_most: short inputs whole, long ones stop at cap + 1") {
  std::istringstream small("hello");
  CHECK(ap::read_at_most(small, 10) == "hello");
  std::istringstream exact("0123456789");
  CHECK(ap::read_at_most(exact, 10) == "0123456789");
  std::istringstream big(std::string(1 << 20, 'x'));
  CHECK(ap::read_at_most(big, 100000).size() == 100001);
  std::istringstream empty("");
  CHECK(ap::read_at_most(empty, 5).empty());
}

TEST_CASE("read_at_most: an endless file ends") {
  std::ifstream zero("/dev/zero", std::ios::binary);
  REQUIRE(zero.good());
  const std::string got = ap::read_at_most(zero, 3u << 20);
  CHECK(got.size() == (3u << 20) + 1);
  CHECK(got.find_first_not_of('\0') == std::string::npos);
}
