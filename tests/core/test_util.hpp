// test_util.hpp: small helpers shared by the doctest files. Not a test framework.
#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "error.hpp"
#include "matrix.hpp"

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

// Compares analytic with central differences, entry by entry. The forward pass is float32, so the
// tolerance allows for its rounding (about 1e-7 relative, divided by the step).
inline void check_gradient(const char* name, ap::Matrix& param, const ap::Matrix& analytic,
                           const std::function<double()>& loss, double eps = 5e-3) {
  REQUIRE(analytic.rows() == param.rows());
  REQUIRE(analytic.cols() == param.cols());
  int bad = 0;
  for (Eigen::Index r = 0; r < param.rows(); ++r) {
    for (Eigen::Index c = 0; c < param.cols(); ++c) {
      const float keep = param(r, c);
      param(r, c) = static_cast<float>(keep + eps);
      const double up = loss();
      param(r, c) = static_cast<float>(keep - eps);
      const double down = loss();
      param(r, c) = keep;
      const double numeric = (up - down) / (2.0 * eps);
      const double a = analytic(r, c);
      if (std::abs(numeric - a) > 2e-3 + 2e-2 * std::abs(a)) {
        if (++bad <= 3)
          MESSAGE(std::string(name)
                  << "(" << r << "," << c << "): analytic " << a << ", numeric " << numeric);
      }
    }
  }
  CHECK_MESSAGE(bad == 0, std::string(name) << ": " << bad << " entries disagree");
}

}  // namespace ap_test
