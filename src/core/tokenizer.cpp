// tokenizer.cpp: one pass over grapheme clusters; Chinese runs are segmented by longest match.
#include "tokenizer.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "error.hpp"
#include "utf8.hpp"

namespace ap {

std::string lexicon_key(std::string_view text, TokenKind kind) {
  std::string key(text);
  if (kind == TokenKind::Word)
    for (char& c : key)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return key;
}

const char* to_string(TokenKind k) {
  switch (k) {
    case TokenKind::Word:
      return "word";
    case TokenKind::Han:
      return "han";
    case TokenKind::Number:
      return "number";
    case TokenKind::Punct:
      return "punct";
    case TokenKind::Symbol:
      return "symbol";
  }
  return "word";
}

namespace {

enum class Cls { Space, Split, Han, Digit, Letter, Apostrophe, Punct, Symbol };

Cls classify(char32_t c) {
  if (c == '|') return Cls::Split;
  if (is_space(c)) return Cls::Space;
  // invisible characters (zero-width space, BOM, word joiner, fillers, bidi marks, embeddings,
  // overrides and isolates, ...): a token of them would be an empty chip, and bidi controls inside
  // a token would reverse the text drawn after it, so they separate like spaces. So do a stray
  // joiner, selector or combining mark with no base character to sit on.
  if (is_invisible(c) || is_combining_mark(c) || c == 0x200D) return Cls::Space;
  if (is_han(c)) return Cls::Han;
  if (c >= '0' && c <= '9') return Cls::Digit;
  if (c == '\'' || c == 0x2019) return Cls::Apostrophe;
  if (is_emoji_like(c) || is_regional_indicator(c)) return Cls::Symbol;
  if (is_punctuation(c)) return Cls::Punct;
  return Cls::Letter;
}

class Builder {
 public:
  Builder(std::string_view text, const std::vector<CodePoint>& cps, const std::vector<Grapheme>& gs,
          const Lexicon& lex)
      : text_(text), cps_(cps), gs_(gs), lex_(lex) {}

  std::size_t begin_of(std::size_t g) const { return cps_[gs_[g].first].byte_begin; }
  std::size_t end_of(std::size_t g) const { return cps_[gs_[g].last - 1].byte_end; }
  std::string slice(std::size_t g0, std::size_t g1) const {
    return std::string(text_.substr(begin_of(g0), end_of(g1 - 1) - begin_of(g0)));
  }

  void emit(std::size_t g0, std::size_t g1, TokenKind kind) {
    Token t{slice(g0, g1), begin_of(g0), end_of(g1 - 1), kind, false, false, {}, -1};
    const Lexicon::Entry* e = lex_.find(t.text);
    if (!e && kind == TokenKind::Word) e = lex_.find(lexicon_key(t.text, kind));
    t.known = e != nullptr;
    t.pronoun = e != nullptr && e->category == "pronoun";
    tokens.push_back(std::move(t));
  }

  // Longest match over [g0, g1), all Han graphemes.
  void segment_han(std::size_t g0, std::size_t g1) {
    const std::size_t max_len = lex_.max_zh_length();
    std::size_t p = g0;
    while (p < g1) {
      std::size_t len = std::min(max_len, g1 - p);
      for (; len > 1; --len)
        if (lex_.contains(slice(p, p + len))) break;
      emit(p, p + len, TokenKind::Han);
      p += len;
    }
  }

  std::vector<Token> tokens;

 private:
  std::string_view text_;
  const std::vector<CodePoint>& cps_;
  const std::vector<Grapheme>& gs_;
  const Lexicon& lex_;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, const Lexicon& lex, int max_tokens) {
  if (max_tokens < 1 || max_tokens > kMaxTokensLimit)
    throw Error("bad_max_tokens", "max tokens must be between 1 and " +
                                      std::to_string(kMaxTokensLimit) + ", got " +
                                      std::to_string(max_tokens));
  if (text.size() > kMaxTextBytes)
    throw Error("text_too_long", "the text is " + std::to_string(text.size()) +
                                     " bytes; the limit is " + std::to_string(kMaxTextBytes) +
                                     " bytes: paste a shorter passage");
  const std::vector<CodePoint> cps = decode_utf8(text);
  for (const CodePoint& cp : cps) {
    if (is_forbidden_control(cp.value)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp.value));
      throw Error("control_char", std::string("control character ") + hex + " at byte " +
                                      std::to_string(cp.byte_begin) +
                                      ": remove it (it is invisible and has no meaning here)");
    }
  }
  const std::vector<Grapheme> gs = graphemes(cps);
  Builder b(text, cps, gs, lex);
  auto cls_of = [&](std::size_t g) {
    // a keycap (1️⃣, #️⃣) is an emoji whatever its base, so it never glues to a number
    if (cps[gs[g].last - 1].value == 0x20E3) return Cls::Symbol;
    return classify(cps[gs[g].first].value);
  };

  const std::size_t n = gs.size();
  std::size_t g = 0;
  while (g < n) {
    const Cls c = cls_of(g);
    if (c == Cls::Space || c == Cls::Split) {
      ++g;
    } else if (c == Cls::Han) {
      std::size_t e = g + 1;
      while (e < n && cls_of(e) == Cls::Han) ++e;
      b.segment_han(g, e);
      g = e;
    } else if (c == Cls::Letter || c == Cls::Digit) {
      // letters and digits; an apostrophe between two letters (didn't, it's) and a '.' or ','
      // between two digits (3.14, 1,000) stay inside the token
      bool all_digits = true;
      std::size_t e = g;
      while (e < n) {
        const Cls ce = cls_of(e);
        if (ce == Cls::Letter || ce == Cls::Digit) {
          all_digits = all_digits && ce == Cls::Digit;
          ++e;
          continue;
        }
        if (e + 1 < n && e > g) {
          const Cls prev = cls_of(e - 1), next = cls_of(e + 1);
          const char32_t v = cps[gs[e].first].value;
          if (ce == Cls::Apostrophe && prev == Cls::Letter && next == Cls::Letter) {
            e += 1;
            continue;
          }
          if ((v == '.' || v == ',') && prev == Cls::Digit && next == Cls::Digit) {
            e += 1;
            continue;
          }
        }
        break;
      }
      b.emit(g, e, all_digits ? TokenKind::Number : TokenKind::Word);
      g = e;
    } else if (c == Cls::Symbol) {
      b.emit(g, g + 1, TokenKind::Symbol);
      ++g;
    } else {  // Punct, Apostrophe
      b.emit(g, g + 1, TokenKind::Punct);
      ++g;
    }
  }
  if (b.tokens.empty())
    throw Error("empty_text",
                "the text has no tokens: type a sentence, for example 小猫吃鱼，它很开心");
  if (static_cast<int>(b.tokens.size()) > max_tokens)
    throw Error("too_many_tokens", "the text has " + std::to_string(b.tokens.size()) +
                                       " tokens; the limit is " + std::to_string(max_tokens) +
                                       ": shorten the text or raise the limit (at most " +
                                       std::to_string(kMaxTokensLimit) + ")");
  return b.tokens;
}

}  // namespace ap
