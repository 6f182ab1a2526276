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
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "attention.hpp"
#include "bench.hpp"
#include "default_model.hpp"
#include "error.hpp"
#include "explain.hpp"
#include "gemm.hpp"
#include "model.hpp"
#include "model_file.hpp"
#ifdef AP_WASM_TRAINING
#include "trainer.hpp"
#endif
#include "tokenizer.hpp"

using emscripten::val;

namespace {

// A trace is ~50 matrices and a token list, made on every keystroke: the constructor and the
// property names are looked up once, not made from C strings on every set (that was 100 KB of
// garbage per keystroke in the page, and collector pauses with it).
// `name` must be a string literal (or another string with static storage): it is keyed by address.
const val& js_name(const char* name) {
  static std::deque<std::pair<const char*, val>> names;  // a deque: references stay valid
  for (const auto& [key, v] : names) {
    if (key == name) return v;
  }
  names.emplace_back(name, val(name));
  return names.back().second;
}

val f32_copy(const float* p, std::size_t n) {
  static const val Float32Array = val::global("Float32Array");
  return Float32Array.new_(emscripten::typed_memory_view(n, p));
}

val mat(const ap::Matrix& m) {
  val o = val::object();
  o.set(js_name("rows"), static_cast<int>(m.rows()));
  o.set(js_name("cols"), static_cast<int>(m.cols()));
  o.set(js_name("data"), f32_copy(m.data(), static_cast<std::size_t>(m.size())));
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
    throw ap::Error("shape_mismatch",
                    std::string(name) + ": rows x cols does not match data length");
  ap::Matrix m(rows, cols);
  std::copy(v.begin(), v.end(), m.data());
  return m;
}

val ok() {
  val o = val::object();
  o.set(js_name("ok"), true);
  return o;
}

val error(const std::string& code, const std::string& message) {
  val e = val::object();
  e.set(js_name("code"), code);
  e.set(js_name("message"), message);
  val o = val::object();
  o.set(js_name("ok"), false);
  o.set(js_name("error"), e);
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
    o.set(js_name("text"), t.text);
    o.set(js_name("kind"), js_name(ap::to_string(t.kind)));
    o.set(js_name("known"), t.known);
    o.set(js_name("byteBegin"), static_cast<double>(t.byte_begin));
    o.set(js_name("byteEnd"), static_cast<double>(t.byte_end));
    list.call<void>("push", o);
  }
  return list;
}

val trace_js(const ap::Trace& t) {
  val o = val::object();
  o.set(js_name("n"), t.n);
  o.set(js_name("dModel"), t.d_model);
  o.set(js_name("heads"), t.heads);
  o.set(js_name("dK"), t.d_k);
  o.set(js_name("causal"), t.options.causal);
  o.set(js_name("scale"), t.options.scale);
  o.set(js_name("scaleFactor"), t.scale_factor);
  o.set(js_name("temperature"), t.options.temperature);
  o.set(js_name("X"), mat(t.X));
  val heads = val::array();
  for (const ap::HeadTrace& h : t.head) {
    val ho = val::object();
    ho.set(js_name("W_Q"), mat(h.W_Q));
    ho.set(js_name("W_K"), mat(h.W_K));
    ho.set(js_name("W_V"), mat(h.W_V));
    ho.set(js_name("Q"), mat(h.Q));
    ho.set(js_name("K"), mat(h.K));
    ho.set(js_name("V"), mat(h.V));
    ho.set(js_name("scores"), mat(h.scores));
    ho.set(js_name("scaled"), mat(h.scaled));
    ho.set(js_name("masked"), mat(h.masked));
    ho.set(js_name("weights"), mat(h.weights));
    ho.set(js_name("output"), mat(h.output));
    heads.call<void>("push", ho);
  }
  o.set(js_name("head"), heads);
  o.set(js_name("concat"), mat(t.concat));
  o.set(js_name("W_O"), mat(t.W_O));
  o.set(js_name("output"), mat(t.output));
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
  o.set(js_name("dModel"), s.d_model);
  o.set(js_name("heads"), s.heads);
  o.set(js_name("dK"), d_k);
  o.set(js_name("causal"), s.causal);
  o.set(js_name("scale"), s.scale);
  o.set(js_name("temperature"), s.temperature);
  o.set(js_name("tieQK"), s.tie_qk);
  o.set(js_name("positions"), s.positions);
  o.set(js_name("seed"), std::to_string(s.seed));
  o.set(js_name("maxTokens"), s.max_tokens);
  return o;
}

// ---- models: the shipped default, seeded random weights, or one the page trained ----

