// schema.hpp: the one description of every value that leaves the core: a trace, its tokens and
// settings, a trained model's card, the softmax and dot-product steps, one row's gradient. The
// CLI's JSON writer (src/cli/json_io.cpp) and the Embind converter (src/wasm) both write through
// these functions, so both borders carry the same field names and the same set of fields; adding
// a field is one line here. Not a serializer: how a number, a matrix or a list looks is the
// writer's business (JSON: matrices as lists of rows, null for -inf; JS: {rows, cols, data} with a
// Float32Array copy). Never includes nlohmann or Emscripten.
//
// A writer W makes nodes of its own type:
//   using Node = ...;
//   Node object() const;  Node array() const;
//   Node value(V v) const;        V: bool, int, std::int64_t, float, double, const std::string&,
//                                 const char*, Uint64
//   Node matrix(MatrixRef m) const;  Node row(const RowVector& r) const;
//   void set(Node& object, const char* key, Node v) const;  void push(Node& array, Node v) const;
//   void set_dynamic(Node& object, const std::string& key, Node v) const;
// Keys given to set() are string literals (a writer may cache them by address); set_dynamic()
// is for keys that are data.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ambiguity.hpp"
#include "attention.hpp"
#include "explain.hpp"
#include "hf_model.hpp"
#include "inference.hpp"
#include "model.hpp"
#include "model_file.hpp"
#include "network.hpp"
#include "numpy_example.hpp"
#include "session.hpp"
#include "tokenizer.hpp"
#include "trainer.hpp"
#include "weight_arrays.hpp"

