// fuzz_hf_tokenizer.cpp: libFuzzer target for the Hugging Face tokenizer readers (tokenizer.json;
// vocab.json + merges.txt; vocab.txt + tokenizer_config.json) and the JSON reader under them, and
// for encoding with whatever they accept. Any input either loads and encodes into in-order token
// ranges inside the text, or raises ap::Error; nothing else.
//
// Input: one mode byte, then up to three parts separated by "|||": the files of the mode, then
// the text to encode.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "error.hpp"
#include "hf_tokenizer.hpp"
#include "json_reader.hpp"

namespace {

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> parts;
  while (parts.size() < 2) {
    const std::size_t at = s.find("|||");
    if (at == std::string_view::npos) break;
    parts.push_back(s.substr(0, at));
    s.remove_prefix(at + 3);
  }
  parts.push_back(s);
  while (parts.size() < 3) parts.emplace_back();
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 4;
  const auto parts = split(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  ap::hf::Files files;
  std::string_view text = parts[1];
  switch (mode) {
    case 0:
      files.emplace("tokenizer.json", parts[0]);
      break;
    case 1:
      files.emplace("vocab.json", parts[0]);
      files.emplace("merges.txt", parts[1]);
      text = parts[2];
      break;
    case 2:
      files.emplace("vocab.txt", parts[0]);
      files.emplace("tokenizer_config.json", parts[1]);
      text = parts[2];
      break;
    default:
      try {
        (void)ap::json::parse(parts[0], "fuzz.json");
      } catch (const ap::Error&) {
      }
      return 0;
  }
  try {
    const ap::hf::Tokenizer tok = ap::hf::Tokenizer::from_files(files);
    const ap::hf::Encoding e = tok.encode(text);
    if (e.pieces.size() != e.size() || e.byte_begin.size() != e.size() ||
        e.byte_end.size() != e.size() || e.special.size() != e.size())
      std::abort();
    // in order (WordPiece tokens may share a character that normalizing split, so ranges may
    // overlap; byte-level BPE's never do)
    std::size_t begin = 0, end = 0;
    const bool disjoint = tok.kind() == ap::hf::Kind::byte_level_bpe;
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (e.ids[i] < 0 || static_cast<std::size_t>(e.ids[i]) >= tok.vocab_size()) std::abort();
      if (e.byte_end[i] < e.byte_begin[i] || e.byte_end[i] > text.size()) std::abort();
      if (e.byte_end[i] == 0 && e.special[i]) continue;  // added around the text
      if (e.byte_begin[i] < (disjoint ? end : begin) || e.byte_end[i] < end) std::abort();
      begin = e.byte_begin[i];
      end = e.byte_end[i];
    }
  } catch (const ap::Error&) {
  }
  return 0;
}
