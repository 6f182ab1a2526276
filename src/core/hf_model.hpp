// hf_model.hpp: a Hugging Face model folder's GPT-2 or BERT network: its config.json read and
// checked, its weights taken from model.safetensors (safetensors.hpp) by the published names, and
// its full forward pass, keeping every layer's every head's attention weights and one chosen
// layer's every stage (attention.hpp's passes). Not the tokenizers (hf_tokenizer.hpp) and not
// the playground's own network (network.hpp), whose LayerNorm and limits differ.
//
// Shapes: n tokens, d_model, h heads, d_k = d_model / h, d_ff feed-forward width, L layers,
// V vocabulary rows, P positions.
//
//   gpt2 (pre-LayerNorm, causal; Conv1D weights stored (in, out)):
//     X_0 = wte[ids] + wpe[0..n)
//     layer l:  Z = LN(X_l; ln_1)  A = attend(Z; c_attn split into W_Q|W_K|W_V) c_proj + b
//               M = X_l + A        X_{l+1} = M + gelu_new(LN(M; ln_2) W_fc + b_fc) W_proj + b_proj
//     Y = LN(X_L; ln_f)
//   bert (post-LayerNorm, bidirectional; nn.Linear weights stored (out, in), transposed here):
//     X_0 = LN(word[ids] + position[0..n) + token_type[0]; embeddings.LayerNorm)
//     layer l:  A = attend(X_l; query, key, value) dense + b    M = LN(X_l + A; attention LN)
//               X_{l+1} = LN(M + gelu(M W_i + b_i) W_o + b_o; output LN)
//     Y = X_L (no final LayerNorm)
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "attention.hpp"
#include "gemm.hpp"
#include "hf_tokenizer.hpp"
#include "model.hpp"
#include "network.hpp"
#include "text_model.hpp"