namespace ap::schema {

// A 64-bit unsigned integer (the seed). JSON writes a number; JS writes a decimal string, since
// a JS number cannot hold every 64-bit value.
struct Uint64 {
  std::uint64_t value;
};

template <class W, class V>
void put(const W& w, typename W::Node& o, const char* key, const V& v) {
  w.set(o, key, w.value(v));
}

// The settings a text trace is made with, by name. The binding reads its input with this list and
// writes defaults() with it; a text trace's "config" carries the same names. f(key, field&).
template <class S, class F>
void settings_fields(S& s, F&& f) {
  f("d_model", s.d_model);
  f("heads", s.heads);
  f("d_k", s.d_k);
  f("causal", s.causal);
  f("scale", s.scale);
  f("temperature", s.temperature);
  f("tie_qk", s.tie_qk);
  f("positions", s.positions);
  f("seed", s.seed);
  f("max_tokens", s.max_tokens);
}

template <class W, class V>
void put_setting(const W& w, typename W::Node& o, const char* key, const V& v) {
  put(w, o, key, v);
}
template <class W>
void put_setting(const W& w, typename W::Node& o, const char* key, std::uint64_t v) {
  put(w, o, key, Uint64{v});
}

// Settings as an object with settings_fields' names: the module's defaults() writes Settings{}.
template <class W>
typename W::Node settings(const W& w, Settings s) {
  typename W::Node o = w.object();
  settings_fields(s, [&](const char* key, const auto& field) { put_setting(w, o, key, field); });
  return o;
}

// The settings a trace uses for every field left out, and the model it uses (the first of
// kModels): {d_model, ..., max_tokens, model}.
template <class W>
typename W::Node defaults(const W& w) {
  typename W::Node o = settings(w, Settings{});
  put(w, o, "model", kModels[0].name);
  return o;
}

// {text, kind, known, pronoun, byte_begin, byte_end, read_as}
template <class W>
typename W::Node token(const W& w, const Token& t) {
  typename W::Node o = w.object();
  put(w, o, "text", t.text);
  put(w, o, "kind", to_string(t.kind));
  put(w, o, "known", t.known);
  put(w, o, "pronoun", t.pronoun);
  put(w, o, "byte_begin", static_cast<std::int64_t>(t.byte_begin));
  put(w, o, "byte_end", static_cast<std::int64_t>(t.byte_end));
  typename W::Node via = w.array();
  for (const std::string& s : t.read_as) w.push(via, w.value(s));
  w.set(o, "read_as", std::move(via));
  return o;
}

// "tokens": the token texts; "token_details": token() of each.
template <class W>
void write_tokens(const W& w, typename W::Node& o, const std::vector<Token>& tokens) {
  typename W::Node texts = w.array();
  typename W::Node details = w.array();
  for (const Token& t : tokens) {
    w.push(texts, w.value(t.text));
    w.push(details, token(w, t));
  }
  w.set(o, "tokens", std::move(texts));
  w.set(o, "token_details", std::move(details));
}

// `key`: m, unless m is empty (a stage a trace leaves out; no stage of a trace is ever empty).
template <class W>
void set_present(const W& w, typename W::Node& o, const char* key, const Matrix& m) {
  if (m.size() != 0) w.set(o, key, w.matrix(m));
}

// One head: its weight columns (and biases "b_Q", "b_K", "b_V" when the model has them) and every
// pass (attention.hpp's HeadTrace). A real model's layers other than the traced one keep only
// "weights": the other fields are left out.
template <class W>
typename W::Node head(const W& w, const HeadTrace& h) {
  typename W::Node o = w.object();
  set_present(w, o, "W_Q", h.W_Q);
  set_present(w, o, "W_K", h.W_K);
  set_present(w, o, "W_V", h.W_V);
  set_present(w, o, "b_Q", h.b_Q);
  set_present(w, o, "b_K", h.b_K);
  set_present(w, o, "b_V", h.b_V);
  set_present(w, o, "Q", h.Q);
  set_present(w, o, "K", h.K);
  set_present(w, o, "V", h.V);
  set_present(w, o, "scores", h.scores);
  set_present(w, o, "scaled", h.scaled);
  set_present(w, o, "masked", h.masked);
  set_present(w, o, "weights", h.weights);
  set_present(w, o, "output", h.output);
  return o;
}

// A trace: "config" {n, d_model, heads, d_k, causal, scale, scale_factor, temperature, and
// whatever more_config(config) adds}, "X", "heads" (head() of each), "concat", "W_O", "output".
template <class W, class F>
void write_trace(const W& w, typename W::Node& o, const Trace& t, F&& more_config) {
  typename W::Node config = w.object();
  put(w, config, "n", t.n);
  put(w, config, "d_model", t.d_model);
  put(w, config, "heads", t.heads);
  put(w, config, "d_k", t.d_k);
  put(w, config, "causal", t.options.causal);
  put(w, config, "scale", t.options.scale);
  put(w, config, "scale_factor", t.scale_factor);
  put(w, config, "temperature", t.options.temperature);
  more_config(config);
  w.set(o, "config", std::move(config));
  w.set(o, "X", w.matrix(t.X));
  typename W::Node heads = w.array();
  for (const HeadTrace& h : t.head) w.push(heads, head(w, h));
  w.set(o, "heads", std::move(heads));
  w.set(o, "concat", w.matrix(t.concat));
  w.set(o, "W_O", w.matrix(t.W_O));
  w.set(o, "output", w.matrix(t.output));
}

template <class W>
void write_trace(const W& w, typename W::Node& o, const Trace& t) {
  write_trace(w, o, t, [](typename W::Node&) {});
}

// A trained model's card: {name, d_model, heads, d_k, d_ff, layers, vocab_size,
// notes: [[{role, numbers: {key: value}}, ... one per head], ... one per layer], info: {key:
// value}}. A note is data (a role and measured numbers); the page words each role (web/locales,
// role.*).
template <class W>
typename W::Node model_card(const W& w, const TrainedModel& m, const std::string& name) {
  typename W::Node o = w.object();
  put(w, o, "name", name);
  put(w, o, "d_model", m.net.d_model);
  put(w, o, "heads", m.net.heads);
  put(w, o, "d_k", m.net.d_k);
  put(w, o, "d_ff", m.net.d_ff);
  put(w, o, "layers", m.net.depth());
  put(w, o, "vocab_size", m.vocab.size());
  typename W::Node notes = w.array();
  for (int l = 0; l < m.net.depth(); ++l) {
    typename W::Node per_layer = w.array();
    for (int h = 0; h < m.net.heads; ++h) {
      const HeadNote& n = m.note(l, h);
      typename W::Node no = w.object();
      put(w, no, "role", n.role);
      typename W::Node numbers = w.object();
      // number keys are data, not literals: a writer must not cache them by address
      for (const auto& kv : n.numbers) w.set_dynamic(numbers, kv.first, w.value(kv.second));
      w.set(no, "numbers", std::move(numbers));
      w.push(per_layer, std::move(no));
    }
    w.push(notes, std::move(per_layer));
  }
  w.set(o, "notes", std::move(notes));
  typename W::Node info = w.object();
  // info keys are data, not literals: a writer must not cache them by address
  for (const auto& kv : m.info) w.set_dynamic(info, kv.first, w.value(kv.second));
  w.set(o, "info", std::move(info));
  return o;
}

// The article's program for a "numpy" trace: {lines: [{text, stage}], matches}: its lines
// with this trace's seed and sizes (stage: the walkthrough stage the line computes, or ""), and
// whether running it gives this trace's numbers (numpy_example.hpp).
template <class W>
typename W::Node numpy_program_node(const W& w, const TextTrace& t) {
  typename W::Node lines = w.array();
  for (const ProgramLine& l :
       numpy_program_lines(t.settings.seed, t.trace.n, t.trace.d_model, t.trace.d_k)) {
    typename W::Node lo = w.object();
    put(w, lo, "text", l.text);
    put(w, lo, "stage", l.stage);
    w.push(lines, std::move(lo));
  }
  typename W::Node o = w.object();
  w.set(o, "lines", std::move(lines));
  put(w, o, "matches", numpy_program_matches(t.settings));
  return o;
}

// One layer's walk (network.hpp's LayerWalk): {attention_input (the step whose out is the
// attention's X; -1: the layer's input), steps: [{kind ("norm", "attention", "add",
// "feed_forward"), name, from: [step index, -1 = the layer's input], out (n x d_model), and for a
// norm: mean, std (per row: sqrt(var + eps)), gain, bias, eps}]}.
template <class W>
typename W::Node walk(const W& w, const LayerWalk& lw) {
  typename W::Node o = w.object();
  put(w, o, "attention_input", lw.attention_input);
  typename W::Node steps = w.array();
  for (const WalkStep& s : lw.steps) {
    typename W::Node so = w.object();
    put(w, so, "kind", to_string(s.kind));
    put(w, so, "name", s.name);
    typename W::Node from = w.array();
    for (int f : s.from) w.push(from, w.value(f));
    w.set(so, "from", std::move(from));
    w.set(so, "out", w.matrix(*s.out));
    if (s.norm) {
      w.set(so, "mean", w.row(RowVector(s.norm->mean.transpose())));
      w.set(so, "std", w.row(RowVector(s.norm->std.transpose())));
      w.set(so, "gain", w.row(RowVector(s.params->gain.row(0))));
      w.set(so, "bias", w.row(RowVector(s.params->bias.row(0))));
      put(w, so, "eps", s.eps);
    }
    w.push(steps, std::move(so));
  }
  w.set(o, "steps", std::move(steps));
  return o;
}

// Every layer of a trained model's trace: [{heads, X, concat, W_O, output (the attention, as
// write_trace without config), input (the residual stream entering the layer, X_0 = E + P for the
// first), mid (input + attention output), hidden (the feed-forward block's ReLU output), stream
// (the residual stream leaving the layer), walk (walk(): the layer as ordered steps from input to
// stream; written when `net` is given, the trained network)}]. The last layer's attention is the
// trace's own. A field the trace left empty is left out (set_present).
// walk_of(l) -> std::optional<LayerWalk>: layer l's walk, or none.
template <class W, class WalkOf>
typename W::Node layers(const W& w, const NetworkTrace& t, WalkOf&& walk_of) {
  typename W::Node out = w.array();
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    const LayerTrace& L = t.layers[l];
    typename W::Node o = w.object();
    set_present(w, o, "X", L.attn.X);
    typename W::Node heads = w.array();
    for (const HeadTrace& h : L.attn.head) w.push(heads, head(w, h));
    w.set(o, "heads", std::move(heads));
    set_present(w, o, "concat", L.attn.concat);
    set_present(w, o, "W_O", L.attn.W_O);
    set_present(w, o, "output", L.attn.output);
    set_present(w, o, "input", L.input);
    set_present(w, o, "mid", L.mid);
    set_present(w, o, "hidden", L.hidden);
    set_present(w, o, "stream", L.output);
    if (const std::optional<LayerWalk> lw = walk_of(static_cast<int>(l)))
      w.set(o, "walk", walk(w, *lw));
    w.push(out, std::move(o));
  }
  return out;
}

