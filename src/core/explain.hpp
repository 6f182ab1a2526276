// explain.hpp: one example's gradient, made readable: for query row i and the word it should
// name, which scores the loss pushes up and which down, per head, and why. Not training (trainer)
// and not the general backward pass (backward.hpp), which this mirrors for one row.
//
// Shapes: n tokens, d_model, h heads, d_k per head, V vocabulary rows.
#pragma once
#include <vector>

#include "attention.hpp"
#include "model_file.hpp"

namespace ap {

struct HeadGradient {
  RowVector d_weights;  // 1 x n: dL/d weights(i, j) = dO_i . V_j (how much more of V_j would help)
  RowVector d_scores;   // 1 x n: dL/d (masked scores)(i, j); negative = the loss wants it higher
};

struct RowGradient {
  int row = 0;            // the query token i
  int target_word = 0;    // vocabulary row the output at i should name
  float loss = 0;         // -log p(target)
  float probability = 0;  // p(target) = softmax(output_i E^T)[target]
  RowVector d_output;     // 1 x d_model: dL/d output_i
  std::vector<HeadGradient> head;
};

// The model reads output row `row` as softmax(output_row E^T) (tied embeddings, as trained).
// `target_word` is a vocabulary row (e.g. the antecedent's id). Throws ap::Error on bad indices.
RowGradient explain_gradient(const Trace& t, const TrainedModel& m, int row, int target_word);

}  // namespace ap
