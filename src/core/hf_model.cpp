// hf_model.cpp: config.json checks, weights by their published names, and the forward pass.
#include "hf_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

#include "error.hpp"
#include "gemm.hpp"
#include "json_reader.hpp"
#include "safetensors.hpp"

namespace ap {

namespace {

[[noreturn]] void bad_config(std::string_view file, const std::string& what) {
  throw Error("model_config", std::string(file) + ": " + what);
}

int int_field(const json::Value& root, std::string_view file, const char* key, int lo, int hi) {
  const json::Value* v = root.find(key);
  if (!v) bad_config(file, std::string("\"") + key + "\" is missing");
  return static_cast<int>(v->as_int(std::string(file) + ": " + key, lo, hi));
}

int int_field_or(const json::Value& root, std::string_view file, const char* key, int lo, int hi,
                 int fallback) {
  const json::Value* v = root.find(key);
  if (!v || v->is_null()) return fallback;
  return static_cast<int>(v->as_int(std::string(file) + ": " + key, lo, hi));
}

float eps_field(const json::Value& root, std::string_view file, const char* key, float fallback) {
  const json::Value* v = root.find(key);
  if (!v) return fallback;
  const double e = v->as_number(std::string(file) + ": " + key);
  if (!(e > 0.0 && e < 1.0)) bad_config(file, std::string(key) + " must be between 0 and 1");
  return static_cast<float>(e);
}

std::string string_field_or(const json::Value& root, std::string_view file, const char* key,
                            const std::string& fallback) {
  const json::Value* v = root.find(key);
  if (!v || v->is_null()) return fallback;
  return v->as_string(std::string(file) + ": " + key);
}

bool bool_field_or(const json::Value& root, std::string_view file, const char* key, bool fallback) {
  const json::Value* v = root.find(key);
  if (!v || v->is_null()) return fallback;
  return v->as_bool(std::string(file) + ": " + key);
}

[[noreturn]] void unsupported_option(std::string_view file, const std::string& what) {
  throw Error("model_unsupported", std::string(file) + ": " + what + " is not supported");
}

bool known_activation(const std::string& a) {
  return a == "gelu_new" || a == "gelu" || a == "relu" || a == "gelu_pytorch_tanh";
}

}  // namespace

HfConfig parse_hf_config(std::string_view text, std::string_view file) {
  json::Limits lim;
  lim.max_bytes = kMaxHfConfigBytes;
  lim.max_values = std::size_t{1} << 16;
  const json::Value root = json::parse(text, file, lim);
  if (!root.is_object()) bad_config(file, "the file is not a JSON object");
  HfConfig c;
  const json::Value* type = root.find("model_type");
  const std::string supported = "supported: gpt2 and bert";
  if (!type || !type->is_string())
    throw Error("model_unsupported", std::string(file) +
                                         " has no model_type, so the architecture is unknown (" +
                                         supported + ")");
  c.model_type = type->as_string("model_type");
  c.name = string_field_or(root, file, "_name_or_path", "");
  if (c.model_type == "gpt2") {
    c.layers = int_field(root, file, "n_layer", 1, kMaxHfLayers);
    c.d_model = int_field(root, file, "n_embd", 1, kMaxHfDModel);
    c.heads = int_field(root, file, "n_head", 1, kMaxHfHeads);
    c.positions = int_field(root, file, "n_positions", 1, kMaxHfPositions);
    c.vocab_size = int_field(root, file, "vocab_size", 1, kMaxHfVocab);
    c.d_ff = int_field_or(root, file, "n_inner", 1, kMaxHfFeedForward, 4 * c.d_model);
    c.eps = eps_field(root, file, "layer_norm_epsilon", 1e-5f);
    c.activation = string_field_or(root, file, "activation_function", "gelu_new");
    c.causal = true;
    if (!bool_field_or(root, file, "scale_attn_weights", true))
      unsupported_option(file, "scale_attn_weights: false");
    if (bool_field_or(root, file, "scale_attn_by_inverse_layer_idx", false))
      unsupported_option(file, "scale_attn_by_inverse_layer_idx: true");
    if (bool_field_or(root, file, "add_cross_attention", false))
      unsupported_option(file, "add_cross_attention: true");
  } else if (c.model_type == "bert") {
    c.layers = int_field(root, file, "num_hidden_layers", 1, kMaxHfLayers);
    c.d_model = int_field(root, file, "hidden_size", 1, kMaxHfDModel);
    c.heads = int_field(root, file, "num_attention_heads", 1, kMaxHfHeads);
    c.positions = int_field(root, file, "max_position_embeddings", 1, kMaxHfPositions);
    c.vocab_size = int_field(root, file, "vocab_size", 1, kMaxHfVocab);
    c.d_ff = int_field(root, file, "intermediate_size", 1, kMaxHfFeedForward);
    c.type_vocab_size = int_field_or(root, file, "type_vocab_size", 1, kMaxHfTokenTypes, 2);
    c.eps = eps_field(root, file, "layer_norm_eps", 1e-12f);
    c.activation = string_field_or(root, file, "hidden_act", "gelu");
    c.causal = false;
    const std::string pos = string_field_or(root, file, "position_embedding_type", "absolute");
    if (pos != "absolute")
      unsupported_option(file, "position_embedding_type \"" + printable(pos) + "\"");
    if (bool_field_or(root, file, "is_decoder", false))
      unsupported_option(file, "is_decoder: true");
  } else {
    throw Error("model_unsupported",
                std::string(file) + " says model_type \"" + printable(c.model_type, 40) +
                    "\", which this playground cannot read (" + supported + ")");
  }
  if (!known_activation(c.activation))
    unsupported_option(file, "the activation \"" + printable(c.activation, 40) +
                                 "\" (gelu_new, gelu, gelu_pytorch_tanh and relu are)");
  if (c.d_model % c.heads != 0)
    bad_config(file, "the heads (" + std::to_string(c.heads) + ") must divide the width (" +
                         std::to_string(c.d_model) + ")");
  c.d_k = c.d_model / c.heads;
  return c;
}

AttentionLimits hf_limits(const HfConfig& c) {
  AttentionLimits l;
  l.max_sequence = c.positions;
  l.max_d_model = c.d_model;
  l.max_heads = c.heads;
  l.max_head_width = c.d_model;
  return l;
}

namespace {

// Where one tensor's numbers go. They arrive row-major as stored (rows x cols; a vector 1 x cols):
// stored (r, c) goes to matrix(r, c), or matrix(c, r) when transposed (bert's nn.Linear, stored
// (out, in)); or to packed B(r, col0 + c), or B(c, col0 + r) when transposed.
struct HfWeightsSink {
  const safetensors::TensorInfo* tensor = nullptr;
  Eigen::Index rows = 0, cols = 0;
  bool transpose = false;
  Matrix* matrix = nullptr;
  PackedB* packed = nullptr;
  Eigen::Index packed_rows = 0, packed_cols = 0, col0 = 0;
};

}  // namespace

struct HfWeightsReader::State {
  HfConfig config;
  std::string file;
  std::uint64_t size = 0;
  bool pack = false;
  std::uint64_t pos = 0;              // bytes of the file read so far
  std::vector<unsigned char> header;  // the first 8 + n bytes, until parsed
  std::unique_ptr<safetensors::File> f;
  HfModel m;
  std::vector<HfWeightsSink> sinks;  // in the file's order
  std::size_t next = 0;              // the sink being read (or the next one)
  std::uint64_t entry = 0;           // entries of sinks[next] placed so far
  unsigned char carry[4] = {};       // a number split between two reads
  int carried = 0;
  std::vector<float> buffer;
  std::string prefix;
  // read whole, split at finish: gpt2's c_attn (plain) and its bias, bert's token type rows
  std::vector<Matrix> qkv, qkv_bias;
  Matrix type_rows;

