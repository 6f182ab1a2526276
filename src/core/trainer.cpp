// trainer.cpp: corpus parsing, the training step (forward with attend(), backward with
// attend_backward()), Adam, evaluation and the notes that name each head.
#include "trainer.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "backward.hpp"
#include "error.hpp"
#include "model.hpp"

namespace ap {

// ------------------------------------------------------------------------------------------------
// Corpus

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) break;
    s.remove_prefix(p + 1);
  }
  return out;
}

bool parse_index(std::string_view s, int& out) {
  if (s.empty() || s.size() > 4) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

}  // namespace

std::vector<CorpusLine> parse_corpus(std::string_view tsv) {
  std::vector<CorpusLine> out;
  int number = 0;
  while (!tsv.empty()) {
    const std::size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv.remove_prefix(nl == std::string_view::npos ? tsv.size() : nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const auto bad = [&](const std::string& why) {
      throw Error("bad_corpus", "corpus line " + std::to_string(number) + ": " + why +
                                    " (regenerate it with scripts/gen_lexicon)");
    };
    const std::vector<std::string_view> col = split(line, '\t');
    if (col.size() != 5) bad("expected 5 tab-separated columns, got " + std::to_string(col.size()));
    CorpusLine c;
    c.line_number = number;
    c.lang = std::string(col[0]);
    c.template_id = std::string(col[1]);
    c.text = std::string(col[2]);
    for (std::string_view t : split(col[3], '|')) {
      if (t.empty()) bad("an empty token");
      c.tokens.emplace_back(t);
    }
    if (col[4] != "-") {
      for (std::string_view item : split(col[4], ' ')) {
        const std::size_t colon = item.find(':'), gt = item.find('>');
        int from = 0, to = 0;
        if (colon == std::string_view::npos || gt == std::string_view::npos || gt < colon ||
            !parse_index(item.substr(colon + 1, gt - colon - 1), from) ||
            !parse_index(item.substr(gt + 1), to))
          bad("target \"" + std::string(item) + "\" is not kind:i>j");
        const std::string_view kind = item.substr(0, colon);
        CorpusTarget t{CorpusTarget::Kind::Pronoun, from, to};
        if (kind == "verb") {
          t.kind = CorpusTarget::Kind::Verb;
        } else if (kind != "pron") {
          bad("unknown target kind \"" + std::string(kind) + "\"");
        }
        const int n = static_cast<int>(c.tokens.size());
        if (from >= n || to >= n || from == to)
          bad("target " + std::string(item) + " is out of range");
        c.targets.push_back(t);
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Example> prepare_examples(const std::vector<CorpusLine>& lines, const Vocabulary& vocab,
                                      const Lexicon& lex) {
  std::vector<Example> out;
  out.reserve(lines.size());
  for (const CorpusLine& c : lines) {
    const std::vector<Token> tokens = tokenize(c.text, lex, kMaxTokensLimit);
    bool same = tokens.size() == c.tokens.size();
    for (std::size_t i = 0; same && i < tokens.size(); ++i) same = tokens[i].text == c.tokens[i];
    if (!same) {
      std::string got;
      for (const Token& t : tokens) got += (got.empty() ? "" : "|") + t.text;
      throw Error("corpus_mismatch", "corpus line " + std::to_string(c.line_number) +
                                         " tokenizes as " + got +
                                         " but the corpus says otherwise: the lexicon and corpus "
                                         "are out of step; rerun scripts/gen_lexicon");
    }
    Example e;
    for (const Token& t : tokens) {
      if (!vocab.knows(t))
        throw Error("corpus_unknown_word", "corpus line " + std::to_string(c.line_number) + ": \"" +
                                               t.text + "\" is not in the vocabulary");
      e.ids.push_back(vocab.id(t));
      e.punctuation.push_back(t.kind == TokenKind::Punct);
    }
    e.targets = c.targets;
    out.push_back(std::move(e));
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// Training

void validate(const TrainConfig& c) {
  const auto bad = [](const std::string& what) { throw Error("bad_train_config", what); };
  if (c.d_model < 1 || c.d_model > kMaxDModel) bad("d_model out of range");
  if (c.heads < 1 || c.heads > kMaxHeads) bad("heads out of range");
  if (c.d_k < 1 || c.d_k > kMaxDModel) bad("d_k out of range");
  if (c.steps < 0) bad("steps must be 0 or more");
  if (c.batch < 1) bad("batch must be at least 1");
  if (!(c.learning_rate > 0.0f) || !(c.learning_rate < 10.0f)) bad("learning rate out of range");
  if (c.warmup < 0) bad("warmup must be 0 or more");
  if (!(c.final_lr_ratio >= 0.0f && c.final_lr_ratio <= 1.0f))
    bad("final_lr_ratio must be in [0, 1]");
  if (!(c.beta1 >= 0.0f && c.beta1 < 1.0f) || !(c.beta2 >= 0.0f && c.beta2 < 1.0f))
    bad("Adam betas must be in [0, 1)");
  if (!(c.adam_eps > 0.0f)) bad("adam_eps must be positive");
  if (!(c.embedding_init > 0.0f)) bad("embedding_init must be positive");
  if (!(c.unknown_rate >= 0.0f && c.unknown_rate <= 1.0f)) bad("unknown_rate must be in [0, 1]");
  if (!(c.symbol_rate >= 0.0f && c.symbol_rate <= 1.0f)) bad("symbol_rate must be in [0, 1]");
}

namespace {

// Fisher-Yates with our own generator, so every platform shuffles alike.
void shuffle(std::vector<std::size_t>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.next_u64() % i);
    std::swap(v[i - 1], v[j]);
  }
}

AttentionOptions training_options(int heads) {
  AttentionOptions opt;
  opt.heads = heads;  // causal off, scale on, temperature 1: the Settings defaults
  return opt;
}

constexpr std::uint64_t kStreamE = 11, kStreamData = 12;

}  // namespace

Trainer::Trainer(const TrainConfig& config, Vocabulary vocab, std::vector<Example> train)
    : config_(config), train_(std::move(train)), rng_(mix_seed(config.seed, kStreamData)) {
  validate(config_);
  if (train_.empty()) throw Error("bad_train_config", "no training sentences");
  int max_n = 1;
  for (const Example& e : train_) {
    if (e.ids.empty()) throw Error("bad_train_config", "an empty training sentence");
    for (int id : e.ids)
      if (id < 0 || id >= vocab.size()) throw Error("bad_train_config", "a word id out of range");
    max_n = std::max(max_n, static_cast<int>(e.ids.size()));
  }
  if (max_n > kMaxSequence) throw Error("bad_train_config", "a training sentence is too long");
  model_.d_model = config_.d_model;
  model_.heads = config_.heads;
  model_.d_k = config_.d_k;
  model_.vocab = std::move(vocab);
  Rng init(mix_seed(config_.seed, kStreamE));
  model_.E.resize(model_.vocab.size(), config_.d_model);
  for (Eigen::Index r = 0; r < model_.E.rows(); ++r)
    for (Eigen::Index c = 0; c < model_.E.cols(); ++c)
      model_.E(r, c) = static_cast<float>(init.normal() * config_.embedding_init);
  model_.weights = random_weights(config_.d_model, config_.heads, config_.d_k, config_.seed, false);
  positions_ = positional_encoding(max_n, config_.d_model);
  const auto zeros = [](const Matrix& like) {
    return Adam{Matrix::Zero(like.rows(), like.cols()), Matrix::Zero(like.rows(), like.cols())};
  };
  adam_E_ = zeros(model_.E);
  adam_Q_ = zeros(model_.weights.W_Q);
  adam_K_ = zeros(model_.weights.W_K);
  adam_V_ = zeros(model_.weights.W_V);
  adam_O_ = zeros(model_.weights.W_O);
  order_.resize(train_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  shuffle(order_, rng_);
}

float Trainer::learning_rate_at(int step) const {
  const double peak = config_.learning_rate;
  if (step < config_.warmup) return static_cast<float>(peak * (step + 1) / config_.warmup);
  const int span = std::max(1, config_.steps - config_.warmup);
  const double t = std::min(1.0, static_cast<double>(step - config_.warmup) / span);
  const double lo = peak * config_.final_lr_ratio;
  return static_cast<float>(lo + (peak - lo) * 0.5 * (1.0 + std::cos(3.14159265358979323846 * t)));
}

void Trainer::adam_update(Matrix& param, MatrixRef grad, Adam& s, float lr) {
  const float b1 = config_.beta1, b2 = config_.beta2;
  const double t = step_ + 1;
  const float c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(b1), t));
  const float c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(b2), t));
  for (Eigen::Index r = 0; r < param.rows(); ++r) {
    for (Eigen::Index c = 0; c < param.cols(); ++c) {
      const float g = grad(r, c);
      const float m = b1 * s.m(r, c) + (1.0f - b1) * g;
      const float v = b2 * s.v(r, c) + (1.0f - b2) * g * g;
      s.m(r, c) = m;
      s.v(r, c) = v;
      param(r, c) -= lr * (m / c1) / (std::sqrt(v / c2) + config_.adam_eps);
    }
  }
}

double Trainer::step() {
  const AttentionOptions opt = training_options(config_.heads);
  const int V = model_.vocab.size();
  const int K = model_.vocab.unknown_buckets();

  // pick the batch, with the occasional unknown word swapped in
  std::vector<std::vector<int>> ids;
  std::vector<const Example*> batch;
  for (int b = 0; b < config_.batch; ++b) {
    if (cursor_ == order_.size()) {
      shuffle(order_, rng_);
      cursor_ = 0;
    }
    const Example& e = train_[order_[cursor_++]];
    if (e.targets.empty()) continue;
    // Any word may become an unknown word, referent or not, so that "unknown" says nothing about
    // being the answer; the answer then names the <unk:k> row (the copy still works).
    std::vector<int> x = e.ids;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double u = rng_.uniform();
      if (e.punctuation[i]) {
        if (u < config_.symbol_rate) x[i] = model_.vocab.symbol_row();
      } else if (u < config_.unknown_rate) {
        x[i] =
            model_.vocab.bucket(static_cast<int>(rng_.next_u64() % static_cast<std::uint64_t>(K)));
      }
    }
    ids.push_back(std::move(x));
    batch.push_back(&e);
  }

  // forward: one trace per sentence, output rows stacked into Y (sum of n x d_model)
  std::vector<Trace> traces;
  std::vector<Eigen::Index> offset;
  Eigen::Index rows = 0;
  for (const std::vector<int>& x : ids) {
    const int n = static_cast<int>(x.size());
    Matrix X(n, config_.d_model);
    for (int i = 0; i < n; ++i) X.row(i) = model_.E.row(x[static_cast<std::size_t>(i)]);
    X += positions_.topRows(n);
    traces.push_back(attend(X, model_.weights, opt));
    offset.push_back(rows);
    rows += n;
  }
  Matrix Y(rows, config_.d_model);
  std::vector<CopyTarget> targets;
  for (std::size_t b = 0; b < traces.size(); ++b) {
    Y.middleRows(offset[b], traces[b].n) = traces[b].output;
    for (const CorpusTarget& t : batch[b]->targets)
      targets.push_back(
          {static_cast<int>(offset[b]) + t.from, ids[b][static_cast<std::size_t>(t.to)]});
  }

  // loss and backward
  Matrix gE = Matrix::Zero(V, config_.d_model);
  Matrix dY = Matrix::Zero(rows, config_.d_model);
  const float scale = targets.empty() ? 0.0f : 1.0f / static_cast<float>(targets.size());
  const double loss = tied_cross_entropy(Y, model_.E, targets, scale, &dY, &gE);
  const Eigen::Index hd = static_cast<Eigen::Index>(config_.heads) * config_.d_k;
  Matrix gQ = Matrix::Zero(config_.d_model, hd), gK = gQ, gV = gQ;
  Matrix gO = Matrix::Zero(hd, config_.d_model);
  for (std::size_t b = 0; b < traces.size(); ++b) {
    const AttentionGrads g = attend_backward(traces[b], dY.middleRows(offset[b], traces[b].n));
    gQ += g.dW_Q;
    gK += g.dW_K;
    gV += g.dW_V;
    gO += g.dW_O;
    embedding_backward(ids[b], g.dX, gE);
  }

  // Adam
  const float lr = learning_rate_at(step_);
  adam_update(model_.E, gE, adam_E_, lr);
  adam_update(model_.weights.W_Q, gQ, adam_Q_, lr);
  adam_update(model_.weights.W_K, gK, adam_K_, lr);
  adam_update(model_.weights.W_V, gV, adam_V_, lr);
  adam_update(model_.weights.W_O, gO, adam_O_, lr);
  ++step_;
  return targets.empty() ? 0.0 : loss / static_cast<double>(targets.size());
}

// ------------------------------------------------------------------------------------------------
// Evaluation and head notes

double Evaluation::head_pronoun_accuracy(int h) const {
  return pronouns ? static_cast<double>(head_pronoun_hits[static_cast<std::size_t>(h)]) / pronouns
                  : 0.0;
}
double Evaluation::head_verb_accuracy(int h) const {
  return verbs ? static_cast<double>(head_verb_hits[static_cast<std::size_t>(h)]) / verbs : 0.0;
}

Evaluation evaluate(const TrainedModel& m, const std::vector<Example>& data) {
  Evaluation ev;
  ev.head_pronoun_hits.assign(static_cast<std::size_t>(m.heads), 0);
  ev.head_verb_hits.assign(static_cast<std::size_t>(m.heads), 0);
  ev.head_self_weight.assign(static_cast<std::size_t>(m.heads), 0.0);
  const AttentionOptions opt = training_options(m.heads);
  long long rows = 0;
  for (const Example& e : data) {
    const Trace t = attend(embed_with_model(e.ids, m, true), m.weights, opt);
    ++ev.sentences;
    rows += t.n;
    for (int h = 0; h < m.heads; ++h)
      ev.head_self_weight[static_cast<std::size_t>(h)] +=
          t.head[static_cast<std::size_t>(h)].weights.diagonal().sum();
    if (e.targets.empty()) continue;
    std::vector<CopyTarget> copy;
    for (const CorpusTarget& c : e.targets)
      copy.push_back({c.from, e.ids[static_cast<std::size_t>(c.to)]});
    ev.loss += tied_cross_entropy(t.output, m.E, copy, 0.0f, nullptr, nullptr);
    for (const CorpusTarget& c : e.targets) {
      const bool pron = c.kind == CorpusTarget::Kind::Pronoun;
      RowVector logits = t.output.row(c.from) * m.E.transpose();
      Eigen::Index best = 0;
      logits.maxCoeff(&best);
      const bool ok = static_cast<int>(best) == e.ids[static_cast<std::size_t>(c.to)];
      ++ev.targets;
      ev.correct += ok;
      (pron ? ev.pronouns : ev.verbs) += 1;
      (pron ? ev.pronouns_correct : ev.verbs_correct) += ok;
      for (int h = 0; h < m.heads; ++h) {
        Eigen::Index col = 0;
        t.head[static_cast<std::size_t>(h)].weights.row(c.from).maxCoeff(&col);
        if (static_cast<int>(col) == c.to)
          (pron ? ev.head_pronoun_hits : ev.head_verb_hits)[static_cast<std::size_t>(h)] += 1;
      }
    }
  }
  if (ev.targets) ev.loss /= ev.targets;
  for (double& s : ev.head_self_weight) s = rows ? s / static_cast<double>(rows) : 0.0;
  return ev;
}

namespace {
std::string percent(double x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * x);
  return buf;
}
}  // namespace

