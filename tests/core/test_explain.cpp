// test_explain.cpp: the one-row gradient agrees with finite differences of the loss through the
// trained default model, and points the way a learner expects (the antecedent's score goes up);
// the sqrt(d_k) experiment's statistics agree with its samples and with the theory; reference
// shapes multiply out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "attention.hpp"
#include "default_model.hpp"
#include "error.hpp"
#include "explain.hpp"
#include "inference.hpp"
#include "model_file.hpp"
#include "network.hpp"

namespace {

// The loss at row i when the last layer's head h's masked score row is replaced by `scores` (1 x
// n): that head's output row, the merge, W_O, the residual, the feed-forward block and the read-out
// recomputed for row i (rows do not mix after the attention).
double loss_with_scores(const ap::TextTrace& tt, const ap::TrainedModel& m, int h, int row,
                        const ap::RowVector& scores, int word) {
  const ap::Trace& t = tt.trace;
  const ap::LayerTrace& L = tt.network.layers.back();
  const ap::Layer& W = m.net.layers.back();
  const ap::Matrix w = ap::softmax_rows(scores, t.options.temperature);  // 1 x n
  ap::RowVector concat = t.concat.row(row);
  concat.segment(h * t.d_k, t.d_k) = w * t.head[h].V;
  const ap::Matrix mid = L.input.row(row) + concat * t.W_O;  // 1 x d_model
  const ap::Matrix u = ap::layer_norm(mid, W.norm_ffn).y;
  const ap::Matrix hidden = ((u * W.W_1).array() + W.b_1.array()).cwiseMax(0.0f).matrix();
  const ap::Matrix out = mid + hidden * W.W_2 + W.b_2;
  const ap::Matrix y = ap::layer_norm(out, m.net.norm_out).y;
  const ap::RowVector logits = y * m.E.transpose();
  const double mx = logits.maxCoeff();
  double sum = 0;
  for (Eigen::Index k = 0; k < logits.size(); ++k) sum += std::exp(double(logits[k]) - mx);
  return -(double(logits[word]) - mx - std::log(sum));
}

}  // namespace

TEST_CASE("explain_gradient: d_scores match finite differences, and the antecedent is pushed up") {
  const ap::TrainedModel& m = ap::default_model();
  ap::Settings s;
  const ap::TextTrace tt = ap::trace_text_with_model("小猫吃鱼，它很开心", s, m);
  const int row = 4;  // 它
  const int word = m.vocab.find("小猫");
  REQUIRE(word >= 0);
  const ap::RowGradient g = ap::explain_gradient(tt, m, row, word);
  CHECK(g.probability > 0.5f);
  // the loss wants 小猫's score higher (a negative gradient) in at least one head
  bool pushed_up = false;
  for (const auto& hg : g.head) pushed_up = pushed_up || hg.d_scores[0] < 0.0f;
  CHECK(pushed_up);
  CHECK(g.loss == doctest::Approx(-std::log(g.probability)).epsilon(1e-4));
  for (int h = 0; h < tt.trace.heads; ++h) {
    CAPTURE(h);
    const ap::RowVector base = tt.trace.head[h].masked.row(row);
    for (int j = 0; j < tt.trace.n; ++j) {
      CAPTURE(j);
      const double eps = 1e-2;  // above float32 noise in the loss; small enough that no ReLU flips
      ap::RowVector up = base, down = base;
      up[j] += eps;
      down[j] -= eps;
      const double numeric = (loss_with_scores(tt, m, h, row, up, word) -
                              loss_with_scores(tt, m, h, row, down, word)) /
                             (2 * eps);
      CHECK(g.head[h].d_scores[j] == doctest::Approx(numeric).epsilon(2e-2).scale(1e-3));
    }
    // the row of d_scores sums to 0 (adding a constant to a score row changes nothing)
    CHECK(std::fabs(g.head[h].d_scores.sum()) < 1e-5f);
  }
  // asking for the wrong word (鱼) pushes 小猫 down in at least one head
  const ap::RowGradient wrong = ap::explain_gradient(tt, m, row, m.vocab.find("鱼"));
  CHECK(wrong.probability < 0.1f);
  bool pushed_down = false;
  for (const auto& hg : wrong.head) pushed_down = pushed_down || hg.d_scores[0] > 0.0f;
  CHECK(pushed_down);
  CHECK_THROWS_AS(ap::explain_gradient(tt, m, 7, word), ap::Error);
  CHECK_THROWS_AS(ap::explain_gradient(tt, m, 0, -1), ap::Error);
}