  const safetensors::TensorInfo* find(const std::string& name) const {
    return f->find(prefix + name);
  }
  // a tensor the model reads, rows x cols as stored, into `matrix` (or packed, below)
  HfWeightsSink& add(const std::string& name, Eigen::Index rows, Eigen::Index cols) {
    const safetensors::TensorInfo* t = find(name);
    if (!t)
      throw Error("model_weights", f->file_name() + " has no tensor \"" + prefix + name +
                                       "\", which the config's architecture needs");
    f->check(*t, rows, cols);
    m.parameters += static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
    HfWeightsSink s;
    s.tensor = t;
    s.rows = rows;
    s.cols = cols;
    sinks.push_back(s);
    return sinks.back();
  }
  void to(const std::string& name, Eigen::Index rows, Eigen::Index cols, Matrix& out) {
    add(name, rows, cols).matrix = &out;
  }
  // a product's weight: packed B (k x n) from column col0, or the plain matrix
  void weight_to(const std::string& name, Eigen::Index rows, Eigen::Index cols, bool transpose,
                 PackedB& packed, Eigen::Index k, Eigen::Index n, Eigen::Index col0,
                 Matrix& plain) {
    HfWeightsSink& s = add(name, rows, cols);
    s.transpose = transpose;
    if (pack) {
      s.packed = &packed;
      s.packed_rows = k;
      s.packed_cols = n;
      s.col0 = col0;
    } else {
      s.matrix = &plain;
    }
  }
  // a LayerNorm's gain and bias (".weight"/".bias", or the old ".gamma"/".beta")
  void norm_to(const std::string& base, Eigen::Index d, LayerNormParams& p) {
    const bool old = !find(base + ".weight") && find(base + ".gamma");
    to(base + (old ? ".gamma" : ".weight"), 1, d, p.gain);
    to(base + (old ? ".beta" : ".bias"), 1, d, p.bias);
  }

