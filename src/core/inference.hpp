// inference.hpp: a sentence through a trained model: token rows, X = E + P, every layer, and the
// word the model reads at each token. Not the file format (model_file.hpp), not the layers' maths
// (network.hpp) and not training (trainer.hpp).
//
// Shapes: n tokens, d_model, V vocabulary rows.
#pragma once
#include <string_view>
#include <vector>

#include "model.hpp"
#include "model_file.hpp"

namespace ap {

// Row ids of the tokens (with the unknown-word fallback of vocabulary.hpp). n entries.
std::vector<int> token_ids(const std::vector<Token>& tokens, const Vocabulary& vocab);
// The rows of E picked by ids: n x d_model (no positions).
Matrix gather_rows(MatrixRef E, const std::vector<int>& ids);
// The rows of E for text tokens: a known token's row; an unknown word's pieces' mean
// (vocabulary.hpp), else its hashed (or <sym>) row. n x d_model, no positions. Sets each unknown
// token's read_as.
Matrix embed_tokens(std::vector<Token>& tokens, const TrainedModel& m);
// X = E[ids] (+ sinusoidal positions): n x d_model
Matrix embed_with_model(const std::vector<int>& ids, const TrainedModel& m, bool positions);

// The attention options a trained model runs with: the learner's causal, scale and temperature,
// the model's heads.
AttentionOptions model_options(const Settings& s, const TrainedModel& m);

// tokenize -> embed with the model's vocabulary -> every layer (network.hpp). The model fixes
// d_model, heads and d_k (and the weights, so seed does nothing); causal, scale, temperature,
// positions, tie_qk (W_K := W_Q in every layer) and max_tokens stay the learner's. The model was
// trained with the Settings defaults: causal off, scale on, temperature 1, positions on. Tokens the
// vocabulary does not know are marked known = false and embedded through their pieces
// (embed_tokens). out.trace is the last layer's attention,
// out.network every layer.
TextTrace trace_text_with_model(std::string_view text, const Settings& s, const TrainedModel& m);
// Its two halves: the settings the model runs with (checked), the tokens (each marked known or
// not), and the trace of tokens already made.
Settings model_settings(const Settings& s, const TrainedModel& m);
std::vector<Token> tokenize_for_model(std::string_view text, const Settings& s,
                                      const TrainedModel& m);
TextTrace trace_tokens_with_model(std::vector<Token> tokens, const Settings& s,
                                  const TrainedModel& m);

// The model's own reading of each token: softmax(Y_i E^T) over the vocabulary, Y the read-out
// (t.network.norm_out.y). For a pronoun this is the word it thinks it refers to. One per token.
struct TokenGuess {
  int word = 0;  // row of the vocabulary
  float probability = 0.0f;
};
std::vector<TokenGuess> guess_words(const TextTrace& t, const TrainedModel& m);

}  // namespace ap