namespace ap {

// What a config may ask for: beyond these a config is refused before any weight is read. They
// bound memory by what the weights themselves need (GPT-2 XL: 48 layers, d_model 1600, 25 heads).
constexpr int kMaxHfLayers = 128;
constexpr int kMaxHfDModel = 8192;
constexpr int kMaxHfHeads = 256;
constexpr int kMaxHfFeedForward = 65536;
constexpr int kMaxHfPositions = 8192;
constexpr int kMaxHfVocab = 1 << 21;
constexpr int kMaxHfTokenTypes = 16;
// The largest config.json read: a config is a few kilobytes.
constexpr std::size_t kMaxHfConfigBytes = std::size_t{1} << 20;

// The files of a model folder the model is read from (the tokenizer's: hf::tokenizer_file_names).
inline constexpr const char* kHfConfigFile = "config.json";
inline constexpr const char* kHfWeightsFile = "model.safetensors";

// The architectures read, by config.json's model_type.
inline constexpr const char* kHfModelTypes[] = {"gpt2", "bert"};

struct HfConfig {
  std::string model_type;  // "gpt2" or "bert"
  std::string name;        // _name_or_path, or "" when the config has none
  int layers = 0, d_model = 0, heads = 0, d_k = 0, d_ff = 0;
  int positions = 0;  // n_positions / max_position_embeddings: the most tokens the model reads
  int vocab_size = 0;
  int type_vocab_size = 0;  // bert only
  float eps = 1e-5f;        // layer_norm_epsilon / layer_norm_eps
  std::string activation;   // activation_function / hidden_act: gelu_new, gelu, relu, ...
  bool causal = false;      // gpt2 true, bert false
};

// Reads config.json's text. Throws ap::Error: model_unsupported (one sentence naming the
// model_type and the supported ones, or an option of the architecture that is not read, such as
// GPT-2's scale_attn_by_inverse_layer_idx), model_config (a missing or out-of-range field, named
// with `file`), or the JSON reader's own errors.
HfConfig parse_hf_config(std::string_view text, std::string_view file = kHfConfigFile);

// One layer's weights in the forward pass's orientation (x W, as attention.hpp's).
struct HfLayer {
  LayerNormParams norm_attn;  // gpt2 ln_1 (before attention); bert attention.output.LayerNorm
  Weights attn;               // W_Q, W_K, W_V, W_O with b_Q, b_K, b_V, b_O
  LayerNormParams norm_ffn;   // gpt2 ln_2 (before the FFN); bert output.LayerNorm (after it)
  Matrix W_1, b_1;            // d_model x d_ff, 1 x d_ff
  Matrix W_2, b_2;            // d_ff x d_model, 1 x d_model
  // The products' weights packed once (HfWeightsReader, pack_hf_weights): [W_Q | W_K | W_V]
  // (d_model x 3 h d_k), W_O, W_1, W_2. Where they are, the plain W_Q, W_K, W_V, W_O, W_1 and W_2
  // above are empty (the biases stay): the trace reads a head's columns back from the panels
  // (PackedB::columns). Empty natively, and where memory did not allow them: the plain matrices
  // then hold the weights and each product packs its own.
  PackedB packed_qkv, packed_W_O, packed_W_1, packed_W_2;
};

struct HfModel {
  HfConfig config;
  Matrix token_rows;           // V x d_model: gpt2 wte, bert word_embeddings
  Matrix position_rows;        // P x d_model: gpt2 wpe, bert position_embeddings
  Matrix type_row;             // 1 x d_model: bert token_type_embeddings[0]; empty for gpt2
  LayerNormParams norm_embed;  // bert embeddings.LayerNorm; empty for gpt2
  std::vector<HfLayer> layers;
  LayerNormParams norm_out;  // gpt2 ln_f; empty for bert
  std::string dtype;         // of the token rows in the file: F32, F16 or BF16
  std::uint64_t file_bytes = 0;
  std::uint64_t parameters = 0;  // numbers read from the file
};

// Reads the weights the config names from a safetensors file's bytes (`file` names it in
// messages). Tensor names with or without the "transformer." (gpt2) or "bert." (bert) prefix;
// gpt2's lm_head.* and attn.bias / attn.masked_bias buffers and bert's cls.*, pooler.* and
// position_ids are not read; bert's old LayerNorm.gamma / .beta names are. Throws ap::Error:
// safetensors_invalid (the layout, safetensors.hpp), model_weights (a tensor missing, or its
// shape or dtype not what the config says, or NaN or infinite, naming the file and the tensor).
// The whole file at once: an HfWeightsReader given every byte.
HfModel load_hf_model(const HfConfig& config, const unsigned char* bytes, std::size_t size,
                      std::string_view file = kHfWeightsFile);

// Reads a model.safetensors in slices, in the file's order, each tensor straight into its home
// in the model: the token and position rows, LayerNorms and biases into their matrices; the
// products' weights ([W_Q | W_K | W_V], W_O, W_1, W_2) into their PackedB panels when `pack`
// (the plain matrices then stay empty), else into the plain matrices. So the model's memory is
// its weights once, plus the header; never the file. Tensors the model does not read are
// skipped. The checks and errors are load_hf_model's: the header's as soon as its bytes are in,
// every tensor's name, shape and dtype before any tensor's bytes, each number as it is read.
// After a throw the reader is spent.
class HfWeightsReader {
 public:
  // file_size: the file's length in bytes; pack: by default where gemm has a packed kernel
  // (WebAssembly SIMD128).
  HfWeightsReader(const HfConfig& config, std::uint64_t file_size,
                  std::string_view file = kHfWeightsFile, bool pack = gemm_uses_simd128());
  ~HfWeightsReader();
  HfWeightsReader(const HfWeightsReader&) = delete;
  HfWeightsReader& operator=(const HfWeightsReader&) = delete;
  // The file's next `size` bytes (any slicing: a number may be split between two calls).
  void read(const unsigned char* bytes, std::size_t size);
  // The model, once all file_size bytes were read.
  HfModel finish();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The attention limits of this model (its own positions, d_model and heads), for attend; its
// attention-cell cap is positions x positions x heads.
AttentionLimits hf_limits(const HfConfig& c);

// The full forward of ids (each in [0, V), at most P of them). out.trace is layer `layer`'s
// attention with every head's every stage (-1: the last layer); out.network.layers[l] holds each
// layer's input, LayerNorms, mid, output and, in attn.head[h].weights, every head's weights (the
// other stages are left empty there); network.norm_out.y is the read-out Y. out.embeddings is the
// token rows, out.positions the position rows (bert: plus token type 0's row), out.ids the ids.
// Tokens are the caller's (their texts are not read). Throws ap::Error: bad_token_id,
// too_many_tokens (naming the model's limit), bad_layer.
TextTrace hf_forward(const HfModel& m, const std::vector<int>& ids, int layer = -1);

// Layer l of a trace hf_forward made, as the walk a learner follows from its input to its output
// (network.hpp's LayerWalk): gpt2 pre-LayerNorm (ln_1, attention, add, ln_2, MLP, add; the
// attention reads step 0), bert post-LayerNorm (attention on the input, add, LayerNorm,
// feed-forward, add, LayerNorm). Each norm step carries the model's epsilon. Pointers are into
// `t` and `m`. Throws ap::Error shape_mismatch for a layer the trace does not have.
LayerWalk hf_layer_walk(const HfModel& m, const NetworkTrace& t, int l);

// Packs every layer's weights for gemm's packed kernel (gemm.hpp PackedB), where there is one
// (WebAssembly SIMD128): hf_readout and hf_forward then read them instead of packing the same
// weights on every product. Each layer's plain matrices are dropped once packed (a layer already
// packed is left as it is), so the weights are held once; a layer that memory did not allow keeps
// its plain matrices.
void pack_hf_weights(HfModel& m);
// One layer, as pack_hf_weights packs each (a reader that makes a model layer by layer).
void pack_hf_layer(HfLayer& L);

// The read-out alone: Y (n x d_model) of the full forward of ids, the same numbers as
// hf_forward(m, ids).network.norm_out.y up to float rounding, keeping no trace (what another
// engine's "last hidden state" is, for comparing and timing engines). The same passes, faster:
// one product for Q, K and V of every head, softmax over the keys a causal query sees only, and
// gelu_new in SIMD128 lanes under WebAssembly. Throws as hf_forward.
Matrix hf_readout(const HfModel& m, const std::vector<int>& ids);

// The tokens of an encoding as a trace shows them: each piece's text, bytes and id; special
// tokens ([CLS], <|endoftext|>) are Symbol, the rest Word, all known.
std::vector<Token> hf_tokens(const hf::Encoding& e);

// Checks that the tokenizer's ids fit the model's vocabulary rows: ap::Error model_config naming
// both sizes when the tokenizer has more tokens than config.json's vocab_size (a tokenizer from
// another model). Fewer is normal (GPT-2's rows are padded in some checkpoints).
void check_tokenizer(const HfConfig& c, const hf::Tokenizer& t);

// A Hugging Face model behind the one interface (text_model.hpp), with its own tokenizer: a
// function from text to tokens that each carry their id (Token::id). The model fixes every
// setting (its shape, causal for gpt2, scale on, temperature 1, its own positions); the settings'
// max_tokens is replaced by the model's own limit.
class HfTextModel : public TextModel {
 public:
  using Tokenizer = std::function<std::vector<Token>(std::string_view text)>;
  // Both pack the model's weights (pack_hf_weights).
  HfTextModel(HfModel m, Tokenizer tokenizer);
  // With the folder's own tokenizer (check_tokenizer first).
  HfTextModel(HfModel m, std::shared_ptr<const hf::Tokenizer> tokenizer);
  std::string kind() const override { return m_.config.model_type; }
  const HfModel& model() const { return m_; }
  std::vector<Token> tokenize(std::string_view text, const Settings& s) const override;
  TextTrace forward(std::vector<Token> tokens, const Settings& s, int layer) const override;

 private:
  HfModel m_;
  Tokenizer tokenizer_;
};

}  // namespace ap
