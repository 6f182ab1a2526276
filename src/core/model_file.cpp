// model_file.cpp: the .apm reader and writer, CRC-32, half floats and the int8 rows.
#include "model_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "error.hpp"
#include "io.hpp"
#include "lexicon.hpp"
#include "real_model_file.hpp"
#include "rng.hpp"
#include "utf8.hpp"

namespace ap {

float HeadNote::number(std::string_view key) const {
  for (const auto& kv : numbers)
    if (kv.first == key) return kv.second;
  return std::numeric_limits<float>::quiet_NaN();
}

const HeadNote& TrainedModel::note(int layer, int head) const {
  return notes.at(static_cast<std::size_t>(layer * net.heads + head));
}

std::string TrainedModel::info_value(std::string_view key) const {
  for (const auto& kv : info)
    if (kv.first == key) return kv.second;
  return "";
}

// ------------------------------------------------------------------------------------------------
// CRC-32

namespace {
// Slicing by 8: v[0] is the CRC of each byte value, v[k] the same byte followed by k zero bytes,
// so eight bytes cost eight lookups and no shifts between them (a converted real model's file is
// hundreds of megabytes, checked when it is written and when it is read). The table is built on
// first use, not at compile time: as data it would add its 8 KiB to every module's download.
struct CrcTable {
  std::uint32_t v[8][256];
  CrcTable() : v() {
    for (std::uint32_t b = 0; b < 256; ++b) {
      std::uint32_t crc = b;
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
      v[0][b] = crc;
    }
    for (std::uint32_t b = 0; b < 256; ++b)
      for (int k = 1; k < 8; ++k) v[k][b] = (v[k - 1][b] >> 8) ^ v[0][v[k - 1][b] & 0xFFu];
  }
};
const CrcTable& crc_table() {
  static const CrcTable table;
  return table;
}
}  // namespace

std::uint32_t crc32(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t n = bytes.size();
  std::uint32_t crc = 0xFFFFFFFFu;
  const auto& t = crc_table().v;
  for (; n >= 8; n -= 8, p += 8) {
    const std::uint32_t lo =
        crc ^ (static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
               (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24));
    crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^
          t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; --n, ++p) crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xFFu];
  return crc ^ 0xFFFFFFFFu;
}

// ------------------------------------------------------------------------------------------------
// Writing

