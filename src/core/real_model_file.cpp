// real_model_file.cpp: the version 5 .apm writer and reader (a converted Hugging Face model).
#include "real_model_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "error.hpp"
#include "model_file.hpp"
#include "utf8.hpp"

namespace ap {

namespace {

constexpr std::uint32_t kMaxString = 1u << 16;
// the smallest int8 row scale (model_file.hpp): 2^-14, the smallest normal half
constexpr std::uint16_t kSmallestScale = 0x0400u;
// the info key under which the folder's parameter count is kept (BERT's token type rows other
// than row 0 are not stored, yet the model card counts what the folder held)
constexpr const char* kInfoParameters = "parameters";
const char* const kFix = "convert the model again with qkv convert";

// a vector (one row: biases, LayerNorm parameters, the token type row) stays f32 in every dtype
template <class P>
bool is_vector(const P& p) {
  return p.rows == 1;
}

// the bytes a rows x cols parameter takes in the file
std::uint64_t parameter_bytes(Eigen::Index rows, Eigen::Index cols, RealDtype d) {
  const auto r = static_cast<std::uint64_t>(rows), c = static_cast<std::uint64_t>(cols);
  if (rows == 1 || d == RealDtype::f32) return r * c * 4u;  // is_vector
  if (d == RealDtype::f16) return r * c * 2u;
  return r * 2u + r * c;
}

class Writer {
 public:
  void u32(std::uint32_t v) {
    for (int k = 0; k < 4; ++k) out_.push_back(static_cast<char>((v >> (8 * k)) & 0xFFu));
  }
  void u16(std::uint16_t h) {
    out_.push_back(static_cast<char>(h & 0xFFu));
    out_.push_back(static_cast<char>(h >> 8));
  }
  void f32(float f) {
    std::uint32_t v;
    std::memcpy(&v, &f, 4);
    u32(v);
  }
  void blob(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s.data(), s.size());
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  Reader(const unsigned char* b, std::size_t size) : b_(b), size_(size) {}
  std::uint64_t left() const { return static_cast<std::uint64_t>(size_ - pos_); }
  void need(std::uint64_t k, const std::string& what) const {
    if (left() < k)
      throw Error("model_truncated", "the model file ends early (while reading " + what + ", " +
                                         std::to_string(k) + " more bytes needed at byte " +
                                         std::to_string(pos_) + " of " + std::to_string(size_) +
                                         "): it is truncated or corrupt; " + kFix);
  }
  std::uint32_t u32(const char* what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(b_[pos_ + k]) << (8 * k);
    pos_ += 4;
    return v;
  }
  // a length-prefixed run of bytes, a view of the input (nothing copied or allocated)
  std::string_view blob(const std::string& what, std::uint32_t max) {
    const std::uint32_t len = u32(what.c_str());
    if (len > max)
      throw Error("model_corrupt", "the model file is corrupt: " + what + " claims " +
                                       std::to_string(len) + " bytes; the limit is " +
                                       std::to_string(max));
    need(len, what);
    const std::string_view s(reinterpret_cast<const char*>(b_ + pos_), len);
    pos_ += len;
    return s;
  }
  std::uint16_t u16_unchecked() {
    const std::uint16_t v = static_cast<std::uint16_t>(b_[pos_] | (b_[pos_ + 1] << 8));
    pos_ += 2;
    return v;
  }
  float f32_unchecked() {
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(b_[pos_ + k]) << (8 * k);
    pos_ += 4;
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  // p's values, which the caller has checked are there (the whole weights section at once)
  Matrix parameter(const RealParameter& p, RealDtype d) {
    Matrix m(p.rows, p.cols);
    float* out = m.data();  // row-major, like the bytes
    const Eigen::Index count = p.rows * p.cols;
    if (is_vector(p) || d == RealDtype::f32) {
      for (Eigen::Index i = 0; i < count; ++i) out[i] = f32_unchecked();
    } else if (d == RealDtype::f16) {
      for (Eigen::Index i = 0; i < count; ++i) out[i] = half_to_float(u16_unchecked());
    } else {
      std::vector<float> scale(static_cast<std::size_t>(p.rows));
      for (float& s : scale) {
        const std::uint16_t h = u16_unchecked();
        s = half_to_float(h);
        if (!std::isfinite(s) || (h & 0x8000u) != 0 || h < kSmallestScale)
          throw Error("model_invalid", "the model file is invalid: a row scale of " + p.name +
                                           " is not a finite half of at least 2^-14");
      }
      const unsigned char* in = b_ + pos_;
      for (Eigen::Index r = 0; r < p.rows; ++r) {
        const float s = scale[static_cast<std::size_t>(r)];
        for (Eigen::Index c = 0; c < p.cols; ++c) {
          const auto q = static_cast<std::int8_t>(*in++);
          if (q == -128)
            throw Error("model_invalid",
                        "the model file is invalid: " + p.name + " holds the int8 -128");
          *out++ = s * static_cast<float>(q);
        }
      }
      pos_ += static_cast<std::size_t>(count);
    }
    if (!m.allFinite())
      throw Error("model_invalid", "the model file holds NaN or infinity in " + p.name);
    return m;
  }
  std::size_t pos() const { return pos_; }
  void skip(std::size_t k) { pos_ += k; }  // bytes the caller has checked are there

 private:
  const unsigned char* b_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

std::string layer_param(int l, const char* what) {
  return "layer " + std::to_string(l) + " " + what;
}

}  // namespace

const char* real_dtype_name(RealDtype d) {
  switch (d) {
    case RealDtype::f32:
      return "f32";
    case RealDtype::f16:
      return "f16";
    case RealDtype::int8:
      return "int8";
  }
  return "?";
}

RealDtype parse_real_dtype(std::string_view name) {
  for (RealDtype d : {RealDtype::f32, RealDtype::f16, RealDtype::int8})
    if (name == real_dtype_name(d)) return d;
  throw Error("bad_setting",
              "--dtype must be f32, f16 or int8, got \"" + printable(name, 20) + "\"");
}

namespace {

// the parameters of m (an HfModel or a const one), in the file's order
template <class P, class Model>
std::vector<P> parameters_of(Model& m) {
  const HfConfig& c = m.config;
  const Eigen::Index d = c.d_model, ff = c.d_ff;
  std::vector<P> out;
  const auto add = [&](std::string name, auto& x, Eigen::Index rows, Eigen::Index cols) {
    out.push_back({std::move(name), &x, rows, cols});
  };
  const auto norm = [&](const std::string& name, auto& p) {
    add(name + " gain", p.gain, 1, d);
    add(name + " bias", p.bias, 1, d);
  };
  const bool gpt2 = c.model_type == "gpt2";
  add("the token rows", m.token_rows, c.vocab_size, d);
  add("the position rows", m.position_rows, c.positions, d);
  if (!gpt2) {
    add("the token type row", m.type_row, 1, d);
    norm("the embedding LayerNorm", m.norm_embed);
  }
  for (int l = 0; l < static_cast<int>(m.layers.size()); ++l) {
    auto& L = m.layers[static_cast<std::size_t>(l)];
    norm(layer_param(l, "attention LayerNorm"), L.norm_attn);
    add(layer_param(l, "W_Q"), L.attn.W_Q, d, d);
    add(layer_param(l, "b_Q"), L.attn.b_Q, 1, d);
    add(layer_param(l, "W_K"), L.attn.W_K, d, d);
    add(layer_param(l, "b_K"), L.attn.b_K, 1, d);
    add(layer_param(l, "W_V"), L.attn.W_V, d, d);
    add(layer_param(l, "b_V"), L.attn.b_V, 1, d);
    add(layer_param(l, "W_O"), L.attn.W_O, d, d);
    add(layer_param(l, "b_O"), L.attn.b_O, 1, d);
    norm(layer_param(l, "feed-forward LayerNorm"), L.norm_ffn);
    add(layer_param(l, "W_1"), L.W_1, d, ff);
    add(layer_param(l, "b_1"), L.b_1, 1, ff);
    add(layer_param(l, "W_2"), L.W_2, ff, d);
    add(layer_param(l, "b_2"), L.b_2, 1, d);
  }
  if (gpt2) norm("the final LayerNorm", m.norm_out);
  return out;
}

}  // namespace

std::vector<RealParameter> real_parameters(HfModel& m) { return parameters_of<RealParameter>(m); }

std::vector<ConstRealParameter> real_parameters(const HfModel& m) {
  return parameters_of<ConstRealParameter>(m);
}

std::string save_real_model(const HfModel& model, std::string_view config_text,
                            const hf::Files& tokenizer, RealDtype dtype,
                            const std::vector<std::pair<std::string, std::string>>& info) {
  if (config_text.size() > kMaxHfConfigBytes)
    throw Error("model_invalid", "cannot save: config.json is over the config limit");
  if (info.size() + 1 > kMaxRealInfo)
    throw Error("model_invalid", "cannot save: too many info entries");
  if (model.layers.size() != static_cast<std::size_t>(model.config.layers))
    throw Error("model_invalid", "cannot save: the model's layers do not match its config");
  const std::vector<ConstRealParameter> params = real_parameters(model);
  for (const ConstRealParameter& p : params)
    if (p.value->rows() != p.rows || p.value->cols() != p.cols)
      throw Error("model_invalid", "cannot save: " + p.name + " is " +
                                       std::to_string(p.value->rows()) + " x " +
                                       std::to_string(p.value->cols()) + ", the config says " +
                                       std::to_string(p.rows) + " x " + std::to_string(p.cols));
  Writer w;
  std::uint64_t total = 0;
  for (const ConstRealParameter& p : params) total += parameter_bytes(p.rows, p.cols, dtype);
  w.bytes().reserve(static_cast<std::size_t>(total) + config_text.size() + (1u << 16));
  w.bytes().append(kModelMagic, sizeof kModelMagic);
  w.u32(kRealModelFormatVersion);
  w.u32(static_cast<std::uint32_t>(dtype));
  w.blob(config_text);
  std::vector<std::pair<std::string, std::string_view>> files;
  for (const std::string& name : hf::tokenizer_file_names()) {
    const auto it = tokenizer.find(name);
    if (it != tokenizer.end()) files.emplace_back(name, it->second);
  }
  w.u32(static_cast<std::uint32_t>(files.size()));
  for (const auto& [name, text] : files) {
    if (text.size() > hf::kMaxTokenizerFileBytes)
      throw Error("model_invalid", "cannot save: " + name + " is over the tokenizer file limit");
    w.blob(name);
    w.blob(text);
  }
  w.u32(static_cast<std::uint32_t>(info.size() + 1));
  w.blob(kInfoParameters);
  w.blob(std::to_string(model.parameters));
  for (const auto& [key, value] : info) {
    if (key.size() > kMaxString || value.size() > kMaxString)
      throw Error("model_invalid", "cannot save: an info entry is over 64 KiB");
    w.blob(key);
    w.blob(value);
  }
  for (const ConstRealParameter& p : params) {
    const Matrix& x = *p.value;
    if (is_vector(p) || dtype == RealDtype::f32) {
      for (Eigen::Index k = 0; k < x.size(); ++k) w.f32(x.data()[k]);
    } else if (dtype == RealDtype::f16) {
      for (Eigen::Index k = 0; k < x.size(); ++k) {
        const std::uint16_t h = float_to_half(x.data()[k]);
        if ((h & 0x7C00u) == 0x7C00u)
          throw Error("model_invalid", "cannot convert to f16: " + p.name + " holds " +
                                           std::to_string(x.data()[k]) +
                                           ", beyond float16's range; use f32 or int8");
        w.u16(h);
      }
    } else {
      Int8Rows q;
      try {
        q = quantize_rows(x);
      } catch (const Error& e) {
        throw Error("model_invalid", p.name + ": " + e.what());
      }
      for (std::uint16_t s : q.scale) w.u16(s);
      for (std::int8_t v : q.q) w.bytes().push_back(static_cast<char>(v));
    }
  }
  w.u32(crc32(w.bytes()));
  return std::move(w.bytes());
}

std::uint32_t apm_version(const unsigned char* bytes, std::size_t size) {
  if (size < sizeof kModelMagic + 4 || std::memcmp(bytes, kModelMagic, sizeof kModelMagic) != 0)
    return 0;
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(bytes[8 + k]) << (8 * k);
  return v;
}

ConvertedModel load_real_model(const unsigned char* bytes, std::size_t size) {
  if (size == 0) throw Error("model_truncated", "the model file is empty: " + std::string(kFix));
  if (size < sizeof kModelMagic || std::memcmp(bytes, kModelMagic, sizeof kModelMagic) != 0)
    throw Error("model_bad_magic",
                "this is not an Attention Playground model file (it does not start with "
                "APMODEL): check the path");
  Reader r(bytes, size);
  r.need(sizeof kModelMagic + 4, "the version");
  const std::uint32_t version = apm_version(bytes, size);
  if (version != kRealModelFormatVersion)
    throw Error("model_bad_version",
                "the model file has format version " + std::to_string(version) +
                    "; a converted real model is version " +
                    std::to_string(kRealModelFormatVersion) +
                    (version >= kOldestModelFormatVersion && version <= kModelFormatVersion
                         ? ": this is a trained playground model, not a converted GPT-2 or BERT"
                         : ": " + std::string(kFix)));
  r.skip(sizeof kModelMagic + 4);  // the magic and the version, checked above
  const std::uint32_t dtype_code = r.u32("the dtype");
  if (dtype_code > static_cast<std::uint32_t>(RealDtype::int8))
    throw Error("model_invalid", "the model file is invalid: unknown dtype " +
                                     std::to_string(dtype_code) + " (0 f32, 1 f16, 2 int8)");
  const auto dtype = static_cast<RealDtype>(dtype_code);
  const std::string_view config_text =
      r.blob("config.json", static_cast<std::uint32_t>(kMaxHfConfigBytes));
  const std::string config_file = "config.json (in the model file)";
  ConvertedModel out;
  HfModel& m = out.model;
  m.config = parse_hf_config(config_text, config_file);

  const std::uint32_t n_files = r.u32("the tokenizer file count");
  if (n_files > hf::tokenizer_file_names().size())
    throw Error("model_corrupt", "the model file is corrupt: it lists " + std::to_string(n_files) +
                                     " tokenizer files");
  hf::Files files;
  for (std::uint32_t k = 0; k < n_files; ++k) {
    const std::string_view name = r.blob("a tokenizer file's name", kMaxString);
    const auto& known = hf::tokenizer_file_names();
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw Error("model_invalid",
                  "the model file is invalid: it holds a tokenizer file called \"" +
                      printable(name, 40) + "\", which no tokenizer reads");
    const std::string_view text = r.blob(std::string(name) + " (in the model file)",
                                         static_cast<std::uint32_t>(hf::kMaxTokenizerFileBytes));
    if (!files.emplace(std::string(name), text).second)
      throw Error("model_invalid",
                  "the model file is invalid: it holds " + std::string(name) + " twice");
  }
  const std::uint32_t n_info = r.u32("the info count");
  if (n_info > kMaxRealInfo)
    throw Error("model_corrupt", "the model file is corrupt: it lists " + std::to_string(n_info) +
                                     " info entries; the limit is " + std::to_string(kMaxRealInfo));
  std::vector<std::pair<std::string_view, std::string_view>> info;
  for (std::uint32_t k = 0; k < n_info; ++k) {
    const std::string_view key = r.blob("an info key", kMaxString);
    const std::string_view value = r.blob("an info value", kMaxString);
    for (const std::string_view text : {key, value}) try {
        decode_utf8(text);
      } catch (const Error& e) {
        throw Error("model_invalid",
                    std::string("the model file is invalid: an info entry is not UTF-8 (") +
                        e.what() + ")");
      }
    info.emplace_back(key, value);
  }

  // The config fixes every parameter's shape, so the file's length: refuse a short or long one
  // before any weight (or the tokenizer) is allocated. Shaping the layers costs a few empty
  // objects (at most kMaxHfLayers).
  m.layers.resize(static_cast<std::size_t>(m.config.layers));
  const std::vector<RealParameter> params = real_parameters(m);
  const std::size_t weights_at = r.pos();
  std::uint64_t at = 0;
  for (const RealParameter& p : params) {
    at += parameter_bytes(p.rows, p.cols, dtype);
    if (at > r.left())
      r.need(at + 4, p.name + " (" + std::to_string(p.rows) + " x " + std::to_string(p.cols) + " " +
                         real_dtype_name(dtype) + ")");
  }
  r.need(at + 4, "the checksum");
  const std::uint64_t body = weights_at + at;
  if (body + 4 != size)
    throw Error("model_corrupt", "the model file has " + std::to_string(size - body - 4) +
                                     " unexpected bytes after its end: it is corrupt; " + kFix);
  std::uint32_t stored = 0;
  for (int k = 0; k < 4; ++k) stored |= static_cast<std::uint32_t>(bytes[body + k]) << (8 * k);
  if (stored !=
      crc32(std::string_view(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(body))))
    throw Error("model_corrupt",
                "the model file is corrupt (its checksum does not match): copy it again or " +
                    std::string(kFix));

  auto tokenizer = std::make_shared<const hf::Tokenizer>(hf::Tokenizer::from_files(files));
  check_tokenizer(m.config, *tokenizer);
  out.tokenizer = std::move(tokenizer);
  for (const RealParameter& p : params) *p.value = r.parameter(p, dtype);
  m.dtype = dtype == RealDtype::f32 ? "F32" : dtype == RealDtype::f16 ? "F16" : "INT8";
  m.file_bytes = size;
  m.parameters = 0;
  for (const RealParameter& p : params)
    m.parameters += static_cast<std::uint64_t>(p.rows) * static_cast<std::uint64_t>(p.cols);
  for (const auto& [key, value] : info) {
    if (key == kInfoParameters) {
      char* end = nullptr;
      const std::string v(value);
      const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
      if (!v.empty() && end == v.c_str() + v.size() && n >= m.parameters) m.parameters = n;
      continue;
    }
    out.info.emplace_back(std::string(key), std::string(value));
  }
  return out;
}

WeightChange max_weight_change(const TextTrace& a, const TextTrace& b) {
  const auto& la = a.network.layers;
  const auto& lb = b.network.layers;
  if (la.size() != lb.size())
    throw Error("bad_setting", "the two traces have different numbers of layers");
  WeightChange w;
  for (std::size_t l = 0; l < la.size(); ++l) {
    if (la[l].attn.head.size() != lb[l].attn.head.size())
      throw Error("bad_setting", "the two traces have different numbers of heads");
    for (std::size_t h = 0; h < la[l].attn.head.size(); ++h) {
      const Matrix& x = la[l].attn.head[h].weights;
      const Matrix& y = lb[l].attn.head[h].weights;
      if (x.rows() != y.rows() || x.cols() != y.cols())
        throw Error("bad_setting", "the two traces have different tokens");
      for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (Eigen::Index j = 0; j < x.cols(); ++j) {
          const double d = std::fabs(static_cast<double>(x(i, j)) - static_cast<double>(y(i, j)));
          if (d > w.value)
            w = {d, static_cast<int>(l), static_cast<int>(h), static_cast<int>(i),
                 static_cast<int>(j)};
        }
    }
  }
  return w;
}

}  // namespace ap