  void plan();
  void plan_gpt2();
  void plan_bert();
  void take(const unsigned char* p, std::size_t count);
  void place(const HfWeightsSink& s, std::uint64_t first, const float* v, Eigen::Index count);
};

namespace {
std::string layer_name(const char* head, int l, const char* tail) {
  return std::string(head) + std::to_string(l) + tail;
}
}  // namespace

void HfWeightsReader::State::plan_gpt2() {
  const HfConfig& c = config;
  prefix = f->find("transformer.wte.weight") ? "transformer." : "";
  const Eigen::Index d = c.d_model, ff = c.d_ff;
  to("wte.weight", c.vocab_size, d, m.token_rows);
  m.dtype = find("wte.weight")->dtype;
  to("wpe.weight", c.positions, d, m.position_rows);
  qkv.resize(static_cast<std::size_t>(c.layers));
  qkv_bias.resize(static_cast<std::size_t>(c.layers));
  for (int l = 0; l < c.layers; ++l) {
    const auto n = [&](const char* tail) { return layer_name("h.", l, tail); };
    HfLayer& L = m.layers[static_cast<std::size_t>(l)];
    norm_to(n(".ln_1"), d, L.norm_attn);
    // Conv1D: (in, out), [W_Q | W_K | W_V] side by side as packed_qkv holds them
    weight_to(n(".attn.c_attn.weight"), d, 3 * d, false, L.packed_qkv, d, 3 * d, 0,
              qkv[static_cast<std::size_t>(l)]);
    to(n(".attn.c_attn.bias"), 1, 3 * d, qkv_bias[static_cast<std::size_t>(l)]);
    weight_to(n(".attn.c_proj.weight"), d, d, false, L.packed_W_O, d, d, 0, L.attn.W_O);
    to(n(".attn.c_proj.bias"), 1, d, L.attn.b_O);
    norm_to(n(".ln_2"), d, L.norm_ffn);
    weight_to(n(".mlp.c_fc.weight"), d, ff, false, L.packed_W_1, d, ff, 0, L.W_1);
    to(n(".mlp.c_fc.bias"), 1, ff, L.b_1);
    weight_to(n(".mlp.c_proj.weight"), ff, d, false, L.packed_W_2, ff, d, 0, L.W_2);
    to(n(".mlp.c_proj.bias"), 1, d, L.b_2);
  }
  norm_to("ln_f", d, m.norm_out);
}

void HfWeightsReader::State::plan_bert() {
  const HfConfig& c = config;
  prefix = f->find("bert.embeddings.word_embeddings.weight") ? "bert." : "";
  const Eigen::Index d = c.d_model, ff = c.d_ff;
  to("embeddings.word_embeddings.weight", c.vocab_size, d, m.token_rows);
  m.dtype = find("embeddings.word_embeddings.weight")->dtype;
  to("embeddings.position_embeddings.weight", c.positions, d, m.position_rows);
  to("embeddings.token_type_embeddings.weight", c.type_vocab_size, d, type_rows);
  norm_to("embeddings.LayerNorm", d, m.norm_embed);
  for (int l = 0; l < c.layers; ++l) {
    const auto n = [&](const char* tail) { return layer_name("encoder.layer.", l, tail); };
    HfLayer& L = m.layers[static_cast<std::size_t>(l)];
    // nn.Linear: (out, in), each transposed into its columns of [W_Q | W_K | W_V]
    weight_to(n(".attention.self.query.weight"), d, d, true, L.packed_qkv, d, 3 * d, 0, L.attn.W_Q);
    to(n(".attention.self.query.bias"), 1, d, L.attn.b_Q);
    weight_to(n(".attention.self.key.weight"), d, d, true, L.packed_qkv, d, 3 * d, d, L.attn.W_K);
    to(n(".attention.self.key.bias"), 1, d, L.attn.b_K);
    weight_to(n(".attention.self.value.weight"), d, d, true, L.packed_qkv, d, 3 * d, 2 * d,
              L.attn.W_V);
    to(n(".attention.self.value.bias"), 1, d, L.attn.b_V);
    weight_to(n(".attention.output.dense.weight"), d, d, true, L.packed_W_O, d, d, 0, L.attn.W_O);
    to(n(".attention.output.dense.bias"), 1, d, L.attn.b_O);
    norm_to(n(".attention.output.LayerNorm"), d, L.norm_attn);
    weight_to(n(".intermediate.dense.weight"), ff, d, true, L.packed_W_1, d, ff, 0, L.W_1);
    to(n(".intermediate.dense.bias"), 1, ff, L.b_1);
    weight_to(n(".output.dense.weight"), d, ff, true, L.packed_W_2, ff, d, 0, L.W_2);
    to(n(".output.dense.bias"), 1, d, L.b_2);
    norm_to(n(".output.LayerNorm"), d, L.norm_ffn);
  }
}

void HfWeightsReader::State::plan() {
  m.config = config;
  m.file_bytes = size;
  m.layers.resize(static_cast<std::size_t>(config.layers));  // sinks point into them
  if (config.model_type == "gpt2") {
    plan_gpt2();
  } else if (config.model_type == "bert") {
    plan_bert();
  } else {
    throw Error("model_unsupported", "model_type \"" + printable(config.model_type, 40) +
                                         "\" cannot be read (supported: gpt2 and bert)");
  }
  std::sort(sinks.begin(), sinks.end(), [](const HfWeightsSink& a, const HfWeightsSink& b) {
    return a.tensor->begin < b.tensor->begin;
  });
  buffer.resize(16384);
}

void HfWeightsReader::State::place(const HfWeightsSink& s, std::uint64_t first, const float* v,
                                   Eigen::Index count) {
  Eigen::Index r = static_cast<Eigen::Index>(first / static_cast<std::uint64_t>(s.cols));
  Eigen::Index c = static_cast<Eigen::Index>(first % static_cast<std::uint64_t>(s.cols));
  for (Eigen::Index i = 0; i < count; c = 0, ++r) {
    const Eigen::Index run = std::min(s.cols - c, count - i);
    if (s.matrix && !s.transpose) {
      std::copy(v + i, v + i + run, s.matrix->data() + r * s.cols + c);
    } else if (s.matrix) {
      for (Eigen::Index k = 0; k < run; ++k) (*s.matrix)(c + k, r) = v[i + k];
    } else if (!s.transpose) {
      s.packed->set_row(r, s.col0 + c, v + i, run);
    } else {
      s.packed->set_column(s.col0 + r, c, v + i, run);
    }
    i += run;
  }
}

// count whole numbers of sinks[next] at p
void HfWeightsReader::State::take(const unsigned char* p, std::size_t count) {
  const HfWeightsSink& s = sinks[next];
  const int esize = safetensors::dtype_size(s.tensor->dtype);
  if (s.matrix && !s.transpose) {  // straight into place
    f->convert(*s.tensor, entry, p, count, s.matrix->data() + entry);
    entry += count;
    return;
  }
  while (count > 0) {
    const std::size_t part = std::min(count, buffer.size());
    f->convert(*s.tensor, entry, p, part, buffer.data());
    place(s, entry, buffer.data(), static_cast<Eigen::Index>(part));
    entry += part;
    p += part * static_cast<std::size_t>(esize);
    count -= part;
  }
}

HfWeightsReader::HfWeightsReader(const HfConfig& config, std::uint64_t file_size,
                                 std::string_view file, bool pack)
    : s_(std::make_unique<State>()) {
  s_->config = config;
  s_->file = std::string(file);
  s_->size = file_size;
  s_->pack = pack;
}

HfWeightsReader::~HfWeightsReader() = default;

void HfWeightsReader::read(const unsigned char* bytes, std::size_t size) {
  State& s = *s_;
  if (size > s.size - s.pos)
    throw Error("safetensors_invalid", s.file + ": more bytes came than the file's " +
                                           std::to_string(s.size) + ": it changed while read");
  // the header: 8 bytes of length, then that many of JSON (checked before more is kept)
  while (size > 0 && !s.f) {
    std::size_t want = 8;
    if (s.header.size() >= 8) {
      const std::uint64_t n = safetensors::header_length(s.header.data());
      if (n > s.size - 8 || n > safetensors::kMaxHeaderBytes || n < 2)
        safetensors::parse_header(s.header.data(), s.header.size(), s.size, s.file);  // throws
      want = static_cast<std::size_t>(8 + n);
    }
    const std::size_t part = std::min(size, want - s.header.size());
    s.header.insert(s.header.end(), bytes, bytes + part);
    bytes += part;
    size -= part;
    s.pos += part;
    if (s.header.size() == want && want > 8) {
      s.f = std::make_unique<safetensors::File>(
          safetensors::parse_header(s.header.data(), s.header.size(), s.size, s.file));
      s.header = std::vector<unsigned char>();
      s.plan();
    }
  }
  // the data: each tensor the model reads into its sink, the bytes between them skipped
  const std::uint64_t data = s.f ? s.f->data_offset() : 0;
  while (size > 0) {
    if (s.next == s.sinks.size()) {
      s.pos += size;
      return;
    }
    const HfWeightsSink& k = s.sinks[s.next];
    const std::uint64_t begin = data + k.tensor->begin, end = data + k.tensor->end;
    if (s.pos < begin) {
      const std::size_t skip =
          static_cast<std::size_t>(std::min<std::uint64_t>(size, begin - s.pos));
      bytes += skip;
      size -= skip;
      s.pos += skip;
      continue;
    }
    if (s.entry == 0 && s.carried == 0) {  // the sink's first bytes: make its home
      if (k.matrix && k.matrix->size() == 0)
        k.matrix->resize(k.transpose ? k.cols : k.rows, k.transpose ? k.rows : k.cols);
      if (k.packed && k.packed->empty()) *k.packed = PackedB::zeros(k.packed_rows, k.packed_cols);
    }
    const int esize = safetensors::dtype_size(k.tensor->dtype);
    std::size_t part = static_cast<std::size_t>(std::min<std::uint64_t>(size, end - s.pos));
    const std::size_t used = part;
    const unsigned char* p = bytes;
    if (s.carried > 0) {  // complete the number split by the last read
      const std::size_t fill = std::min(part, static_cast<std::size_t>(esize - s.carried));
      std::copy(p, p + fill, s.carry + s.carried);
      s.carried += static_cast<int>(fill);
      p += fill;
      part -= fill;
      if (s.carried == esize) {
        s.carried = 0;
        s.take(s.carry, 1);
      }
    }
    const std::size_t whole = part / static_cast<std::size_t>(esize);
    if (whole > 0) s.take(p, whole);
    const std::size_t rest = part - whole * static_cast<std::size_t>(esize);
    std::copy(p + whole * esize, p + part, s.carry + s.carried);
    s.carried += static_cast<int>(rest);
    bytes += used;
    size -= used;
    s.pos += used;
    if (s.pos == end) {
      ++s.next;
      s.entry = 0;
    }
  }
}

HfModel HfWeightsReader::finish() {
  State& s = *s_;
  if (!s.f) {  // a file shorter than its header: parse's own refusal
    safetensors::parse_header(s.header.data(), s.header.size(), s.size, s.file);
    throw Error("safetensors_invalid", s.file + ": the header was not read whole");
  }
  if (s.pos != s.size)
    throw Error("safetensors_invalid", s.file + ": " + std::to_string(s.pos) + " of its " +
                                           std::to_string(s.size) + " bytes were read");
  HfModel& m = s.m;
  const Eigen::Index d = s.config.d_model;
  for (std::size_t l = 0; l < s.qkv_bias.size(); ++l) {  // gpt2's c_attn, split by head kind
    Weights& w = m.layers[l].attn;
    const Matrix& b = s.qkv_bias[l];
    w.b_Q = b.middleCols(0, d);
    w.b_K = b.middleCols(d, d);
    w.b_V = b.middleCols(2 * d, d);
    if (!s.pack) {
      const Matrix& W = s.qkv[l];
      w.W_Q = W.middleCols(0, d);
      w.W_K = W.middleCols(d, d);
      w.W_V = W.middleCols(2 * d, d);
    }
  }
  if (s.type_rows.size() != 0) m.type_row = s.type_rows.topRows(1);
  return std::move(m);
}

HfModel load_hf_model(const HfConfig& config, const unsigned char* bytes, std::size_t size,
                      std::string_view file) {
  HfWeightsReader r(config, size, file);
  r.read(bytes, size);
  return r.finish();
}

namespace {

// LayerNorm with the model's own epsilon: each row (x - mean) / sqrt(var + eps) * gain + bias,
// var the mean of squared deviations (PyTorch's biased variance).
NormTrace norm(MatrixRef x, const LayerNormParams& p, float eps) {
  NormTrace t;
  const Eigen::Index n = x.rows(), d = x.cols();
  t.xhat.resize(n, d);
  t.rstd.resize(n);
  t.mean.resize(n);
  t.std.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const float mean = x.row(i).mean();
    const RowVector centred = x.row(i).array() - mean;
    const float var = centred.squaredNorm() / static_cast<float>(d);
    t.mean[i] = mean;
    t.std[i] = std::sqrt(var + eps);
    t.rstd[i] = 1.0f / t.std[i];
    t.xhat.row(i) = centred * t.rstd[i];
  }
  t.y = (t.xhat.array().rowwise() * p.gain.row(0).array()).rowwise() + p.bias.row(0).array();
  return t;
}

// gelu_new / gelu_pytorch_tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)));
// gelu: 0.5 x (1 + erf(x / sqrt(2))); relu: max(x, 0).
void activate(Matrix& h, const std::string& a) {
  float* p = h.data();
  const Eigen::Index count = h.size();
  if (a == "gelu") {
    for (Eigen::Index i = 0; i < count; ++i)
      p[i] = 0.5f * p[i] * (1.0f + std::erf(p[i] * 0.70710678118654752f));
  } else if (a == "relu") {
    for (Eigen::Index i = 0; i < count; ++i) p[i] = p[i] > 0.0f ? p[i] : 0.0f;
  } else {
    const float c = 0.79788456080286536f;  // sqrt(2 / pi)
    for (Eigen::Index i = 0; i < count; ++i) {
      const float x = p[i];
      p[i] = 0.5f * x * (1.0f + std::tanh(c * (x + 0.044715f * x * x * x)));
    }
  }
}

// y = x W + b, from W's packed panels when the model has them
Matrix affine(MatrixRef x, MatrixRef W, const PackedB& packed, MatrixRef b) {
  Matrix y;
  if (packed.empty())
    gemm(x, W, y);
  else
    gemm(x, packed, y);
  y.rowwise() += b.row(0);
  return y;
}

#ifdef __wasm_simd128__
// e^x in four lanes, as Cephes' expf: x = k ln 2 + r with |r| <= ln 2 / 2, e^r by its degree-6
// polynomial, times 2^k made in the exponent bits; x is clamped to [-87, 88] (e^x stays a normal
// float). Relative error about 2e-7 against std::exp.
v128_t exp4(v128_t x) {
  x = wasm_f32x4_min(wasm_f32x4_max(x, wasm_f32x4_splat(-87.0f)), wasm_f32x4_splat(88.0f));
  const v128_t k = wasm_f32x4_floor(wasm_f32x4_add(
      wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)), wasm_f32x4_splat(0.5f)));
  // r = x - k ln 2, ln 2 in two parts so that k ln 2's rounding stays out of r
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(k, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(k, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t y = wasm_f32x4_splat(1.9875691500e-4f);
  for (const float c :
       {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(c));
  y = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(y, r), r), r),
                     wasm_f32x4_splat(1.0f));
  const v128_t two_k =
      wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(k), wasm_i32x4_splat(127)), 23);
  return wasm_f32x4_mul(y, two_k);
}
#endif

