// trainer.cpp: the training step (forward with network_forward, backward with network_backward)
// and Adam.
#include "trainer.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "backward.hpp"
#include "error.hpp"
#include "inference.hpp"
#include "model.hpp"
#include "network.hpp"

namespace ap {

void validate(const TrainConfig& c) {
  const auto bad = [](const std::string& what) { throw Error("bad_train_config", what); };
  if (c.d_model < 1 || c.d_model > kMaxDModel) bad("d_model out of range");
  if (c.heads < 1 || c.heads > kMaxHeads) bad("heads out of range");
  if (c.d_k < 1 || c.d_k > kMaxDModel) bad("d_k out of range");
  if (c.d_ff < 1 || c.d_ff > kMaxFeedForward) bad("d_ff out of range");
  if (c.layers < 1 || c.layers > kMaxLayers) bad("layers out of range");
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
  if (!(c.attention_supervision >= 0.0f && c.attention_supervision <= 100.0f))
    bad("attention_supervision must be in [0, 100]");
  if (c.pronoun_head < 0 || c.pronoun_head >= c.heads || c.verb_head < 0 || c.verb_head >= c.heads)
    bad("pronoun_head and verb_head must be heads of the model");
  if (!(c.row_supervision >= 0.0f && c.row_supervision <= 100.0f))
    bad("row_supervision must be in [0, 100]");
  if (!(c.previous_supervision >= 0.0f && c.previous_supervision <= 100.0f))
    bad("previous_supervision must be in [0, 100]");
  if (c.previous_head < 0 || c.previous_head >= c.heads)
    bad("previous_head must be a head of the model");
  if (!(c.weight_decay >= 0.0f && c.weight_decay < 1.0f)) bad("weight_decay must be in [0, 1)");
  if (!(c.dropout >= 0.0f && c.dropout < 1.0f)) bad("dropout must be in [0, 1)");
  if (!(c.masked_rate >= 0.0f && c.masked_rate + c.unknown_rate <= 1.0f))
    bad("masked_rate must be in [0, 1 - unknown_rate]");
  if (!(c.masked_weight >= 0.0f && c.masked_weight <= 100.0f))
    bad("masked_weight must be in [0, 100]");
}

namespace {

// Fisher-Yates with our own generator, so every platform shuffles alike.
void shuffle(std::vector<std::size_t>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.next_u64() % i);
    std::swap(v[i - 1], v[j]);
  }
}

constexpr std::uint64_t kStreamE = 11, kStreamData = 12, kStreamNet = 13;

}  // namespace