// This module instance's model slots. A page and each Web Worker have their own instance.
struct Models {
  std::unique_ptr<ap::TrainedModel> custom;  // set by setCustomModel (a model trained in the page)
#ifdef AP_WASM_TRAINING
  std::unique_ptr<ap::Trainer> trainer;  // the trainer of trainerStart / trainerStep
#endif
};
Models& models() {
  static Models m;
  return m;
}

// nullptr means "random"
const ap::TrainedModel* model_for(const std::string& name) {
  if (name == "random") return nullptr;
  if (name == "default") return &ap::default_model();
  if (name == "custom") {
    if (!models().custom)
      throw ap::Error("no_custom_model", "no trained model yet: press Train first");
    return models().custom.get();
  }
  throw ap::Error("bad_model", "model must be default, random or custom, got " + name);
}

val model_js(const ap::TrainedModel& m, const std::string& name) {
  val o = val::object();
  o.set(js_name("name"), name);
  o.set(js_name("dModel"), m.d_model);
  o.set(js_name("heads"), m.heads);
  o.set(js_name("dK"), m.d_k);
  o.set(js_name("vocabSize"), m.vocab.size());
  val notes = val::array();
  for (const ap::HeadNote& n : m.notes) {
    val no = val::object();
    no.set(js_name("role"), n.role);
    no.set(js_name("note"), n.note);
    no.set(js_name("noteZh"), n.note_zh);
    no.set(js_name("pronounAccuracy"), n.pronoun_accuracy);
    no.set(js_name("verbAccuracy"), n.verb_accuracy);
    notes.call<void>("push", no);
  }
  o.set(js_name("notes"), notes);
  val info = val::object();
  for (const auto& kv : m.info) info.set(kv.first, kv.second);
  o.set(js_name("info"), info);
  return o;
}

ap::TextTrace trace_with(const std::string& text, const ap::Settings& s, const std::string& name,
                         const ap::TrainedModel** used) {
  const ap::TrainedModel* m = model_for(name);
  *used = m;
  if (m) return ap::trace_text_with_model(text, s, *m);
  // typing re-traces with the same settings: the random weights are drawn once per settings
  static ap::Weights weights;
  static ap::Settings drawn_for;
  static bool drawn = false;
  const int d_k = ap::validate(s);
  if (!drawn || drawn_for.d_model != s.d_model || drawn_for.heads != s.heads ||
      drawn_for.d_k != s.d_k || drawn_for.seed != s.seed || drawn_for.tie_qk != s.tie_qk) {
    drawn = false;
    weights = ap::random_weights(s.d_model, s.heads, d_k, s.seed, s.tie_qk);
    drawn_for = s;
    drawn = true;
  }
  return ap::trace_text(text, s, weights);
}

std::string model_name(const val& settings) {
  if (settings.isUndefined() || settings.isNull()) return "default";
  return get_or<std::string>(settings, "model", "default");
}

// ---- the exported operations ----

val tokenize(const std::string& text, int max_tokens) {
  return guarded([&] {
    val o = ok();
    o.set(js_name("tokens"), tokens_js(ap::tokenize(text, ap::default_lexicon(), max_tokens)));
    return o;
  });
}

val trace_text(const std::string& text, const val& settings) {
  return guarded([&] {
    const std::string name = model_name(settings);
    const ap::TrainedModel* m = nullptr;
    const ap::TextTrace t = trace_with(text, settings_from(settings), name, &m);
    val o = ok();
    o.set(js_name("model"), m ? model_js(*m, name) : val::null());
    if (m) {
      val guesses = val::array();
      for (const ap::TokenGuess& g : ap::guess_words(t.trace, *m)) {
        val go = val::object();
        go.set(js_name("word"), m->vocab.word(g.word));
        go.set(js_name("probability"), g.probability);
        guesses.call<void>("push", go);
      }
      o.set(js_name("guesses"), guesses);
    } else {
      o.set(js_name("guesses"), val::null());
    }

    o.set(js_name("tokens"), tokens_js(t.tokens));
    o.set(js_name("settings"), settings_js(t.settings, t.trace.d_k));
    o.set(js_name("embeddings"), mat(t.embeddings));
    o.set(js_name("positions"), t.positions.size() ? mat(t.positions) : val::null());
    o.set(js_name("trace"), trace_js(t.trace));
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
    o.set(js_name("trace"), trace_js(ap::attend(X, w, opt)));
    return o;
  });
}

