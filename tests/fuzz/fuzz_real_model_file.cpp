// fuzz_real_model_file.cpp: libFuzzer target for .apm bytes of a converted real model (format
// version 5) -> load_real_model, then a forward pass of two tokens. Any input gives a model or an
// ap::Error; scripts/fuzz runs it with a malloc limit far below what the largest config a header
// may claim needs, so a reader that shapes the weights (or reads the tokenizer) before checking
// that the file holds them fails here. Not a test of the numbers
// (tests/core/test_real_model_file.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "error.hpp"
#include "real_model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ap::ConvertedModel c = ap::load_real_model(data, size);
    const ap::HfConfig& config = c.model.config;
    if (c.model.token_rows.rows() != config.vocab_size || !c.model.token_rows.allFinite() ||
        !c.tokenizer)
      std::abort();
    if (config.vocab_size > 1 && config.positions > 1 && config.d_model * config.d_ff < (1 << 16)) {
      const ap::TextTrace t = ap::hf_forward(c.model, {0, 1});
      if (t.network.layers.size() != static_cast<std::size_t>(config.layers)) std::abort();
    }
  } catch (const ap::Error&) {
  }
  return 0;
}
