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
};

// How a token is looked up in the lexicon and the model's vocabulary, and what seeds its random
// embedding: English words lower-cased ("The" and "the" are one word), everything else as typed.
std::string lexicon_key(std::string_view text, TokenKind kind);

constexpr int kDefaultMaxTokens = 64;
constexpr int kMaxTokensLimit = 512;

// Throws ap::Error: invalid_utf8, control_char, empty_text, too_many_tokens, bad_max_tokens.
std::vector<Token> tokenize(std::string_view text, const Lexicon& lex = default_lexicon(),
                            int max_tokens = kDefaultMaxTokens);

}  // namespace ap
