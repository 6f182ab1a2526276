// bench.cpp: the timing loops behind bench.hpp. Each iteration is a separate non-inlined call,
// so V8 cannot leave the work inlined into a long-running caller in its baseline tier.
#include "bench.hpp"

#include <algorithm>
#include <chrono>

#include "attention.hpp"
#include "backward.hpp"
#include "gemm.hpp"
#include "hf_model.hpp"
#include "model.hpp"
#include "rng.hpp"

namespace ap {

namespace {

Matrix random_matrix(int rows, int cols, std::uint64_t seed) {
  Rng rng(seed);
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal());
  return m;
}

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// one forward pass; returns a value derived from the result so nothing can be elided
__attribute__((noinline)) float forward_once(const Matrix& X, const Weights& w,
                                             const AttentionOptions& opt) {
  const Trace t = attend(X, w, opt);
  return t.output(0, 0);
}

__attribute__((noinline)) float gemm_once(const Matrix& A, const Matrix& B, Matrix& C) {
  gemm(A, B, C);
  return C(0, 0);
}

__attribute__((noinline)) float train_step_once(const Matrix& X, const Weights& w,
                                                const AttentionOptions& opt, const Matrix& dOut) {
  const Trace t = attend(X, w, opt);
  const AttentionGrads g = attend_backward(t, dOut);
  return g.dW_Q(0, 0);
}

volatile float g_sink = 0.0f;  // keeps results observable

// The benchmark measures a real model's layer (BERT-base: 512 tokens, 12 heads), so its limit on
// attention cells is that layer's own, not the page's memory budget.
AttentionOptions bench_options(int n, int heads) {
  AttentionOptions opt;
  opt.heads = heads;
  opt.max_attention_cells = static_cast<long long>(n) * n * heads;
  return opt;
}

__attribute__((noinline)) float hf_forward_once(const HfModel& m, const std::vector<int>& ids) {
  const TextTrace t = hf_forward(m, ids);
  return t.network.norm_out.y(0, 0);
}

__attribute__((noinline)) float hf_readout_once(const HfModel& m, const std::vector<int>& ids) {
  return hf_readout(m, ids)(0, 0);
}

LayerNormParams unit_norm(int d) { return {Matrix::Ones(1, d), Matrix::Zero(1, d)}; }

}  // namespace

std::vector<double> bench_hf_forward(int layers, int d_model, int heads, int n, int iterations) {
  HfModel m;
  HfConfig& c = m.config;
  c.model_type = "gpt2";
  c.layers = layers;
  c.d_model = d_model;
  c.heads = heads;
  c.d_k = d_model / heads;
  c.d_ff = 4 * d_model;
  c.positions = std::max(n, 1);
  c.vocab_size = 64;  // the token rows are not what is timed
  c.activation = "gelu_new";
  c.causal = true;
  const float s = 0.02f;
  m.token_rows = random_matrix(c.vocab_size, d_model, 1);
  m.position_rows = random_matrix(c.positions, d_model, 2) * s;
  for (int l = 0; l < layers; ++l) {
    HfLayer L;
    const std::uint64_t k = 100 + 10 * static_cast<std::uint64_t>(l);
    L.norm_attn = unit_norm(d_model);
    L.attn.W_Q = random_matrix(d_model, d_model, k) * s;
    L.attn.W_K = random_matrix(d_model, d_model, k + 1) * s;
    L.attn.W_V = random_matrix(d_model, d_model, k + 2) * s;
    L.attn.W_O = random_matrix(d_model, d_model, k + 3) * s;
    L.attn.b_Q = L.attn.b_K = L.attn.b_V = L.attn.b_O = Matrix::Zero(1, d_model);
    L.norm_ffn = unit_norm(d_model);
    L.W_1 = random_matrix(d_model, c.d_ff, k + 4) * s;
    L.b_1 = Matrix::Zero(1, c.d_ff);
    L.W_2 = random_matrix(c.d_ff, d_model, k + 5) * s;
    L.b_2 = Matrix::Zero(1, d_model);
    m.layers.push_back(std::move(L));
  }
  m.norm_out = unit_norm(d_model);
  pack_hf_weights(m);  // as a loaded model's are
  std::vector<int> ids(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i % c.vocab_size;
  g_sink = hf_forward_once(m, ids);
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const double t0 = now_ms();
    g_sink = hf_forward_once(m, ids);
    ms.push_back(now_ms() - t0);
  }
  return ms;
}

std::vector<double> bench_hf_readout(const HfModel& m, const std::vector<int>& ids,
                                     int iterations) {
  g_sink = hf_readout_once(m, ids);
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const double t0 = now_ms();
    g_sink = hf_readout_once(m, ids);
    ms.push_back(now_ms() - t0);
  }
  return ms;
}

double forward_flops(int n, int d_model, int heads) {
  const double hd = static_cast<double>(d_model / heads) * heads;
  const double N = n, D = d_model;
  return 2.0 * N * D * hd * 3 + 2.0 * N * N * hd * 2 + 2.0 * N * hd * D;
}

std::vector<double> bench_forward(int n, int d_model, int heads, int iterations) {
  const Matrix X = random_matrix(n, d_model, 1234);
  const Weights w = random_weights(d_model, heads, d_model / heads, Settings{}.seed, false);
  const AttentionOptions opt = bench_options(n, heads);
  g_sink = forward_once(X, w, opt);  // warm-up: heap, caches, JIT tiers
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    const double t0 = now_ms();
    g_sink = forward_once(X, w, opt);
    ms.push_back(now_ms() - t0);
  }
  return ms;
}

std::vector<double> bench_train_step(int n, int d_model, int heads, int iterations) {
  const Matrix X = random_matrix(n, d_model, 1234);
  const Matrix dOut = random_matrix(n, d_model, 99);
  const Weights w = random_weights(d_model, heads, d_model / heads, Settings{}.seed, false);
  const AttentionOptions opt = bench_options(n, heads);
  g_sink = train_step_once(X, w, opt, dOut);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    const double t0 = now_ms();
    g_sink = train_step_once(X, w, opt, dOut);
    ms.push_back(now_ms() - t0);
  }
  return ms;
}

std::vector<double> bench_gemm(int m, int k, int n, int iterations) {
  const Matrix A = random_matrix(m, k, 1);
  const Matrix B = random_matrix(k, n, 2);
  Matrix C;
  g_sink = gemm_once(A, B, C);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    const double t0 = now_ms();
    g_sink = gemm_once(A, B, C);
    ms.push_back(now_ms() - t0);
  }
  return ms;
}

}  // namespace ap
