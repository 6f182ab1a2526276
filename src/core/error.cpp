// error.cpp: quoting untrusted text inside error messages.
#include "error.hpp"

#include <cstdio>

namespace ap {

namespace {
// Length of the UTF-8 sequence at s[i] and its code point, or 0 when the bytes there are not
// UTF-8 (strict: no overlongs, no surrogates, nothing above U+10FFFF).
std::size_t utf8_at(std::string_view s, std::size_t i, char32_t& c) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len;
  char32_t min;
  if (b0 < 0x80) {
    c = b0;
    return 1;
  } else if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, c = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, c = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, c = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3F);
  }
  if (c < min || (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) return 0;
  return len;
}
}  // namespace

std::string printable(std::string_view s, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    char32_t c = 0;
    const std::size_t len = utf8_at(s, i, c);
    std::string piece;
    char esc[16];
    if (len == 0) {
      std::snprintf(esc, sizeof esc, "\\x%02X",
                    static_cast<unsigned>(static_cast<unsigned char>(s[i])));
      piece = esc;
    } else if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029) {
      std::snprintf(esc, sizeof esc, "\\u%04X", static_cast<unsigned>(c));
      piece = esc;
    } else {
      piece.assign(s.substr(i, len));
    }
    if (out.size() + piece.size() > max_bytes) return out + "\xE2\x80\xA6";  // …
    out += piece;
    i += len == 0 ? 1 : len;
  }
  return out;
}

}  // namespace ap