val softmax_steps(const val& scores, float temperature) {
  return guarded([&] {
    const ap::SoftmaxSteps s = ap::softmax_steps(row_from(scores), temperature);
    val o = ok();
    o.set(js_name("input"), row(s.input));
    o.set(js_name("max"), s.max);
    o.set(js_name("shifted"), row(s.shifted));
    o.set(js_name("exps"), row(s.exps));
    o.set(js_name("sum"), s.sum);
    o.set(js_name("weights"), row(s.weights));
    return o;
  });
}

val dot_steps(const val& q, const val& k) {
  return guarded([&] {
    const ap::DotSteps d = ap::dot_steps(row_from(q), row_from(k));
    val o = ok();
    o.set(js_name("products"), row(d.products));
    o.set(js_name("dot"), d.dot);
    o.set(js_name("normQ"), d.norm_q);
    o.set(js_name("normK"), d.norm_k);
    o.set(js_name("cosine"), d.cosine);
    o.set(js_name("angleDegrees"), d.angle_degrees);
    o.set(js_name("scaled"), d.scaled);
    return o;
  });
}

// One example's gradient: at query token `query`, the output should name the word of token
// `target` (e.g. a pronoun's antecedent). Per head: dL/dweights and dL/dscores for that row.
val gradient_row(const std::string& text, const val& settings, int query, int target) {
  return guarded([&] {
    const std::string name = model_name(settings);
    const ap::TrainedModel* m = nullptr;
    const ap::TextTrace t = trace_with(text, settings_from(settings), name, &m);
    if (!m)
      throw ap::Error("needs_trained_model", "gradients need a trained model, not random weights");
    if (target < 0 || target >= t.trace.n)
      throw ap::Error("bad_row",
                      "the target token must be between 0 and " + std::to_string(t.trace.n - 1));
    const std::vector<int> ids = ap::token_ids(t.tokens, m->vocab);
    const ap::RowGradient g =
        ap::explain_gradient(t.trace, *m, query, ids[static_cast<std::size_t>(target)]);
    val o = ok();
    o.set(js_name("row"), g.row);
    o.set(js_name("target"), target);
    o.set(js_name("targetWord"), m->vocab.word(g.target_word));
    o.set(js_name("loss"), g.loss);
    o.set(js_name("probability"), g.probability);
    o.set(js_name("dOutput"), row(g.d_output));
    val heads = val::array();
    for (const ap::HeadGradient& hg : g.head) {
      val ho = val::object();
      ho.set(js_name("dWeights"), row(hg.d_weights));
      ho.set(js_name("dScores"), row(hg.d_scores));
      heads.call<void>("push", ho);
    }
    o.set(js_name("head"), heads);
    return o;
  });
}

std::string bytes_from(const val& a) {
  const std::vector<std::uint8_t> v = emscripten::convertJSArrayToNumberVector<std::uint8_t>(a);
  return std::string(v.begin(), v.end());
}

val bytes_js(const std::string& b) {
  return val::global("Uint8Array")
      .new_(
          emscripten::typed_memory_view(b.size(), reinterpret_cast<const std::uint8_t*>(b.data())));
}

// Loads .apm bytes into the "custom" slot (a model trained in the page, or a file).
val set_custom_model(const val& bytes) {
  return guarded([&] {
    auto m = std::make_unique<ap::TrainedModel>(ap::load_model(bytes_from(bytes)));
    val o = ok();
    o.set(js_name("model"), model_js(*m, "custom"));
    models().custom = std::move(m);
    return o;
  });
}

// The shipped model's bytes.
val default_model_bytes() { return bytes_js(std::string(ap::default_model_bytes())); }

#ifdef AP_WASM_TRAINING
// Training, step by step (the page runs this in a Web Worker). corpus: the TSV of
// scripts/gen_lexicon. Starts from seeded random weights, with the shipped model's vocabulary.
val trainer_start(const std::string& corpus_tsv, const val& options) {
  return guarded([&] {
    ap::TrainConfig cfg;
    cfg.seed = static_cast<std::uint64_t>(get_or<double>(options, "seed", 1.0));
    cfg.steps = get_or<int>(options, "steps", cfg.steps);
    cfg.batch = get_or<int>(options, "batch", cfg.batch);
    ap::validate(cfg);
    ap::Vocabulary vocab = ap::default_model().vocab;
    std::vector<ap::Example> train =
        ap::prepare_examples(ap::parse_corpus(corpus_tsv), vocab, ap::default_lexicon());
    if (train.empty()) throw ap::Error("empty_corpus", "the training corpus has no sentences");
    const std::size_t n = train.size();
    models().trainer = std::make_unique<ap::Trainer>(cfg, std::move(vocab), std::move(train));
    val o = ok();
    o.set(js_name("examples"), static_cast<double>(n));
    o.set(js_name("steps"), cfg.steps);
    return o;
  });
}

