// fuzz_model_file.cpp: libFuzzer target for .apm bytes -> load_model. Any input gives a model or
// an ap::Error; scripts/fuzz runs it with a malloc limit far below what a network of the largest
// shape needs, so a reader that allocates what a header claims before checking that the file holds
// it fails here. Not a test of the numbers (tests/core/test_model_file.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "error.hpp"
#include "model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const ap::TrainedModel m = ap::load_model(bytes);
    if (m.E.rows() != m.vocab.size() || !m.E.allFinite()) std::abort();
  } catch (const ap::Error&) {
  }
  return 0;
}
