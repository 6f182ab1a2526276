// model_file.cpp: the vocabulary with its fallback, the .apm reader and writer, and the trace of a
// sentence through a trained model.
#include "model_file.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "error.hpp"
#include "rng.hpp"

namespace ap {

// ------------------------------------------------------------------------------------------------
// Vocabulary

Vocabulary::Vocabulary(std::vector<std::string> words, int unknown_buckets)
    : unknown_buckets_(unknown_buckets) {
  if (unknown_buckets < 1 || unknown_buckets > 1024)
    throw Error("bad_vocabulary", "unknown_buckets must be between 1 and 1024");
  for (int k = 0; k < unknown_buckets; ++k) words.push_back("<unk:" + std::to_string(k) + ">");
  words.push_back("<sym>");
  *this = from_saved(std::move(words), unknown_buckets);
}

Vocabulary Vocabulary::from_saved(std::vector<std::string> all_words, int unknown_buckets) {
  Vocabulary v;
  v.unknown_buckets_ = unknown_buckets;
  v.words_ = std::move(all_words);
  if (unknown_buckets < 1 || v.size() < unknown_buckets + 1)
    throw Error("bad_vocabulary", "the vocabulary must end with its fallback rows");
  for (int i = 0; i < v.size(); ++i) {
    if (!v.index_.emplace(v.words_[static_cast<std::size_t>(i)], i).second)
      throw Error("bad_vocabulary", "the word \"" + v.words_[static_cast<std::size_t>(i)] +
                                        "\" appears twice in the vocabulary");
  }
  return v;
}

Vocabulary Vocabulary::from_lexicon_tsv(std::string_view tsv, int unknown_buckets) {
  std::vector<std::string> words;
  std::unordered_map<std::string, int> seen;
  while (!tsv.empty()) {
    const std::size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv.remove_prefix(nl == std::string_view::npos ? tsv.size() : nl + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    std::string word(line.substr(0, line.find('\t')));
    while (!word.empty() && word.back() == ' ') word.pop_back();
    if (word.empty() || seen.count(word)) continue;
    seen.emplace(word, 0);
    words.push_back(word);
  }
  return Vocabulary(std::move(words), unknown_buckets);
}

int Vocabulary::find(std::string_view key) const {
  const auto it = index_.find(std::string(key));
  return it == index_.end() ? -1 : it->second;
}

std::string Vocabulary::key(const Token& t) { return lexicon_key(t.text, t.kind); }

int Vocabulary::id(const Token& t) const {
  const std::string k = key(t);
  const int found = find(k);
  if (found >= 0) return found;
  if (t.kind == TokenKind::Word || t.kind == TokenKind::Han)
    return bucket(static_cast<int>(hash_text(k) % static_cast<std::uint64_t>(unknown_buckets_)));
  return symbol_row();
}

std::string TrainedModel::info_value(std::string_view key) const {
  for (const auto& kv : info)
    if (kv.first == key) return kv.second;
  return "";
}

// ------------------------------------------------------------------------------------------------
// CRC-32

std::uint32_t crc32(std::string_view bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

// ------------------------------------------------------------------------------------------------
// Writing

namespace {

constexpr std::uint32_t kMaxVocab = 1u << 20;
constexpr std::uint32_t kMaxString = 1u << 16;
constexpr std::uint32_t kMaxInfo = 1024;

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
  void matrix(MatrixRef m) {
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      for (Eigen::Index c = 0; c < m.cols(); ++c) {
        const std::uint16_t h = float_to_half(m(r, c));
        out_.push_back(static_cast<char>(h & 0xFFu));
        out_.push_back(static_cast<char>(h >> 8));
      }
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
                      "): it is truncated or corrupt; copy it again or retrain with scripts/train");
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
    pos_ += len;
    return s;
  }
  Matrix matrix(Eigen::Index rows, Eigen::Index cols, const char* what) {
    need(static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols) * 2u, what);
    Matrix m(rows, cols);
    for (Eigen::Index r = 0; r < rows; ++r)
      for (Eigen::Index c = 0; c < cols; ++c) {
        const auto lo = static_cast<unsigned char>(b_[pos_]);
        const auto hi = static_cast<unsigned char>(b_[pos_ + 1]);
        pos_ += 2;
        m(r, c) = half_to_float(static_cast<std::uint16_t>(lo | (hi << 8)));
      }
    if (!m.allFinite())
      throw Error("model_invalid", std::string("the model file holds NaN or infinity in ") + what);
    return m;
  }
  void skip(std::size_t k, const char* what) {
    need(k, what);
    pos_ += k;
  }
  std::size_t pos() const { return pos_; }

 private:
  std::string_view b_;
  std::size_t pos_ = 0;
};

void check_dims(std::uint32_t d_model, std::uint32_t heads, std::uint32_t d_k, std::uint32_t vocab,
                std::uint32_t buckets) {
  const auto bad = [](const std::string& what) {
    throw Error("model_invalid", "the model file is invalid: " + what);
  };
  if (d_model < 1 || d_model > static_cast<std::uint32_t>(kMaxDModel)) bad("d_model out of range");
  if (heads < 1 || heads > static_cast<std::uint32_t>(kMaxHeads)) bad("heads out of range");
  if (d_k < 1 || d_k > static_cast<std::uint32_t>(kMaxDModel)) bad("d_k out of range");
  if (buckets < 1 || buckets > 1024) bad("unknown_buckets out of range");
  if (vocab < buckets + 1 || vocab > kMaxVocab) bad("vocabulary size out of range");
}

}  // namespace

