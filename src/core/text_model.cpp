// text_model.cpp: the playground's own kinds of model behind the one interface.
#include "text_model.hpp"

#include "inference.hpp"
#include "numpy_example.hpp"

namespace ap {

std::vector<Token> RandomTextModel::tokenize(std::string_view text, const Settings& s) const {
  validate(s);
  return ap::tokenize(text, default_lexicon(), s.max_tokens);
}

TextTrace RandomTextModel::forward(std::vector<Token> tokens, const Settings& s, int) const {
  const int d_k = validate(s);
  if (!have_ || drawn_for_.d_model != s.d_model || drawn_for_.heads != s.heads ||
      drawn_for_.d_k != s.d_k || drawn_for_.seed != s.seed || drawn_for_.tie_qk != s.tie_qk) {
    have_ = false;  // stays false if drawing throws (out of memory)
    drawn_ = random_weights(s.d_model, s.heads, d_k, s.seed, s.tie_qk);
    drawn_for_ = s;
    have_ = true;
  }
  return trace_tokens(std::move(tokens), s, drawn_);
}

std::vector<Token> NumpyTextModel::tokenize(std::string_view text, const Settings& s) const {
  return ap::tokenize(text, default_lexicon(), numpy_settings(s).max_tokens);
}

TextTrace NumpyTextModel::forward(std::vector<Token> tokens, const Settings& s, int) const {
  return trace_tokens_numpy(std::move(tokens), s);
}

std::vector<Token> TrainedTextModel::tokenize(std::string_view text, const Settings& s) const {
  return tokenize_for_model(text, s, m_);
}

TextTrace TrainedTextModel::forward(std::vector<Token> tokens, const Settings& s, int) const {
  return trace_tokens_with_model(std::move(tokens), s, m_);
}

}  // namespace ap
