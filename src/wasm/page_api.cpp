// page_api.cpp: the operations the page calls (Embind): a Session per playground (traceText,
// gradientRow, its custom model), and the stateless tokenize, attend, softmax and dot-product
// steps and limits(). Converts (convert.hpp) and computes nothing itself; keeps no state outside
// a Session. Built into every module; training.cpp adds to it in attention-full, attention-train
// and attention-test, and bench_exports.cpp in attention-test only.
#include <emscripten/bind.h>

#include <climits>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "ambiguity.hpp"
#include "ap_version.hpp"
#include "attention.hpp"
#include "convert.hpp"
#include "default_model.hpp"
#include "explain.hpp"
#include "guards.hpp"
#include "inference.hpp"
#include "model.hpp"
#include "model_file.hpp"
#include "schema.hpp"
#include "session.hpp"
#include "tokenizer.hpp"
#include "weight_arrays.hpp"

namespace ap::wasm {
namespace {

std::string model_name(const val& settings) {
  require_object(settings, "settings");
  if (absent(settings)) return kModels[0].name;  // the first model is the default
  return string_field(settings, "model", kModels[0].name);
}

// ---- the exported operations ----

val js_tokenize(const val& text, const val& max_tokens) {
  return guarded([&] {
    const int cap = static_cast<int>(int_arg(max_tokens, "max_tokens", 1, kMaxTokensLimit));
    val o = ok();
    schema::write_tokens(JsWriter{}, o, tokenize(text_arg(text), default_lexicon(), cap));
    return o;
  });
}

// Pronouns with two or more earlier nouns of one kind:
// {ok, same_kind: [{pronoun, category, candidates: [token index, ...]}]}
val js_same_kind(const val& text, const val& max_tokens) {
  return guarded([&] {
    const int cap = static_cast<int>(int_arg(max_tokens, "max_tokens", 1, kMaxTokensLimit));
    val o = ok();
    schema::write_same_kind(JsWriter{}, o,
                            same_kind_candidates(tokenize(text_arg(text), default_lexicon(), cap)));
    return o;
  });
}

// One playground's session (session.hpp): its custom model and its random-weights cache. JS holds
// it as module.Session and calls .delete() when the playground goes away.
class JsSession {
 public:
  val trace_text(const val& text, const val& settings) {
    return trace_text_detail(text, settings, val::undefined());
  }
  val trace_text_detail(const val& text, const val& settings, const val& detail);
  val gradient_row(const val& text, const val& settings, const val& query, const val& target);
  val set_custom_model(const val& bytes);
  bool has_custom_model() const { return session_.has_custom(); }
  val weight_arrays(const val& text, const val& settings);
  val model_bytes(const val& settings);

 private:
  // The model card of a trained model, converted once: every trace through that model carries
  // the same JS object (a card has some 200 strings; converting them was a third of a keystroke's
  // trace). Forgotten when the custom model is replaced.
  const val& card(const TrainedModel& m, const std::string& name);

