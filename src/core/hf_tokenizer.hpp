// hf_tokenizer.hpp: the tokenizers of real Hugging Face models, read from a model folder's files:
// GPT-2's byte-level BPE and BERT's basic tokenizer + WordPiece. Not the shipped model's
// tokenizer (tokenizer.hpp) and not the models (hf_model.hpp).
//
// Files (given as bytes, so the page can pass a File's contents):
//   tokenizer.json                      model BPE with a ByteLevel pre-tokenizer (GPT-2), or
//                                       WordPiece with BertNormalizer + BertPreTokenizer (BERT)
//   vocab.json + merges.txt             GPT-2's older files
//   vocab.txt [+ tokenizer_config.json] BERT's older files (do_lower_case, strip_accents,
//                                       tokenize_chinese_chars, the special tokens)
// tokenizer.json wins when present. Every error is ap::Error naming the file.
//
// What it does, as Hugging Face's `tokenizers` library does:
//   GPT-2: added tokens (<|endoftext|>) split off first; then GPT-2's pre-tokenizer pattern
//     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//     (matched by hand, with the tables of unicode_data.hpp); each piece's bytes become
//     byte-level symbols, merged pair by pair in merge-rank order. No token is added.
//   BERT: added tokens ([CLS], [MASK], ...) split off first; then control characters dropped,
//     white space made a space, CJK ideographs spaced, accents stripped (NFD, then Mn removed)
//     and lower-cased as configured; split at white space and around punctuation; each word
//     greedily longest-match WordPiece with "##" (longer than max_input_chars_per_word: [UNK]);
//     [CLS] ... [SEP] around the result.
// Where Hugging Face's implementations disagree, this follows:
//   \s is Unicode's White_Space, as Oniguruma (the Rust library) reads it: U+0085 is white
//     space and U+FEFF is not (JavaScript's \s, and so js-tiktoken and tokenizers.js, say the
//     opposite);
//   a capital sigma ending a word lower-cases to the final form, as Python's BERT tokenizer and
//     tokenizers.js do (the Rust library lower-cases each character alone).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ap::hf {

// Limits on what a tokenizer reads: a file past them is refused before it is held in memory.
constexpr std::size_t kMaxTokenizerFileBytes = std::size_t{32} << 20;  // one file
constexpr std::size_t kMaxVocabSize = 300000;                          // tokens in the vocabulary
constexpr std::size_t kMaxMerges = 300000;                             // merge rules
constexpr std::size_t kMaxTokenBytes = 1024;                           // one token's text
constexpr std::size_t kMaxAddedTokens = 4096;                          // added (special) tokens
constexpr std::size_t kMaxWordChars = 200;  // max_input_chars_per_word (BERT's is 100)
// The longest text encode() takes (more than a model's context holds, and more than the page
// lets a learner type).
constexpr std::size_t kMaxEncodeBytes = std::size_t{128} << 10;

// The file names a tokenizer may read, for a page's file picker and the CLI's folder reader.
const std::vector<std::string>& tokenizer_file_names();

// A model folder's tokenizer files by name ("tokenizer.json", ...): views of bytes the caller
// keeps alive during the call. Names not in tokenizer_file_names() are ignored.
using Files = std::map<std::string, std::string_view, std::less<>>;

enum class Kind { byte_level_bpe, wordpiece };

// One encoded text; index i is token i, in order.
struct Encoding {
  std::vector<std::int32_t> ids;    // the tokenizer's ids
  std::vector<std::string> pieces;  // as the learner reads them: byte-level symbols decoded to
                                    // text (bytes that are not whole UTF-8 characters as \xHH),
                                    // "##" kept on WordPiece continuations, special tokens as is
  std::vector<std::size_t> byte_begin;  // the token's bytes in the input: [byte_begin, byte_end);
  std::vector<std::size_t> byte_end;    // both 0 for a token the tokenizer added ([CLS], [SEP])
  std::vector<bool> special;            // an added or special token
  std::size_t size() const { return ids.size(); }
};

class Tokenizer {
 public:
  // Reads the tokenizer from a folder's files (see the top of this file). Throws ap::Error
  // hf_tokenizer_missing (no usable set of files), hf_tokenizer_invalid (a file is malformed or
  // asks for something this reader does not do; the message names the file and the field),
  // hf_file_too_large, json_invalid, json_too_large.
  static Tokenizer from_files(const Files& files);
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

  // Tokens of `text` (UTF-8, at most kMaxEncodeBytes). Throws invalid_utf8, text_too_long.
  Encoding encode(std::string_view text) const;

  Kind kind() const;
  std::size_t vocab_size() const;                  // the largest id + 1
  std::string id_to_token(std::int32_t id) const;  // the vocabulary's text ("Ġthe", "##ing");
                                                   // "" for an id not in it
  std::string source() const;  // which files it was read from, e.g. "tokenizer.json"

  struct Impl;  // opaque: the vocabulary, merges and settings (hf_tokenizer.cpp)

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ap::hf