template <class W>
typename W::Node layers(const W& w, const Network* net, const NetworkTrace& t) {
  return layers(w, t, [&](int l) -> std::optional<LayerWalk> {
    if (!net) return std::nullopt;
    return layer_walk(*net, t, l);
  });
}

// The optional parts of a text trace a writer may leave out (the CLI writes all of them). A reader
// of the last layer alone (the page while the learner types) needs neither:
//   layers:  every layer's matrices, most of a trained model's trace;
//   guesses: the word read at each token, an n x vocabulary softmax (as much work as the layers).
struct TraceParts {
  bool layers = true;
  bool guesses = true;
};

// A text trace: write_trace() plus write_tokens(), "embeddings", "positions" (absent when
// positions are off) and the settings-only fields of "config": seed, tie_qk, positions,
// max_tokens and weights ("random", "numpy", or the model's name); for the numpy model "program"
// (numpy_program_node). Through a trained model `m` (nullptr = random or numpy weights) it adds
// "model" (model_card), "input" (the residual stream entering the first layer, X_0 = E + P),
// "layers" (layers()), "readout" (the final LayerNorm of the residual stream, n x d_model) and
// "guesses" (the word the model reads at each token: [{word, probability}]). `parts` may leave
// out "layers" and "guesses" (TraceParts). card() makes "model": a writer may keep the card it
// made for a model, which is the same for every trace through it.
// A Hugging Face model's trace (hf_model.hpp; write_hf_trace) has no trained model but layers: it
// adds "ids" (the tokenizer's ids), "embed_sum" (BERT: embeddings + positions before its
// embedding LayerNorm, which makes "input"), config "layer" and "head" (the layer traced in full
// and the head asked for), "input", "layers" (each head's "weights" only, and each layer's "input",
// "mid", "output" and "stream") and "readout" (gpt2: ln_f of the stream; bert: the last layer's
// output).
template <class W, class Card, class WalkOf>
void write_text_trace(const W& w, typename W::Node& o, const TextTrace& t, const TrainedModel* m,
                      const std::string& weights, TraceParts parts, Card&& card, WalkOf&& walk_of) {
  write_trace(w, o, t.trace, [&](typename W::Node& config) {
    put(w, config, "seed", Uint64{t.settings.seed});
    put(w, config, "tie_qk", t.settings.tie_qk);
    put(w, config, "positions", t.settings.positions);
    put(w, config, "max_tokens", t.settings.max_tokens);
    put(w, config, "weights", weights);
    if (t.layer >= 0) put(w, config, "layer", t.layer);
    if (t.head >= 0) put(w, config, "head", t.head);
  });
  write_tokens(w, o, t.tokens);
  if (!t.ids.empty()) {
    typename W::Node ids = w.array();
    for (const int id : t.ids) w.push(ids, w.value(id));
    w.set(o, "ids", std::move(ids));
  }
  w.set(o, "embeddings", w.matrix(t.embeddings));
  if (t.positions.size() != 0) w.set(o, "positions", w.matrix(t.positions));
  if (t.embed_sum.size() != 0) w.set(o, "embed_sum", w.matrix(t.embed_sum));
  if (t.weights == "numpy") w.set(o, "program", numpy_program_node(w, t));
  if (!m && t.network.layers.empty()) return;
  if (m) w.set(o, "model", card());
  if (!t.network.layers.empty()) w.set(o, "input", w.matrix(t.network.layers.front().input));
  if (parts.layers) w.set(o, "layers", layers(w, t.network, walk_of));
  w.set(o, "readout", w.matrix(t.network.norm_out.y));
  if (!m) return;
  if (!parts.guesses) return;
  typename W::Node guesses = w.array();
  for (const TokenGuess& g : guess_words(t, *m)) {
    typename W::Node go = w.object();
    put(w, go, "word", m->vocab.word(g.word));
    put(w, go, "probability", g.probability);
    w.push(guesses, std::move(go));
  }
  w.set(o, "guesses", std::move(guesses));
}