// gelu_new on every entry: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3). Under SIMD128
// four at a time as x - x / (e^(2u) + 1), the same function (1 + tanh(u) = 2 - 2 / (e^(2u) + 1));
// elsewhere activate's std::tanh.
void gelu_new(Matrix& h) {
#ifdef __wasm_simd128__
  float* p = h.data();
  const Eigen::Index count = h.size();
  Eigen::Index i = 0;
  const v128_t c2 = wasm_f32x4_splat(2.0f * 0.79788456080286536f);
  const v128_t a = wasm_f32x4_splat(0.044715f);
  const v128_t one = wasm_f32x4_splat(1.0f);
  for (; i + 4 <= count; i += 4) {
    const v128_t x = wasm_v128_load(p + i);
    const v128_t inner =
        wasm_f32x4_add(x, wasm_f32x4_mul(a, wasm_f32x4_mul(wasm_f32x4_mul(x, x), x)));
    const v128_t e = exp4(wasm_f32x4_mul(c2, inner));
    wasm_v128_store(p + i, wasm_f32x4_sub(x, wasm_f32x4_div(x, wasm_f32x4_add(e, one))));
  }
  for (; i < count; ++i) {
    const float x = p[i];
    p[i] = 0.5f * x * (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  }
#else
  activate(h, "gelu_new");
#endif
}

// attend's passes for a layer whose weights are packed (pack_hf_weights), keeping what a layer
// other than the traced one shows: each head's weights and the output. The same numbers as
// attend's: a product's every entry sums in the same order whether B was packed beforehand or
// by the product, and Q, K and V of every head come out of one product whose columns are the
// heads' own; passes 2 to 8 are attend's, one head at a time.
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

Trace attend_packed(MatrixRef X, const HfLayer& L, const AttentionOptions& opt) {
  const Weights& w = L.attn;
  const int n = static_cast<int>(X.rows());
  const int h = opt.heads;
  const int hd = static_cast<int>(L.packed_qkv.cols() / 3), dk = hd / h;
  Trace t;
  t.n = n;
  t.d_model = static_cast<int>(X.cols());
  t.heads = h;
  t.d_k = dk;
  t.options = opt;
  t.scale_factor = opt.scale ? 1.0f / std::sqrt(static_cast<float>(dk)) : 1.0f;
  Matrix qkv;  // n x 3 h d_k: Q of every head, then K, then V
  gemm(X, L.packed_qkv, qkv);
  const Matrix* b[3] = {&w.b_Q, &w.b_K, &w.b_V};
  for (int p = 0; p < 3; ++p)
    if (b[p]->size() != 0) qkv.middleCols(p * hd, hd).rowwise() += b[p]->row(0);
  Matrix concat(n, hd), scores, masked, mixed;
  t.head.resize(h);
  bool finite = true;
  for (int i = 0; i < h; ++i) {
    HeadTrace& H = t.head[i];
    gemm_abt(qkv.middleCols(i * dk, dk), qkv.middleCols(hd + i * dk, dk), scores);
    finite = finite && scores.allFinite();
    masked = scores * t.scale_factor;
    if (opt.causal)
      for (int r = 0; r < n; ++r)
        for (int c = r + 1; c < n; ++c) masked(r, c) = kNegInf;
    H.weights = softmax_rows(masked, opt.temperature);
    gemm(H.weights, qkv.middleCols(2 * hd + i * dk, dk), mixed);
    concat.middleCols(i * dk, dk) = mixed;
  }
  if (L.packed_W_O.empty())
    gemm(concat, w.W_O, t.output);
  else
    gemm(concat, L.packed_W_O, t.output);
  if (w.b_O.size() != 0) t.output.rowwise() += w.b_O.row(0);
  if (!finite || !t.output.allFinite())
    throw Error("overflow",
                "the numbers grew beyond float32 range (about 3.4e38): use smaller "
                "inputs or weights");
  return t;
}

// A layer's attention: attend on its plain weights, or on the traced layer's read back from
// its panels (every stage kept), or attend_packed for the other layers of a packed model.
Trace layer_attention(MatrixRef X, const HfLayer& L, const AttentionOptions& opt,
                      const AttentionLimits& limits, bool traced) {
  if (L.packed_qkv.empty()) return attend(X, L.attn, opt, limits);
  if (!traced) return attend_packed(X, L, opt);
  Weights w;
  const Eigen::Index hd = L.packed_qkv.cols() / 3;
  w.W_Q = L.packed_qkv.columns(0, hd);
  w.W_K = L.packed_qkv.columns(hd, hd);
  w.W_V = L.packed_qkv.columns(2 * hd, hd);
  w.W_O = L.packed_W_O.empty() ? L.attn.W_O : L.packed_W_O.columns(0, L.packed_W_O.cols());
  w.b_Q = L.attn.b_Q;
  w.b_K = L.attn.b_K;
  w.b_V = L.attn.b_V;
  w.b_O = L.attn.b_O;
  return attend(X, w, opt, limits);
}

// Keeps only what every layer shows: each head's weights.
void keep_weights_only(Trace& t) {
  for (HeadTrace& h : t.head) {
    Matrix w = std::move(h.weights);
    h = HeadTrace{};
    h.weights = std::move(w);
  }
  t.X = Matrix();
  t.concat = Matrix();
  t.W_O = Matrix();
}

}  // namespace

