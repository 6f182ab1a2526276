// fuzz_hf_config.cpp: libFuzzer target for config.json (parse_hf_config over the JSON reader).
// Any input either gives a config within the model limits (hf_model.hpp) or raises ap::Error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "error.hpp"
#include "hf_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ap::HfConfig c =
        ap::parse_hf_config(std::string_view(reinterpret_cast<const char*>(data), size));
    if (c.model_type != "gpt2" && c.model_type != "bert") std::abort();
    if (c.layers < 1 || c.layers > ap::kMaxHfLayers || c.d_model < 1 ||
        c.d_model > ap::kMaxHfDModel || c.heads < 1 || c.d_k * c.heads != c.d_model ||
        c.positions < 1 || c.positions > ap::kMaxHfPositions || c.vocab_size < 1 || c.d_ff < 1 ||
        !(c.eps > 0.0f))
      std::abort();
  } catch (const ap::Error&) {
  }
  return 0;
}
