// test_util.hpp: small helpers shared by the doctest files. Not a test framework.
#pragma once
#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "error.hpp"

namespace ap_test {

// The ap::Error code f throws, "no error", or "other exception".
inline std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ap::Error& e) {
    return e.code();
  } catch (...) {
    return "other exception";
  }
  return "no error";
}

// The whole file, bytes as they are; a missing file fails the test that asked.
inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  REQUIRE_MESSAGE(f.good(), "cannot open " << path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace ap_test
