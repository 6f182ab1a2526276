// fuzz_safetensors.cpp: libFuzzer target for the safetensors reader and the weights taken from
// it. The input is a whole model.safetensors; it is read against a small fixed GPT-2 config and a
// BERT config, and every tensor the header lists is converted. Any input either loads (and its
// forward pass runs on two tokens) or raises ap::Error; nothing else, and nothing is read outside
// the input (AddressSanitizer watches).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "error.hpp"
#include "hf_model.hpp"
#include "safetensors.hpp"

namespace {
const char* const kGpt2 = R"({"model_type": "gpt2", "n_layer": 1, "n_embd": 4, "n_head": 2,
  "n_positions": 4, "vocab_size": 8, "n_inner": 8})";
const char* const kBert = R"({"model_type": "bert", "num_hidden_layers": 1, "hidden_size": 4,
  "num_attention_heads": 2, "max_position_embeddings": 4, "vocab_size": 8,
  "intermediate_size": 8, "type_vocab_size": 1})";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ap::safetensors::File f = ap::safetensors::parse(data, size, "fuzz.safetensors");
    for (const auto& t : f.tensors()) {
      if (t.end < t.begin) std::abort();
      if (t.shape.size() == 2 && t.elements() <= 4096) {
        try {
          f.matrix(t, t.shape[0], t.shape[1]);
        } catch (const ap::Error&) {
        }
      }
    }
  } catch (const ap::Error&) {
  }
  for (const char* config : {kGpt2, kBert}) {
    try {
      const ap::HfModel m = ap::load_hf_model(ap::parse_hf_config(config), data, size);
      const ap::TextTrace t = ap::hf_forward(m, {1, 2});
      if (t.network.layers.size() != 1) std::abort();
    } catch (const ap::Error&) {
    }
  }
  return 0;
}
