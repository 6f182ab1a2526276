// model.hpp: from a sentence to a trace. Settings, seeded random embeddings and weights, and
// sinusoidal positions. Not the attention maths (attention.hpp) and not tokenizing (tokenizer.hpp).
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "attention.hpp"
#include "network.hpp"
#include "tokenizer.hpp"

namespace ap {

// The seed rule, in one place for the CLI, the module and the page: a decimal whole number from 0
// to kMaxSeed (the generator takes an unsigned 64-bit seed), at most 20 digits, nothing else.
constexpr std::uint64_t kMaxSeed = std::numeric_limits<std::uint64_t>::max();
// Throws ap::Error("bad_seed") naming the range.
std::uint64_t parse_seed(std::string_view text);

struct Settings {
  int d_model = 8;
  int heads = 2;
  int d_k = 0;  // 0 = d_model / heads (then heads must divide d_model)
  bool causal = false;
  bool scale = true;
  float temperature = 1.0f;
  bool tie_qk = false;    // W_K = W_Q: scores become symmetric
  bool positions = true;  // add sinusoidal positional encoding to X
  std::uint64_t seed = 42;
  int max_tokens = kDefaultMaxTokens;
};

// Throws ap::Error naming the first bad setting (bad_d_model, bad_heads, heads_divide, bad_d_k,
// bad_temperature, bad_max_tokens). Returns the effective d_k.
int validate(const Settings& s);

// The embedding of one token text: d_model standard normals from a stream seeded by the text
// (English lower-cased) and the seed, so the same word always gets the same vector.
RowVector token_embedding(std::string_view text, TokenKind kind, int d_model, std::uint64_t seed);

// PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(same). n x d_model.
Matrix positional_encoding(int n, int d_model);

// X = embeddings (+ positions): n x d_model
Matrix embed(const std::vector<Token>& tokens, const Settings& s);

// X = E + P: the token vectors plus positional_encoding(n, d_model). n x d_model. The one place
// the core adds positions (random weights, trained models and the trainer all call it). When
// `positions` is given, P is written there too.
Matrix add_positions(MatrixRef embeddings, Matrix* positions = nullptr);

// Seeded weights, entries N(0, 1/d_model) for W_Q/W_K/W_V and N(0, 1/(h*d_k)) for W_O, so that
// Q, K, V entries are about unit size and sqrt(d_k) scaling does what the textbook says.
Weights random_weights(int d_model, int heads, int d_k, std::uint64_t seed, bool tie_qk);

struct TextTrace {
  std::vector<Token> tokens;
  Settings settings;
  Matrix embeddings;  // n x d_model, the token vectors before positions are added
  Matrix positions;   // n x d_model, the positional encoding added (empty when positions are off)
  // The attention the page shows. With random weights: the one layer, trace.X = embeddings +
  // positions. With a trained model: its last layer (trace.X is that layer's normalised input).
  Trace trace;
  // A trained model's every layer (network.layers[l].attn is layer l's attention, the last equal
  // to trace), its residual stream and its read-out; empty with random weights.
  NetworkTrace network;
  std::string weights = "random";  // where X and the weights came from: random, numpy, trained
  // The tokenizer's ids, one per token, for a model with its own vocabulary file (a Hugging Face
  // model); empty otherwise.
  std::vector<int> ids;
  // Which of network.layers `trace` is (with every head's full detail), and the head the reader
  // asked for; -1 when the model does not choose (random and numpy weights, the trained model's
  // last layer).
  int layer = -1;
  int head = -1;
  // BERT's embeddings + positions before its embedding LayerNorm (n x d_model; the first layer's
  // input is that LayerNorm of it); empty for every other model, whose first input is the sum.
  Matrix embed_sum;
  // BERT's embedding LayerNorm of embed_sum (its .y is the first layer's input); empty otherwise
  NormTrace embed_norm;
};

// tokenize -> embed -> attend, with seeded random weights.
TextTrace trace_text(std::string_view text, const Settings& s,
                     const Lexicon& lex = default_lexicon());

// The shared end of trace_text and trace_text_with_model: out.settings, out.tokens and
// out.embeddings are set; adds the positions (when on) and attends with `w`.
void attend_text(TextTrace& out, const Weights& w);

// embed -> attend for tokens already made (the second half of trace_text); `w` as below.
TextTrace trace_tokens(std::vector<Token> tokens, const Settings& s, const Weights& w);

// The same with the weights given: random_weights(s...) made once by a caller that traces many
// texts with the same settings (the page, while a learner types: at 64 tokens drawing the
// weights is a quarter of a trace). `w` must be what random_weights returns for `s`.
TextTrace trace_text(std::string_view text, const Settings& s, const Weights& w,
                     const Lexicon& lex = default_lexicon());

}  // namespace ap