// The same, each layer's walk from the trained network `m` (none without one).
template <class W, class Card>
void write_text_trace(const W& w, typename W::Node& o, const TextTrace& t, const TrainedModel* m,
                      const std::string& weights, TraceParts parts, Card&& card) {
  write_text_trace(w, o, t, m, weights, parts, card, [&](int l) -> std::optional<LayerWalk> {
    if (!m) return std::nullopt;
    return layer_walk(m->net, t.network, l);
  });
}

template <class W>
void write_text_trace(const W& w, typename W::Node& o, const TextTrace& t, const TrainedModel* m,
                      const std::string& weights, TraceParts parts = {}) {
  write_text_trace(w, o, t, m, weights, parts, [&] { return model_card(w, *m, weights); });
}

// A Hugging Face model's card: {name, model_type, d_model, heads, d_k, d_ff, layers, vocab_size,
// positions (the most tokens it reads), causal, activation (of its feed-forward block),
// layer_norm_eps (the epsilon its LayerNorms add), parameters, dtype (as stored in the file),
// file_bytes}.
template <class W>
typename W::Node hf_model_card(const W& w, const HfModel& m) {
  typename W::Node o = w.object();
  const HfConfig& c = m.config;
  put(w, o, "name", c.name);
  put(w, o, "model_type", c.model_type);
  put(w, o, "d_model", c.d_model);
  put(w, o, "heads", c.heads);
  put(w, o, "d_k", c.d_k);
  put(w, o, "d_ff", c.d_ff);
  put(w, o, "layers", c.layers);
  put(w, o, "vocab_size", c.vocab_size);
  put(w, o, "positions", c.positions);
  put(w, o, "causal", c.causal);
  put(w, o, "activation", c.activation);
  put(w, o, "layer_norm_eps", c.eps);
  put(w, o, "parameters", static_cast<std::int64_t>(m.parameters));
  put(w, o, "dtype", m.dtype);
  put(w, o, "file_bytes", static_cast<std::int64_t>(m.file_bytes));
  return o;
}

