// test_ambiguity.cpp: pronouns with two earlier candidates of one kind, on a lexicon under the
// test's control and on the shipped one. Not tokenization itself (test_tokenizer.cpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ambiguity.hpp"
#include "lexicon.hpp"
#include "tokenizer.hpp"

namespace {

const ap::Lexicon& lex() {
  static const ap::Lexicon l = ap::Lexicon::from_tsv(
      "老虎\tzh\tanimal\n兔子\tzh\tanimal\n小猫\tzh\tanimal\n鱼\tzh\tfood\n追\tzh\tverb\n"
      "它\tzh\tpronoun\n他\tzh\tpronoun\n我\tzh\tpronoun\n妈妈\tzh\tperson\n爸爸\tzh\tperson\n"
      "trophy\ten\tobject\nsuitcase\ten\tobject\nit\ten\tpronoun\nthey\ten\tpronoun\n"
      "the\ten\tfunction\n");
  return l;
}

std::vector<ap::SameKindCandidates> run(const std::string& text) {
  return ap::same_kind_candidates(ap::tokenize(text, lex()), lex());
}

}  // namespace

TEST_CASE("two animals before 它: both are candidates, in sentence order") {
  const auto r = run("老虎追兔子，它");
  REQUIRE(r.size() == 1);
  CHECK(r[0].pronoun == 4);
  CHECK(r[0].category == "animal");
  CHECK(r[0].candidates == std::vector<std::size_t>{0, 2});
}

TEST_CASE("one animal and one food: no two of a kind, nothing to report") {
  CHECK(run("小猫吃鱼，它").empty());
}

TEST_CASE("the same word twice is one candidate") { CHECK(run("老虎追老虎，它").empty()); }

TEST_CASE("only earlier nouns count") { CHECK(run("它追老虎 兔子").empty()); }

TEST_CASE("他 refers to people, not to animals; 我 to the speaker") {
  CHECK(run("老虎追兔子，他").empty());
  CHECK(run("妈妈 爸爸，我").empty());
  const auto r = run("妈妈 爸爸，他");
  REQUIRE(r.size() == 1);
  CHECK(r[0].category == "person");
}

TEST_CASE("English, case-insensitive: The trophy ... the suitcase ... it") {
  const auto r = run("The trophy the suitcase it");
  REQUIRE(r.size() == 1);
  CHECK(r[0].candidates == std::vector<std::size_t>{1, 3});
  CHECK(r[0].pronoun == 4);
}

TEST_CASE("they may refer to any kind: one entry per kind with two candidates") {
  const auto r = run("trophy suitcase the 老虎 兔子 they");
  REQUIRE(r.size() == 2);
  CHECK(r[0].category == "animal");
  CHECK(r[1].category == "object");
}

TEST_CASE("the shipped lexicon knows the example sentence has one animal before 它") {
  CHECK(ap::same_kind_candidates(ap::tokenize("小猫吃鱼，它很开心")).empty());
}

TEST_CASE("the shipped lexicon: possessives refer back like the pronouns they come from") {
  // its like it (things), his like he (people), their like they (any kind)
  const auto its = ap::same_kind_candidates(ap::tokenize("The dog chased the cat to its bed"));
  REQUIRE(its.size() == 1);
  CHECK(its[0].category == "animal");
  const auto his = ap::same_kind_candidates(ap::tokenize("The boy helped the man with his bag"));
  REQUIRE(his.size() == 1);
  CHECK(his[0].category == "person");
  CHECK(ap::same_kind_candidates(ap::tokenize("The dog chased the cat to his bed")).empty());
  CHECK(ap::same_kind_candidates(ap::tokenize("The boy helped the man with its bag")).empty());
}
