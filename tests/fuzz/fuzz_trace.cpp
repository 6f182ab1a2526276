// fuzz_trace.cpp: libFuzzer target for text -> trace with fuzzed settings (small sizes so each
// run is fast). Any input gives a trace whose weight rows sum to 1, or an ap::Error.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "error.hpp"
#include "model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 6) return 0;
  ap::Settings s;
  s.d_model = data[0] % 40;  // 0 is out of range on purpose
  s.heads = data[1] % 10;    // 0 is out of range on purpose
  s.d_k = data[2] % 3 == 0 ? 0 : data[2] % 20;
  s.causal = data[3] & 1;
  s.scale = data[3] & 2;
  s.tie_qk = data[3] & 4;
  s.positions = data[3] & 8;
  static const float kTemps[] = {1.0f, 0.0f, -1.0f,    1e-30f,  0.5f,
                                 3.0f, NAN,  INFINITY, 1000.0f, 2000.0f};
  s.temperature = kTemps[data[4] % 10];
  s.seed = data[5];
  s.max_tokens = 128;
  const std::string_view text(reinterpret_cast<const char*>(data + 6), size - 6);
  try {
    const ap::TextTrace t = ap::trace_text(text, s);
    for (const ap::HeadTrace& h : t.trace.head) {
      if (!h.weights.allFinite()) std::abort();
      for (Eigen::Index r = 0; r < h.weights.rows(); ++r) {
        if (std::fabs(h.weights.row(r).sum() - 1.0f) > 1e-3f) std::abort();
        if (s.causal)
          for (Eigen::Index c = r + 1; c < h.weights.cols(); ++c)
            if (h.weights(r, c) != 0.0f) std::abort();
      }
    }
  } catch (const ap::Error&) {
  }
  return 0;
}
