// backward.hpp: hand-derived gradients of the attention forward pass (attention.hpp), of the
// embedding lookup and of a tied-embedding cross-entropy loss, for training. Not an autodiff
// system: each function is the reverse of one forward stage, read off a Trace that attend() already
// filled.
//
// Shapes: n tokens, d_model, h heads, d_k per head, V vocabulary rows, T target rows.
#pragma once
#include <vector>

#include "attention.hpp"

namespace ap {

struct AttentionGrads {
  Matrix dX;                // n x d_model
  Matrix dW_Q, dW_K, dW_V;  // d_model x (h*d_k)
  Matrix dW_O;              // (h*d_k) x d_model (the identity's gradient when attend had no W_O)
};

// Reverse of attend(): given dL/d(output) (n x d_model) for the trace t, returns dL/dX and the
// weight gradients. Passes run backwards: output projection, merge heads, mix values, softmax
// (with temperature), mask (masked cells pass no gradient), scale, score, project.
// extra_dweights, when given, holds one n x n matrix per head added to dL/d(weights): the gradient
// of a loss on the attention weights themselves (a head taught where to look).
AttentionGrads attend_backward(const Trace& t, MatrixRef dOutput,
                               const std::vector<Matrix>* extra_dweights = nullptr);

// The reverse of softmax_rows(x, temperature) for one matrix: given the forward result P
// (rows sum to 1) and dL/dP, returns dL/dx = P .* (dP - rowsum(dP .* P)) / temperature. Any
// number of rows (n x n for a head's weights, 1 x n for one query's row in the explainer).
Matrix softmax_rows_backward(MatrixRef P, MatrixRef dP, float temperature);

// One row of Y must name one vocabulary word: logits = Y.row(row) E^T (1 x V), softmax, and
// cross-entropy against `word`.
struct CopyTarget {
  int row;   // row of Y
  int word;  // row of E
};

// Sum over targets of -log softmax(Y.row(row) E^T)[word], returned in double. When dY / dE are
// given, adds grad_scale times the gradient into them (dY: rows of Y x d_model, dE: V x d_model;
// both must already have those shapes). E is tied: the same matrix embeds the input tokens.
// probabilities, when given, gets softmax(Y.row(row) E^T)[word] for each target, in order.
// The training loss, the evaluation and the explainer's one-row gradient all call this.
double tied_cross_entropy(MatrixRef Y, MatrixRef E, const std::vector<CopyTarget>& targets,
                          float grad_scale, Matrix* dY, Matrix* dE,
                          std::vector<float>* probabilities = nullptr);

// Reverse of X.row(i) = E.row(ids[i]) (+ a constant): adds dX.row(i) into dE.row(ids[i]).
void embedding_backward(const std::vector<int>& ids, MatrixRef dX, Matrix& dE);

}  // namespace ap
