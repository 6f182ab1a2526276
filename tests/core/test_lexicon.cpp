// test_lexicon.cpp: parsing the TSV lexicon and the built-in one. Not segmentation
// (test_tokenizer.cpp).
#include <doctest/doctest.h>

#include <string>

#include "lexicon.hpp"

TEST_CASE("Lexicon::from_tsv") {
  const ap::Lexicon lex = ap::Lexicon::from_tsv(
      "# a comment line\n"
      "\n"
      "小猫\tzh\tanimal\r\n"
      "中华人民共和国\tzh\tplace\n"
      "  love \t en \t verb \n"
      "bare\n"
      "#not\tzh\tcomment? no: a comment\n"
      "last\ten\tadj");  // no final newline
  CHECK(lex.size() == 5);
  REQUIRE(lex.find("小猫") != nullptr);
  CHECK(lex.find("小猫")->lang == "zh");
  CHECK(lex.find("小猫")->category == "animal");  // the \r is trimmed
  REQUIRE(lex.find("love") != nullptr);
  CHECK(lex.find("love")->lang == "en");
  CHECK(lex.find("love")->category == "verb");
  REQUIRE(lex.find("bare") != nullptr);
  CHECK(lex.find("bare")->lang == "");
  CHECK(lex.contains("last"));
  CHECK_FALSE(lex.contains("#not"));
  CHECK_FALSE(lex.contains("猫"));
  CHECK(lex.max_zh_length() == 7);  // code points, not bytes
}

TEST_CASE("Lexicon::add keeps max_zh_length in code points") {
  ap::Lexicon lex;
  CHECK(lex.max_zh_length() == 1);
  lex.add("开心", {"zh", "adj", ""});
  CHECK(lex.max_zh_length() == 2);
  lex.add("extraordinarily", {"en", "adverb", ""});  // English never widens the Chinese search
  CHECK(lex.max_zh_length() == 2);
  lex.add("开心", {"zh", "feeling", ""});
  CHECK(lex.size() == 2);
  CHECK(lex.find("开心")->category == "feeling");
}

TEST_CASE("the built-in lexicon has the starter words") {
  const ap::Lexicon& lex = ap::default_lexicon();
  for (const char* w :
       {"小猫", "吃", "鱼", "它", "很", "开心", "我", "爱", "你", "苹果", "好吃", "，", "。"}) {
    CAPTURE(w);
    CHECK(lex.contains(w));
  }
  CHECK(lex.find("小猫")->lang == "zh");
  CHECK(&lex == &ap::default_lexicon());
}