  Session session_;
  const TrainedModel* card_model_ = nullptr;
  std::string card_name_;
  val card_ = val::undefined();
};

const val& JsSession::card(const TrainedModel& m, const std::string& name) {
  if (card_model_ != &m || card_name_ != name) {
    card_ = schema::model_card(JsWriter{}, m, name);
    card_model_ = &m;
    card_name_ = name;
  }
  return card_;
}

// detail: {layers: false} leaves every layer's matrices ("layers") out of the result (the page
// asks for them only while it shows a layer other than the last); {guesses: false} leaves out
// "guesses" (the page's model summary asks for them apart, when it is drawn); absent: everything.
val JsSession::trace_text_detail(const val& text_v, const val& settings, const val& detail) {
  return guarded([&] {
    const std::string text = text_arg(text_v);
    const std::string name = model_name(settings);
    require_object(detail, "detail");
    schema::TraceParts parts;
    parts.layers = absent(detail) || bool_field(detail, "layers", true);
    parts.guesses = absent(detail) || bool_field(detail, "guesses", true);
    const TrainedModel* m = nullptr;
    const TextTrace t = session_.trace(text, settings_from(settings), name, &m);
    val o = ok();
    schema::write_text_trace(JsWriter{}, o, t, m, m ? name : t.weights, parts,
                             [&] { return card(*m, name); });
    return o;
  });
}
val js_attend(const val& input) {
  return guarded([&] {
    if (absent(input)) bad_setting("input must be an object {X, W_Q, W_K, W_V, W_O?, heads, ...}");
    require_object(input, "input");
    Weights w;
    const Matrix X = matrix_arg(input["X"], "X", kMaxSequence, kMaxDModel);
    if (X.size() == 0) bad_setting("X is missing");
    w.W_Q = matrix_arg(input["W_Q"], "W_Q", kMaxDModel, kMaxHeadWidth);
    w.W_K = matrix_arg(input["W_K"], "W_K", kMaxDModel, kMaxHeadWidth);
    w.W_V = matrix_arg(input["W_V"], "W_V", kMaxDModel, kMaxHeadWidth);
    w.W_O = matrix_arg(input["W_O"], "W_O", kMaxHeadWidth, kMaxDModel);
    AttentionOptions opt;
    opt.heads = static_cast<int>(int_field(input, "heads", 1, kMaxHeads, opt.heads));
    opt.causal = bool_field(input, "causal", opt.causal);
    opt.scale = bool_field(input, "scale", opt.scale);
    opt.temperature = float_field(input, "temperature", 0, kMaxTemperature, opt.temperature);
    val o = ok();
    schema::write_trace(JsWriter{}, o, attend(X, w, opt));
    return o;
  });
}

val js_softmax_steps(const val& scores, const val& temperature) {
  return guarded([&] {
    if (!temperature.isNumber()) bad_setting("temperature must be a number");
    const float t = static_cast<float>(temperature.as<double>());  // the core checks the range
    val o = ok();
    schema::write_softmax_steps(
        JsWriter{}, o,
        softmax_steps(row_arg(scores, "scores", kMaxSequence, "too_many_scores"), t));
    return o;
  });
}

val js_dot_steps(const val& q, const val& k) {
  return guarded([&] {
    val o = ok();
    schema::write_dot_steps(JsWriter{}, o,
                            dot_steps(row_arg(q, "q", kMaxVectorLength, "too_many_values"),
                                      row_arg(k, "k", kMaxVectorLength, "too_many_values")));
    return o;
  });
}

// One example's gradient: at query token `query`, the output should name the word of token
// `target` (e.g. a pronoun's antecedent). Per head: dL/dweights and dL/dscores for that row.
val JsSession::gradient_row(const val& text_v, const val& settings, const val& query_v,
                            const val& target_v) {
  return guarded([&] {
    const std::string text = text_arg(text_v);
    // whole numbers only (Embind would turn 'x' and NaN into row 0); ranges are checked below
    const int query = static_cast<int>(int_arg(query_v, "row", INT_MIN, INT_MAX));
    const int target = static_cast<int>(int_arg(target_v, "target", INT_MIN, INT_MAX));
    const std::string name = model_name(settings);
    const TrainedModel* m = nullptr;
    const TextTrace t = session_.trace(text, settings_from(settings), name, &m);
    if (!m)
      throw Error("needs_trained_model", "gradients need a trained model, not random weights");
    if (target < 0 || target >= t.trace.n)
      throw Error("bad_row",
                  "the target token must be between 0 and " + std::to_string(t.trace.n - 1));
    const std::vector<int> ids = token_ids(t.tokens, m->vocab);
    const RowGradient g = explain_gradient(t, *m, query, ids[static_cast<std::size_t>(target)]);
    val o = ok();
    schema::write_row_gradient(JsWriter{}, o, g, target, m->vocab);
    return o;
  });
}

// Loads .apm bytes as this session's "custom" model (a model trained in the page, or a file).
val JsSession::set_custom_model(const val& bytes) {
  return guarded([&] {
    const TrainedModel& m = session_.set_custom(
        load_model(bytes_arg(bytes, "bytes", kMaxModelBytes, "model_too_large")));
    card_model_ = nullptr;  // a new model may sit where the old one was
    val o = ok();
    o.set(js_name("model"), schema::model_card(JsWriter{}, m, "custom"));
    return o;
  });
}

// The weights a trace of `text` uses, by name (weight_arrays.hpp): {ok, arrays: [{name, rows,
// cols, data}], layer_norm_eps} (the epsilon every LayerNorm of a trained model adds).
val JsSession::weight_arrays(const val& text_v, const val& settings) {
  return guarded([&] {
    const std::string text = text_arg(text_v);
    const std::string name = model_name(settings);
    const TrainedModel* m = nullptr;
    const TextTrace t = session_.trace(text, settings_from(settings), name, &m);
    val o = ok();
    schema::write_weight_arrays(JsWriter{}, o, ap::weight_arrays(t, m));
    return o;
  });
}

// The .apm bytes of the trained model the settings name (the shipped one or this session's
// custom one); random and numpy weights are no model file (no_model_file).
val JsSession::model_bytes(const val& settings) {
  return guarded([&] {
    const TrainedModel* m = session_.model(model_name(settings));
    if (!m) throw Error("no_model_file", "random and numpy weights are not a trained model");
    val o = ok();
    o.set(js_name("bytes"), bytes_js(save_model(*m)));
    return o;
  });
}

// CRC-32 of bytes (model_file.hpp's, the one the .apm format uses): the page's .npz export (a zip
// file) needs it for every entry. {ok, crc} (an unsigned 32-bit number).
val js_crc32(const val& bytes) {
  return guarded([&] {
    val o = ok();
    o.set(js_name("crc"),
          static_cast<double>(crc32(bytes_arg(bytes, "bytes", kMaxModelBytes, "too_many_bytes"))));
    return o;
  });
}

// The shipped model's bytes.
val js_default_model_bytes() { return bytes_js(std::string(default_model_bytes())); }

val js_finite_range(const val& r) {
  return guarded([&] {
    val o = ok();
    o.set(js_name("value"), finite_range(row_arg(r, "row", kMaxVectorLength, "too_many_values")));
    return o;
  });
}

// The sqrt(d_k) experiment for one d_k (explain.hpp); the seed is a decimal string (as the page's).
val js_scale_demo(const val& d_k, const val& keys, const val& rows, const val& seed,
                  const val& bins) {
  return guarded([&] {
    // scale_demo checks each range; here only that each is a whole number and the seed a short
    // string (20 digits at most: parse_seed refuses anything else)
    const auto whole = [](const val& v, const char* name) {
      return static_cast<int>(int_arg(v, name, INT_MIN, INT_MAX));
    };
    const ScaleDemo d =
        scale_demo(whole(d_k, "d_k"), whole(keys, "keys"), whole(rows, "rows"),
                   parse_seed(string_arg(seed, "seed", 32, "bad_seed")), whole(bins, "bins"));
    val o = ok();
    schema::write_scale_demo(JsWriter{}, o, d);
    return o;
  });
}

// The d_k values of the experiment and the published model shapes (explain.hpp).
val js_explain_facts() {
  val o = val::object();
  schema::write_explain_facts(JsWriter{}, o);
  return o;
}

// {ok, models: [{name, fixes}], numpy_article: {seed, n, d_model, d_k}} (schema::write_models)
val js_models() {
  val o = ok();
  schema::write_models(JsWriter{}, o);
  return o;
}

// The core's limits and the page's training run (schema::write_limits).
val js_limits() {
  val o = val::object();
  schema::write_limits(JsWriter{}, o);
  return o;
}

// The settings a trace uses for every field left out, and the model it uses: the one home of the
// page's defaults (core.js and the URL table read them).
val js_defaults() { return schema::defaults(JsWriter{}); }

// The project's version (CMake's project() VERSION): the page's footer and the embed's ready event.
std::string js_version() { return kVersion; }

}  // namespace
}  // namespace ap::wasm

