// tokenizer.hpp: UTF-8 text -> tokens. English words (contractions kept whole), numbers,
// punctuation, emoji as whole graphemes, and Chinese by longest match over the lexicon with a
// single-character fallback. Spaces and '|' force a split. Not a subword (BPE) tokenizer.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "lexicon.hpp"

namespace ap {

enum class TokenKind { Word, Han, Number, Punct, Symbol };
const char* to_string(TokenKind k);

struct Token {
  std::string text;
  std::size_t byte_begin;  // where it sits in the input, for highlighting
  std::size_t byte_end;
  TokenKind kind;
  bool known;  // found in the lexicon (case-insensitively for English); punctuation counts as known
  // a third-person pronoun (它 他 她 它们 他们 it he she they him her them his its their: the
  // lexicon's category "pronoun"), which refers back to a noun; the page follows the first one by
  // default
  bool pronoun = false;
  // set by a trained model for a word it does not know: the vocabulary words it reads it through
  // (vocabulary.hpp's pieces: cookies -> cookie, snowman -> snow man); empty when none fit
  std::vector<std::string> read_as;
  // the token's id in a model's own vocabulary (a Hugging Face tokenizer's); -1 for the
  // playground's tokenizer
  int id = -1;
};

// How a token is looked up in the lexicon and the model's vocabulary, and what seeds its random
// embedding: English words lower-cased ("The" and "the" are one word), everything else as typed.
std::string lexicon_key(std::string_view text, TokenKind kind);

constexpr int kDefaultMaxTokens = 64;
constexpr int kMaxTokensLimit = 512;
// Text longer than this is refused (text_too_long) before it is decoded; the CLI stops reading
// standard input here and the page checks it before copying text into wasm memory.
constexpr std::size_t kMaxTextBytes = 100000;

// Throws ap::Error: invalid_utf8, control_char, empty_text, too_many_tokens, bad_max_tokens,
// text_too_long. Invisible characters (zero-width and format characters, fillers, variation
// selectors, tags and marks with no base) separate like spaces: text with nothing visible is
// empty_text.
std::vector<Token> tokenize(std::string_view text, const Lexicon& lex = default_lexicon(),
                            int max_tokens = kDefaultMaxTokens);

}  // namespace ap
