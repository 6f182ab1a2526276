// trainer.hpp: trains the one-layer attention model on the template corpus (scripts/gen_lexicon)
// with Adam, seeded and deterministic, and measures what each head learned. Not file I/O (callers
// hand in the corpus and lexicon text) and not a general training framework.
//
// The model: X = E[ids] + positions (n x d_model); attend() with W_Q, W_K, W_V, W_O and no
// residual, so output_i is literally the heads' weighted mix of value rows; logits_i =
// output_i E^T over the whole vocabulary (E tied). Cross-entropy only where the corpus has a
// target: a pronoun must name its antecedent's word, a verb its object's (or subject's). The words
// are in the sentence but not at the query's position, so the heads must look at them to copy
// them: that is why the trained weights can be read.
//
// Shapes: n tokens, d_model, h heads, d_k per head, V vocabulary rows.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lexicon.hpp"
#include "model_file.hpp"
#include "rng.hpp"

namespace ap {

struct CorpusTarget {
  enum class Kind { Pronoun, Verb };
  Kind kind;
  int from;  // the query token (pronoun or verb)
  int to;    // the token whose word it must name
};

// One line of src/data/corpus/*.tsv (format: see scripts/gen_lexicon.py).
struct CorpusLine {
  int line_number = 0;
  std::string lang, template_id, text;
  std::vector<std::string> tokens;
  std::vector<CorpusTarget> targets;
};

// Throws ap::Error("bad_corpus") naming the line of the first malformed entry.
std::vector<CorpusLine> parse_corpus(std::string_view tsv);

// A corpus sentence ready for the model.
struct Example {
  std::vector<int> ids;           // n vocabulary rows
  std::vector<bool> punctuation;  // n: token may be swapped for <sym> while training
  std::vector<CorpusTarget> targets;
};

// Tokenizes every line's text with lex, checks the tokens are exactly the corpus's (else
// ap::Error("corpus_mismatch"): regenerate with scripts/gen_lexicon) and that the vocabulary knows
// them (else "corpus_unknown_word").
std::vector<Example> prepare_examples(const std::vector<CorpusLine>& lines, const Vocabulary& vocab,
                                      const Lexicon& lex);

struct TrainConfig {
  int d_model = 32;
  int heads = 2;
  int d_k = 16;
  int steps = 6000;
  int batch = 32;                // sentences per step
  float learning_rate = 0.01f;   // peak, after a linear warm-up
  int warmup = 100;              // steps
  float final_lr_ratio = 0.05f;  // cosine decay to learning_rate * this at the last step
  float beta1 = 0.9f, beta2 = 0.999f, adam_eps = 1e-8f;
  float embedding_init = 0.5f;  // standard deviation of E's first entries
  float unknown_rate = 0.03f;   // chance a word is swapped for a random <unk:k> row
  float symbol_rate = 0.05f;    // chance a punctuation mark is swapped for <sym>
  std::uint64_t seed = 1;
};

// Throws ap::Error("bad_train_config") naming the first bad field.
void validate(const TrainConfig& c);

class Trainer {
 public:
  // Seeds E ~ N(0, embedding_init^2) and the weights as random_weights(seed) does.
  Trainer(const TrainConfig& config, Vocabulary vocab, std::vector<Example> train);

  // One Adam step on the next `batch` sentences (a seeded shuffle per epoch). Returns the batch's
  // mean cross-entropy per target.
  double step();
  int steps_done() const { return step_; }
  float learning_rate_at(int step) const;  // the schedule, step counted from 0

  // The parameters as they are now (notes and info are the caller's to fill).
  const TrainedModel& model() const { return model_; }

 private:
  struct Adam {
    Matrix m, v;
  };
  // one Adam step on param (any shape) with its gradient of the same shape
  void adam_update(Matrix& param, MatrixRef grad, Adam& state, float lr);

  TrainConfig config_;
  std::vector<Example> train_;
  TrainedModel model_;
  Matrix positions_;  // max n x d_model
  Rng rng_;
  std::vector<std::size_t> order_;
  std::size_t cursor_ = 0;
  int step_ = 0;
  Adam adam_E_, adam_Q_, adam_K_, adam_V_, adam_O_;
};

// How the model does on a set of sentences (the held-out split, usually).
struct Evaluation {
  int sentences = 0;
  int targets = 0, correct = 0;  // output names the right word (largest logit over V)
  int pronouns = 0, pronouns_correct = 0;
  int verbs = 0, verbs_correct = 0;
  double loss = 0.0;  // mean cross-entropy per target
  // per head: how often the query's largest weight sits on the target token
  std::vector<int> head_pronoun_hits, head_verb_hits;
  // per head: mean weight a token gives to itself, over every row of every sentence
  std::vector<double> head_self_weight;

  double accuracy() const { return targets ? static_cast<double>(correct) / targets : 0.0; }
  double pronoun_accuracy() const {
    return pronouns ? static_cast<double>(pronouns_correct) / pronouns : 0.0;
  }
  double verb_accuracy() const { return verbs ? static_cast<double>(verbs_correct) / verbs : 0.0; }
  double head_pronoun_accuracy(int h) const;
  double head_verb_accuracy(int h) const;
};

Evaluation evaluate(const TrainedModel& m, const std::vector<Example>& data);

// Names each head from a held-out evaluation: a head whose largest weight finds the antecedent of
// at least `threshold` of the pronouns is a "pronouns" head ("this head learned to resolve
// pronouns"), likewise "verbs"; others are described by their numbers.
void annotate_heads(TrainedModel& m, const Evaluation& held_out, double threshold = 0.6);

}  // namespace ap