EMSCRIPTEN_BINDINGS(page_api) {
  using namespace ap::wasm;
  emscripten::class_<JsSession>("Session")
      .constructor<>()
      .function("traceText", &JsSession::trace_text)
      .function("traceText", &JsSession::trace_text_detail)  // (text, settings, detail)
      .function("gradientRow", &JsSession::gradient_row)
      .function("setCustomModel", &JsSession::set_custom_model)
      .function("hasCustomModel", &JsSession::has_custom_model)
      .function("weightArrays", &JsSession::weight_arrays)
      .function("modelBytes", &JsSession::model_bytes);
  emscripten::function("crc32", &js_crc32);
  emscripten::function("tokenize", &js_tokenize);
  emscripten::function("sameKindCandidates", &js_same_kind);
  emscripten::function("attend", &js_attend);
  emscripten::function("softmaxSteps", &js_softmax_steps);
  emscripten::function("dotSteps", &js_dot_steps);
  emscripten::function("finiteRange", &js_finite_range);
  emscripten::function("scaleDemo", &js_scale_demo);
  emscripten::function("explainFacts", &js_explain_facts);
  emscripten::function("limits", &js_limits);
  emscripten::function("models", &js_models);
  emscripten::function("defaults", &js_defaults);
  emscripten::function("version", &js_version);
  emscripten::function("defaultModelBytes", &js_default_model_bytes);
}
