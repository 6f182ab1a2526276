// ambiguity.cpp: pronouns with two or more earlier candidates of one kind (see ambiguity.hpp).
#include "ambiguity.hpp"

#include <algorithm>
#include <set>

namespace ap {

namespace {

const std::vector<std::string> kThings = {"animal", "object", "food", "place"};
const std::vector<std::string> kPeople = {"person"};
const std::vector<std::string> kAny = {"person", "animal", "object", "food", "place"};

}  // namespace

std::vector<std::string> pronoun_referents(const Token& t, const Lexicon& lex) {
  const std::string key = lexicon_key(t.text, t.kind);
  const Lexicon::Entry* e = lex.find(key);
  if (!e || e->category != "pronoun") return {};
  if (key == "it" || key == "its" || key == "它") return kThings;
  if (key == "he" || key == "him" || key == "his" || key == "she" || key == "her" || key == "他" ||
      key == "她" || key == "他们" || key == "她们")
    return kPeople;
  if (key == "they" || key == "them" || key == "their" || key == "它们") return kAny;
  return {};  // first and second person: the speakers, not an earlier noun
}

std::vector<SameKindCandidates> same_kind_candidates(const std::vector<Token>& tokens,
                                                     const Lexicon& lex) {
  std::vector<SameKindCandidates> out;
  for (std::size_t p = 0; p < tokens.size(); ++p) {
    const std::vector<std::string> kinds = pronoun_referents(tokens[p], lex);
    for (const std::string& kind : kinds) {
      SameKindCandidates c{p, kind, {}};
      std::set<std::string> words;
      for (std::size_t j = 0; j < p; ++j) {
        const std::string key = lexicon_key(tokens[j].text, tokens[j].kind);
        const Lexicon::Entry* e = lex.find(key);
        if (e && e->category == kind && words.insert(key).second) c.candidates.push_back(j);
      }
      if (c.candidates.size() >= 2) out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace ap
