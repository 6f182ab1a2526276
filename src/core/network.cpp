// network.cpp: the layer stack forward (passes A1-A3, F1-F3, read-out) and the same passes in
// reverse.
#include "network.hpp"

#include <cmath>
#include <string>

#include "backward.hpp"
#include "error.hpp"
#include "gemm.hpp"
#include "rng.hpp"

namespace ap {

namespace {

Matrix normal_matrix(Eigen::Index rows, Eigen::Index cols, Rng& rng, double sd) {
  Matrix m(rows, cols);
  for (Eigen::Index r = 0; r < rows; ++r)
    for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal() * sd);
  return m;
}

LayerNormParams unit_norm(int d) { return {Matrix::Ones(1, d), Matrix::Zero(1, d)}; }

// the parameter list of any Network, const or not
template <class N, class P>
std::vector<std::pair<std::string, P>> list(N& net) {
  std::vector<std::pair<std::string, P>> out;
  for (std::size_t l = 0; l < net.layers.size(); ++l) {
    auto& L = net.layers[l];
    const std::string p = "layer" + std::to_string(l + 1) + ".";
    out.emplace_back(p + "norm_attn.gain", &L.norm_attn.gain);
    out.emplace_back(p + "norm_attn.bias", &L.norm_attn.bias);
    out.emplace_back(p + "W_Q", &L.attn.W_Q);
    out.emplace_back(p + "W_K", &L.attn.W_K);
    out.emplace_back(p + "W_V", &L.attn.W_V);
    out.emplace_back(p + "W_O", &L.attn.W_O);
    out.emplace_back(p + "norm_ffn.gain", &L.norm_ffn.gain);
    out.emplace_back(p + "norm_ffn.bias", &L.norm_ffn.bias);
    out.emplace_back(p + "W_1", &L.W_1);
    out.emplace_back(p + "b_1", &L.b_1);
    out.emplace_back(p + "W_2", &L.W_2);
    out.emplace_back(p + "b_2", &L.b_2);
  }
  out.emplace_back("out.gain", &net.norm_out.gain);
  out.emplace_back("out.bias", &net.norm_out.bias);
  return out;
}

// pass F2 and F3's feed-forward part: H = relu(U W_1 + b_1), returns H W_2 + b_2
Matrix feed_forward(const Layer& L, MatrixRef U, Matrix& hidden) {
  gemm(U, L.W_1, hidden);
  hidden.rowwise() += L.b_1.row(0);
  hidden = hidden.cwiseMax(0.0f);
  Matrix out;
  gemm(hidden, L.W_2, out);
  out.rowwise() += L.b_2.row(0);
  return out;
}

// a dropout mask: n x d entries, each 0 with chance rate, else 1 / (1 - rate)
Matrix dropout_mask(Eigen::Index n, Eigen::Index d, float rate, Rng& rng) {
  Matrix keep(n, d);
  const float scale = 1.0f / (1.0f - rate);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < d; ++j) keep(i, j) = rng.uniform() < rate ? 0.0f : scale;
  return keep;
}

// reverse of pass F1-F3 given dL/dX_{l+1}: returns dL/dM (the residual path plus the block's)
Matrix feed_forward_backward(const Layer& L, const LayerTrace& T, MatrixRef dOut, Layer& G) {
  // F3: out = (H W_2 + b_2) .* keep_ffn
  const Matrix dBlock = T.keep_ffn.size() ? Matrix(dOut.cwiseProduct(T.keep_ffn)) : Matrix(dOut);
  G.W_2.noalias() += T.hidden.transpose() * dBlock;
  G.b_2 += dBlock.colwise().sum();
  Matrix dH(dOut.rows(), L.W_2.rows());
  dH.noalias() = dBlock * L.W_2.transpose();
  // F2: relu passes the gradient where it was open
  dH = (T.hidden.array() > 0.0f).select(dH, 0.0f);
  G.W_1.noalias() += T.norm_ffn.y.transpose() * dH;
  G.b_1 += dH.colwise().sum();
  Matrix dU(dOut.rows(), L.W_1.rows());
  dU.noalias() = dH * L.W_1.transpose();
  // F1
  Matrix dM = layer_norm_backward(T.norm_ffn, L.norm_ffn, dU, G.norm_ffn);
  dM += dOut;  // the residual path
  return dM;
}

}  // namespace

