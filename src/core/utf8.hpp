// utf8.hpp: our own strict UTF-8 decoder and a compact grapheme-cluster segmenter.
// Not a full Unicode library: grapheme rules cover combining marks, variation selectors, ZWJ
// emoji sequences, skin tones, flags, keycaps and tag sequences, which is what learners type.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ap {

struct CodePoint {
  char32_t value;
  std::size_t byte_begin;  // offset of the first byte in the input
  std::size_t byte_end;    // one past the last byte
};

// Decodes s strictly (no overlongs, no surrogates, nothing above U+10FFFF, no truncation).
// Throws ap::Error("invalid_utf8") naming the byte offset of the first bad sequence.
std::vector<CodePoint> decode_utf8(std::string_view s);

// Appends the UTF-8 encoding of c to out (c must be a valid scalar value).
void append_utf8(std::string& out, char32_t c);

// A grapheme cluster: code points [first, last) of the decoded vector.
struct Grapheme {
  std::size_t first;
  std::size_t last;
};

// Splits decoded text into user-perceived characters; never splits inside an emoji sequence or
// between a base and its combining marks. A zero-width joiner stays with what precedes it and
// joins the next character only inside an emoji sequence (pictograph ZWJ pictograph).
std::vector<Grapheme> graphemes(const std::vector<CodePoint>& cps);

// Character classes the tokenizer needs.
bool is_combining_mark(char32_t c);     // Mn/Me/Mc ranges, variation selectors, skin tones, tags
bool is_han(char32_t c);                // CJK unified ideographs and compatibility ideographs
bool is_space(char32_t c);              // Unicode White_Space
bool is_forbidden_control(char32_t c);  // C0/C1 controls other than \t \n \r \v \f, and NUL
bool is_punctuation(char32_t c);        // ASCII and CJK/full-width punctuation, general punctuation
bool is_emoji_like(char32_t c);         // pictographs, dingbats, symbols; each is its own token
bool is_regional_indicator(char32_t c);
// Drawn as nothing: Unicode's default-ignorable code points (zero-width and bidi format
// characters, word joiner, invisible operators, Hangul fillers, Mongolian selectors, variation
// selectors, tags, BOM) plus the interlinear annotation marks and noncharacters (U+FDD0..FDEF,
// U+xFFFE/xFFFF), which are not characters at all and are not even allowed in XML.
bool is_invisible(char32_t c);

}  // namespace ap
