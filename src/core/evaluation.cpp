// evaluation.cpp: the dev-split numbers, per target and per head of every layer.
#include "evaluation.hpp"

#include "backward.hpp"
#include "inference.hpp"
#include "model.hpp"

namespace ap {

double Evaluation::head_pronoun_accuracy(int layer, int head) const {
  return pronouns ? static_cast<double>(
                        head_pronoun_hits[static_cast<std::size_t>(layer * heads + head)]) /
                        pronouns
                  : 0.0;
}
double Evaluation::head_verb_accuracy(int layer, int head) const {
  return verbs
             ? static_cast<double>(head_verb_hits[static_cast<std::size_t>(layer * heads + head)]) /
                   verbs
             : 0.0;
}

Evaluation evaluate(const TrainedModel& m, const std::vector<Example>& data) {
  Evaluation ev;
  ev.layers = m.net.depth();
  ev.heads = m.net.heads;
  const std::size_t H = static_cast<std::size_t>(ev.layers * ev.heads);
  ev.head_pronoun_hits.assign(H, 0);
  ev.head_verb_hits.assign(H, 0);
  ev.head_self.assign(H, 0.0);
  ev.head_previous.assign(H, 0.0);
  const AttentionOptions opt = model_options(Settings{}, m);
  long long rows = 0;
  for (const Example& e : data) {
    const NetworkTrace t = network_forward(m.net, embed_with_model(e.ids, m, true), opt);
    ++ev.sentences;
    const int n = static_cast<int>(e.ids.size());
    rows += n;
    // argmax of every row of every head, once
    std::vector<std::vector<int>> top(H, std::vector<int>(static_cast<std::size_t>(n)));
    for (int l = 0; l < ev.layers; ++l)
      for (int h = 0; h < ev.heads; ++h) {
        const std::size_t k = static_cast<std::size_t>(l * ev.heads + h);
        const Matrix& w =
            t.layers[static_cast<std::size_t>(l)].attn.head[static_cast<std::size_t>(h)].weights;
        for (int i = 0; i < n; ++i) {
          Eigen::Index col = 0;
          w.row(i).maxCoeff(&col);
          top[k][static_cast<std::size_t>(i)] = static_cast<int>(col);
          ev.head_self[k] += col == i;
          ev.head_previous[k] += i > 0 && col == i - 1;
        }
      }
    if (e.targets.empty()) continue;
    const Matrix& Y = t.norm_out.y;
    std::vector<CopyTarget> copy;
    for (const CorpusTarget& c : e.targets)
      copy.push_back({c.from, e.ids[static_cast<std::size_t>(c.to)]});
    ev.loss += tied_cross_entropy(Y, m.E, copy, 0.0f, nullptr, nullptr);
    for (const CorpusTarget& c : e.targets) {
      const bool pron = c.kind == CorpusTarget::Kind::Pronoun;
      RowVector logits = Y.row(c.from) * m.E.transpose();
      Eigen::Index best = 0;
      logits.maxCoeff(&best);
      const bool ok = static_cast<int>(best) == e.ids[static_cast<std::size_t>(c.to)];
      ++ev.targets;
      ev.correct += ok;
      (pron ? ev.pronouns : ev.verbs) += 1;
      (pron ? ev.pronouns_correct : ev.verbs_correct) += ok;
      for (std::size_t k = 0; k < H; ++k)
        if (top[k][static_cast<std::size_t>(c.from)] == c.to)
          (pron ? ev.head_pronoun_hits : ev.head_verb_hits)[k] += 1;
    }
  }
  if (ev.targets) ev.loss /= ev.targets;
  for (std::size_t k = 0; k < H; ++k) {
    ev.head_self[k] = rows ? ev.head_self[k] / static_cast<double>(rows) : 0.0;
    ev.head_previous[k] = rows ? ev.head_previous[k] / static_cast<double>(rows) : 0.0;
  }
  return ev;
}

std::vector<HeadNote> dev_notes(const Evaluation& ev, double threshold) {
  std::vector<HeadNote> out;
  for (int l = 0; l < ev.layers; ++l)
    for (int h = 0; h < ev.heads; ++h) {
      const std::size_t k = static_cast<std::size_t>(l * ev.heads + h);
      const std::pair<const char*, double> share[] = {
          {"coreference", ev.head_pronoun_accuracy(l, h)},
          {"verb_argument", ev.head_verb_accuracy(l, h)},
          {"self", ev.head_self[k]},
          {"previous_token", ev.head_previous[k]}};
      // A link (pronoun, verb, previous token) names the head before "self": a taught head rests
      // on itself wherever it has no link to make, so its self share is large by design.
      HeadNote n;
      n.role = share[2].second >= threshold ? "self" : "mixed";
      double best = threshold;
      for (const auto& s : share)
        if (s.first != share[2].first && s.second >= best) {
          best = s.second;
          n.role = s.first;
        }
      n.numbers = {{"dev_pronoun", static_cast<float>(share[0].second)},
                   {"dev_verb", static_cast<float>(share[1].second)},
                   {"dev_self", static_cast<float>(share[2].second)},
                   {"dev_previous", static_cast<float>(share[3].second)}};
      out.push_back(std::move(n));
    }
  return out;
}

}  // namespace ap
