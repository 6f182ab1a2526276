// bench.hpp: timing loops over the core for scripts/bench (the native bench executable and the
// wasm module's bench-only bindings run the very same loops). Not a test and not used by the page.
#pragma once
#include <vector>

namespace ap {

struct HfModel;  // hf_model.hpp

// Multiply-add FLOPs of one forward pass, counting only the matrix products (2 per multiply-add):
//   projections 3 * 2 n d_model (h d_k) + scores 2 n^2 (h d_k) + mix 2 n^2 (h d_k)
//   + output projection 2 n (h d_k) d_model. Softmax, scaling and copies are not counted.
double forward_flops(int n, int d_model, int heads);

// Runs attend() on seeded random X (n x d_model) and weights (d_k = d_model / heads) once to
// warm up, then `iterations` times; returns each iteration's wall time in milliseconds.
std::vector<double> bench_forward(int n, int d_model, int heads, int iterations);

// One training step of the attention layer: attend() then attend_backward() (backward.hpp) with a
// seeded dL/d(output); the part of Trainer::step that grows with n and d_model (no embedding,
// loss or Adam). Backward has two products per forward product, so 3 x forward_flops().
// Empty when this build has no backward.hpp.
std::vector<double> bench_train_step(int n, int d_model, int heads, int iterations);

// The full forward of a GPT-2-shaped model (hf_model.hpp) with seeded random weights: `layers`
// layers of d_model with `heads` heads, d_ff = 4 d_model, n tokens, the last layer traced in
// full. Warm-up once, then `iterations` times; ms per iteration. GPT-2 small: 12, 768, 12.
std::vector<double> bench_hf_forward(int layers, int d_model, int heads, int n, int iterations);

// The read-out alone (hf_readout) of a loaded model on the given ids: warm-up once, then
// `iterations` times; ms per iteration. The ONNX benchmark times the same model in onnxruntime.
std::vector<double> bench_hf_readout(const HfModel& m, const std::vector<int>& ids, int iterations);

// Times gemm() alone: C (m x n) = A (m x k) B (k x n), `iterations` times; ms per iteration.
std::vector<double> bench_gemm(int m, int k, int n, int iterations);

}  // namespace ap
