// bindings.cpp: the only Embind file. It converts between JS values and the core's types and
// computes nothing itself. Matrices go out as {rows, cols, data: Float32Array} copies owned by
// JS (row-major), so the page never calls .delete() and never holds a view into wasm memory.
// Errors come back as {ok: false, error: {code, message}} rather than as C++ exceptions.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "attention.hpp"
#include "bench.hpp"
#include "error.hpp"
#include "gemm.hpp"
#include "model.hpp"
#include "tokenizer.hpp"

using emscripten::val;

namespace {

val f32_copy(const float* p, std::size_t n) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(n, p));
}

val mat(const ap::Matrix& m) {
  val o = val::object();
  o.set("rows", static_cast<int>(m.rows()));
  o.set("cols", static_cast<int>(m.cols()));
  o.set("data", f32_copy(m.data(), static_cast<std::size_t>(m.size())));
  return o;
}

val row(const ap::RowVector& v) { return f32_copy(v.data(), static_cast<std::size_t>(v.size())); }

ap::RowVector row_from(const val& a) {
  const std::vector<float> v = emscripten::convertJSArrayToNumberVector<float>(a);
  ap::RowVector r(static_cast<Eigen::Index>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) r[static_cast<Eigen::Index>(i)] = v[i];
  return r;
}

// {rows, cols, data} -> Matrix; an absent value gives an empty matrix
ap::Matrix mat_from(const val& o, const char* name) {
  if (o.isUndefined() || o.isNull()) return ap::Matrix();
  const int rows = o["rows"].as<int>();
  const int cols = o["cols"].as<int>();
  const std::vector<float> v = emscripten::convertJSArrayToNumberVector<float>(o["data"]);
  if (rows < 0 || cols < 0 || static_cast<std::size_t>(rows) * cols != v.size())
    throw ap::Error("shape_mismatch", std::string(name) + ": rows x cols does not match data length");
  ap::Matrix m(rows, cols);
  std::copy(v.begin(), v.end(), m.data());
  return m;
}

val ok() {
  val o = val::object();
  o.set("ok", true);
  return o;
}

val error(const std::string& code, const std::string& message) {
  val e = val::object();
  e.set("code", code);
  e.set("message", message);
  val o = val::object();
  o.set("ok", false);
  o.set("error", e);
  return o;
}

