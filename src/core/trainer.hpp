// trainer.hpp: trains the layered model (network.hpp) on the corpus (corpus.hpp) with Adam, seeded
// and deterministic. Not file I/O (callers hand in the corpus and lexicon text), not evaluation
// (evaluation.hpp) and not a general training framework.
//
// The model: X_0 = E[ids] + positions (n x d_model); the layer stack; read-out Y (n x d_model);
// logits_i = Y_i E^T over the whole vocabulary (E tied). Cross-entropy only where the corpus has a
// target: a pronoun must name its antecedent's word, a verb its object's (or subject's). The word
// is in the sentence but not at the query's position, so some head has to look at it to copy it.
// Optionally (attention_supervision > 0) a second loss, -log weight(from, to), teaches one head of
// the last layer to put its weight on the antecedent (pronoun_head) and another on the verb's
// argument (verb_head): such heads are trained to point, which the model's info says. The same
// loss, with weight row_supervision per row, sends those two heads' other rows (tokens that are not
// their pronoun or verb) to the token itself, so the two heads keep apart: one links pronouns, the
// other verbs, and neither copies the other's job (in a hand-written sentence, where only some
// verbs carry targets, the verb head's rows at the others are left free: Example::verb_free). With
// previous_supervision > 0 and two or more layers, head previous_head of the first layer is taught
// to look at the token just before (the first token at itself): a previous-token head whose output
// the later layers can read. (Leaving its pronoun and verb rows free, or dropping it, did not help
// the coreference head.)
//
// Shapes: n tokens, d_model, h heads, d_k per head, d_ff, L layers, V vocabulary rows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "backward.hpp"
#include "corpus.hpp"
#include "model_file.hpp"
#include "rng.hpp"

namespace ap {

// A training corpus (the TSV of model/generate.py) larger than this is refused before it is
// copied or parsed; the shipped corpus is well under it.
constexpr std::size_t kMaxCorpusBytes = std::size_t{16} << 20;

struct TrainConfig {
  int d_model = 32;
  int heads = 2;
  int d_k = 16;
  int d_ff = 64;
  // 2 layers: with 3, a free middle-layer head learns to link pronouns too, which lifts "any head"
  // only as a second guess would; the coreference head did no better (README, "Tried, not kept")
  int layers = 2;
  int steps = 6000;              // the shipped model: 4,000 left the dev set 1 point lower
  int batch = 32;                // sentences per step
  float learning_rate = 0.005f;  // peak, after a linear warm-up
  int warmup = 200;              // steps
  float final_lr_ratio = 0.05f;  // cosine decay to learning_rate * this at the last step
  float beta1 = 0.9f, beta2 = 0.999f, adam_eps = 1e-8f;
  float embedding_init = 0.5f;         // standard deviation of E's first entries
  float unknown_rate = 0.03f;          // chance a word is swapped for a random <unk:k> row
  float symbol_rate = 0.05f;           // chance a punctuation mark is swapped for <sym>
  float attention_supervision = 1.0f;  // weight of the attention loss; 0 = off
  int pronoun_head = 0;                // last-layer head taught to point at antecedents
  int verb_head = 1;                   // last-layer head taught to point at verb arguments
  float row_supervision = 0.1f;        // per other row of those two heads: weight on itself
  float previous_supervision = 0.1f;   // per row of the first layer's previous-token head; 0 = off
  int previous_head = 0;               // that head
  // AdamW's decay of E and every W (not gains or biases): 0.1 for the shipped model. Residual
  // dropout of each block's output (network.hpp): off, as 0.1 did not help (README)
  float weight_decay = 0.1f;
  float dropout = 0.0f;
  // A second word loss: a word (not a pronoun, verb or their target, not punctuation) is hidden
  // behind a random <unk:k> row with chance masked_rate, and the read-out at its position must
  // name it, with weight masked_weight per hidden word: which words fit which contexts, what a
  // pronoun's row needs when only meaning tells two candidates apart. Off: it lowered the
  // coreference head and the minimal pairs (README, "Tried after the eighteen files")
  float masked_rate = 0.0f;
  float masked_weight = 1.0f;
  std::uint64_t seed = 1;
};

// Throws ap::Error("bad_train_config") naming the first bad field.
void validate(const TrainConfig& c);

// A run of the trainer in the page (web/views/train.js, the training worker): a whole number of
// steps, a multiple of `chunk` (the steps between progress reports; a pause answers within one)
// from `chunk` up to the shipped model's TrainConfig::steps; the control starts at
// `default_steps`. The batch and the seed are TrainConfig's.
struct PageTraining {
  int chunk = 20;
  int default_steps = 1500;
  int max_steps = TrainConfig{}.steps;
  int batch = TrainConfig{}.batch;
  std::uint64_t seed = TrainConfig{}.seed;
};

// One example as a training step sees it: any word may become an unknown word, referent or not,
// so that "unknown" says nothing about being the answer (the answer then names the <unk:k> row);
// a Chinese word becomes one unknown row per character (e.width), as the tokenizer splits a word
// the lexicon lacks, with its answer on the last of them (the head of a compound); punctuation
// may become <sym>. The targets move with the tokens.
struct Noised {
  std::vector<int> ids;
  std::vector<CorpusTarget> targets;
  std::vector<bool> verb_free;     // per id, from Example::verb_free (empty when that is)
  std::vector<CopyTarget> masked;  // hidden words: the row where each is, the word it was
};
Noised add_unknowns(const Example& e, const Vocabulary& vocab, const TrainConfig& config, Rng& rng);

class Trainer {
 public:
  // Seeds E ~ N(0, embedding_init^2) and the layers with init_network(seed).
  Trainer(const TrainConfig& config, Vocabulary vocab, std::vector<Example> train);

  // One Adam step on the next `batch` sentences (a seeded shuffle per epoch). Returns the batch's
  // mean cross-entropy per target (the word loss only).
  double step();
  int steps_done() const { return step_; }
  float learning_rate_at(int step) const;  // the schedule, step counted from 0

  // The parameters as they are now (notes and info are the caller's to fill).
  const TrainedModel& model() const { return model_; }

 private:
  struct Adam {
    Matrix m, v;
  };
  // one Adam step on param (any shape) with its gradient of the same shape; decay > 0 first
  // shrinks param by lr * decay (AdamW)
  void adam_update(Matrix& param, MatrixRef grad, Adam& state, float lr, float decay);

  TrainConfig config_;
  std::vector<Example> train_;
  TrainedModel model_;
  Rng rng_;
  std::vector<std::size_t> order_;
  std::size_t cursor_ = 0;
  int step_ = 0;
  Adam adam_E_;
  std::vector<Adam> adam_net_;  // one per parameters(model_.net) entry
};

}  // namespace ap
