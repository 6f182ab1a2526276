// backward.cpp: the attention passes in reverse order, plus the loss and the embedding lookup.
#include "backward.hpp"

#include <cmath>
#include <string>

#include "error.hpp"

namespace ap {

Matrix softmax_rows_backward(MatrixRef P, MatrixRef dP, float temperature) {
  // d softmax(z)_j / d z_k = P_j (delta_jk - P_k); z = x / temperature
  Matrix dx(P.rows(), P.cols());
  for (Eigen::Index i = 0; i < P.rows(); ++i) {
    float dot = 0.0f;
    for (Eigen::Index j = 0; j < P.cols(); ++j) dot += dP(i, j) * P(i, j);
    for (Eigen::Index j = 0; j < P.cols(); ++j) dx(i, j) = P(i, j) * (dP(i, j) - dot) / temperature;
  }
  return dx;
}

AttentionGrads attend_backward(const Trace& t, MatrixRef dOutput,
                               const std::vector<Matrix>* extra_dweights) {
  const int n = t.n, h = t.heads, d_k = t.d_k;
  const Eigen::Index hd = static_cast<Eigen::Index>(h) * d_k;
  if (dOutput.rows() != n || dOutput.cols() != t.output.cols())
    throw Error("shape_mismatch", "dOutput must have the shape of the trace's output (" +
                                      std::to_string(n) + "x" + std::to_string(t.output.cols()) +
                                      ")");
  if (extra_dweights && static_cast<int>(extra_dweights->size()) != h)
    throw Error("shape_mismatch", "extra_dweights must hold one matrix per head");
  AttentionGrads g;
  g.dX = Matrix::Zero(n, t.d_model);
  g.dW_Q.resize(t.d_model, hd);
  g.dW_K.resize(t.d_model, hd);
  g.dW_V.resize(t.d_model, hd);

  // pass 8 reversed: output = concat W_O. dW_O: (h*d_k) x d_model; dConcat: n x (h*d_k)
  g.dW_O.noalias() = t.concat.transpose() * dOutput;
  Matrix dConcat(n, hd);
  dConcat.noalias() = dOutput * t.W_O.transpose();

  for (int i = 0; i < h; ++i) {
    const HeadTrace& H = t.head[i];
    // pass 7 reversed: this head's columns of the concatenation. dO: n x d_k
    const Matrix dO = dConcat.middleCols(i * d_k, d_k);
    // pass 6 reversed: output = weights V. dWeights: n x n, dV: n x d_k
    Matrix dWeights(n, n);
    dWeights.noalias() = dO * H.V.transpose();
    if (extra_dweights) dWeights += (*extra_dweights)[static_cast<std::size_t>(i)];
    Matrix dV(n, d_k);
    dV.noalias() = H.weights.transpose() * dO;
    // pass 5 reversed: softmax with temperature. Masked cells have weight 0, so get gradient 0:
    // that is pass 4 reversed as well (the mask is a constant).
    const Matrix dMasked = softmax_rows_backward(H.weights, dWeights, t.options.temperature);
    // pass 3 reversed: scaled = scores * scale_factor
    const Matrix dScores = dMasked * t.scale_factor;
    // pass 2 reversed: scores = Q K^T. dQ, dK: n x d_k
    Matrix dQ(n, d_k), dK(n, d_k);
    dQ.noalias() = dScores * H.K;
    dK.noalias() = dScores.transpose() * H.Q;
    // pass 1 reversed: Q = X W_Q_i etc. Weight gradients d_model x d_k; dX: n x d_model
    g.dW_Q.middleCols(i * d_k, d_k).noalias() = t.X.transpose() * dQ;
    g.dW_K.middleCols(i * d_k, d_k).noalias() = t.X.transpose() * dK;
    g.dW_V.middleCols(i * d_k, d_k).noalias() = t.X.transpose() * dV;
    g.dX.noalias() += dQ * H.W_Q.transpose();
    g.dX.noalias() += dK * H.W_K.transpose();
    g.dX.noalias() += dV * H.W_V.transpose();
  }
  return g;
}

double tied_cross_entropy(MatrixRef Y, MatrixRef E, const std::vector<CopyTarget>& targets,
                          float grad_scale, Matrix* dY, Matrix* dE,
                          std::vector<float>* probabilities) {
  const Eigen::Index T = static_cast<Eigen::Index>(targets.size());
  const Eigen::Index V = E.rows(), d = E.cols();
  if (Y.cols() != d)
    throw Error("shape_mismatch", "Y and E must have the same number of columns (d_model)");
  if (dY && (dY->rows() != Y.rows() || dY->cols() != d))
    throw Error("shape_mismatch", "dY must have Y's shape");
  if (dE && (dE->rows() != V || dE->cols() != d))
    throw Error("shape_mismatch", "dE must have E's shape");
  if (probabilities) probabilities->clear();
  if (T == 0) return 0.0;
  // gather the target rows: Yt is T x d_model
  Matrix Yt(T, d);
  for (Eigen::Index k = 0; k < T; ++k) {
    const CopyTarget& c = targets[static_cast<std::size_t>(k)];
    if (c.row < 0 || c.row >= Y.rows() || c.word < 0 || c.word >= V)
      throw Error("bad_target", "a target names a row or word that does not exist");
    Yt.row(k) = Y.row(c.row);
  }
  // logits: T x V, then softmax per row in place
  Matrix P(T, V);
  P.noalias() = Yt * E.transpose();
  double loss = 0.0;
  for (Eigen::Index k = 0; k < T; ++k) {
    const int w = targets[static_cast<std::size_t>(k)].word;
    const float logit = P(k, w);
    const SoftmaxRow r = softmax_exps(P.row(k).data(), V, 1.0f, P.row(k).data());
    // -log p = log(sum exp(shifted)) - shifted_target; never log(0), even when p underflows
    loss += std::log(static_cast<double>(r.sum)) - static_cast<double>(logit - r.max);
    P.row(k) /= r.sum;
    if (probabilities) probabilities->push_back(P(k, w));
  }
  if (dY || dE) {
    // dlogits = (softmax - onehot) * grad_scale: T x V
    Matrix dLogits = P * grad_scale;
    for (Eigen::Index k = 0; k < T; ++k)
      dLogits(k, targets[static_cast<std::size_t>(k)].word) -= grad_scale;
    if (dE) dE->noalias() += dLogits.transpose() * Yt;  // V x d_model
    if (dY) {
      Matrix dYt(T, d);
      dYt.noalias() = dLogits * E;  // T x d_model
      for (Eigen::Index k = 0; k < T; ++k)
        dY->row(targets[static_cast<std::size_t>(k)].row) += dYt.row(k);
    }
  }
  return loss;
}

void embedding_backward(const std::vector<int>& ids, MatrixRef dX, Matrix& dE) {
  if (static_cast<Eigen::Index>(ids.size()) != dX.rows() || dX.cols() != dE.cols())
    throw Error("shape_mismatch", "embedding_backward: one id per row of dX, same d_model as dE");
  for (std::size_t i = 0; i < ids.size(); ++i)
    dE.row(ids[i]) += dX.row(static_cast<Eigen::Index>(i));
}

}  // namespace ap
