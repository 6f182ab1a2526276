// utf8.cpp: strict decoding (RFC 3629, Unicode table 3-7) and grapheme clustering.
#include "utf8.hpp"

#include <string>

#include "error.hpp"

namespace ap {

namespace {
[[noreturn]] void bad_utf8(std::size_t offset, const char* why) {
  throw Error("invalid_utf8", "invalid UTF-8 at byte " + std::to_string(offset) + " (" + why +
                                  "): save the text as UTF-8 or retype the character there");
}

struct Range {
  char32_t lo, hi;
};

template <std::size_t N>
bool in_ranges(char32_t c, const Range (&ranges)[N]) {
  for (const Range& r : ranges)
    if (c >= r.lo && c <= r.hi) return true;
  return false;
}

// Combining marks (general categories Mn, Mc, Me) for the scripts learners are likely to use,
// plus the modifiers that extend an emoji. Ranges are generous on purpose: a false "mark" keeps
// two characters together, which is harmless for visualising attention.
constexpr Range kMarks[] = {
    {0x0300, 0x036F},   {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF},   {0x05C1, 0x05C2},
    {0x05C4, 0x05C5},   {0x05C7, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F},   {0x0670, 0x0670},
    {0x06D6, 0x06DC},   {0x06DF, 0x06E4}, {0x06E7, 0x06E8}, {0x06EA, 0x06ED},   {0x0711, 0x0711},
    {0x0730, 0x074A},   {0x07A6, 0x07B0}, {0x0900, 0x0903}, {0x093A, 0x094F},   {0x0951, 0x0957},
    {0x0962, 0x0963},   {0x0981, 0x0983}, {0x09BC, 0x09D7}, {0x09E2, 0x09E3},   {0x0A01, 0x0A03},
    {0x0A3C, 0x0A51},   {0x0A70, 0x0A71}, {0x0A75, 0x0A75}, {0x0A81, 0x0A83},   {0x0ABC, 0x0ACD},
    {0x0B01, 0x0B03},   {0x0B3C, 0x0B57}, {0x0B82, 0x0B82}, {0x0BBE, 0x0BCD},   {0x0C00, 0x0C04},
    {0x0C3E, 0x0C56},   {0x0C81, 0x0C83}, {0x0CBC, 0x0CD6}, {0x0D00, 0x0D03},   {0x0D3E, 0x0D4D},
    {0x0E31, 0x0E31},   {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x0EB1, 0x0EB1},   {0x0EB4, 0x0EBC},
    {0x0EC8, 0x0ECD},   {0x0F18, 0x0F19}, {0x0F35, 0x0F39}, {0x0F71, 0x0F84},   {0x102B, 0x103E},
    {0x1AB0, 0x1AFF},   {0x1DC0, 0x1DFF}, {0x200C, 0x200C}, {0x20D0, 0x20FF},   {0x302A, 0x302F},
    {0x3099, 0x309A},   {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0x1F3FB, 0x1F3FF}, {0xE0020, 0xE007F},
    {0xE0100, 0xE01EF},
};

constexpr Range kHan[] = {
    {0x3007, 0x3007},   {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xF900, 0xFAFF},
    {0x20000, 0x2A6DF}, {0x2A700, 0x2EBEF}, {0x2F800, 0x2FA1F}, {0x30000, 0x323AF},
};

constexpr Range kSpace[] = {
    {0x0009, 0x000D}, {0x0020, 0x0020}, {0x0085, 0x0085}, {0x00A0, 0x00A0}, {0x1680, 0x1680},
    {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000},
};

constexpr Range kPunct[] = {
    {0x0021, 0x002F}, {0x003A, 0x0040}, {0x005B, 0x0060}, {0x007B, 0x007E}, {0x00A1, 0x00BF},
    {0x00D7, 0x00D7}, {0x00F7, 0x00F7}, {0x2010, 0x2027}, {0x2030, 0x205E}, {0x2190, 0x21FF},
    {0x2200, 0x22FF}, {0x3001, 0x3006}, {0x3008, 0x3029}, {0x3030, 0x303F}, {0x30FB, 0x30FB},
    {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF20}, {0xFF3B, 0xFF40},
    {0xFF5B, 0xFF65},
};

constexpr Range kEmoji[] = {
    {0x00A9, 0x00A9}, {0x00AE, 0x00AE}, {0x203C, 0x203C},   {0x2049, 0x2049},   {0x2122, 0x2122},
    {0x2139, 0x2139}, {0x2300, 0x23FF}, {0x24C2, 0x24C2},   {0x25A0, 0x27BF},   {0x2900, 0x297F},
    {0x2B00, 0x2BFF}, {0x3297, 0x3299}, {0x1F000, 0x1FAFF}, {0x1FC00, 0x1FFFD},
};

constexpr Range kInvisible[] = {
    {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x061C, 0x061C},   {0x115F, 0x1160}, {0x17B4, 0x17B5},
    {0x180B, 0x180F},   {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x206F}, {0x3164, 0x3164},
    {0xFDD0, 0xFDEF},   {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFFB},
    {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF},
};

constexpr char32_t kZwj = 0x200D;
constexpr char32_t kKeycap = 0x20E3;
}  // namespace

bool is_combining_mark(char32_t c) { return in_ranges(c, kMarks); }
bool is_han(char32_t c) { return in_ranges(c, kHan); }
bool is_space(char32_t c) { return in_ranges(c, kSpace); }
bool is_forbidden_control(char32_t c) {
  if (c >= 0x09 && c <= 0x0D) return false;
  return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F && c != 0x85);
}
bool is_punctuation(char32_t c) { return in_ranges(c, kPunct) && !in_ranges(c, kEmoji); }
bool is_emoji_like(char32_t c) { return in_ranges(c, kEmoji); }
bool is_regional_indicator(char32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }
bool is_invisible(char32_t c) { return in_ranges(c, kInvisible) || (c & 0xFFFE) == 0xFFFE; }