namespace {

constexpr std::uint32_t kMaxVocab = 1u << 20;
constexpr std::uint32_t kMaxString = 1u << 16;
constexpr std::uint32_t kMaxInfo = 1024;
// The smallest scale of an int8 row: 2^-14, the smallest normal half.
constexpr std::uint16_t kSmallestScale = 0x0400u;

class Writer {
 public:
  void u32(std::uint32_t v) {
    for (int k = 0; k < 4; ++k) out_.push_back(static_cast<char>((v >> (8 * k)) & 0xFFu));
  }
  void f32(float f) {
    std::uint32_t v;
    std::memcpy(&v, &f, 4);
    u32(v);
  }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_ += s;
  }
  void u16(std::uint16_t h) {
    out_.push_back(static_cast<char>(h & 0xFFu));
    out_.push_back(static_cast<char>(h >> 8));
  }
  // version 4: the scales, then the int8 values
  void matrix_int8(MatrixRef m) {
    const Int8Rows q = quantize_rows(m);
    for (std::uint16_t s : q.scale) u16(s);
    for (std::int8_t v : q.q) out_.push_back(static_cast<char>(v));
  }
  // version 3: halves
  void matrix_half(MatrixRef m) {
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      for (Eigen::Index c = 0; c < m.cols(); ++c) u16(float_to_half(m(r, c)));
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  void need(std::uint64_t k, const char* what) {
    if (static_cast<std::uint64_t>(b_.size() - pos_) < k)
      throw Error("model_truncated",
                  std::string("the model file ends early (while reading ") + what + ", " +
                      std::to_string(k) + " more bytes needed at byte " + std::to_string(pos_) +
                      " of " + std::to_string(b_.size()) +
                      "): it is truncated or corrupt; copy it again or retrain with model/train");
  }
  std::uint32_t u32(const char* what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k)
      v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b_[pos_ + k])) << (8 * k);
    pos_ += 4;
    return v;
  }
  float f32(const char* what) {
    const std::uint32_t v = u32(what);
    float f;
    std::memcpy(&f, &v, 4);
    return f;
  }
  std::string str(const char* what) {
    const std::uint32_t len = u32(what);
    if (len > kMaxString)
      throw Error("model_corrupt", std::string("the model file is corrupt: ") + what + " claims " +
                                       std::to_string(len) + " bytes");
    need(len, what);
    std::string s(b_.substr(pos_, len));
    try {
      decode_utf8(s);
    } catch (const Error& e) {
      throw Error("model_invalid", std::string("the model file is invalid: ") + what +
                                       " is not UTF-8 (" + e.what() + ")");
    }
    pos_ += len;
    return s;
  }
  // The bytes of a rows x cols matrix in this format: version 4 (int8) has rows half scales, then
  // rows x cols int8 values; version 3 has rows x cols halves.
  static std::uint64_t matrix_bytes(std::uint32_t version, std::uint64_t rows, std::uint64_t cols) {
    return version == kModelFormatVersion ? rows * 2u + rows * cols : rows * cols * 2u;
  }
  // Checks a matrix's values where they lie and steps over them, allocating nothing: the reader
  // looks at every value (and the checksum) before it makes any matrix.
  void check_matrix(std::uint32_t version, Eigen::Index rows, Eigen::Index cols, const char* what) {
    const auto r64 = static_cast<std::uint64_t>(rows), c64 = static_cast<std::uint64_t>(cols);
    need(matrix_bytes(version, r64, c64), what);
    if (version != kModelFormatVersion) {
      for (std::uint64_t k = 0; k < r64 * c64; ++k)
        if (!std::isfinite(half_to_float(u16_unchecked())))
          throw Error("model_invalid",
                      std::string("the model file holds NaN or infinity in ") + what);
      return;
    }
    for (std::uint64_t k = 0; k < r64; ++k) check_scale(u16_unchecked(), what);
    for (std::uint64_t k = 0; k < r64 * c64; ++k)
      if (static_cast<unsigned char>(b_[pos_++]) == 0x80u)
        throw Error("model_invalid",
                    std::string("the model file is invalid: ") + what + " holds the int8 -128");
  }
  // version 4: rows scales, then rows x cols int8 values (checked by check_matrix)
  Matrix matrix_int8(Eigen::Index rows, Eigen::Index cols, const char* what) {
    const auto r64 = static_cast<std::uint64_t>(rows), c64 = static_cast<std::uint64_t>(cols);
    need(r64 * 2u + r64 * c64, what);
    std::vector<float> scale(static_cast<std::size_t>(rows));
    for (float& s : scale) s = check_scale(u16_unchecked(), what);
    // row-major, like the bytes: one pass over both through plain pointers (an element access
    // per value is a call each in the page's first, unoptimised run of the module)
    Matrix m(rows, cols);
    float* out = m.data();
    const char* in = b_.data() + pos_;
    for (Eigen::Index r = 0; r < rows; ++r) {
      const float s = scale[static_cast<std::size_t>(r)];
      for (Eigen::Index c = 0; c < cols; ++c) {
        const auto q = static_cast<std::int8_t>(static_cast<unsigned char>(*in++));
        *out++ = s * static_cast<float>(q);
      }
    }
    pos_ += static_cast<std::size_t>(rows * cols);
    return m;
  }
  // version 3: rows x cols halves (checked by check_matrix)
  Matrix matrix_half(Eigen::Index rows, Eigen::Index cols, const char* what) {
    need(static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) * 2u, what);
    Matrix m(rows, cols);
    float* out = m.data();  // row-major, like the bytes
    for (Eigen::Index k = 0; k < rows * cols; ++k) out[k] = half_to_float(u16_unchecked());
    return m;
  }
  // an int8 row's scale: a finite half, positive and at least the smallest the format allows
  static float check_scale(std::uint16_t h, const char* what) {
    const float s = half_to_float(h);
    if (!std::isfinite(s))
      throw Error("model_invalid", std::string("the model file holds NaN or infinity in ") + what);
    if ((h & 0x8000u) != 0 || h < kSmallestScale)
      throw Error("model_invalid", std::string("the model file is invalid: a scale of ") + what +
                                       " is below the smallest the format allows");
    return s;
  }
  // two bytes the caller has checked are there (need)
  std::uint16_t u16_unchecked() {
    const auto lo = static_cast<unsigned char>(b_[pos_]);
    const auto hi = static_cast<unsigned char>(b_[pos_ + 1]);
    pos_ += 2;
    return static_cast<std::uint16_t>(lo | (hi << 8));
  }
  void skip(std::size_t k, const char* what) {
    need(k, what);
    pos_ += k;
  }
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