namespace {
// ids: 1 to the model's positions, each a row of its vocabulary
void check_ids(const HfConfig& c, const std::vector<int>& ids) {
  const std::size_t n = ids.size();
  if (n < 1) throw Error("empty_text", "there are no tokens to run the model on");
  if (n > static_cast<std::size_t>(c.positions))
    throw Error("too_many_tokens", "the text has " + std::to_string(n) +
                                       " tokens; this model reads at most " +
                                       std::to_string(c.positions) + ": shorten the text");
  for (const int id : ids)
    if (id < 0 || id >= c.vocab_size)
      throw Error("bad_token_id", "token id " + std::to_string(id) +
                                      " is outside the vocabulary (0 to " +
                                      std::to_string(c.vocab_size - 1) + ")");
}
}  // namespace

TextTrace hf_forward(const HfModel& m, const std::vector<int>& ids, int layer) {
  const HfConfig& c = m.config;
  const int n = static_cast<int>(ids.size());
  check_ids(c, ids);
  if (layer < -1 || layer >= c.layers)
    throw Error("bad_layer", "the layer must be between 0 and " + std::to_string(c.layers - 1) +
                                 ", got " + std::to_string(layer));
  if (layer == -1) layer = c.layers - 1;

  TextTrace out;
  out.weights = c.model_type;
  out.ids = ids;
  out.layer = layer;
  out.settings.d_model = c.d_model;
  out.settings.heads = c.heads;
  out.settings.d_k = c.d_k;
  out.settings.causal = c.causal;
  out.settings.max_tokens = c.positions;
  out.embeddings.resize(n, c.d_model);
  for (int i = 0; i < n; ++i) out.embeddings.row(i) = m.token_rows.row(ids[i]);
  out.positions = m.position_rows.topRows(n);
  if (m.type_row.size() != 0) out.positions.rowwise() += m.type_row.row(0);

  AttentionOptions opt;
  opt.heads = c.heads;
  opt.causal = c.causal;
  // the model's own cap: every head over its longest input
  opt.max_attention_cells = static_cast<long long>(c.positions) * c.positions * c.heads;
  const AttentionLimits limits = hf_limits(c);
  const bool pre_norm = c.model_type == "gpt2";
  Matrix X = out.embeddings + out.positions;
  if (!pre_norm) {
    out.embed_sum = X;
    out.embed_norm = norm(X, m.norm_embed, c.eps);
    out.embed_norm.xhat = Matrix();  // n x d_model, and no stage shows it
    X = out.embed_norm.y;
  }
  out.network.layers.resize(m.layers.size());
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const HfLayer& L = m.layers[l];
    LayerTrace& T = out.network.layers[l];
    const bool traced = static_cast<int>(l) == layer;
    T.input = std::move(X);
    if (pre_norm) {
      T.norm_attn = norm(T.input, L.norm_attn, c.eps);
      T.attn = layer_attention(T.norm_attn.y, L, opt, limits, traced);
      T.mid = T.input + T.attn.output;
      T.norm_ffn = norm(T.mid, L.norm_ffn, c.eps);
      T.hidden = affine(T.norm_ffn.y, L.W_1, L.packed_W_1, L.b_1);
      activate(T.hidden, c.activation);
      T.ffn_out = affine(T.hidden, L.W_2, L.packed_W_2, L.b_2);
      T.output = T.mid + T.ffn_out;
    } else {
      T.attn = layer_attention(T.input, L, opt, limits, traced);
      T.sum_attn = T.input + T.attn.output;
      T.norm_attn = norm(T.sum_attn, L.norm_attn, c.eps);
      T.mid = T.norm_attn.y;
      T.hidden = affine(T.mid, L.W_1, L.packed_W_1, L.b_1);
      activate(T.hidden, c.activation);
      T.ffn_out = affine(T.hidden, L.W_2, L.packed_W_2, L.b_2);
      T.sum_ffn = T.mid + T.ffn_out;
      T.norm_ffn = norm(T.sum_ffn, L.norm_ffn, c.eps);
      T.output = T.norm_ffn.y;
    }
    // the walk shows each LayerNorm's row statistics and output, not its normalised rows
    T.norm_attn.xhat = Matrix();
    T.norm_ffn.xhat = Matrix();
    if (!T.output.allFinite())
      throw Error("overflow", "layer " + std::to_string(l) +
                                  "'s output grew beyond float32 range: the weights are broken");
    X = T.output;
    if (static_cast<int>(l) == layer) out.trace = T.attn;
    keep_weights_only(T.attn);
    T.hidden = Matrix();  // n x d_ff: the widest matrix, and no stage shows it
  }
  out.network.norm_out.y = pre_norm ? norm(X, m.norm_out, c.eps).y : X;
  return out;
}