Trainer::Trainer(const TrainConfig& config, Vocabulary vocab, std::vector<Example> train)
    : config_(config), train_(std::move(train)), rng_(mix_seed(config.seed, kStreamData)) {
  validate(config_);
  if (train_.empty()) throw Error("bad_train_config", "no training sentences");
  for (const Example& e : train_) {
    if (e.ids.empty()) throw Error("bad_train_config", "an empty training sentence");
    if (static_cast<int>(e.ids.size()) > kMaxSequence)
      throw Error("bad_train_config", "a training sentence is too long");
    for (int id : e.ids)
      if (id < 0 || id >= vocab.size()) throw Error("bad_train_config", "a word id out of range");
  }
  model_.vocab = std::move(vocab);
  Rng init(mix_seed(config_.seed, kStreamE));
  model_.E.resize(model_.vocab.size(), config_.d_model);
  for (Eigen::Index r = 0; r < model_.E.rows(); ++r)
    for (Eigen::Index c = 0; c < model_.E.cols(); ++c)
      model_.E(r, c) = static_cast<float>(init.normal() * config_.embedding_init);
  model_.net = init_network(config_.d_model, config_.heads, config_.d_k, config_.d_ff,
                            config_.layers, mix_seed(config_.seed, kStreamNet));
  adam_E_ = {Matrix::Zero(model_.E.rows(), model_.E.cols()),
             Matrix::Zero(model_.E.rows(), model_.E.cols())};
  for (const auto& p : parameters(model_.net))
    adam_net_.push_back({Matrix::Zero(p.second->rows(), p.second->cols()),
                         Matrix::Zero(p.second->rows(), p.second->cols())});
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

void Trainer::adam_update(Matrix& param, MatrixRef grad, Adam& s, float lr, float decay) {
  if (decay > 0.0f) param *= 1.0f - lr * decay;
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

Noised add_unknowns(const Example& e, const Vocabulary& vocab, const TrainConfig& config,
                    Rng& rng) {
  const int K = vocab.unknown_buckets();
  const auto random_bucket = [&]() {
    return vocab.bucket(static_cast<int>(rng.next_u64() % static_cast<std::uint64_t>(K)));
  };
  Noised out;
  std::vector<bool> linked(e.ids.size(), false);  // a target's query or answer: never hidden
  for (const CorpusTarget& c : e.targets) {
    linked[static_cast<std::size_t>(c.from)] = true;
    linked[static_cast<std::size_t>(c.to)] = true;
  }
  std::vector<int> moved(e.ids.size());  // e.ids[i] is now out.ids[moved[i]]
  for (std::size_t i = 0; i < e.ids.size(); ++i) {
    const double u = rng.uniform();
    if (e.punctuation[i]) {
      moved[i] = static_cast<int>(out.ids.size());
      out.ids.push_back(u < config.symbol_rate ? vocab.symbol_row() : e.ids[i]);
    } else if (u < config.unknown_rate) {
      for (int k = 0; k < e.width[i]; ++k) out.ids.push_back(random_bucket());
      moved[i] = static_cast<int>(out.ids.size()) - 1;
    } else if (u < config.unknown_rate + config.masked_rate && !linked[i] &&
               !vocab.is_fallback(e.ids[i])) {
      moved[i] = static_cast<int>(out.ids.size());
      out.masked.push_back({moved[i], e.ids[i]});
      out.ids.push_back(random_bucket());
    } else {
      moved[i] = static_cast<int>(out.ids.size());
      out.ids.push_back(e.ids[i]);
    }
    if (!e.verb_free.empty()) out.verb_free.resize(out.ids.size(), e.verb_free[i]);
  }
  out.targets = e.targets;
  for (CorpusTarget& c : out.targets) {
    c.from = moved[static_cast<std::size_t>(c.from)];
    c.to = moved[static_cast<std::size_t>(c.to)];
  }
  return out;
}

double Trainer::step() {
  AttentionOptions opt;  // causal off, scale on, temperature 1: the Settings defaults
  opt.heads = config_.heads;
  const Network& net = model_.net;

  // pass 1: pick the batch, with the occasional unknown word swapped in
  std::vector<std::vector<int>> ids;
  std::vector<std::vector<CorpusTarget>> targets;  // ids[b]'s targets, moved past unknown runs
  std::vector<std::vector<bool>> verb_free;        // ids[b]'s Noised::verb_free
  std::vector<std::vector<CopyTarget>> masked;     // ids[b]'s hidden words
  std::size_t n_targets = 0;
  for (int b = 0; b < config_.batch; ++b) {
    if (cursor_ == order_.size()) {
      shuffle(order_, rng_);
      cursor_ = 0;
    }
    const Example& e = train_[order_[cursor_++]];
    if (e.targets.empty()) continue;
    Noised x = add_unknowns(e, model_.vocab, config_, rng_);
    n_targets += x.targets.size();
    ids.push_back(std::move(x.ids));
    targets.push_back(std::move(x.targets));
    verb_free.push_back(std::move(x.verb_free));
    masked.push_back(std::move(x.masked));
  }
  if (n_targets == 0) {
    ++step_;
    return 0.0;
  }

  // pass 2: forward, loss and backward, one sentence at a time (gradients add up)
  const float scale = 1.0f / static_cast<float>(n_targets);
  const float sup = config_.attention_supervision * scale;
  Matrix gE = Matrix::Zero(model_.E.rows(), model_.E.cols());
  Network grad = zeros_like(net);
  double loss = 0.0;
  for (std::size_t b = 0; b < ids.size(); ++b) {
    const std::vector<int>& x = ids[b];
    const int n = static_cast<int>(x.size());
    const NetworkTrace t = network_forward(net, add_positions(gather_rows(model_.E, x)), opt,
                                           Dropout{config_.dropout, &rng_});
    std::vector<CopyTarget> copy;
    for (const CorpusTarget& c : targets[b])
      copy.push_back({c.from, x[static_cast<std::size_t>(c.to)]});
    Matrix dY = Matrix::Zero(n, config_.d_model);
    loss += tied_cross_entropy(t.norm_out.y, model_.E, copy, scale, &dY, &gE);
    if (!masked[b].empty() && config_.masked_weight > 0.0f)
      tied_cross_entropy(t.norm_out.y, model_.E, masked[b], scale * config_.masked_weight, &dY,
                         &gE);
    // the attention loss: -weight * log weight(from, to) in the taught heads
    std::vector<std::vector<Matrix>> extra(static_cast<std::size_t>(net.depth()));
    bool any_extra = false;
    const auto point = [&](int layer, int h, int from, int to, float w) {
      std::vector<Matrix>& per = extra[static_cast<std::size_t>(layer)];
      if (per.empty()) per.assign(static_cast<std::size_t>(config_.heads), Matrix::Zero(n, n));
      const float a =
          t.layers[static_cast<std::size_t>(layer)].attn.head[static_cast<std::size_t>(h)].weights(
              from, to);
      per[static_cast<std::size_t>(h)](from, to) -= w / std::max(a, 1e-6f);
      any_extra = true;
    };
    std::vector<bool> is_pronoun(static_cast<std::size_t>(n), false);
    std::vector<bool> is_verb(static_cast<std::size_t>(n), false);
    for (const CorpusTarget& c : targets[b])
      (c.kind == CorpusTarget::Kind::Pronoun ? is_pronoun
                                             : is_verb)[static_cast<std::size_t>(c.from)] = true;
    if (sup > 0.0f) {
      const int last = net.depth() - 1;
      for (const CorpusTarget& c : targets[b])
        point(last,
              c.kind == CorpusTarget::Kind::Pronoun ? config_.pronoun_head : config_.verb_head,
              c.from, c.to, sup);
      const float rows = config_.row_supervision * scale;
      if (rows > 0.0f && config_.pronoun_head != config_.verb_head)
        for (int i = 0; i < n; ++i) {
          if (!is_pronoun[static_cast<std::size_t>(i)])
            point(last, config_.pronoun_head, i, i, rows);
          const std::vector<bool>& free = verb_free[b];
          if (!is_verb[static_cast<std::size_t>(i)] &&
              (free.empty() || !free[static_cast<std::size_t>(i)]))
            point(last, config_.verb_head, i, i, rows);
        }
    }
    const float prev = config_.previous_supervision * scale;
    if (prev > 0.0f && net.depth() > 1)
      for (int i = 0; i < n; ++i) point(0, config_.previous_head, i, std::max(0, i - 1), prev);
    const Matrix dX = network_backward(net, t, dY, grad, any_extra ? &extra : nullptr);
    embedding_backward(x, dX, gE);
  }

  // pass 3: Adam
  const float lr = learning_rate_at(step_);
  const float wd = config_.weight_decay;
  adam_update(model_.E, gE, adam_E_, lr, wd);
  const auto params = parameters(model_.net);
  const auto grads = parameters(static_cast<const Network&>(grad));
  for (std::size_t k = 0; k < params.size(); ++k) {
    const bool is_weight = params[k].first.find(".W_") != std::string::npos;
    adam_update(*params[k].second, *grads[k].second, adam_net_[k], lr, is_weight ? wd : 0.0f);
  }
  ++step_;
  return loss / static_cast<double>(n_targets);
}

}  // namespace ap
