// corpus.hpp: the training corpus (src/data/corpus/*.tsv, written by model/generate.py): its
// lines, their targets, and the vocabulary rows the trainer reads. Not the generator (Python) and
// not training.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "lexicon.hpp"
#include "vocabulary.hpp"

namespace ap {

struct CorpusTarget {
  enum class Kind { Pronoun, Verb };
  Kind kind;
  int from;  // the query token (pronoun or verb)
  int to;    // the token whose word it must name
};

// One line of src/data/corpus/*.tsv (format: see model/generate.py).
struct CorpusLine {
  int line_number = 0;
  std::string lang, template_id, text;
  std::vector<std::string> tokens;
  std::vector<CorpusTarget> targets;
};

// Throws ap::Error("bad_corpus") naming the line of the first malformed entry.
std::vector<CorpusLine> parse_corpus(std::string_view tsv);

// The template id of a hand-written training sentence (model/sentences/train/*.tsv, copied into the
// corpus by model/generate.py). Only such a line may hold words outside the vocabulary: one read
// through a single piece gets that row (cookies -> cookie), as when the model traces it; any
// other gets its hashed row (a trace would average several pieces; a training id is one row).
constexpr const char* kHandWrittenTemplate = "hand";

// A corpus sentence ready for the model.
struct Example {
  std::vector<int> ids;           // n vocabulary rows
  std::vector<bool> punctuation;  // n: token may be swapped for <sym> while training
  std::vector<int> width;         // n: tokens the word becomes when unknown (Chinese: one a
                                  // character, as the tokenizer splits it; else 1)
  std::vector<CorpusTarget> targets;
  // n flags, or none: the tokens whose verb-head row the trainer leaves free. In a hand-written
  // sentence every pronoun carries a target but only some verbs do, so its verbs (and words outside
  // the lexicon, which may be verbs) are set: a verb without a target gives no evidence that the
  // verb head should stay on it (one with a target is taught its target). Every other row there,
  // as in a generated sentence, is taught to stay on itself.
  std::vector<bool> verb_free;
};

// Tokenizes every line's text with lex, checks the tokens are exactly the corpus's (else
// ap::Error("corpus_mismatch"): regenerate with model/generate.py) and, except in hand-written
// lines (kHandWrittenTemplate), that the vocabulary knows them (else "corpus_unknown_word").
std::vector<Example> prepare_examples(const std::vector<CorpusLine>& lines, const Vocabulary& vocab,
                                      const Lexicon& lex);

}  // namespace ap
