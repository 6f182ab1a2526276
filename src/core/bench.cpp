// bench.cpp: the timing loops behind bench.hpp. Each iteration is a separate non-inlined call,
// so V8 cannot leave the work inlined into a long-running caller in its baseline tier.
#include "bench.hpp"

#include <chrono>

#include "attention.hpp"
#include "backward.hpp"
#include "gemm.hpp"
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

}  // namespace

double forward_flops(int n, int d_model, int heads) {
  const double hd = static_cast<double>(d_model / heads) * heads;
  const double N = n, D = d_model;
  return 2.0 * N * D * hd * 3 + 2.0 * N * N * hd * 2 + 2.0 * N * hd * D;
}

std::vector<double> bench_forward(int n, int d_model, int heads, int iterations) {
  const Matrix X = random_matrix(n, d_model, 1234);
  const Weights w = random_weights(d_model, heads, d_model / heads, 42, false);
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
  const Weights w = random_weights(d_model, heads, d_model / heads, 42, false);
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