void pack_hf_layer(HfLayer& L) {
  if (!gemm_uses_simd128() || !L.packed_qkv.empty()) return;
  Weights& w = L.attn;
  PackedB qkv_packed;
  {
    Matrix qkv(w.W_Q.rows(), w.W_Q.cols() + w.W_K.cols() + w.W_V.cols());
    qkv << w.W_Q, w.W_K, w.W_V;
    qkv_packed = PackedB::pack(qkv);
  }
  PackedB o = w.W_O.size() != 0 ? PackedB::pack(w.W_O) : PackedB();
  PackedB p1 = PackedB::pack(L.W_1);
  PackedB p2 = PackedB::pack(L.W_2);
  // every allocation made: the layer changes whole
  L.packed_qkv = std::move(qkv_packed);
  L.packed_W_O = std::move(o);
  L.packed_W_1 = std::move(p1);
  L.packed_W_2 = std::move(p2);
  w.W_Q = Matrix();
  w.W_K = Matrix();
  w.W_V = Matrix();
  if (!L.packed_W_O.empty()) w.W_O = Matrix();
  L.W_1 = Matrix();
  L.W_2 = Matrix();
}

void pack_hf_weights(HfModel& m) {
  try {
    for (HfLayer& L : m.layers) pack_hf_layer(L);
  } catch (const std::bad_alloc&) {
    // the layers not packed keep their plain matrices: their products pack their own
  }
}