void check_network_shape(int d_model, int heads, int d_k, int d_ff, int layers) {
  const auto bad = [](const std::string& what) {
    throw Error("model_invalid", "the model is invalid: " + what);
  };
  if (d_model < 1 || d_model > kMaxDModel) bad("d_model out of range");
  if (heads < 1 || heads > kMaxHeads) bad("heads out of range");
  if (d_k < 1 || d_k > kMaxDModel) bad("d_k out of range");
  if (static_cast<long long>(heads) * d_k > kMaxHeadWidth)
    bad("heads x d_k is over " + std::to_string(kMaxHeadWidth));
  if (d_ff < 1 || d_ff > kMaxFeedForward) bad("d_ff out of range");
  if (layers < 1 || layers > kMaxLayers) bad("layers out of range");
}

Network init_network(int d_model, int heads, int d_k, int d_ff, int layers, std::uint64_t seed) {
  check_network_shape(d_model, heads, d_k, d_ff, layers);
  Network net;
  net.d_model = d_model;
  net.heads = heads;
  net.d_k = d_k;
  net.d_ff = d_ff;
  const int hd = heads * d_k;
  const double sd_in = 1.0 / std::sqrt(static_cast<double>(d_model));
  const double sd_o = 1.0 / std::sqrt(static_cast<double>(hd));
  const double sd_2 = 1.0 / std::sqrt(static_cast<double>(d_ff) * 2.0 * layers);
  for (int l = 0; l < layers; ++l) {
    Rng rng(mix_seed(seed, 100 + static_cast<std::uint64_t>(l)));
    Layer L;
    L.norm_attn = unit_norm(d_model);
    L.attn.W_Q = normal_matrix(d_model, hd, rng, sd_in);
    L.attn.W_K = normal_matrix(d_model, hd, rng, sd_in);
    L.attn.W_V = normal_matrix(d_model, hd, rng, sd_in);
    L.attn.W_O = normal_matrix(hd, d_model, rng, sd_o);
    L.norm_ffn = unit_norm(d_model);
    L.W_1 = normal_matrix(d_model, d_ff, rng, sd_in);
    L.b_1 = Matrix::Zero(1, d_ff);
    L.W_2 = normal_matrix(d_ff, d_model, rng, sd_2);
    L.b_2 = Matrix::Zero(1, d_model);
    net.layers.push_back(std::move(L));
  }
  net.norm_out = unit_norm(d_model);
  return net;
}

std::vector<std::pair<std::string, Matrix*>> parameters(Network& net) {
  return list<Network, Matrix*>(net);
}
std::vector<std::pair<std::string, const Matrix*>> parameters(const Network& net) {
  return list<const Network, const Matrix*>(net);
}

std::vector<ParameterShape> parameter_shapes(int d_model, int heads, int d_k, int d_ff,
                                             int layers) {
  check_network_shape(d_model, heads, d_k, d_ff, layers);
  const Eigen::Index d = d_model, hd = static_cast<Eigen::Index>(heads) * d_k, ff = d_ff;
  std::vector<ParameterShape> out;
  for (int l = 0; l < layers; ++l) {  // as list() walks a Layer
    const std::string p = "layer" + std::to_string(l + 1) + ".";
    out.push_back({p + "norm_attn.gain", 1, d});
    out.push_back({p + "norm_attn.bias", 1, d});
    out.push_back({p + "W_Q", d, hd});
    out.push_back({p + "W_K", d, hd});
    out.push_back({p + "W_V", d, hd});
    out.push_back({p + "W_O", hd, d});
    out.push_back({p + "norm_ffn.gain", 1, d});
    out.push_back({p + "norm_ffn.bias", 1, d});
    out.push_back({p + "W_1", d, ff});
    out.push_back({p + "b_1", 1, ff});
    out.push_back({p + "W_2", ff, d});
    out.push_back({p + "b_2", 1, d});
  }
  out.push_back({"out.gain", 1, d});
  out.push_back({"out.bias", 1, d});
  return out;
}

