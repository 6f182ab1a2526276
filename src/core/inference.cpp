// inference.cpp: tracing a sentence through a trained model's layers.
#include "inference.hpp"

#include "error.hpp"
#include "gemm.hpp"

namespace ap {

std::vector<int> token_ids(const std::vector<Token>& tokens, const Vocabulary& vocab) {
  std::vector<int> ids;
  ids.reserve(tokens.size());
  for (const Token& t : tokens) ids.push_back(vocab.id(t));
  return ids;
}

Matrix gather_rows(MatrixRef E, const std::vector<int>& ids) {
  Matrix X(static_cast<Eigen::Index>(ids.size()), E.cols());
  for (std::size_t i = 0; i < ids.size(); ++i) X.row(static_cast<Eigen::Index>(i)) = E.row(ids[i]);
  return X;
}

Matrix embed_tokens(std::vector<Token>& tokens, const TrainedModel& m) {
  Matrix X(static_cast<Eigen::Index>(tokens.size()), m.E.cols());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    Token& t = tokens[i];
    const Eigen::Index r = static_cast<Eigen::Index>(i);
    t.read_as.clear();
    const std::vector<int> pieces = m.vocab.pieces(t);
    if (pieces.empty()) {
      X.row(r) = m.E.row(m.vocab.id(t));
      continue;
    }
    X.row(r).setZero();
    for (int id : pieces) {
      X.row(r) += m.E.row(id);
      t.read_as.push_back(m.vocab.word(id));
    }
    X.row(r) /= static_cast<float>(pieces.size());
  }
  return X;
}

Matrix embed_with_model(const std::vector<int>& ids, const TrainedModel& m, bool positions) {
  const Matrix X = gather_rows(m.E, ids);
  return positions ? add_positions(X) : X;
}

AttentionOptions model_options(const Settings& s, const TrainedModel& m) {
  AttentionOptions opt;
  opt.heads = m.net.heads;
  opt.causal = s.causal;
  opt.scale = s.scale;
  opt.temperature = s.temperature;
  return opt;
}

Settings model_settings(const Settings& s, const TrainedModel& m) {
  Settings eff = s;
  eff.d_model = m.net.d_model;
  eff.heads = m.net.heads;
  eff.d_k = m.net.d_k;
  validate(eff);
  return eff;
}

std::vector<Token> tokenize_for_model(std::string_view text, const Settings& s,
                                      const TrainedModel& m) {
  const Settings eff = model_settings(s, m);
  std::vector<Token> tokens = tokenize(text, default_lexicon(), eff.max_tokens);
  for (Token& t : tokens) t.known = m.vocab.knows(t);
  return tokens;
}

TextTrace trace_text_with_model(std::string_view text, const Settings& s, const TrainedModel& m) {
  return trace_tokens_with_model(tokenize_for_model(text, s, m), s, m);
}

TextTrace trace_tokens_with_model(std::vector<Token> tokens, const Settings& s,
                                  const TrainedModel& m) {
  const Settings eff = model_settings(s, m);
  TextTrace out;
  out.settings = eff;
  out.weights = "trained";
  out.tokens = std::move(tokens);
  out.embeddings = embed_tokens(out.tokens, m);
  const Matrix X = eff.positions ? add_positions(out.embeddings, &out.positions) : out.embeddings;
  const AttentionOptions opt = model_options(eff, m);
  if (eff.tie_qk) {  // the what-if "W_K = W_Q" applies to trained weights too, in every layer
    Network tied = m.net;
    for (Layer& L : tied.layers) L.attn.W_K = L.attn.W_Q;
    out.network = network_forward(tied, X, opt);
  } else {
    out.network = network_forward(m.net, X, opt);
  }
  out.trace = out.network.layers.back().attn;
  return out;
}

std::vector<TokenGuess> guess_words(const TextTrace& t, const TrainedModel& m) {
  const Matrix& Y = t.network.norm_out.y;
  if (t.network.layers.empty() || Y.cols() != m.E.cols())
    throw Error("shape_mismatch", "the trace was not made with this model");
  Matrix logits;  // n x V
  gemm_abt(Y, m.E, logits);
  const Matrix p = softmax_rows(logits);
  std::vector<TokenGuess> out;
  for (Eigen::Index i = 0; i < p.rows(); ++i) {
    Eigen::Index best = 0;
    const float top = p.row(i).maxCoeff(&best);
    out.push_back({static_cast<int>(best), top});
  }
  return out;
}

}  // namespace ap