// A trace through a Hugging Face model: write_text_trace (see there) and "model", which card()
// makes (hf_model_card: a writer may keep the card it made for a model, the same for every trace).
// With the model `m`, each layer up to the one traced in full has its "walk" (hf_layer_walk: the
// page's "X for this layer"), and BERT's trace has "embed_norm", its embedding LayerNorm of
// embed_sum: {mean, std (per row: sqrt(var + eps)), gain, bias, eps}.
template <class W, class Card>
void write_hf_trace(const W& w, typename W::Node& o, const TextTrace& t, TraceParts parts,
                    Card&& card, const HfModel* m = nullptr) {
  // no trained model: write_text_trace never asks for its card
  write_text_trace(
      w, o, t, nullptr, t.weights, parts, [&] { return w.object(); },
      [&](int l) -> std::optional<LayerWalk> {
        if (!m || l > t.layer) return std::nullopt;
        return hf_layer_walk(*m, t.network, l);
      });
  w.set(o, "model", card());
  if (m && t.embed_norm.mean.size() != 0) {
    typename W::Node n = w.object();
    w.set(n, "mean", w.row(RowVector(t.embed_norm.mean.transpose())));
    w.set(n, "std", w.row(RowVector(t.embed_norm.std.transpose())));
    w.set(n, "gain", w.row(RowVector(m->norm_embed.gain.row(0))));
    w.set(n, "bias", w.row(RowVector(m->norm_embed.bias.row(0))));
    put(w, n, "eps", m->config.eps);
    w.set(o, "embed_norm", std::move(n));
  }
}

template <class W>
void write_hf_trace(const W& w, typename W::Node& o, const TextTrace& t, const HfModel& m,
                    TraceParts parts = {}) {
  write_hf_trace(
      w, o, t, parts, [&] { return hf_model_card(w, m); }, &m);
}

