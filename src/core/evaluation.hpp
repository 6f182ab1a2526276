// evaluation.hpp: how a trained model does on a set of corpus sentences (the generated dev split
// while training): the word it reads at each target, and where every head of every layer puts
// its largest weight. Not the hand-written honest test (model/eval measures that through the
// CLI) and not training.
#pragma once
#include <vector>

#include "corpus.hpp"
#include "model_file.hpp"

namespace ap {

struct Evaluation {
  int sentences = 0, layers = 0, heads = 0;
  int targets = 0, correct = 0;  // the read-out names the right word (largest logit over V)
  int pronouns = 0, pronouns_correct = 0;
  int verbs = 0, verbs_correct = 0;
  double loss = 0.0;  // mean cross-entropy per target
  // per head, index layer * heads + head: how often the query's largest weight is on the target
  std::vector<int> head_pronoun_hits, head_verb_hits;
  // per head: share of rows whose largest weight is on the token itself / on the previous token
  std::vector<double> head_self, head_previous;

  double accuracy() const { return targets ? static_cast<double>(correct) / targets : 0.0; }
  double pronoun_accuracy() const {
    return pronouns ? static_cast<double>(pronouns_correct) / pronouns : 0.0;
  }
  double verb_accuracy() const { return verbs ? static_cast<double>(verbs_correct) / verbs : 0.0; }
  double head_pronoun_accuracy(int layer, int head) const;
  double head_verb_accuracy(int layer, int head) const;
};

Evaluation evaluate(const TrainedModel& m, const std::vector<Example>& data);

// One note per head (layer by layer) naming its role from a dev evaluation, with the dev numbers
// behind it (dev_pronoun, dev_verb, dev_self, dev_previous). The role is the largest link share
// that is at least `threshold` ("coreference", "verb_argument" or "previous_token"), else "self"
// when the self share is, else "mixed": a head that links pronouns and rests on itself elsewhere
// is a coreference head. The page words each role (web/locales, "role.<role>").
std::vector<HeadNote> dev_notes(const Evaluation& dev, double threshold = 0.5);

}  // namespace ap