Network zeros_like(const Network& net) {
  Network z = net;
  for (auto& p : parameters(z)) p.second->setZero();
  return z;
}

NormTrace layer_norm(MatrixRef x, const LayerNormParams& p) {
  const Eigen::Index n = x.rows(), d = x.cols();
  NormTrace t;
  t.xhat.resize(n, d);
  t.mean.resize(n);
  t.std.resize(n);
  t.rstd.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const float mean = x.row(i).mean();
    const float var = (x.row(i).array() - mean).square().mean();
    const float sd = std::sqrt(var + kLayerNormEps);
    const float r = 1.0f / sd;
    t.mean[i] = mean;
    t.std[i] = sd;
    t.rstd[i] = r;
    t.xhat.row(i) = (x.row(i).array() - mean) * r;
  }
  t.y = (t.xhat.array().rowwise() * p.gain.row(0).array()).rowwise() + p.bias.row(0).array();
  return t;
}

Matrix layer_norm_backward(const NormTrace& t, const LayerNormParams& p, MatrixRef dy,
                           LayerNormParams& grad) {
  const Eigen::Index n = dy.rows(), d = dy.cols();
  grad.gain += dy.cwiseProduct(t.xhat).colwise().sum();
  grad.bias += dy.colwise().sum();
  // dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat .* xhat)), dxhat = dy .* gain
  Matrix dx(n, d);
  for (Eigen::Index i = 0; i < n; ++i) {
    const RowVector dxhat = dy.row(i).cwiseProduct(p.gain.row(0));
    const float m1 = dxhat.mean();
    const float m2 = dxhat.cwiseProduct(t.xhat.row(i)).mean();
    dx.row(i) = ((dxhat.array() - m1) - t.xhat.row(i).array() * m2) * t.rstd[i];
  }
  return dx;
}

NetworkTrace network_forward(const Network& net, MatrixRef X, const AttentionOptions& opt,
                             const Dropout& drop) {
  if (!(drop.rate >= 0.0f && drop.rate < 1.0f))
    throw Error("bad_train_config", "dropout must be in [0, 1)");
  const bool dropping = drop.rate > 0.0f && drop.rng != nullptr;
  if (opt.heads != net.heads)
    throw Error("shape_mismatch", "the attention options' heads must be the model's");
  if (X.cols() != net.d_model)
    throw Error("shape_mismatch", "X must have the model's d_model columns");
  NetworkTrace t;
  Matrix stream = X;
  for (const Layer& L : net.layers) {
    LayerTrace T;
    T.input = stream;
    T.norm_attn = layer_norm(T.input, L.norm_attn);  // pass A1
    T.attn = attend(T.norm_attn.y, L.attn, opt);     // pass A2
    if (dropping) {
      T.keep_attn = dropout_mask(X.rows(), net.d_model, drop.rate, *drop.rng);
      T.mid = T.input + T.attn.output.cwiseProduct(T.keep_attn);  // pass A3
    } else {
      T.mid = T.input + T.attn.output;  // pass A3
    }
    T.norm_ffn = layer_norm(T.mid, L.norm_ffn);              // pass F1
    Matrix block = feed_forward(L, T.norm_ffn.y, T.hidden);  // passes F2, F3
    if (dropping) {
      T.keep_ffn = dropout_mask(X.rows(), net.d_model, drop.rate, *drop.rng);
      block = block.cwiseProduct(T.keep_ffn);
    }
    T.output = T.mid + block;
    T.ffn_out = std::move(block);
    stream = T.output;
    t.layers.push_back(std::move(T));
  }
  t.norm_out = layer_norm(stream, net.norm_out);  // read-out
  return t;
}

const char* to_string(StepKind k) {
  switch (k) {
    case StepKind::norm:
      return "norm";
    case StepKind::attention:
      return "attention";
    case StepKind::add:
      return "add";
    case StepKind::feed_forward:
      return "feed_forward";
  }
  return "";
}