std::vector<CodePoint> decode_utf8(std::string_view s) {
  std::vector<CodePoint> out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char b0 = p[i];
    if (b0 < 0x80) {
      out.push_back({b0, i, i + 1});
      ++i;
      continue;
    }
    std::size_t len;
    char32_t c;
    char32_t min;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2, c = b0 & 0x1F, min = 0x80;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3, c = b0 & 0x0F, min = 0x800;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4, c = b0 & 0x07, min = 0x10000;
    } else if (b0 >= 0x80 && b0 <= 0xBF) {
      bad_utf8(i, "unexpected continuation byte");
    } else {
      bad_utf8(i, "byte that never appears in UTF-8");
    }
    if (i + len > n) bad_utf8(i, "sequence cut short at the end of the text");
    for (std::size_t k = 1; k < len; ++k) {
      const unsigned char b = p[i + k];
      if ((b & 0xC0) != 0x80) bad_utf8(i, "sequence cut short");
      c = (c << 6) | (b & 0x3F);
    }
    if (c < min) bad_utf8(i, "overlong encoding");
    if (c >= 0xD800 && c <= 0xDFFF) bad_utf8(i, "encoded surrogate");
    if (c > 0x10FFFF) bad_utf8(i, "code point above U+10FFFF");
    out.push_back({c, i, i + len});
    i += len;
  }
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::vector<Grapheme> graphemes(const std::vector<CodePoint>& cps) {
  std::vector<Grapheme> out;
  const std::size_t n = cps.size();
  std::size_t i = 0;
  while (i < n) {
    const std::size_t first = i;
    const char32_t base = cps[i].value;
    ++i;
    // CR LF is one cluster
    if (base == '\r' && i < n && cps[i].value == '\n') ++i;
    // a pair of regional indicators is one flag
    if (is_regional_indicator(base) && i < n && is_regional_indicator(cps[i].value)) ++i;
    // extenders: marks, keycap, and ZWJ, which joins the next character only between two
    // pictographs (an emoji sequence such as a family); elsewhere "=", ZWJ, "c" are two clusters
    const bool pictograph = is_emoji_like(base);
    while (i < n) {
      const char32_t c = cps[i].value;
      if (is_combining_mark(c) || c == kKeycap) {
        ++i;
      } else if (c == kZwj) {
        ++i;
        if (pictograph && i < n && is_emoji_like(cps[i].value)) ++i;
      } else {
        break;
      }
    }
    out.push_back({first, i});
  }
  return out;
}

}  // namespace ap