namespace {

// Multi-head attention of one layer for the read-out: attend's passes 1-8 with no stage kept.
// X: n x d_model. Q, K and V of every head in one product (n x 3 h d_k); for a causal query i only
// keys 0..i are scored into the softmax (the others get weight 0, as exp(-inf) gives them).
Matrix attention_readout(MatrixRef X, const HfLayer& L, const HfConfig& c) {
  const Weights& w = L.attn;
  const int n = static_cast<int>(X.rows());
  const int h = c.heads, dk = c.d_k, hd = h * dk;
  Matrix qkv;
  if (!L.packed_qkv.empty()) {
    gemm(X, L.packed_qkv, qkv);
  } else {
    qkv.resize(n, 3 * hd);
    Matrix part;
    const Matrix* W[3] = {&w.W_Q, &w.W_K, &w.W_V};
    for (int p = 0; p < 3; ++p) {
      gemm(X, *W[p], part);
      qkv.middleCols(p * hd, hd) = part;
    }
  }
  const Matrix* b[3] = {&w.b_Q, &w.b_K, &w.b_V};
  for (int p = 0; p < 3; ++p)
    if (b[p]->size() != 0) qkv.middleCols(p * hd, hd).rowwise() += b[p]->row(0);
  const float scale = 1.0f / std::sqrt(static_cast<float>(dk));
  Matrix concat(n, hd), scores, mixed;
  for (int head = 0; head < h; ++head) {
    const auto Q = qkv.middleCols(head * dk, dk);
    const auto K = qkv.middleCols(hd + head * dk, dk);
    const auto V = qkv.middleCols(2 * hd + head * dk, dk);
    gemm_abt(Q, K, scores);  // n x n, row i = query i, column j = key j
    for (int i = 0; i < n; ++i) {
      float* row = scores.row(i).data();
      const int seen = c.causal ? i + 1 : n;
      for (int j = 0; j < seen; ++j) row[j] *= scale;
      const SoftmaxRow r = softmax_exps(row, seen, 1.0f, row);
      const float inv = 1.0f / r.sum;
      for (int j = 0; j < seen; ++j) row[j] *= inv;
      for (int j = seen; j < n; ++j) row[j] = 0.0f;
    }
    gemm(scores, V, mixed);
    concat.middleCols(head * dk, dk) = mixed;
  }
  Matrix out;
  if (L.packed_W_O.empty())
    gemm(concat, w.W_O, out);
  else
    gemm(concat, L.packed_W_O, out);
  if (w.b_O.size() != 0) out.rowwise() += w.b_O.row(0);
  return out;
}

// The feed-forward block: act(x W_1 + b_1) W_2 + b_2
Matrix feed_forward_readout(MatrixRef x, const HfLayer& L, const std::string& activation) {
  Matrix hidden = affine(x, L.W_1, L.packed_W_1, L.b_1);
  if (activation == "gelu_new" || activation == "gelu_pytorch_tanh")
    gelu_new(hidden);
  else
    activate(hidden, activation);
  return affine(hidden, L.W_2, L.packed_W_2, L.b_2);
}

}  // namespace

