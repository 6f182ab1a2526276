// bench_exports.cpp: entry points for the node tests and scripts/bench only (Embind), linked into
// attention-test (build/wasm) and never into a shipped module: the matrix-product paths side by
// side, timing loops run inside wasm (bench.hpp) and the malloc heap's size.
#include <emscripten/bind.h>
#include <malloc.h>

#include <string>
#include <vector>

#include "bench.hpp"
#include "convert.hpp"
#include "gemm.hpp"
#include "guards.hpp"

namespace ap::wasm {
namespace {

// C = A op(B) through the fast path (SIMD128 here), the portable packed path, or Eigen.
// which: "fast" | "portable" | "eigen"; returns {ok, C, simd128} or {ok: false, error}.
val js_gemm(const val& a, const val& b, bool transpose_b, const std::string& which) {
  return guarded([&] {
    const Matrix A = matrix_arg(a, "A", kMaxMatrixSide, kMaxMatrixSide),
                 B = matrix_arg(b, "B", kMaxMatrixSide, kMaxMatrixSide);
    Matrix C;
    if (which == "portable")
      gemm_packed_portable(A, B, transpose_b, C);
    else if (which == "eigen")
      gemm_eigen(A, B, transpose_b, C);
    else if (transpose_b)
      gemm_abt(A, B, C);
    else
      gemm(A, B, C);
    val o = ok();
    o.set(js_name("C"), mat(C));
    o.set(js_name("simd128"), gemm_uses_simd128());
    return o;
  });
}

val f64_copy(const std::vector<double>& v) {
  return val::global("Float64Array").new_(emscripten::typed_memory_view(v.size(), v.data()));
}

// per-iteration milliseconds of attend() / a training step / gemm() loops run inside wasm
val js_bench_forward(int n, int d_model, int heads, int iters) {
  return f64_copy(bench_forward(n, d_model, heads, iters));
}
val js_bench_train_step(int n, int d_model, int heads, int iters) {
  return f64_copy(bench_train_step(n, d_model, heads, iters));
}
val js_bench_gemm(int m, int k, int n, int iters) { return f64_copy(bench_gemm(m, k, n, iters)); }

// bytes of the wasm heap in use by malloc, and the heap's total size
val js_heap_stats() {
  const struct mallinfo mi = mallinfo();
  val o = val::object();
  o.set(js_name("in_use"), static_cast<double>(mi.uordblks));
  o.set(js_name("total"), static_cast<double>(mi.arena));
  return o;
}

}  // namespace
}  // namespace ap::wasm

EMSCRIPTEN_BINDINGS(bench_exports) {
  using namespace ap::wasm;
  emscripten::function("gemm", &js_gemm);
  emscripten::function("benchForward", &js_bench_forward);
  emscripten::function("benchTrainStep", &js_bench_train_step);
  emscripten::function("benchGemm", &js_bench_gemm);
  emscripten::function("heapStats", &js_heap_stats);
}