std::string save_model(const TrainedModel& m) {
  const int hd = m.heads * m.d_k;
  check_dims(static_cast<std::uint32_t>(m.d_model), static_cast<std::uint32_t>(m.heads),
             static_cast<std::uint32_t>(m.d_k), static_cast<std::uint32_t>(m.vocab.size()),
             static_cast<std::uint32_t>(m.vocab.unknown_buckets()));
  if (m.E.rows() != m.vocab.size() || m.E.cols() != m.d_model ||
      m.weights.W_Q.rows() != m.d_model || m.weights.W_Q.cols() != hd ||
      m.weights.W_K.rows() != m.d_model || m.weights.W_K.cols() != hd ||
      m.weights.W_V.rows() != m.d_model || m.weights.W_V.cols() != hd ||
      m.weights.W_O.rows() != hd || m.weights.W_O.cols() != m.d_model ||
      static_cast<int>(m.notes.size()) != m.heads)
    throw Error("model_invalid", "cannot save: the model's matrices do not match its shape");
  Writer w;
  w.bytes().append(kModelMagic, sizeof kModelMagic);
  w.u32(kModelFormatVersion);
  w.u32(static_cast<std::uint32_t>(m.d_model));
  w.u32(static_cast<std::uint32_t>(m.heads));
  w.u32(static_cast<std::uint32_t>(m.d_k));
  w.u32(static_cast<std::uint32_t>(m.vocab.size()));
  w.u32(static_cast<std::uint32_t>(m.vocab.unknown_buckets()));
  w.u32(static_cast<std::uint32_t>(m.info.size()));
  for (const auto& kv : m.info) {
    w.str(kv.first);
    w.str(kv.second);
  }
  for (const std::string& word : m.vocab.words()) w.str(word);
  for (const HeadNote& n : m.notes) {
    w.str(n.role);
    w.str(n.note);
    w.str(n.note_zh);
    w.f32(n.pronoun_accuracy);
    w.f32(n.verb_accuracy);
  }
  w.matrix(m.E);
  w.matrix(m.weights.W_Q);
  w.matrix(m.weights.W_K);
  w.matrix(m.weights.W_V);
  w.matrix(m.weights.W_O);
  w.u32(crc32(w.bytes()));
  return std::move(w.bytes());
}