void check_dims(std::uint32_t d_model, std::uint32_t heads, std::uint32_t d_k, std::uint32_t d_ff,
                std::uint32_t layers, std::uint32_t vocab, std::uint32_t buckets) {
  const auto big = [](std::uint32_t v) { return v > (1u << 20); };
  if (big(d_model) || big(heads) || big(d_k) || big(d_ff) || big(layers))
    throw Error("model_invalid", "the model file is invalid: a dimension is out of range");
  check_network_shape(static_cast<int>(d_model), static_cast<int>(heads), static_cast<int>(d_k),
                      static_cast<int>(d_ff), static_cast<int>(layers));
  if (buckets < 1 || buckets > 1024)
    throw Error("model_invalid", "the model file is invalid: unknown_buckets out of range");
  if (vocab < buckets + 1 || vocab > kMaxVocab)
    throw Error("model_invalid", "the model file is invalid: vocabulary size out of range");
}

// the shape every parameter must have, in the order of parameters(Network)
Network shaped_network(int d_model, int heads, int d_k, int d_ff, int layers) {
  return init_network(d_model, heads, d_k, d_ff, layers, 0);
}

}  // namespace

std::string save_model(const TrainedModel& m, std::uint32_t version) {
  if (version != kModelFormatVersion && version != kOldestModelFormatVersion)
    throw Error("model_bad_version", "cannot save format version " + std::to_string(version));
  const Network& net = m.net;
  check_dims(static_cast<std::uint32_t>(net.d_model), static_cast<std::uint32_t>(net.heads),
             static_cast<std::uint32_t>(net.d_k), static_cast<std::uint32_t>(net.d_ff),
             static_cast<std::uint32_t>(net.depth()), static_cast<std::uint32_t>(m.vocab.size()),
             static_cast<std::uint32_t>(m.vocab.unknown_buckets()));
  const Network want = shaped_network(net.d_model, net.heads, net.d_k, net.d_ff, net.depth());
  const auto have = parameters(net), need = parameters(want);
  bool ok = m.E.rows() == m.vocab.size() && m.E.cols() == net.d_model &&
            m.notes.size() == static_cast<std::size_t>(net.depth() * net.heads) &&
            have.size() == need.size();
  for (std::size_t k = 0; ok && k < have.size(); ++k)
    ok = have[k].second->rows() == need[k].second->rows() &&
         have[k].second->cols() == need[k].second->cols();
  if (!ok) throw Error("model_invalid", "cannot save: the model's matrices do not match its shape");
  Writer w;
  w.bytes().append(kModelMagic, sizeof kModelMagic);
  w.u32(version);
  for (int v : {net.d_model, net.heads, net.d_k, net.d_ff, net.depth(), m.vocab.size(),
                m.vocab.unknown_buckets()})
    w.u32(static_cast<std::uint32_t>(v));
  w.u32(static_cast<std::uint32_t>(m.info.size()));
  for (const auto& kv : m.info) {
    w.str(kv.first);
    w.str(kv.second);
  }
  for (const std::string& word : m.vocab.words()) w.str(word);
  for (const HeadNote& n : m.notes) {
    w.str(n.role);
    w.u32(static_cast<std::uint32_t>(n.numbers.size()));
    for (const auto& kv : n.numbers) {
      w.str(kv.first);
      w.f32(kv.second);
    }
  }
  const auto matrix = [&](MatrixRef x) {
    if (version == kModelFormatVersion)
      w.matrix_int8(x);
    else
      w.matrix_half(x);
  };
  matrix(m.E);
  for (const auto& p : have) matrix(*p.second);
  w.u32(crc32(w.bytes()));
  return std::move(w.bytes());
}