// The models a text trace can use (session.hpp's kModels): {models: [{name, fixes: [setting
// names]}], numpy_article: {seed, n, d_model, d_k}} (the values the article's program runs with).
template <class W>
void write_models(const W& w, typename W::Node& o) {
  typename W::Node list = w.array();
  for (const ModelKind& k : kModels) {
    typename W::Node mo = w.object();
    put(w, mo, "name", k.name);
    typename W::Node fixes = w.array();
    for (const char* f : k.fixes)
      if (f) w.push(fixes, w.value(f));
    w.set(mo, "fixes", std::move(fixes));
    w.push(list, std::move(mo));
  }
  w.set(o, "models", std::move(list));
  typename W::Node a = w.object();
  put(w, a, "seed", Uint64{kNumpyArticle.seed});
  put(w, a, "n", kNumpyArticle.n);
  put(w, a, "d_model", kNumpyArticle.d_model);
  put(w, a, "d_k", kNumpyArticle.d_k);
  w.set(o, "numpy_article", std::move(a));
}

// The core's limits, by name: the page's controls and argument checks read them (limits() in the
// module, web/wasm/core-facts.mjs). The seed's limit is a decimal string (Uint64).
template <class W>
void write_limits(const W& w, typename W::Node& o) {
  put(w, o, "max_tokens", kMaxTokensLimit);
  put(w, o, "default_max_tokens", kDefaultMaxTokens);
  put(w, o, "max_d_model", kMaxDModel);
  put(w, o, "max_heads", kMaxHeads);
  put(w, o, "max_layers", kMaxLayers);
  // a real model's own limits (hf_model.hpp): the page's layer and head pickers reach them
  put(w, o, "max_real_layers", kMaxHfLayers);
  put(w, o, "max_real_heads", kMaxHfHeads);
  put(w, o, "max_temperature", kMaxTemperature);
  put(w, o, "max_text_bytes", static_cast<double>(kMaxTextBytes));
  put(w, o, "max_head_width", kMaxHeadWidth);
  put(w, o, "max_attention_cells", static_cast<double>(kMaxAttentionCells));
  put(w, o, "max_scores", kMaxSequence);
  put(w, o, "max_vector_length", kMaxVectorLength);
  put(w, o, "max_model_bytes", static_cast<double>(kMaxModelBytes));
  put(w, o, "max_matrix_side", kMaxMatrixSide);
  put(w, o, "max_seed", Uint64{kMaxSeed});
  typename W::Node models = w.array();
  for (const ModelKind& k : kModels) w.push(models, w.value(k.name));
  w.set(o, "models", std::move(models));
  const PageTraining train;
  typename W::Node t = w.object();
  put(w, t, "chunk", train.chunk);
  put(w, t, "default_steps", train.default_steps);
  put(w, t, "max_steps", train.max_steps);
  put(w, t, "batch", train.batch);
  put(w, t, "seed", static_cast<std::int64_t>(train.seed));
  w.set(o, "training", std::move(t));
}

// The sqrt(d_k) experiment for one d_k (explain.hpp's ScaleDemo): {d_k, keys, rows, sqrt_d_k,
// dots, mean, spread, spread_scaled, top_raw, top_scaled, range, hist_raw, hist_scaled}.
template <class W>
void write_scale_demo(const W& w, typename W::Node& o, const ScaleDemo& d) {
  put(w, o, "d_k", d.d_k);
  put(w, o, "keys", d.keys);
  put(w, o, "rows", d.rows);
  put(w, o, "sqrt_d_k", d.sqrt_d_k);
  w.set(o, "dots", w.row(d.dots));
  put(w, o, "mean", d.mean);
  put(w, o, "spread", d.spread);
  put(w, o, "spread_scaled", d.spread_scaled);
  put(w, o, "top_raw", d.top_raw);
  put(w, o, "top_scaled", d.top_scaled);
  put(w, o, "range", d.range);
  const auto counts = [&](const std::vector<int>& hist) {
    typename W::Node a = w.array();
    for (int count : hist) w.push(a, w.value(count));
    return a;
  };
  w.set(o, "hist_raw", counts(d.hist_raw));
  w.set(o, "hist_scaled", counts(d.hist_scaled));
}

