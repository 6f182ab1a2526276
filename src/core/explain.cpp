// explain.cpp: the reverse pass for a single output row, kept per head so the page can show it;
// the sqrt(d_k) experiment on random vectors; reference model shapes. The gradients themselves are
// backward.hpp's (the training loss and the softmax reversed): none is written again here.
#include "explain.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "backward.hpp"
#include "error.hpp"
#include "rng.hpp"

namespace ap {

RowGradient explain_gradient(const TextTrace& text, const TrainedModel& m, int row,
                             int target_word) {
  const Trace& t = text.trace;
  if (row < 0 || row >= t.n)
    throw Error("bad_row", "the query row must be between 0 and " + std::to_string(t.n - 1));
  if (target_word < 0 || target_word >= m.vocab.size())
    throw Error("bad_word", "the target word is not in the model's vocabulary");
  if (t.output.cols() != m.E.cols() || t.head.empty() ||
      text.network.layers.size() != m.net.layers.size())
    throw Error("shape_mismatch", "the trace was not made with this model");
  RowGradient g;
  g.row = row;
  g.target_word = target_word;
  // the training loss for this one target (backward.hpp): logits = Y_i E^T (1 x V),
  // -log softmax(logits)[target], and dL/dY (only row i is non-zero)
  const Matrix& Y = text.network.norm_out.y;
  Matrix dY = Matrix::Zero(Y.rows(), Y.cols());
  std::vector<float> p;
  g.loss =
      static_cast<float>(tied_cross_entropy(Y, m.E, {{row, target_word}}, 1.0f, &dY, nullptr, &p));
  g.probability = p[0];
  // back through the last feed-forward block: rows do not mix there, so only row i of dL/dA is
  // non-zero
  g.d_output = last_attention_output_grad(m.net, text.network, dY).row(row);  // 1 x d_model
  const RowVector d_concat = g.d_output * t.W_O.transpose();                  // 1 x h*d_k
  for (int h = 0; h < t.heads; ++h) {
    const HeadTrace& H = t.head[h];
    HeadGradient hg;
    const RowVector dO = d_concat.segment(h * t.d_k, t.d_k);  // 1 x d_k
    hg.d_weights = dO * H.V.transpose();                      // 1 x n
    // the softmax reversed for row i alone (backward.hpp): 1 x n
    hg.d_scores = softmax_rows_backward(H.weights.row(row), hg.d_weights, t.options.temperature);
    g.head.push_back(std::move(hg));
  }
  return g;
}

namespace {

void check_range(const char* name, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    throw Error("bad_setting", std::string(name) + " must be a whole number from " +
                                   std::to_string(lo) + " to " + std::to_string(hi) + ", got " +
                                   std::to_string(v));
}

// population standard deviation, accumulated in double
float stdev(const RowVector& x, double mean) {
  double s = 0;
  for (Eigen::Index i = 0; i < x.size(); ++i) s += (double(x[i]) - mean) * (double(x[i]) - mean);
  return static_cast<float>(std::sqrt(s / double(x.size())));
}

std::vector<int> histogram(const RowVector& x, float range, int bins) {
  std::vector<int> h(static_cast<std::size_t>(bins), 0);
  if (!(range > 0.0f)) {
    h[static_cast<std::size_t>(bins / 2)] = static_cast<int>(x.size());
    return h;
  }
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double at = (double(x[i]) + range) / (2.0 * range) * bins;
    const int b = std::min(bins - 1, std::max(0, static_cast<int>(std::floor(at))));
    ++h[static_cast<std::size_t>(b)];
  }
  return h;
}

}  // namespace

ScaleDemo scale_demo(int d_k, int keys, int rows, std::uint64_t seed, int bins) {
  check_range("d_k", d_k, 1, kScaleDemoMaxDk);
  check_range("keys", keys, 1, kMaxSequence);
  check_range("rows", rows, 1, kScaleDemoMaxSamples);
  check_range("rows x keys", static_cast<long long>(rows) * keys, 1, kScaleDemoMaxSamples);
  check_range("rows x (keys + 1) x d_k", static_cast<long long>(rows) * (keys + 1) * d_k, 1,
              kScaleDemoMaxWork);
  check_range("bins", bins, 1, kScaleDemoMaxBins);
  ScaleDemo r;
  r.d_k = d_k;
  r.keys = keys;
  r.rows = rows;
  r.sqrt_d_k = std::sqrt(static_cast<float>(d_k));
  r.dots.resize(static_cast<Eigen::Index>(rows) * keys);
  // one stream per d_k, so each d_k's numbers do not depend on which others were asked for
  Rng rng(mix_seed(seed, static_cast<std::uint64_t>(d_k)));
  RowVector q(d_k), k(d_k), raw(keys), scaled(keys);
  double sum = 0, top_raw = 0, top_scaled = 0;
  for (int i = 0; i < rows; ++i) {
    for (int c = 0; c < d_k; ++c) q[c] = static_cast<float>(rng.normal());
    for (int j = 0; j < keys; ++j) {
      for (int c = 0; c < d_k; ++c) k[c] = static_cast<float>(rng.normal());
      const float dot = q.dot(k);
      raw[j] = dot;
      scaled[j] = dot / r.sqrt_d_k;
      r.dots[static_cast<Eigen::Index>(i) * keys + j] = dot;
      sum += dot;
    }
    top_raw += softmax_rows(raw).maxCoeff();
    top_scaled += softmax_rows(scaled).maxCoeff();
  }
  const double mean = sum / double(r.dots.size());
  r.mean = static_cast<float>(mean);
  r.spread = stdev(r.dots, mean);
  const RowVector sc = r.dots / r.sqrt_d_k;
  r.spread_scaled = stdev(sc, mean / r.sqrt_d_k);
  r.top_raw = static_cast<float>(top_raw / rows);
  r.top_scaled = static_cast<float>(top_scaled / rows);
  r.range = r.dots.cwiseAbs().maxCoeff();
  r.hist_raw = histogram(r.dots, r.range, bins);
  r.hist_scaled = histogram(sc, r.range, bins);
  return r;
}

std::vector<int> scale_demo_dks() {
  std::vector<int> d;
  for (int v = 2; v <= 1024; v *= 2) d.push_back(v);
  return d;
}

const std::vector<ModelShape>& reference_shapes() {
  static const std::vector<ModelShape> shapes = {
      {"BERT-base", 12, 64, 768},
      {"GPT-3", 96, 128, 12288},
  };
  return shapes;
}

}  // namespace ap