TrainedModel load_model(std::string_view bytes) {
  if (bytes.size() > kMaxModelBytes)
    throw Error("model_too_large", "the model file has " + std::to_string(bytes.size()) +
                                       " bytes; the limit is " + std::to_string(kMaxModelBytes) +
                                       ": this is not a model this build can use");
  if (bytes.empty())
    throw Error("model_truncated", "the model file is empty: copy it again or retrain it");
  if (bytes.size() < sizeof kModelMagic ||
      std::memcmp(bytes.data(), kModelMagic, sizeof kModelMagic) != 0) {
    // a prefix of the magic is a truncated model file, anything else is not a model file at all
    if (bytes.size() < sizeof kModelMagic &&
        std::memcmp(bytes.data(), kModelMagic, bytes.size()) == 0)
      throw Error("model_truncated", "the model file has only " + std::to_string(bytes.size()) +
                                         " bytes: it is truncated; copy it again");
    throw Error("model_bad_magic",
                "this is not an Attention Playground model file (it does not start with "
                "APMODEL): check the path");
  }
  Reader r(bytes);
  r.skip(sizeof kModelMagic, "the magic number");
  const std::uint32_t version = r.u32("the version");
  if (version == kRealModelFormatVersion)
    throw Error("model_bad_version",
                "the model file is a converted GPT-2 or BERT model (format version " +
                    std::to_string(version) +
                    "), not a trained playground model: open it as a real model "
                    "(real_model_file.hpp; qkv trace --model FILE)");
  if (version < kOldestModelFormatVersion || version > kModelFormatVersion)
    throw Error("model_bad_version",
                "the model file has format version " + std::to_string(version) +
                    " but this build reads versions " + std::to_string(kOldestModelFormatVersion) +
                    " to " + std::to_string(kModelFormatVersion) +
                    ": retrain it with model/train or use a matching build");
  const auto matrix = [&](Eigen::Index rows, Eigen::Index cols, const char* what) {
    return version == kModelFormatVersion ? r.matrix_int8(rows, cols, what)
                                          : r.matrix_half(rows, cols, what);
  };
  TrainedModel m;
  const std::uint32_t d_model = r.u32("d_model"), heads = r.u32("heads"), d_k = r.u32("d_k");
  const std::uint32_t d_ff = r.u32("d_ff"), layers = r.u32("layers");
  const std::uint32_t vocab = r.u32("vocab_size"), buckets = r.u32("unknown_buckets");
  check_dims(d_model, heads, d_k, d_ff, layers, vocab, buckets);
  // The header's shape says how many bytes the rest of the file holds at least: the info count,
  // each word's length, each head note's role length and count, E, every parameter and the
  // checksum. A header claiming a large network in a small file is refused here, before any of
  // it is allocated.
  const std::vector<ParameterShape> shapes =
      parameter_shapes(static_cast<int>(d_model), static_cast<int>(heads), static_cast<int>(d_k),
                       static_cast<int>(d_ff), static_cast<int>(layers));
  std::uint64_t least = 4u + 4u * std::uint64_t{vocab} + 8u * std::uint64_t{heads} * layers +
                        Reader::matrix_bytes(version, vocab, d_model) + 4u;
  for (const ParameterShape& p : shapes)
    least += Reader::matrix_bytes(version, static_cast<std::uint64_t>(p.rows),
                                  static_cast<std::uint64_t>(p.cols));
  r.need(least, "the model's parameters");
  const std::uint32_t n_info = r.u32("the info count");
  if (n_info > kMaxInfo) throw Error("model_corrupt", "the model file is corrupt: info count");
  for (std::uint32_t k = 0; k < n_info; ++k) {
    std::string key = r.str("an info key");
    std::string value = r.str("an info value");
    m.info.emplace_back(std::move(key), std::move(value));
  }
  // every word needs at least its 4-byte length: refuse impossible counts before allocating
  r.need(static_cast<std::uint64_t>(vocab) * 4u, "the vocabulary");
  std::vector<std::string> words;
  words.reserve(vocab);
  for (std::uint32_t k = 0; k < vocab; ++k) words.push_back(r.str("the vocabulary"));
  try {
    m.vocab = Vocabulary::from_saved(std::move(words), static_cast<int>(buckets));
    m.vocab.add_read_as(default_lexicon());
  } catch (const Error& e) {
    throw Error("model_invalid", std::string("the model file is invalid: ") + e.what());
  }
  for (std::uint32_t k = 0; k < heads * layers; ++k) {
    HeadNote n;
    n.role = r.str("a head note");
    const std::uint32_t count = r.u32("a head note");
    if (count > kMaxInfo) throw Error("model_corrupt", "the model file is corrupt: a head note");
    for (std::uint32_t c = 0; c < count; ++c) {
      std::string key = r.str("a head note");
      n.numbers.emplace_back(std::move(key), r.f32("a head note"));
    }
    m.notes.push_back(std::move(n));
  }
  // every value, the file's end and its checksum are checked before any matrix is made
  const std::size_t matrices = r.pos();
  r.check_matrix(version, vocab, d_model, "E");
  for (const ParameterShape& p : shapes) r.check_matrix(version, p.rows, p.cols, p.name.c_str());
  const std::size_t body = r.pos();
  const std::uint32_t stored = r.u32("the checksum");
  if (r.pos() != bytes.size())
    throw Error("model_corrupt", "the model file has " + std::to_string(bytes.size() - r.pos()) +
                                     " unexpected bytes after its end: it is corrupt");
  if (stored != crc32(bytes.substr(0, body)))
    throw Error("model_corrupt",
                "the model file is corrupt (its checksum does not match): copy it again or "
                "retrain with model/train");
  r.seek(matrices);
  m.E = matrix(vocab, d_model, "E");
  m.net = shaped_network(static_cast<int>(d_model), static_cast<int>(heads), static_cast<int>(d_k),
                         static_cast<int>(d_ff), static_cast<int>(layers));
  for (auto& p : parameters(m.net))
    *p.second = matrix(p.second->rows(), p.second->cols(), p.first.c_str());
  return m;
}