// The d_k values of the sqrt(d_k) experiment and the published model shapes (explain.hpp):
// {scale_demo_dks, reference_shapes: [{name, heads, d_k, d_model}]}.
template <class W>
void write_explain_facts(const W& w, typename W::Node& o) {
  typename W::Node dks = w.array();
  for (int d_k : scale_demo_dks()) w.push(dks, w.value(d_k));
  w.set(o, "scale_demo_dks", std::move(dks));
  typename W::Node shapes = w.array();
  for (const ModelShape& m : reference_shapes()) {
    typename W::Node x = w.object();
    put(w, x, "name", m.name);
    put(w, x, "heads", m.heads);
    put(w, x, "d_k", m.d_k);
    put(w, x, "d_model", m.d_model);
    w.push(shapes, std::move(x));
  }
  w.set(o, "reference_shapes", std::move(shapes));
}

// Pronouns with two or more earlier nouns of one kind (ambiguity.hpp): "same_kind": [{pronoun,
// category, candidates: [token index, ...]}].
template <class W>
void write_same_kind(const W& w, typename W::Node& o, const std::vector<SameKindCandidates>& list) {
  typename W::Node all = w.array();
  for (const SameKindCandidates& c : list) {
    typename W::Node e = w.object();
    put(w, e, "pronoun", static_cast<int>(c.pronoun));
    put(w, e, "category", c.category);
    typename W::Node candidates = w.array();
    for (std::size_t j : c.candidates) w.push(candidates, w.value(static_cast<int>(j)));
    w.set(e, "candidates", std::move(candidates));
    w.push(all, std::move(e));
  }
  w.set(o, "same_kind", std::move(all));
}

// The weights a trace uses, by name (weight_arrays.hpp): "arrays": [the writer's matrix node with
// a "name"], "layer_norm_eps" (the epsilon every LayerNorm of a trained model adds). Only for a
// writer whose matrix node is an object (the module's {rows, cols, data}).
template <class W>
void write_weight_arrays(const W& w, typename W::Node& o, const std::vector<NamedMatrix>& arrays) {
  typename W::Node list = w.array();
  for (const NamedMatrix& a : arrays) {
    typename W::Node e = w.matrix(a.second);
    put(w, e, "name", a.first);
    w.push(list, std::move(e));
  }
  w.set(o, "arrays", std::move(list));
  put(w, o, "layer_norm_eps", kLayerNormEps);
}

// One row's softmax, step by step: {input, max, shifted, exps, sum, weights}.
template <class W>
void write_softmax_steps(const W& w, typename W::Node& o, const SoftmaxSteps& s) {
  w.set(o, "input", w.row(s.input));
  put(w, o, "max", s.max);
  w.set(o, "shifted", w.row(s.shifted));
  w.set(o, "exps", w.row(s.exps));
  put(w, o, "sum", s.sum);
  w.set(o, "weights", w.row(s.weights));
}

// One score cell: {products, dot, norm_q, norm_k, cosine, angle_degrees, scaled}.
template <class W>
void write_dot_steps(const W& w, typename W::Node& o, const DotSteps& d) {
  w.set(o, "products", w.row(d.products));
  put(w, o, "dot", d.dot);
  put(w, o, "norm_q", d.norm_q);
  put(w, o, "norm_k", d.norm_k);
  put(w, o, "cosine", d.cosine);
  put(w, o, "angle_degrees", d.angle_degrees);
  put(w, o, "scaled", d.scaled);
}

// One example's gradient (explain.hpp): {row, target, target_word, loss, probability, d_output,
// heads: [{d_weights, d_scores}]}. `target` is the token index the learner picked.
template <class W>
void write_row_gradient(const W& w, typename W::Node& o, const RowGradient& g, int target,
                        const Vocabulary& vocab) {
  put(w, o, "row", g.row);
  put(w, o, "target", target);
  put(w, o, "target_word", vocab.word(g.target_word));
  put(w, o, "loss", g.loss);
  put(w, o, "probability", g.probability);
  w.set(o, "d_output", w.row(g.d_output));
  typename W::Node heads = w.array();
  for (const HeadGradient& hg : g.head) {
    typename W::Node ho = w.object();
    w.set(ho, "d_weights", w.row(hg.d_weights));
    w.set(ho, "d_scores", w.row(hg.d_scores));
    w.push(heads, std::move(ho));
  }
  w.set(o, "heads", std::move(heads));
}

}  // namespace ap::schema