Matrix hf_readout(const HfModel& m, const std::vector<int>& ids) {
  const HfConfig& c = m.config;
  check_ids(c, ids);
  const int n = static_cast<int>(ids.size());
  Matrix X(n, c.d_model);
  for (int i = 0; i < n; ++i) X.row(i) = m.token_rows.row(ids[i]) + m.position_rows.row(i);
  if (m.type_row.size() != 0) X.rowwise() += m.type_row.row(0);
  const bool pre_norm = c.model_type == "gpt2";
  if (!pre_norm) X = norm(X, m.norm_embed, c.eps).y;
  for (std::size_t l = 0; l < m.layers.size(); ++l) {
    const HfLayer& L = m.layers[l];
    if (pre_norm) {
      X += attention_readout(norm(X, L.norm_attn, c.eps).y, L, c);
      X += feed_forward_readout(norm(X, L.norm_ffn, c.eps).y, L, c.activation);
    } else {
      const Matrix mid = norm(X + attention_readout(X, L, c), L.norm_attn, c.eps).y;
      X = norm(mid + feed_forward_readout(mid, L, c.activation), L.norm_ffn, c.eps).y;
    }
    if (!X.allFinite())
      throw Error("overflow", "layer " + std::to_string(l) +
                                  "'s output grew beyond float32 range: the weights are broken");
  }
  return pre_norm ? norm(X, m.norm_out, c.eps).y : X;
}

std::vector<Token> HfTextModel::tokenize(std::string_view text, const Settings&) const {
  std::vector<Token> tokens = tokenizer_(text);
  if (tokens.empty()) throw Error("empty_text", "the text gives no tokens: type at least one word");
  if (static_cast<long long>(tokens.size()) > m_.config.positions)
    throw Error("too_many_tokens", "the text has " + std::to_string(tokens.size()) +
                                       " tokens; this model reads at most " +
                                       std::to_string(m_.config.positions) + ": shorten the text");
  return tokens;
}

TextTrace HfTextModel::forward(std::vector<Token> tokens, const Settings&, int layer) const {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const Token& t : tokens) ids.push_back(t.id);
  TextTrace out = hf_forward(m_, ids, layer);
  out.tokens = std::move(tokens);
  return out;
}

LayerWalk hf_layer_walk(const HfModel& m, const NetworkTrace& t, int l) {
  if (l < 0 || l >= static_cast<int>(m.layers.size()) || t.layers.size() != m.layers.size())
    throw Error("shape_mismatch", "no such layer in this trace");
  const HfLayer& L = m.layers[static_cast<std::size_t>(l)];
  const LayerTrace& T = t.layers[static_cast<std::size_t>(l)];
  LayerWalk w;
  w.steps.reserve(6);
  const float eps = m.config.eps;
  if (m.config.model_type == "gpt2") {
    // pre-LayerNorm: ln_1, attention, + input, ln_2, MLP, + mid; attention reads step 0
    w.add_norm("norm_attn", kLayerInput, T.norm_attn, L.norm_attn, eps);
    w.add_step(StepKind::attention, "attention", {0}, &T.attn.output);
    w.add_step(StepKind::add, "residual_attn", {kLayerInput, 1}, &T.mid);
    w.add_norm("norm_ffn", 2, T.norm_ffn, L.norm_ffn, eps);
    w.add_step(StepKind::feed_forward, "feed_forward", {3}, &T.ffn_out);
    w.add_step(StepKind::add, "residual_ffn", {2, 4}, &T.output);
    w.attention_input = 0;
  } else {
    // post-LayerNorm: attention on the input itself, + input, LayerNorm, feed-forward, + that,
    // LayerNorm
    w.add_step(StepKind::attention, "attention", {kLayerInput}, &T.attn.output);
    w.add_step(StepKind::add, "residual_attn", {kLayerInput, 0}, &T.sum_attn);
    w.add_norm("norm_attn", 1, T.norm_attn, L.norm_attn, eps);
    w.add_step(StepKind::feed_forward, "feed_forward", {2}, &T.ffn_out);
    w.add_step(StepKind::add, "residual_ffn", {2, 3}, &T.sum_ffn);
    w.add_norm("norm_ffn", 4, T.norm_ffn, L.norm_ffn, eps);
    w.attention_input = kLayerInput;
  }
  return w;
}

std::vector<Token> hf_tokens(const hf::Encoding& e) {
  std::vector<Token> out(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) {
    Token& t = out[i];
    t.text = e.pieces[i];
    t.byte_begin = e.byte_begin[i];
    t.byte_end = e.byte_end[i];
    t.kind = e.special[i] ? TokenKind::Symbol : TokenKind::Word;
    t.known = true;
    t.id = e.ids[i];
  }
  return out;
}

void check_tokenizer(const HfConfig& c, const hf::Tokenizer& t) {
  if (t.vocab_size() > static_cast<std::size_t>(c.vocab_size))
    throw Error("model_config",
                "the tokenizer (" + t.source() + ") has " + std::to_string(t.vocab_size()) +
                    " tokens but config.json's vocab_size is " + std::to_string(c.vocab_size) +
                    ": the files come from different models");
}

HfTextModel::HfTextModel(HfModel m, Tokenizer tokenizer)
    : m_(std::move(m)), tokenizer_(std::move(tokenizer)) {
  pack_hf_weights(m_);
}

HfTextModel::HfTextModel(HfModel m, std::shared_ptr<const hf::Tokenizer> tokenizer)
    : m_(std::move(m)) {
  check_tokenizer(m_.config, *tokenizer);
  pack_hf_weights(m_);
  tokenizer_ = [tok = std::move(tokenizer)](std::string_view text) {
    return hf_tokens(tok->encode(text));
  };
}

}  // namespace ap
