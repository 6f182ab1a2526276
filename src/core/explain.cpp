// explain.cpp: the reverse pass for a single output row, kept per head so the page can show it.
#include "explain.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "error.hpp"

namespace ap {

RowGradient explain_gradient(const Trace& t, const TrainedModel& m, int row, int target_word) {
  if (row < 0 || row >= t.n)
    throw Error("bad_row", "the query row must be between 0 and " + std::to_string(t.n - 1));
  if (target_word < 0 || target_word >= m.vocab.size())
    throw Error("bad_word", "the target word is not in the model's vocabulary");
  if (t.output.cols() != m.E.cols() || t.head.empty())
    throw Error("shape_mismatch", "the trace was not made with this model");
  RowGradient g;
  g.row = row;
  g.target_word = target_word;
  // logits = output_i E^T (1 x V); p = softmax(logits); dL/dlogits = p - onehot(target)
  const RowVector logits = t.output.row(row) * m.E.transpose();
  const float mx = logits.maxCoeff();
  RowVector p = (logits.array() - mx).exp().matrix();
  p /= p.sum();
  g.probability = p[target_word];
  g.loss = -std::log(std::max(g.probability, std::numeric_limits<float>::min()));
  RowVector dlogits = p;
  dlogits[target_word] -= 1.0f;
  g.d_output = dlogits * m.E;                                 // 1 x d_model
  const RowVector d_concat = g.d_output * t.W_O.transpose();  // 1 x h*d_k
  for (int h = 0; h < t.heads; ++h) {
    const HeadTrace& H = t.head[h];
    HeadGradient hg;
    const RowVector dO = d_concat.segment(h * t.d_k, t.d_k);  // 1 x d_k
    hg.d_weights = dO * H.V.transpose();                      // 1 x n
    // softmax reverse for one row: P .* (dP - sum(dP .* P)) / temperature
    const RowVector P = H.weights.row(row);
    const float dot = P.cwiseProduct(hg.d_weights).sum();
    hg.d_scores = (P.array() * (hg.d_weights.array() - dot) / t.options.temperature).matrix();
    g.head.push_back(std::move(hg));
  }
  return g;
}

}  // namespace ap