WalkStep* LayerWalk::add_step(StepKind kind, const char* name, std::vector<int> from,
                              const Matrix* out) {
  WalkStep s;
  s.kind = kind;
  s.name = name;
  s.from = std::move(from);
  s.out = out;
  steps.push_back(std::move(s));
  return &steps.back();
}

WalkStep* LayerWalk::add_norm(const char* name, int from, const NormTrace& nt,
                              const LayerNormParams& p, float eps) {
  WalkStep* s = add_step(StepKind::norm, name, {from}, &nt.y);
  s->norm = &nt;
  s->params = &p;
  s->eps = eps;
  return s;
}

LayerWalk layer_walk(const Network& net, const NetworkTrace& t, int l) {
  if (l < 0 || l >= net.depth() || t.layers.size() != net.layers.size())
    throw Error("shape_mismatch", "no such layer in this trace");
  const Layer& L = net.layers[static_cast<std::size_t>(l)];
  const LayerTrace& T = t.layers[static_cast<std::size_t>(l)];
  LayerWalk w;
  w.steps.reserve(6);
  w.add_norm("norm_attn", kLayerInput, T.norm_attn, L.norm_attn);        // pass A1
  w.add_step(StepKind::attention, "attention", {0}, &T.attn.output);     // pass A2
  w.add_step(StepKind::add, "residual_attn", {kLayerInput, 1}, &T.mid);  // pass A3
  w.add_norm("norm_ffn", 2, T.norm_ffn, L.norm_ffn);                     // pass F1
  w.add_step(StepKind::feed_forward, "feed_forward", {3}, &T.ffn_out)    // pass F2
      ->hidden = &T.hidden;
  w.add_step(StepKind::add, "residual_ffn", {2, 4}, &T.output);  // pass F3
  w.attention_input = 0;
  return w;
}

Matrix network_backward(const Network& net, const NetworkTrace& t, MatrixRef dY, Network& grad,
                        const std::vector<std::vector<Matrix>>* extra_dweights) {
  Matrix d = layer_norm_backward(t.norm_out, net.norm_out, dY, grad.norm_out);
  for (int l = net.depth() - 1; l >= 0; --l) {
    const Layer& L = net.layers[static_cast<std::size_t>(l)];
    const LayerTrace& T = t.layers[static_cast<std::size_t>(l)];
    Layer& G = grad.layers[static_cast<std::size_t>(l)];
    const Matrix dM = feed_forward_backward(L, T, d, G);  // passes F3-F1
    const std::vector<Matrix>* extra = nullptr;
    if (extra_dweights && !(*extra_dweights)[static_cast<std::size_t>(l)].empty())
      extra = &(*extra_dweights)[static_cast<std::size_t>(l)];
    const Matrix dA = T.keep_attn.size() ? Matrix(dM.cwiseProduct(T.keep_attn)) : dM;  // pass A3
    const AttentionGrads g = attend_backward(T.attn, dA, extra);                       // pass A2
    G.attn.W_Q += g.dW_Q;
    G.attn.W_K += g.dW_K;
    G.attn.W_V += g.dW_V;
    G.attn.W_O += g.dW_O;
    d = layer_norm_backward(T.norm_attn, L.norm_attn, g.dX, G.norm_attn);  // pass A1
    d += dM;                                                               // pass A3
  }
  return d;
}

Matrix last_attention_output_grad(const Network& net, const NetworkTrace& t, MatrixRef dY) {
  if (net.layers.empty() || t.layers.size() != net.layers.size())
    throw Error("shape_mismatch", "the trace was not made with this network");
  Network scratch = zeros_like(net);
  const Matrix d = layer_norm_backward(t.norm_out, net.norm_out, dY, scratch.norm_out);
  // A enters M = X + A unchanged, so dL/dA = dL/dM
  return feed_forward_backward(net.layers.back(), t.layers.back(), d, scratch.layers.back());
}

}  // namespace ap
