// model.cpp: settings validation, seeded embeddings and weights, positions.
#include "model.hpp"

#include <cmath>
#include <string>

#include "error.hpp"
#include "rng.hpp"

namespace ap {

namespace {
Matrix normal_matrix(int rows, int cols, std::uint64_t seed, double stddev) {
  Rng rng(seed);
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal() * stddev);
  return m;
}

// stream ids, so W_Q does not change when W_K's shape does
constexpr std::uint64_t kStreamQ = 1, kStreamK = 2, kStreamV = 3, kStreamO = 4;
}  // namespace

int validate(const Settings& s) {
  if (s.d_model < 1 || s.d_model > kMaxDModel)
    throw Error("bad_d_model", "d_model must be between 1 and " + std::to_string(kMaxDModel) +
                                   ", got " + std::to_string(s.d_model));
  if (s.heads < 1 || s.heads > kMaxHeads)
    throw Error("bad_heads", "heads must be between 1 and " + std::to_string(kMaxHeads) + ", got " +
                                 std::to_string(s.heads));
  int d_k = s.d_k;
  if (d_k == 0) {
    if (s.d_model % s.heads != 0)
      throw Error("heads_divide", "heads (" + std::to_string(s.heads) + ") must divide d_model (" +
                                      std::to_string(s.d_model) + "), or give d_k explicitly");
    d_k = s.d_model / s.heads;
  }
  if (d_k < 1 || d_k > kMaxDModel)
    throw Error("bad_d_k", "d_k must be between 1 and " + std::to_string(kMaxDModel) + ", got " +
                               std::to_string(d_k));
  if (static_cast<long long>(s.heads) * d_k > kMaxHeadWidth)
    throw Error("bad_d_k", "heads x d_k is " +
                               std::to_string(static_cast<long long>(s.heads) * d_k) +
                               "; the limit is " + std::to_string(kMaxHeadWidth) +
                               ": use fewer heads or a smaller d_k");
  if (!(s.temperature > 0.0f) || !(s.temperature <= kMaxTemperature))
    throw Error("bad_temperature", "temperature must be greater than 0 and at most " +
                                       std::to_string(static_cast<int>(kMaxTemperature)));
  if (s.max_tokens < 1 || s.max_tokens > kMaxTokensLimit)
    throw Error("bad_max_tokens", "max tokens must be between 1 and " +
                                      std::to_string(kMaxTokensLimit) + ", got " +
                                      std::to_string(s.max_tokens));
  return d_k;
}

RowVector token_embedding(std::string_view text, TokenKind kind, int d_model, std::uint64_t seed) {
  const std::string key = lexicon_key(text, kind);
  Rng rng(mix_seed(seed, hash_text(key)));
  RowVector v(d_model);
  for (int c = 0; c < d_model; ++c) v[c] = static_cast<float>(rng.normal());
  return v;
}

std::uint64_t parse_seed(std::string_view text) {
  const auto bad = [&] {
    return Error("bad_seed",
                 "the seed must be a whole number from 0 to " + std::to_string(kMaxSeed));
  };
  if (text.empty() || text.size() > 20) throw bad();
  std::uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') throw bad();
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (kMaxSeed - d) / 10) throw bad();  // v * 10 + d would pass kMaxSeed
    v = v * 10 + d;
  }
  return v;
}

Matrix positional_encoding(int n, int d_model) {
  Matrix pe(n, d_model);
  for (int pos = 0; pos < n; ++pos) {
    for (int c = 0; c < d_model; ++c) {
      const int pair = c / 2;
      const double angle = pos / std::pow(10000.0, (2.0 * pair) / d_model);
      pe(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

Matrix embed(const std::vector<Token>& tokens, const Settings& s) {
  const int n = static_cast<int>(tokens.size());
  Matrix X(n, s.d_model);
  for (int i = 0; i < n; ++i)
    X.row(i) = token_embedding(tokens[i].text, tokens[i].kind, s.d_model, s.seed);
  return s.positions ? add_positions(X) : X;
}

Matrix add_positions(MatrixRef embeddings, Matrix* positions) {
  Matrix P =
      positional_encoding(static_cast<int>(embeddings.rows()), static_cast<int>(embeddings.cols()));
  Matrix X = embeddings + P;
  if (positions) *positions = std::move(P);
  return X;
}

Weights random_weights(int d_model, int heads, int d_k, std::uint64_t seed, bool tie_qk) {
  const int hd = heads * d_k;
  const double sd_in = 1.0 / std::sqrt(static_cast<double>(d_model));
  const double sd_out = 1.0 / std::sqrt(static_cast<double>(hd));
  Weights w;
  w.W_Q = normal_matrix(d_model, hd, mix_seed(seed, kStreamQ), sd_in);
  w.W_K = tie_qk ? w.W_Q : normal_matrix(d_model, hd, mix_seed(seed, kStreamK), sd_in);
  w.W_V = normal_matrix(d_model, hd, mix_seed(seed, kStreamV), sd_in);
  w.W_O = normal_matrix(hd, d_model, mix_seed(seed, kStreamO), sd_out);
  return w;
}

TextTrace trace_tokens(std::vector<Token> tokens, const Settings& s, const Weights& w) {
  TextTrace out;
  out.settings = s;
  out.tokens = std::move(tokens);
  Settings no_pos = s;
  no_pos.positions = false;
  out.embeddings = embed(out.tokens, no_pos);
  attend_text(out, w);
  return out;
}

TextTrace trace_text(std::string_view text, const Settings& s, const Lexicon& lex) {
  const int d_k = validate(s);
  // the text first: a bad or empty text costs nothing, whatever the settings
  std::vector<Token> tokens = tokenize(text, lex, s.max_tokens);
  return trace_tokens(std::move(tokens), s,
                      random_weights(s.d_model, s.heads, d_k, s.seed, s.tie_qk));
}

TextTrace trace_text(std::string_view text, const Settings& s, const Weights& w,
                     const Lexicon& lex) {
  validate(s);
  return trace_tokens(tokenize(text, lex, s.max_tokens), s, w);
}

void attend_text(TextTrace& out, const Weights& w) {
  const Settings& s = out.settings;
  Matrix X = out.embeddings;
  if (s.positions) {
    X = add_positions(out.embeddings, &out.positions);
  }
  AttentionOptions opt;
  opt.heads = s.heads;
  opt.causal = s.causal;
  opt.scale = s.scale;
  opt.temperature = s.temperature;
  out.trace = attend(X, w, opt);
}

}  // namespace ap