template <class F>
val guarded(F&& f) {
  try {
    return f();
  } catch (const ap::Error& e) {
    return error(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return error("out_of_memory", "out of memory: use a shorter text or smaller sizes");
  } catch (const std::exception& e) {
    return error("internal", e.what());
  }
}

val tokens_js(const std::vector<ap::Token>& tokens) {
  val list = val::array();
  for (const ap::Token& t : tokens) {
    val o = val::object();
    o.set("text", t.text);
    o.set("kind", std::string(ap::to_string(t.kind)));
    o.set("known", t.known);
    o.set("byteBegin", static_cast<double>(t.byte_begin));
    o.set("byteEnd", static_cast<double>(t.byte_end));
    list.call<void>("push", o);
  }
  return list;
}

val trace_js(const ap::Trace& t) {
  val o = val::object();
  o.set("n", t.n);
  o.set("dModel", t.d_model);
  o.set("heads", t.heads);
  o.set("dK", t.d_k);
  o.set("causal", t.options.causal);
  o.set("scale", t.options.scale);
  o.set("scaleFactor", t.scale_factor);
  o.set("temperature", t.options.temperature);
  o.set("X", mat(t.X));
  val heads = val::array();
  for (const ap::HeadTrace& h : t.head) {
    val ho = val::object();
    ho.set("W_Q", mat(h.W_Q));
    ho.set("W_K", mat(h.W_K));
    ho.set("W_V", mat(h.W_V));
    ho.set("Q", mat(h.Q));
    ho.set("K", mat(h.K));
    ho.set("V", mat(h.V));
    ho.set("scores", mat(h.scores));
    ho.set("scaled", mat(h.scaled));
    ho.set("masked", mat(h.masked));
    ho.set("weights", mat(h.weights));
    ho.set("output", mat(h.output));
    heads.call<void>("push", ho);
  }
  o.set("head", heads);
  o.set("concat", mat(t.concat));
  o.set("W_O", mat(t.W_O));
  o.set("output", mat(t.output));
  return o;
}

template <class T>
T get_or(const val& o, const char* key, T fallback) {
  const val v = o[key];
  return v.isUndefined() || v.isNull() ? fallback : v.as<T>();
}

ap::Settings settings_from(const val& o) {
  ap::Settings s;
  if (o.isUndefined() || o.isNull()) return s;
  s.d_model = get_or<int>(o, "dModel", s.d_model);
  s.heads = get_or<int>(o, "heads", s.heads);
  s.d_k = get_or<int>(o, "dK", s.d_k);
  s.causal = get_or<bool>(o, "causal", s.causal);
  s.scale = get_or<bool>(o, "scale", s.scale);
  s.temperature = get_or<float>(o, "temperature", s.temperature);
  s.tie_qk = get_or<bool>(o, "tieQK", s.tie_qk);
  s.positions = get_or<bool>(o, "positions", s.positions);
  s.max_tokens = get_or<int>(o, "maxTokens", s.max_tokens);
  // the seed travels as a decimal string: a JS number cannot hold every 64-bit value
  const std::string seed = get_or<std::string>(o, "seed", std::to_string(s.seed));
  if (seed.empty() || seed.size() > 20 || seed.find_first_not_of("0123456789") != std::string::npos)
    throw ap::Error("bad_seed", "the seed must be a whole number from 0 to 18446744073709551615");
  errno = 0;
  s.seed = std::strtoull(seed.c_str(), nullptr, 10);
  if (errno == ERANGE)
    throw ap::Error("bad_seed", "the seed must be a whole number from 0 to 18446744073709551615");
  return s;
}

val settings_js(const ap::Settings& s, int d_k) {
  val o = val::object();
  o.set("dModel", s.d_model);
  o.set("heads", s.heads);
  o.set("dK", d_k);
  o.set("causal", s.causal);
  o.set("scale", s.scale);
  o.set("temperature", s.temperature);
  o.set("tieQK", s.tie_qk);
  o.set("positions", s.positions);
  o.set("seed", std::to_string(s.seed));
  o.set("maxTokens", s.max_tokens);
  return o;
}

// ---- the exported operations ----

val tokenize(const std::string& text, int max_tokens) {
  return guarded([&] {
    val o = ok();
    o.set("tokens", tokens_js(ap::tokenize(text, ap::default_lexicon(), max_tokens)));
    return o;
  });
}

val trace_text(const std::string& text, const val& settings) {
  return guarded([&] {
    const ap::TextTrace t = ap::trace_text(text, settings_from(settings));
    val o = ok();
    o.set("tokens", tokens_js(t.tokens));
    o.set("settings", settings_js(t.settings, t.trace.d_k));
    o.set("embeddings", mat(t.embeddings));
    o.set("positions", t.positions.size() ? mat(t.positions) : val::null());
    o.set("trace", trace_js(t.trace));
    return o;
  });
}

val attend(const val& input) {
  return guarded([&] {
    ap::Weights w;
    const ap::Matrix X = mat_from(input["X"], "X");
    w.W_Q = mat_from(input["W_Q"], "W_Q");
    w.W_K = mat_from(input["W_K"], "W_K");
    w.W_V = mat_from(input["W_V"], "W_V");
    w.W_O = mat_from(input["W_O"], "W_O");
    ap::AttentionOptions opt;
    opt.heads = get_or<int>(input, "heads", opt.heads);
    opt.causal = get_or<bool>(input, "causal", opt.causal);
    opt.scale = get_or<bool>(input, "scale", opt.scale);
    opt.temperature = get_or<float>(input, "temperature", opt.temperature);
    val o = ok();
    o.set("trace", trace_js(ap::attend(X, w, opt)));
    return o;
  });
}

val softmax_steps(const val& scores, float temperature) {
  return guarded([&] {
    const ap::SoftmaxSteps s = ap::softmax_steps(row_from(scores), temperature);
    val o = ok();
    o.set("input", row(s.input));
    o.set("max", s.max);
    o.set("shifted", row(s.shifted));
    o.set("exps", row(s.exps));
    o.set("sum", s.sum);
    o.set("weights", row(s.weights));
    return o;
  });
}

val dot_steps(const val& q, const val& k) {
  return guarded([&] {
    const ap::DotSteps d = ap::dot_steps(row_from(q), row_from(k));
    val o = ok();
    o.set("products", row(d.products));
    o.set("dot", d.dot);
    o.set("normQ", d.norm_q);
    o.set("normK", d.norm_k);
    o.set("cosine", d.cosine);
    o.set("angleDegrees", d.angle_degrees);
    o.set("scaled", d.scaled);
    return o;
  });
}

float finite_range(const val& r) { return ap::finite_range(row_from(r)); }

val limits() {
  val o = val::object();
  o.set("maxTokens", ap::kMaxTokensLimit);
  o.set("defaultMaxTokens", ap::kDefaultMaxTokens);
  o.set("maxDModel", ap::kMaxDModel);
  o.set("maxHeads", ap::kMaxHeads);
  o.set("maxTemperature", ap::kMaxTemperature);
  return o;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_playground) {
  emscripten::function("tokenize", &tokenize);
  emscripten::function("traceText", &trace_text);
  emscripten::function("attend", &attend);
  emscripten::function("softmaxSteps", &softmax_steps);
  emscripten::function("dotSteps", &dot_steps);
  emscripten::function("finiteRange", &finite_range);
  emscripten::function("limits", &limits);

  // ---- for tests/node/gemm.test.mjs and scripts/bench only (the page does not use these) ----
  // C = A op(B) through the fast path (SIMD128 here), the portable packed path, or Eigen.
  // which: "fast" | "portable" | "eigen"; returns {ok, C} or {ok: false, error}.
  emscripten::function(
      "gemm", emscripten::optional_override(
                  [](const val& a, const val& b, bool transpose_b, const std::string& which) {
                    return guarded([&] {
                      const ap::Matrix A = mat_from(a, "A"), B = mat_from(b, "B");
                      ap::Matrix C;
                      if (which == "portable")
                        ap::gemm_packed_portable(A, B, transpose_b, C);
                      else if (which == "eigen")
                        ap::gemm_eigen(A, B, transpose_b, C);
                      else if (transpose_b)
                        ap::gemm_abt(A, B, C);
                      else
                        ap::gemm(A, B, C);
                      val o = ok();
                      o.set("C", mat(C));
                      o.set("simd128", ap::gemm_uses_simd128());
                      return o;
                    });
                  }));
  // per-iteration milliseconds of attend() / gemm() loops run inside wasm (bench.hpp)
  emscripten::function("benchForward",
                       emscripten::optional_override([](int n, int d_model, int heads, int iters) {
                         const std::vector<double> ms = ap::bench_forward(n, d_model, heads, iters);
                         return val::global("Float64Array").new_(emscripten::typed_memory_view(ms.size(), ms.data()));
                       }));
  emscripten::function("benchTrainStep",
                       emscripten::optional_override([](int n, int d_model, int heads, int iters) {
                         const std::vector<double> ms = ap::bench_train_step(n, d_model, heads, iters);
                         return val::global("Float64Array").new_(emscripten::typed_memory_view(ms.size(), ms.data()));
                       }));
  emscripten::function("benchGemm",
                       emscripten::optional_override([](int m, int k, int n, int iters) {
                         const std::vector<double> ms = ap::bench_gemm(m, k, n, iters);
                         return val::global("Float64Array").new_(emscripten::typed_memory_view(ms.size(), ms.data()));
                       }));
  // bytes of the wasm heap in use by malloc, and the heap's total size
  emscripten::function("heapStats", emscripten::optional_override([] {
                         const struct mallinfo mi = mallinfo();
                         val o = val::object();
                         o.set("inUse", static_cast<double>(mi.uordblks));
                         o.set("total", static_cast<double>(mi.arena));
                         return o;
                       }));
}
