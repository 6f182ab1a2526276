// test_utf8.cpp: the strict UTF-8 decoder, the encoder, grapheme clusters and character classes.
// Not tokenizing (test_tokenizer.cpp).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "error.hpp"
#include "test_util.hpp"
#include "utf8.hpp"

namespace {

using ap_test::code_of;

std::string decode_code(const std::string& bytes) {
  return code_of([&] { ap::decode_utf8(bytes); });
}

// The grapheme clusters of s joined by '|', so a failing CHECK prints both sides.
std::string clusters(const std::string& s) {
  const auto cps = ap::decode_utf8(s);
  std::string out;
  for (const ap::Grapheme& g : ap::graphemes(cps)) {
    if (!out.empty()) out += "|";
    out += s.substr(cps[g.first].byte_begin, cps[g.last - 1].byte_end - cps[g.first].byte_begin);
  }
  return out;
}

}  // namespace

TEST_CASE("decode_utf8: valid text, values and byte offsets") {
  // a (1 byte), é U+00E9 (2), 小 U+5C0F (3), 😀 U+1F600 (4)
  const std::string s = "a\xC3\xA9\xE5\xB0\x8F\xF0\x9F\x98\x80";
  const auto cps = ap::decode_utf8(s);
  REQUIRE(cps.size() == 4);
  CHECK(cps[0].value == U'a');
  CHECK(cps[1].value == U'\u00E9');
  CHECK(cps[2].value == U'\u5C0F');
  CHECK(cps[3].value == U'\U0001F600');
  CHECK(cps[0].byte_begin == 0);
  CHECK(cps[0].byte_end == 1);
  CHECK(cps[1].byte_begin == 1);
  CHECK(cps[1].byte_end == 3);
  CHECK(cps[2].byte_begin == 3);
  CHECK(cps[2].byte_end == 6);
  CHECK(cps[3].byte_begin == 6);
  CHECK(cps[3].byte_end == 10);

  SUBCASE("boundaries of each length are accepted") {
    CHECK(ap::decode_utf8("\xC2\x80")[0].value == 0x80);
    CHECK(ap::decode_utf8("\xDF\xBF")[0].value == 0x7FF);
    CHECK(ap::decode_utf8("\xE0\xA0\x80")[0].value == 0x800);
    CHECK(ap::decode_utf8("\xED\x9F\xBF")[0].value == 0xD7FF);
    CHECK(ap::decode_utf8("\xEE\x80\x80")[0].value == 0xE000);
    CHECK(ap::decode_utf8("\xEF\xBF\xBF")[0].value == 0xFFFF);
    CHECK(ap::decode_utf8("\xF0\x90\x80\x80")[0].value == 0x10000);
    CHECK(ap::decode_utf8("\xF4\x8F\xBF\xBF")[0].value == 0x10FFFF);
    CHECK(ap::decode_utf8("").empty());
  }
}