TEST_CASE("scale_demo: the spread of q . k grows like sqrt(d_k); scaling keeps it near 1") {
  for (int d_k : ap::scale_demo_dks()) {
    CAPTURE(d_k);
    const ap::ScaleDemo s = ap::scale_demo(d_k, 8, 256, 42, 41);
    REQUIRE(s.dots.size() == 8 * 256);
    CHECK(s.sqrt_d_k == doctest::Approx(std::sqrt(double(d_k))));
    // the statistics agree with the samples, recomputed here in double
    double sum = 0, sq = 0, mx = 0;
    for (Eigen::Index i = 0; i < s.dots.size(); ++i) sum += s.dots[i];
    const double mean = sum / double(s.dots.size());
    for (Eigen::Index i = 0; i < s.dots.size(); ++i) {
      sq += (s.dots[i] - mean) * (s.dots[i] - mean);
      mx = std::max(mx, std::fabs(double(s.dots[i])));
    }
    const double sd = std::sqrt(sq / double(s.dots.size()));
    CHECK(s.mean == doctest::Approx(mean).epsilon(1e-4).scale(1e-3));
    CHECK(s.spread == doctest::Approx(sd).epsilon(1e-4));
    CHECK(s.spread_scaled == doctest::Approx(sd / std::sqrt(double(d_k))).epsilon(1e-4));
    CHECK(s.range == doctest::Approx(mx));
    // 2,048 samples: the sample spread is within 10% of sqrt(d_k) (its own error is about 2%)
    CHECK(s.spread / s.sqrt_d_k == doctest::Approx(1.0).epsilon(0.1));
    CHECK(s.spread_scaled == doctest::Approx(1.0).epsilon(0.1));
    // every sample is in one bin of each histogram
    int hr = 0, hs = 0;
    for (int c : s.hist_raw) hr += c;
    for (int c : s.hist_scaled) hs += c;
    CHECK(hr == 8 * 256);
    CHECK(hs == 8 * 256);
    CHECK(s.top_raw >= s.top_scaled - 1e-6f);
    CHECK(s.top_raw <= 1.0f);
    CHECK(s.top_scaled > 1.0f / 8);
  }
  // without scaling a 1024-long q . k row is almost one-hot; scaled, the weights stay graded
  const ap::ScaleDemo big = ap::scale_demo(1024, 8, 256, 42, 41);
  CHECK(big.top_raw > 0.95f);
  CHECK(big.top_scaled < 0.7f);
  // the scaled histogram is the narrow one: it uses fewer bins than the raw one
  const auto used = [](const std::vector<int>& h) {
    return std::count_if(h.begin(), h.end(), [](int c) { return c > 0; });
  };
  CHECK(used(big.hist_scaled) * 4 < used(big.hist_raw));
  // deterministic for a seed; another seed gives other samples
  const ap::ScaleDemo again = ap::scale_demo(1024, 8, 256, 42, 41);
  CHECK(again.dots == big.dots);
  CHECK(ap::scale_demo(1024, 8, 256, 43, 41).dots != big.dots);
  // a d_k's numbers do not depend on the other arguments' history (one stream per d_k)
  CHECK(ap::scale_demo(64, 8, 16, 42, 9).dots == ap::scale_demo(64, 8, 16, 42, 9).dots);
}

TEST_CASE("scale_demo: arguments outside the limits are errors that name them") {
  CHECK_THROWS_AS(ap::scale_demo(0, 8, 16, 1, 41), ap::Error);
  CHECK_THROWS_AS(ap::scale_demo(ap::kScaleDemoMaxDk + 1, 8, 1, 1, 41), ap::Error);
  CHECK_THROWS_AS(ap::scale_demo(64, 0, 16, 1, 41), ap::Error);
  CHECK_THROWS_AS(ap::scale_demo(64, 8, 0, 1, 41), ap::Error);
  CHECK_THROWS_AS(ap::scale_demo(4096, 512, 128, 1, 41), ap::Error);  // too much work
  CHECK_THROWS_AS(ap::scale_demo(64, 8, 16, 1, 0), ap::Error);
  try {
    ap::scale_demo(64, 8, 16, 1, 1000);
    FAIL("no error");
  } catch (const ap::Error& e) {
    CHECK(e.code() == "bad_setting");
    CHECK(std::string(e.what()).find("bins") != std::string::npos);
  }
  const std::vector<int> dks = ap::scale_demo_dks();
  CHECK(dks.front() == 2);
  CHECK(dks.back() == 1024);
}

TEST_CASE("reference_shapes: h x d_k = d_model for every published shape") {
  const auto& shapes = ap::reference_shapes();
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].name == "BERT-base");
  CHECK(shapes[0].heads == 12);
  CHECK(shapes[0].d_k == 64);
  CHECK(shapes[1].name == "GPT-3");
  CHECK(shapes[1].d_model == 12288);
  for (const auto& s : shapes) CHECK(s.heads * s.d_k == s.d_model);
}