TrainedModel load_model_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error("model_io", "cannot open the model file " + printable(path) + ": check the path");
  const std::string bytes = read_at_most(f, kMaxModelBytes);
  if (bytes.size() > kMaxModelBytes)
    throw Error("model_too_large", "the model file " + printable(path) + " is larger than " +
                                       std::to_string(kMaxModelBytes) +
                                       " bytes: this is not a model this build can use");
  return load_model(bytes);
}

void save_model_file(const std::string& path, const TrainedModel& m) {
  const std::string bytes = save_model(m);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error("model_io", "cannot write the model file " + path);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw Error("model_io", "writing the model file " + path + " failed");
}

std::uint16_t float_to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  std::uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFFu)  // infinity or NaN
    return static_cast<std::uint16_t>(sign | 0x7C00u | (mant ? 0x200u : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);  // too large: infinity
  if (e <= 0) {                                                    // subnormal half or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t half = mant >> shift;
    const std::uint32_t rest = mant & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rest = mant & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent
  return static_cast<std::uint16_t>(sign | half);
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  std::uint32_t mant = h & 0x3FFu;
  std::uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7F800000u | (mant << 13);
  } else {
    x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

Matrix round_to_half(MatrixRef m) {
  Matrix out(m.rows(), m.cols());
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) out(r, c) = half_to_float(float_to_half(m(r, c)));
  return out;
}

Int8Rows quantize_rows(MatrixRef m) {
  Int8Rows out;
  out.scale.reserve(static_cast<std::size_t>(m.rows()));
  out.q.assign(static_cast<std::size_t>(m.rows() * m.cols()), 0);
  const auto times_127 = [](std::uint16_t h) { return half_to_float(h) * 127.0f; };  // exact
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    if (!m.row(r).allFinite()) {  // refused by load_model, as a v3 NaN weight was
      out.scale.push_back(0x7E00u);
      continue;
    }
    const float amax = m.row(r).cwiseAbs().maxCoeff();
    if (amax > 65504.0f * 127.0f)
      throw Error("model_invalid", "cannot save: a weight of " + std::to_string(amax) +
                                       " is beyond what a row scale can hold (65504 x 127)");
    // the smallest half >= 2^-14 whose 127 multiple reaches amax (halves of one sign are ordered
    // as their bits)
    std::uint16_t h = std::max(float_to_half(amax / 127.0f), kSmallestScale);
    while (times_127(h) < amax) ++h;
    while (h > kSmallestScale && times_127(static_cast<std::uint16_t>(h - 1)) >= amax) --h;
    out.scale.push_back(h);
    const float s = half_to_float(h);
    for (Eigen::Index c = 0; c < m.cols(); ++c)  // |m / s| <= 127, ties to even
      out.q[static_cast<std::size_t>(r * m.cols() + c)] =
          static_cast<std::int8_t>(std::nearbyint(m(r, c) / s));
  }
  return out;
}

Matrix round_to_int8(MatrixRef m) {
  const Int8Rows q = quantize_rows(m);
  Matrix out(m.rows(), m.cols());
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c)
      out(r, c) = half_to_float(q.scale[static_cast<std::size_t>(r)]) *
                  static_cast<float>(q.q[static_cast<std::size_t>(r * m.cols() + c)]);
  return out;
}

}  // namespace ap