TEST_CASE("decode_utf8: invalid_utf8") {
  CHECK(decode_code("\x80") == "invalid_utf8");              // lone continuation byte
  CHECK(decode_code("ab\xBF") == "invalid_utf8");            // continuation after ASCII
  CHECK(decode_code("\xC0\xAF") == "invalid_utf8");          // overlong '/'
  CHECK(decode_code("\xC1\xBF") == "invalid_utf8");          // overlong, 2 bytes
  CHECK(decode_code("\xE0\x80\xAF") == "invalid_utf8");      // overlong, 3 bytes
  CHECK(decode_code("\xE0\x9F\xBF") == "invalid_utf8");      // overlong U+07FF
  CHECK(decode_code("\xF0\x80\x80\xAF") == "invalid_utf8");  // overlong, 4 bytes
  CHECK(decode_code("\xF0\x8F\xBF\xBF") == "invalid_utf8");  // overlong U+FFFF
  CHECK(decode_code("\xED\xA0\x80") == "invalid_utf8");      // encoded surrogate U+D800
  CHECK(decode_code("\xED\xBF\xBF") == "invalid_utf8");      // encoded surrogate U+DFFF
  CHECK(decode_code("\xE5\xB0") == "invalid_utf8");          // truncated at the end
  CHECK(decode_code("\xF0\x9F\x98") == "invalid_utf8");      // truncated at the end
  CHECK(decode_code("\xE5\xB0"
                    "a") == "invalid_utf8");  // truncated by ASCII
  CHECK(decode_code("\xC3"
                    "\xC3\xA9") == "invalid_utf8");          // truncated by a lead byte
  CHECK(decode_code("\xF4\x90\x80\x80") == "invalid_utf8");  // above U+10FFFF
  CHECK(decode_code("\xF5\x80\x80\x80") == "invalid_utf8");  // F5+ never appear
  CHECK(decode_code("\xF8\x88\x80\x80\x80") == "invalid_utf8");
  CHECK(decode_code("\xFE") == "invalid_utf8");
  CHECK(decode_code("\xFF") == "invalid_utf8");

  SUBCASE("the message names the byte offset") {
    try {
      ap::decode_utf8("abc\xED\xA0\x80");
      FAIL("no error");
    } catch (const ap::Error& e) {
      CHECK(std::string(e.what()).find("byte 3") != std::string::npos);
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("append_utf8 round-trips through decode_utf8") {
  for (char32_t c : {U'\0', U'A', U'\u007F', U'\u0080', U'\u07FF', U'\u0800', U'\u5C0F', U'\uD7FF',
                     U'\uE000', U'\uFFFF', U'\U00010000', U'\U0001F600', U'\U0010FFFF'}) {
    CAPTURE(static_cast<unsigned>(c));
    std::string s;
    ap::append_utf8(s, c);
    const auto cps = ap::decode_utf8(s);
    REQUIRE(cps.size() == 1);
    CHECK(cps[0].value == c);
    CHECK(cps[0].byte_end == s.size());
  }
  std::string s;
  ap::append_utf8(s, U'\u5C0F');
  CHECK(s == "\xE5\xB0\x8F");
}

TEST_CASE("graphemes: user-perceived characters are never split") {
  SUBCASE("plain text is one cluster per code point") { CHECK(clusters("ab小") == "a|b|小"); }
  SUBCASE("combining marks stay with their base") {
    CHECK(clusters("e\xCC\x81x") == "e\xCC\x81|x");               // e + U+0301
    CHECK(clusters("a\xCC\x81\xCC\xA7") == "a\xCC\x81\xCC\xA7");  // two marks
  }
  SUBCASE("ZWJ family") {
    const std::string family = "👨‍👩‍👧‍👦";
    CHECK(ap::decode_utf8(family).size() == 7);
    CHECK(clusters(family + "a") == family + "|a");
  }
  SUBCASE("flags pair regional indicators") {
    CHECK(clusters("🇨🇳🇺🇸") == "🇨🇳|🇺🇸");
    CHECK(clusters("🇨🇳🇺") == "🇨🇳|🇺");
  }
  SUBCASE("skin tones, variation selectors and keycaps") {
    CHECK(clusters("👍🏽👍") == "👍🏽|👍");
    CHECK(clusters("❤️x") == "❤️|x");
    CHECK(clusters("1️⃣#️⃣") == "1️⃣|#️⃣");
  }
  SUBCASE("tag sequences (subdivision flags)") {
    const std::string scotland = "🏴󠁧󠁢󠁳󠁣󠁴󠁿";
    CHECK(clusters(scotland + "a") == scotland + "|a");
  }
  SUBCASE("CR LF is one cluster") { CHECK(clusters("a\r\nb") == "a|\r\n|b"); }
}

TEST_CASE("character classes") {
  CHECK(ap::is_han(U'小'));
  CHECK(ap::is_han(U'\U00020000'));
  CHECK_FALSE(ap::is_han(U'a'));
  CHECK_FALSE(ap::is_han(U'，'));
  CHECK(ap::is_space(U' '));
  CHECK(ap::is_space(U'\u3000'));
  CHECK(ap::is_space(U'\u00A0'));
  CHECK_FALSE(ap::is_space(U'a'));
  CHECK(ap::is_forbidden_control(U'\0'));
  CHECK(ap::is_forbidden_control(U'\x01'));
  CHECK(ap::is_forbidden_control(U'\x1B'));
  CHECK(ap::is_forbidden_control(U'\x7F'));
  CHECK(ap::is_forbidden_control(U'\u0080'));
  CHECK_FALSE(ap::is_forbidden_control(U'\t'));
  CHECK_FALSE(ap::is_forbidden_control(U'\n'));
  CHECK_FALSE(ap::is_forbidden_control(U'\r'));
  CHECK_FALSE(ap::is_forbidden_control(U'\u0085'));
  CHECK_FALSE(ap::is_forbidden_control(U'a'));
  CHECK(ap::is_punctuation(U'，'));
  CHECK(ap::is_punctuation(U'。'));
  CHECK(ap::is_punctuation(U'.'));
  CHECK_FALSE(ap::is_punctuation(U'a'));
  CHECK(ap::is_combining_mark(U'\u0301'));
  CHECK(ap::is_combining_mark(U'\U0001F3FD'));
  CHECK(ap::is_combining_mark(U'\uFE0F'));
  CHECK_FALSE(ap::is_combining_mark(U'e'));
  CHECK(ap::is_emoji_like(U'\U0001F600'));
  CHECK(ap::is_regional_indicator(U'\U0001F1E8'));
  CHECK_FALSE(ap::is_regional_indicator(U'A'));
}
