// ambiguity.hpp: what a sentence asks that word categories alone cannot answer. For each
// third-person pronoun, the earlier nouns of a kind it can refer to, when two or more of them are
// of the same kind (老虎追了兔子，它很害怕: 老虎 and 兔子 are both animals). Reads the lexicon's
// categories only: no model, no attention, no guess at the answer.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "lexicon.hpp"
#include "tokenizer.hpp"

namespace ap {

struct SameKindCandidates {
  std::size_t pronoun;                  // token index of the pronoun
  std::string category;                 // the lexicon category the candidates share
  std::vector<std::size_t> candidates;  // earlier tokens of that category, first occurrence of
                                        // each distinct word, in sentence order (two or more)
};

// The categories a pronoun can refer to ("animal", "object", ... or "person"); empty when the
// token is not a third-person pronoun (I, you, we, 我, 你 refer to the speakers).
std::vector<std::string> pronoun_referents(const Token& t, const Lexicon& lex = default_lexicon());

// One entry per (pronoun, category) with two or more distinct earlier words of that category.
std::vector<SameKindCandidates> same_kind_candidates(const std::vector<Token>& tokens,
                                                     const Lexicon& lex = default_lexicon());

}  // namespace ap
