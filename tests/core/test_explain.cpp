// test_explain.cpp: the one-row gradient agrees with finite differences of the loss through the
// trained default model, and points the way a learner expects (the antecedent's score goes up).
#include <doctest/doctest.h>

#include <cmath>

#include "attention.hpp"
#include "default_model.hpp"
#include "error.hpp"
#include "explain.hpp"
#include "model_file.hpp"

namespace {

// The loss at row i when head h's masked score row is replaced by `scores` (1 x n).
double loss_with_scores(const ap::Trace& t, const ap::TrainedModel& m, int h, int row,
                        const ap::RowVector& scores, int word) {
  const ap::Matrix w = ap::softmax_rows(scores, t.options.temperature);  // 1 x n
  ap::RowVector concat = t.concat.row(row);
  concat.segment(h * t.d_k, t.d_k) = w * t.head[h].V;
  const ap::RowVector out = concat * t.W_O;
  const ap::RowVector logits = out * m.E.transpose();
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
  const ap::RowGradient g = ap::explain_gradient(tt.trace, m, row, word);
  CHECK(g.probability > 0.5f);
  CHECK(g.loss == doctest::Approx(-std::log(g.probability)).epsilon(1e-4));
  for (int h = 0; h < tt.trace.heads; ++h) {
    CAPTURE(h);
    const ap::RowVector base = tt.trace.head[h].masked.row(row);
    for (int j = 0; j < tt.trace.n; ++j) {
      CAPTURE(j);
      const double eps = 1e-2;
      ap::RowVector up = base, down = base;
      up[j] += eps;
      down[j] -= eps;
      const double numeric = (loss_with_scores(tt.trace, m, h, row, up, word) -
                              loss_with_scores(tt.trace, m, h, row, down, word)) /
                             (2 * eps);
      CHECK(g.head[h].d_scores[j] == doctest::Approx(numeric).epsilon(2e-2).scale(1e-3));
    }
    // the loss wants 小猫's score higher (negative gradient), and the row of d_scores sums to 0
    CHECK(g.head[h].d_scores[0] < 0.0f);
    CHECK(std::fabs(g.head[h].d_scores.sum()) < 1e-5f);
  }
  // asking for the wrong word (鱼) pushes 小猫 down in at least one head
  const ap::RowGradient wrong = ap::explain_gradient(tt.trace, m, row, m.vocab.find("鱼"));
  CHECK(wrong.probability < 0.1f);
  bool pushed_down = false;
  for (const auto& hg : wrong.head) pushed_down = pushed_down || hg.d_scores[0] > 0.0f;
  CHECK(pushed_down);
  CHECK_THROWS_AS(ap::explain_gradient(tt.trace, m, 7, word), ap::Error);
  CHECK_THROWS_AS(ap::explain_gradient(tt.trace, m, 0, -1), ap::Error);
}
