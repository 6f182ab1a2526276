// test_tokenizer.cpp: text -> tokens (Chinese longest match, English, numbers, emoji, splits,
// byte offsets, the known flag) and the tokenizer's error codes. Not UTF-8 decoding itself.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "error.hpp"
#include "lexicon.hpp"
#include "test_util.hpp"
#include "tokenizer.hpp"

namespace {

using ap_test::code_of;

// The token texts joined by '|' (which is never inside a token: it forces a split), so a
// failing CHECK prints both sides.
std::string texts(const std::vector<ap::Token>& tokens) {
  std::string out;
  for (const ap::Token& t : tokens) out += (out.empty() ? "" : "|") + t.text;
  return out;
}

std::string tok(const std::string& s, const ap::Lexicon& lex = ap::default_lexicon()) {
  return texts(ap::tokenize(s, lex));
}

// A small lexicon under the test's control.
const ap::Lexicon& test_lexicon() {
  static const ap::Lexicon lex = ap::Lexicon::from_tsv(
      "# test lexicon\n"
      "小猫\tzh\tanimal\n"
      "吃\tzh\tverb\n"
      "开心\tzh\tadj\n"
      "中华人民共和国\tzh\tplace\n"
      "中华\tzh\tplace\n"
      "love\ten\tverb\n"
      "didn't\ten\tverb\n");
  return lex;
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

}  // namespace

TEST_CASE("Chinese: longest match over the built-in lexicon") {
  CHECK(tok("小猫吃鱼，它很开心") == "小猫|吃|鱼|，|它|很|开心");
  CHECK(tok("我爱你。") == "我|爱|你|。");
  CHECK(tok("苹果好吃") == "苹果|好吃");

  SUBCASE("kinds, known flags and byte offsets") {
    const auto t = ap::tokenize("小猫吃鱼，它很开心");
    REQUIRE(t.size() == 7);
    const std::size_t begins[] = {0, 6, 9, 12, 15, 18, 21};
    const std::size_t ends[] = {6, 9, 12, 15, 18, 21, 27};
    for (std::size_t i = 0; i < t.size(); ++i) {
      CAPTURE(i);
      CHECK(t[i].byte_begin == begins[i]);
      CHECK(t[i].byte_end == ends[i]);
      CHECK(t[i].known);
      CHECK(t[i].kind == (i == 3 ? ap::TokenKind::Punct : ap::TokenKind::Han));
    }
  }
}

TEST_CASE("the third-person pronouns are marked (the page follows one by default)") {
  const auto pronouns = [](std::string_view text) {
    std::string out;
    for (const ap::Token& t : ap::tokenize(text)) out += t.pronoun ? "P" : ".";
    return out;
  };
  CHECK(pronouns("小猫吃鱼，它很开心") == "....P..");
  CHECK(pronouns("他们和她们看着它们") == "P.P.P");  // 看着 is one word
  CHECK(pronouns("我爱你") == "...");                // I and you are no one the sentence names
  CHECK(pronouns("It saw him and her; they met them") == "P.P.P.P.P");
  CHECK(pronouns("I told you we like me and us") == "........");
}

TEST_CASE("Chinese: custom lexicon, longest match and single-character fallback") {
  const ap::Lexicon& lex = test_lexicon();
  CHECK(lex.max_zh_length() == 7);
  CHECK(tok("中华人民共和国", lex) == "中华人民共和国");
  CHECK(tok("中华民族", lex) == "中华|民|族");
  CHECK(tok("小猫吃龘", lex) == "小猫|吃|龘");
  const auto t = ap::tokenize("龘小猫", lex);
  REQUIRE(t.size() == 2);
  CHECK(t[0].text == "龘");
  CHECK_FALSE(t[0].known);
  CHECK(t[0].kind == ap::TokenKind::Han);
  CHECK(t[1].known);
  SUBCASE("an empty lexicon splits every character") {
    const ap::Lexicon empty;
    CHECK(tok("小猫吃鱼", empty) == "小|猫|吃|鱼");
    for (const ap::Token& x : ap::tokenize("小猫", empty)) CHECK_FALSE(x.known);
  }
}

TEST_CASE("forced splits: spaces and '|'") {
  CHECK(tok("小猫|吃|鱼") == "小猫|吃|鱼");
  CHECK(tok("开|心") == "开|心");
  CHECK(tok("开 心") == "开|心");
  CHECK(tok("开\u3000心") == "开|心");  // ideographic space
  CHECK(tok("小|猫", test_lexicon()) == "小|猫");
  const auto t = ap::tokenize("开|心");
  REQUIRE(t.size() == 2);
  CHECK(t[1].byte_begin == 4);
  CHECK(t[1].byte_end == 7);
}

TEST_CASE("English: words, contractions, punctuation, case-insensitive known") {
  CHECK(tok("The animal didn't cross the street because it was too tired.") ==
        "The|animal|didn't|cross|the|street|because|it|was|too|tired|.");
  CHECK(tok("it's fine") == "it's|fine");
  CHECK(tok("it\u2019s") == "it\u2019s");  // typographic apostrophe
  CHECK(tok("'quoted'") == "'|quoted|'");
  CHECK(tok("Hello, world!") == "Hello|,|world|!");

  const auto t = ap::tokenize("LOVE Love didn't hate", test_lexicon());
  REQUIRE(t.size() == 4);
  CHECK(t[0].known);
  CHECK(t[1].known);
  CHECK(t[2].known);
  CHECK_FALSE(t[3].known);
  CHECK(t[0].kind == ap::TokenKind::Word);
  CHECK(t[3].byte_begin == 17);
  CHECK(t[3].byte_end == 21);
}

TEST_CASE("numbers") {
  const auto t = ap::tokenize("pi is 3.14, about 1,000 times 42.");
  CHECK(texts(t) == "pi|is|3.14|,|about|1,000|times|42|.");
  CHECK(t[2].kind == ap::TokenKind::Number);
  CHECK(t[5].kind == ap::TokenKind::Number);
  CHECK(t[7].kind == ap::TokenKind::Number);
  CHECK(t[0].kind == ap::TokenKind::Word);
  CHECK(t[3].kind == ap::TokenKind::Punct);
}

TEST_CASE("mixed Chinese and English") {
  CHECK(tok("我爱你 I love you") == "我|爱|你|I|love|you");
  CHECK(tok("我爱Python和C++") == "我|爱|Python|和|C|+|+");
  const auto t = ap::tokenize("我爱AI");
  REQUIRE(t.size() == 3);
  CHECK(t[2].text == "AI");
  CHECK(t[2].kind == ap::TokenKind::Word);
  CHECK(t[2].byte_begin == 6);
  CHECK(t[2].byte_end == 8);
}

TEST_CASE("emoji and combining marks are whole tokens") {
  SUBCASE("ZWJ family") {
    const std::string family = "👨‍👩‍👧‍👦";
    const auto t = ap::tokenize("我爱" + family);
    REQUIRE(t.size() == 3);
    CHECK(t[2].text == family);
    CHECK(t[2].kind == ap::TokenKind::Symbol);
    CHECK(t[2].byte_begin == 6);
    CHECK(t[2].byte_end == 6 + family.size());
  }
  SUBCASE("flags") { CHECK(tok("🇨🇳🇺🇸") == "🇨🇳|🇺🇸"); }
  SUBCASE("skin tones") { CHECK(tok("👍🏽👍🏿") == "👍🏽|👍🏿"); }
  SUBCASE("keycaps") {
    CHECK(tok("1️⃣ #️⃣") == "1️⃣|#️⃣");
    // a keycap is an emoji, not a digit: it never glues to its neighbours
    const auto t = ap::tokenize("1️⃣2️⃣3 a1️⃣");
    CHECK(texts(t) == "1️⃣|2️⃣|3|a|1️⃣");
    REQUIRE(t.size() == 5);
    CHECK(t[0].kind == ap::TokenKind::Symbol);
    CHECK(t[1].kind == ap::TokenKind::Symbol);
    CHECK(t[2].kind == ap::TokenKind::Number);
    CHECK(t[4].kind == ap::TokenKind::Symbol);
  }
  SUBCASE("combining marks") {
    const std::string cafe = "cafe\xCC\x81";  // e + U+0301
    const auto t = ap::tokenize(cafe + " ok");
    REQUIRE(t.size() == 2);
    CHECK(t[0].text == cafe);
    CHECK(t[0].byte_end == 6);
    // a stray mark has no base to sit on: drawn alone it is nothing, so it separates
    CHECK(tok("a \xCC\x81 b") == "a|b");
    CHECK(code_of([] { ap::tokenize("\xCC\x81\xCC\x81"); }) == "empty_text");
  }
  SUBCASE("emoji next to words") { CHECK(tok("I❤️you") == "I|❤️|you"); }
}

TEST_CASE("invisible separators are not tokens: BOM and zero-width space") {
  // a byte order mark (files saved by some editors) and U+200B (pasted from web pages)
  const auto t = ap::tokenize("\uFEFF小猫吃鱼");
  CHECK(texts(t) == "小猫|吃|鱼");
  REQUIRE(!t.empty());
  CHECK(t[0].byte_begin == 3);
  CHECK(tok("a\u200Bb") == "a|b");
  CHECK(tok("开\u200B心") == "开|心");
  CHECK(code_of([] { ap::tokenize("\u200B"); }) == "empty_text");
  CHECK(code_of([] { ap::tokenize("\uFEFF \u200B"); }) == "empty_text");
}

TEST_CASE("every invisible character separates; text with nothing visible is empty_text") {
  // word joiner, Mongolian vowel separator, Hangul fillers, interlinear annotation
  CHECK(tok("x \u2060 y \u180E \u3164 \uFFA0 \uFFF9") == "x|y");
  CHECK(tok("a\u2060b") == "a|b");
  CHECK(tok("cat \uFFFE dog") == "cat|dog");  // a noncharacter (not even allowed in XML)
  CHECK(tok("soft\u00ADhyphen") == "soft|hyphen");
  for (const char* s : {"\u200D", "\u200D\u200D\u200D", "\uFE0F\uFE0E", "\U000E0041\U000E007F",
                        "\u0301\u0308", "\u2060", "\u3164\uFFA0", "\u180E", "\uFFF9\uFFFA\uFFFB",
                        "\u034F", "\uFFFF", "\U0001D173", "\u200C"}) {
    CAPTURE(s);
    CHECK(code_of([&] { ap::tokenize(s); }) == "empty_text");
  }
  // a variation selector or skin tone on an emoji stays part of it
  CHECK(tok("\u2764\uFE0F ok") == "\u2764\uFE0F|ok");
}

TEST_CASE("a zero-width joiner joins only inside emoji sequences") {
  // after punctuation it must not pull the next letter in and split the word ("=\u200Dc" | "md")
  const auto t = ap::tokenize("=\u200Dcmd");
  REQUIRE(t.size() == 2);
  CHECK(t[0].kind == ap::TokenKind::Punct);
  CHECK(t[1].text == "cmd");
  CHECK(tok("a\u200D\U0001F600") == "a\u200D|\U0001F600");
  CHECK(tok("\U0001F600\u200Da") == "\U0001F600\u200D|a");
  CHECK(tok("\U0001F468\u200D\U0001F469\u200D\U0001F467") ==
        "\U0001F468\u200D\U0001F469\u200D\U0001F467");
  CHECK(tok("\U0001F3F3\uFE0F\u200D\U0001F308") ==
        "\U0001F3F3\uFE0F\u200D\U0001F308");  // rainbow flag
  // inside a word (Indic scripts use it) the word stays whole
  CHECK(tok("\u0915\u094D\u200D\u0937 x") == "\u0915\u094D\u200D\u0937|x");
}

TEST_CASE("bidirectional controls separate and never become tokens (they would reverse the text)") {
  // U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+200F RIGHT-TO-LEFT MARK
  CHECK(tok("\u202E abc") == "abc");
  CHECK(tok("ab\u202Ecd") == "ab|cd");
  CHECK(tok("\u2066小猫\u2069吃鱼") == "小猫|吃|鱼");
  CHECK(tok("it\u200Fis") == "it|is");
  CHECK(code_of([] {
          ap::tokenize("\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C");
        }) == "empty_text");
}

TEST_CASE("byte offsets always slice the input back to the token") {
  const std::string s =
      "  小猫 didn't 吃 3.14 鱼👨‍👩‍👧‍👦，cafe\xCC\x81 🇨🇳|ok  ";
  for (const ap::Token& t : ap::tokenize(s)) {
    CAPTURE(t.text);
    REQUIRE(t.byte_end <= s.size());
    CHECK(s.substr(t.byte_begin, t.byte_end - t.byte_begin) == t.text);
  }
}

TEST_CASE("to_string(TokenKind)") {
  CHECK(std::string(ap::to_string(ap::TokenKind::Word)) == "word");
  CHECK(std::string(ap::to_string(ap::TokenKind::Han)) == "han");
  CHECK(std::string(ap::to_string(ap::TokenKind::Number)) == "number");
  CHECK(std::string(ap::to_string(ap::TokenKind::Punct)) == "punct");
  CHECK(std::string(ap::to_string(ap::TokenKind::Symbol)) == "symbol");
}

TEST_CASE("tokenize errors") {
  auto code = [](const std::string& s, int max_tokens = ap::kDefaultMaxTokens) {
    return code_of([&] { ap::tokenize(s, ap::default_lexicon(), max_tokens); });
  };
  SUBCASE("empty_text") {
    CHECK(code("") == "empty_text");
    CHECK(code("   ") == "empty_text");
    CHECK(code(" \t\n\r ") == "empty_text");
    CHECK(code("\u3000\u00A0") == "empty_text");
    CHECK(code("|||") == "empty_text");
  }
  SUBCASE("invalid_utf8") {
    CHECK(code("ok \x80") == "invalid_utf8");           // lone continuation
    CHECK(code("\xC0\xAF") == "invalid_utf8");          // overlong
    CHECK(code("\xE0\x80\xAF") == "invalid_utf8");      // overlong
    CHECK(code("\xED\xA0\x80") == "invalid_utf8");      // encoded surrogate
    CHECK(code("小\xE7\x8C") == "invalid_utf8");        // truncated
    CHECK(code("\xF5\x80\x80\x80") == "invalid_utf8");  // F5+
    CHECK(code("\xFF") == "invalid_utf8");
  }
  SUBCASE("control_char") {
    CHECK(code(std::string("a\0b", 3)) == "control_char");
    CHECK(code("a\x01"
               "b") == "control_char");
    CHECK(code("\x1B[31m") == "control_char");
    CHECK(code("a\x7F") == "control_char");
    CHECK(code("a\xC2\x80") == "control_char");  // C1 control U+0080
    CHECK(code("a\tb\nc\r\n") == "no error");
  }
  SUBCASE("text_too_long") {
    CHECK(code(std::string(100001, 'a')) == "text_too_long");
    CHECK(code(std::string(100000, 'a')) == "no error");  // one long word
  }
  SUBCASE("too_many_tokens, and raising the cap") {
    const std::string s65 = repeat("a ", 65);
    CHECK(code(repeat("a ", 64)) == "no error");
    CHECK(code(s65) == "too_many_tokens");
    CHECK(code(s65, 512) == "no error");
    CHECK(ap::tokenize(s65, ap::default_lexicon(), 512).size() == 65);
    const ap::Lexicon empty;  // every Han character is its own token
    CHECK(ap::tokenize(repeat("鱼", 512), empty, 512).size() == 512);
    CHECK(code_of([&] { ap::tokenize(repeat("鱼", 513), empty, 512); }) == "too_many_tokens");
    CHECK(code("a b c", 2) == "too_many_tokens");
  }
  SUBCASE("bad_max_tokens") {
    CHECK(code("a", 0) == "bad_max_tokens");
    CHECK(code("a", -5) == "bad_max_tokens");
    CHECK(code("a", 513) == "bad_max_tokens");
    CHECK(code("a", 1) == "no error");
  }
  SUBCASE("messages are one line") {
    try {
      ap::tokenize(repeat("a ", 65));
      FAIL("no error");
    } catch (const ap::Error& e) {
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
      CHECK(std::string(e.what()).find("64") != std::string::npos);
    }
  }
}
