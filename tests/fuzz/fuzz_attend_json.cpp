// fuzz_attend_json.cpp: libFuzzer target for the `attend` JSON reader and the forward pass it
// feeds. Bad JSON must be an ap::Error; good JSON must give rows of weights that sum to 1.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "attention.hpp"
#include "error.hpp"
#include "json_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const ap::AttendInput in = ap::parse_attend_input(text);
    if (in.X.size() > 4096 || in.weights.W_Q.size() > 4096) return 0;  // keep each run fast
    const ap::Trace t = ap::attend(in.X, in.weights, in.options);
    for (const ap::HeadTrace& h : t.head)
      for (Eigen::Index r = 0; r < h.weights.rows(); ++r)
        if (std::fabs(h.weights.row(r).sum() - 1.0f) > 1e-3f) std::abort();
    (void)ap::trace_to_json(t).dump();
  } catch (const ap::Error&) {
  }
  return 0;
}