TrainedModel load_model(std::string_view bytes) {
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
  if (version != kModelFormatVersion)
    throw Error("model_bad_version",
                "the model file has format version " + std::to_string(version) +
                    " but this build reads version " + std::to_string(kModelFormatVersion) +
                    ": retrain it with scripts/train or use a matching build");
  TrainedModel m;
  const std::uint32_t d_model = r.u32("d_model"), heads = r.u32("heads"), d_k = r.u32("d_k");
  const std::uint32_t vocab = r.u32("vocab_size"), buckets = r.u32("unknown_buckets");
  check_dims(d_model, heads, d_k, vocab, buckets);
  m.d_model = static_cast<int>(d_model);
  m.heads = static_cast<int>(heads);
  m.d_k = static_cast<int>(d_k);
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
  } catch (const Error& e) {
    throw Error("model_invalid", std::string("the model file is invalid: ") + e.what());
  }
  for (std::uint32_t h = 0; h < heads; ++h) {
    HeadNote n;
    n.role = r.str("a head note");
    n.note = r.str("a head note");
    n.note_zh = r.str("a head note");
    n.pronoun_accuracy = r.f32("a head note");
    n.verb_accuracy = r.f32("a head note");
    m.notes.push_back(std::move(n));
  }
  const Eigen::Index hd = static_cast<Eigen::Index>(heads) * d_k;
  m.E = r.matrix(vocab, d_model, "E");
  m.weights.W_Q = r.matrix(d_model, hd, "W_Q");
  m.weights.W_K = r.matrix(d_model, hd, "W_K");
  m.weights.W_V = r.matrix(d_model, hd, "W_V");
  m.weights.W_O = r.matrix(hd, d_model, "W_O");
  const std::size_t body = r.pos();
  const std::uint32_t stored = r.u32("the checksum");
  if (r.pos() != bytes.size())
    throw Error("model_corrupt", "the model file has " + std::to_string(bytes.size() - r.pos()) +
                                     " unexpected bytes after its end: it is corrupt");
  if (stored != crc32(bytes.substr(0, body)))
    throw Error("model_corrupt",
                "the model file is corrupt (its checksum does not match): copy it again or "
                "retrain with scripts/train");
  return m;
}

TrainedModel load_model_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("model_io", "cannot open the model file " + path + ": check the path");
  std::ostringstream ss;
  ss << f.rdbuf();
  return load_model(ss.str());
}

void save_model_file(const std::string& path, const TrainedModel& m) {
  const std::string bytes = save_model(m);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error("model_io", "cannot write the model file " + path);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw Error("model_io", "writing the model file " + path + " failed");
}

// ------------------------------------------------------------------------------------------------
// Tracing a sentence

std::vector<int> token_ids(const std::vector<Token>& tokens, const Vocabulary& vocab) {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const Token& t : tokens) ids.push_back(vocab.id(t));
  return ids;
}

Matrix embed_with_model(const std::vector<int>& ids, const TrainedModel& m, bool positions) {
  const int n = static_cast<int>(ids.size());
  Matrix X(n, m.d_model);
  for (int i = 0; i < n; ++i) X.row(i) = m.E.row(ids[static_cast<std::size_t>(i)]);
  if (positions) X += positional_encoding(n, m.d_model);
  return X;
}

TextTrace trace_text_with_model(std::string_view text, const Settings& s, const TrainedModel& m) {
  Settings eff = s;
  eff.d_model = m.d_model;
  eff.heads = m.heads;
  eff.d_k = m.d_k;
  validate(eff);
  TextTrace out;
  out.settings = eff;
  out.tokens = tokenize(text, default_lexicon(), eff.max_tokens);
  for (Token& t : out.tokens) t.known = m.vocab.knows(t);
  out.embeddings = embed_with_model(token_ids(out.tokens, m.vocab), m, false);
  if (eff.tie_qk) {  // the what-if "W_K = W_Q" applies to trained weights too
    Weights tied = m.weights;
    tied.W_K = tied.W_Q;
    attend_text(out, tied);
  } else {
    attend_text(out, m.weights);
  }
  return out;
}

std::vector<TokenGuess> guess_words(const Trace& t, const TrainedModel& m) {
  if (t.output.cols() != m.E.cols())
    throw Error("shape_mismatch", "the trace's d_model does not match the model's");
  Matrix logits(t.output.rows(), m.E.rows());  // n x V
  logits.noalias() = t.output * m.E.transpose();
  std::vector<TokenGuess> out;
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    Eigen::Index best = 0;
    const float mx = logits.row(i).maxCoeff(&best);
    double sum = 0.0;
    for (Eigen::Index j = 0; j < logits.cols(); ++j) sum += std::exp(logits(i, j) - mx);
    out.push_back({static_cast<int>(best), static_cast<float>(1.0 / sum)});
  }
  return out;
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

}  // namespace ap