void annotate_heads(TrainedModel& m, const Evaluation& ev, double threshold) {
  m.notes.assign(static_cast<std::size_t>(m.heads), HeadNote{});
  for (int h = 0; h < m.heads; ++h) {
    HeadNote& n = m.notes[static_cast<std::size_t>(h)];
    n.pronoun_accuracy = static_cast<float>(ev.head_pronoun_accuracy(h));
    n.verb_accuracy = static_cast<float>(ev.head_verb_accuracy(h));
    const std::string p = percent(n.pronoun_accuracy), v = percent(n.verb_accuracy);
    const bool pron = n.pronoun_accuracy >= threshold, verb = n.verb_accuracy >= threshold;
    if (pron && verb) {
      n.role = "pronouns+verbs";
      n.note =
          "This head learned to resolve pronouns and to link verbs to their objects: a "
          "pronoun gives its largest weight to the noun it refers to (" +
          p + " of held-out pronouns), a verb to its object, or its subject when it has none (" +
          v + " of held-out verbs).";
      n.note_zh =
          "这个头学会了指代消解，也学会了把动词连到宾语：代词把最大的权重给它指代的名词（留出句子中"
          " " +
          p + " 的代词），动词给它的宾语，没有宾语时给主语（" + v + " 的动词）。";
    } else if (pron) {
      n.role = "pronouns";
      n.note =
          "This head learned to resolve pronouns: 它, 他, 她, it, he, she and they give their "
          "largest weight to the noun they refer to (" +
          p + " of held-out pronouns).";
      n.note_zh =
          "这个头学会了指代消解：它、他、她、it、he、she、they "
          "把最大的权重给它们指代的名词（留出句子中 " +
          p + " 的代词）。";
    } else if (verb) {
      n.role = "verbs";
      n.note =
          "This head learned to link verbs to their objects: a verb gives its largest weight to "
          "its object, or its subject when it has none (" +
          v + " of held-out verbs).";
      n.note_zh =
          "这个头学会了把动词连到宾语：动词把最大的权重给它的宾语，没有宾语时给主语（留出句子中 " +
          v + " 的动词）。";
    } else {
      n.role = "other";
      const std::string self = percent(ev.head_self_weight[static_cast<std::size_t>(h)]);
      n.note = "This head has no single job: pronouns find their antecedent here " + p +
               " of the time and verbs their argument " + v + "; a token gives itself " + self +
               " of its weight on average.";
      n.note_zh = "这个头没有单一的分工：代词在这里找到所指名词的比例是 " + p +
                  "，动词找到论元的比例是 " + v + "；每个词平均把 " + self + " 的权重给自己。";
    }
  }
}

}  // namespace ap