// Runs k steps; returns the mean loss of those steps.
val trainer_step(int k) {
  return guarded([&] {
    if (!models().trainer) throw ap::Error("no_trainer", "call trainerStart first");
    if (k < 1 || k > 10000) throw ap::Error("bad_steps", "steps per call must be 1 to 10000");
    double sum = 0;
    for (int i = 0; i < k; ++i) sum += models().trainer->step();
    val o = ok();
    o.set(js_name("step"), models().trainer->steps_done());
    o.set(js_name("loss"), sum / k);
    o.set(js_name("learningRate"),
          models().trainer->learning_rate_at(models().trainer->steps_done() - 1));
    return o;
  });
}

// The trainer's current model as .apm bytes (for setCustomModel on the page).
val trainer_model_bytes() {
  return guarded([&] {
    if (!models().trainer) throw ap::Error("no_trainer", "call trainerStart first");
    ap::TrainedModel m = models().trainer->model();
    const std::string steps = std::to_string(models().trainer->steps_done());
    m.notes.assign(static_cast<std::size_t>(m.heads),
                   ap::HeadNote{"training", "Trained in this page for " + steps + " steps.",
                                "在本页训练了 " + steps + " 步。", 0.0f, 0.0f});
    m.info = {{"trainer", "the page's training worker"}, {"steps", steps}};
    val o = ok();
    o.set(js_name("bytes"), bytes_js(ap::save_model(m)));
    return o;
  });
}

#endif  // AP_WASM_TRAINING

float finite_range(const val& r) { return ap::finite_range(row_from(r)); }

val limits() {
  val o = val::object();
  o.set(js_name("maxTokens"), ap::kMaxTokensLimit);
  o.set(js_name("defaultMaxTokens"), ap::kDefaultMaxTokens);
  o.set(js_name("maxDModel"), ap::kMaxDModel);
  o.set(js_name("maxHeads"), ap::kMaxHeads);
  o.set(js_name("maxTemperature"), ap::kMaxTemperature);
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
  emscripten::function("gradientRow", &gradient_row);
  emscripten::function("setCustomModel", &set_custom_model);
  emscripten::function("defaultModelBytes", &default_model_bytes);
#ifdef AP_WASM_TRAINING
  // only in attention-train.js, the module the page's training Web Worker loads
  emscripten::function("trainerStart", &trainer_start);
  emscripten::function("trainerStep", &trainer_step);
  emscripten::function("trainerModelBytes", &trainer_model_bytes);
#endif

#ifdef AP_WASM_TRAINING
  // ---- for tests/node/gemm.test.mjs and scripts/bench only (in attention-train.js) ----
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
                      o.set(js_name("C"), mat(C));
                      o.set(js_name("simd128"), ap::gemm_uses_simd128());
                      return o;
                    });
                  }));
  // per-iteration milliseconds of attend() / gemm() loops run inside wasm (bench.hpp)
  emscripten::function("benchForward",
                       emscripten::optional_override([](int n, int d_model, int heads, int iters) {
                         const std::vector<double> ms = ap::bench_forward(n, d_model, heads, iters);
                         return val::global("Float64Array")
                             .new_(emscripten::typed_memory_view(ms.size(), ms.data()));
                       }));
  emscripten::function(
      "benchTrainStep", emscripten::optional_override([](int n, int d_model, int heads, int iters) {
        const std::vector<double> ms = ap::bench_train_step(n, d_model, heads, iters);
        return val::global("Float64Array")
            .new_(emscripten::typed_memory_view(ms.size(), ms.data()));
      }));
  emscripten::function("benchGemm",
                       emscripten::optional_override([](int m, int k, int n, int iters) {
                         const std::vector<double> ms = ap::bench_gemm(m, k, n, iters);
                         return val::global("Float64Array")
                             .new_(emscripten::typed_memory_view(ms.size(), ms.data()));
                       }));
  // bytes of the wasm heap in use by malloc, and the heap's total size
  emscripten::function("heapStats", emscripten::optional_override([] {
                         const struct mallinfo mi = mallinfo();
                         val o = val::object();
                         o.set(js_name("inUse"), static_cast<double>(mi.uordblks));
                         o.set(js_name("total"), static_cast<double>(mi.arena));
                         return o;
                       }));
#endif  // AP_WASM_TRAINING
}
