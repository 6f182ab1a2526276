// fuzz_tokenize.cpp: libFuzzer target for the UTF-8 decoder and the tokenizer. Any input either
// tokenizes into in-order, non-overlapping slices of itself or raises ap::Error; nothing else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "error.hpp"
#include "tokenizer.hpp"
#include "utf8.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto cps = ap::decode_utf8(text);
    std::string round;
    for (const auto& cp : cps) ap::append_utf8(round, cp.value);
    if (round != text) std::abort();  // strict decoding must round-trip exactly
    const auto gs = ap::graphemes(cps);
    std::size_t covered = 0;
    for (const auto& g : gs) {
      if (g.first != covered || g.last <= g.first) std::abort();
      covered = g.last;
    }
    if (covered != cps.size()) std::abort();
  } catch (const ap::Error&) {
  }
  try {
    const auto tokens = ap::tokenize(text, ap::default_lexicon(), ap::kMaxTokensLimit);
    std::size_t prev_end = 0;
    for (const auto& t : tokens) {
      if (t.byte_begin < prev_end || t.byte_end <= t.byte_begin || t.byte_end > size) std::abort();
      if (text.substr(t.byte_begin, t.byte_end - t.byte_begin) != t.text) std::abort();
      prev_end = t.byte_end;
    }
    if (tokens.empty() || tokens.size() > static_cast<std::size_t>(ap::kMaxTokensLimit))
      std::abort();
  } catch (const ap::Error&) {
  }
  return 0;
}
