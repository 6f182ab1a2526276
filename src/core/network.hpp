// network.hpp: the trained model's stack of layers: pre-LayerNorm transformer blocks (multi-head
// attention and a small feed-forward block, each added to the residual stream) and a final
// LayerNorm, with a forward pass that keeps every intermediate and its exact reverse. Not the
// attention maths itself (attention.hpp / backward.hpp, which every layer calls), not the file
// format (model_file.hpp) and not the training loop (trainer.hpp).
//
// Shapes: n tokens, d_model, h heads, d_k per head, d_ff feed-forward width, L layers.
//
// Layer l reads the residual stream X_l (n x d_model; X_0 = E[ids] + P) and writes X_{l+1}:
//   pass A1  Z = LayerNorm(X_l; gain_a, bias_a)   each row: (x - mean) / sqrt(var + eps) * gain +
//   bias pass A2  A = attend(Z, W_Q, W_K, W_V, W_O)    the page's passes 1-8, every head pass A3  M
//   = X_l + A                          residual: the token keeps what it was pass F1  U =
//   LayerNorm(M; gain_f, bias_f) pass F2  H = relu(U W_1 + b_1)                 n x d_ff pass F3
//   X_{l+1} = M + H W_2 + b_2             residual
// then the read-out Y = LayerNorm(X_L; gain_out, bias_out), n x d_model (logits are Y E^T).
// Because of the residual stream, a later layer's query for a token carries what earlier layers
// gathered from the words around it; with one layer it would carry only the token and position.
// While training, residual dropout (Dropout) may zero entries of A and of H W_2 + b_2 before they
// join the stream; the page's forward pass has none.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention.hpp"
#include "rng.hpp"

namespace ap {

constexpr float kLayerNormEps = 1e-5f;
constexpr int kMaxLayers = 8;
constexpr int kMaxFeedForward = 4096;

struct LayerNormParams {
  Matrix gain, bias;  // 1 x d_model each
};

struct Layer {
  LayerNormParams norm_attn;  // pass A1
  Weights attn;               // pass A2: W_Q, W_K, W_V d_model x (h*d_k); W_O (h*d_k) x d_model
  LayerNormParams norm_ffn;   // pass F1
  Matrix W_1, b_1;            // pass F2: d_model x d_ff, 1 x d_ff
  Matrix W_2, b_2;            // pass F3: d_ff x d_model, 1 x d_model
};

struct Network {
  int d_model = 0, heads = 0, d_k = 0, d_ff = 0;
  std::vector<Layer> layers;
  LayerNormParams norm_out;
  int depth() const { return static_cast<int>(layers.size()); }
};

// Throws ap::Error("model_invalid") naming the first bad dimension.
void check_network_shape(int d_model, int heads, int d_k, int d_ff, int layers);

// Seeded start: attention weights N(0, 1/d_model) (W_O N(0, 1/(h*d_k))), W_1 N(0, 1/d_model),
// W_2 N(0, 1/(d_ff * 2L)), gains 1, biases 0.
Network init_network(int d_model, int heads, int d_k, int d_ff, int layers, std::uint64_t seed);

// Every parameter in one fixed order with its name ("layer1.W_Q", "out.gain"): the file format,
// the optimiser and the gradient checks all walk this list.
std::vector<std::pair<std::string, Matrix*>> parameters(Network& net);
std::vector<std::pair<std::string, const Matrix*>> parameters(const Network& net);
// The name, rows and columns of every parameter of a network of this shape, in the order of
// parameters(Network), without making the network: a model file's reader checks that the file
// holds every parameter's bytes before it allocates any of them.
struct ParameterShape {
  std::string name;
  Eigen::Index rows, cols;
};
std::vector<ParameterShape> parameter_shapes(int d_model, int heads, int d_k, int d_ff, int layers);
// The same structure with every parameter zero (a gradient accumulator).
Network zeros_like(const Network& net);

struct NormTrace {
  Matrix xhat;  // n x d_model: (x - mean) / sqrt(var + eps)
  Vector mean;  // n: each row's mean
  Vector std;   // n: each row's spread, sqrt(var + eps)
  Vector rstd;  // n: 1 / sqrt(var + eps)
  Matrix y;     // n x d_model: xhat * gain + bias
};
NormTrace layer_norm(MatrixRef x, const LayerNormParams& p);
// Reverse of layer_norm: returns dL/dx and adds dL/dgain, dL/dbias into grad.
Matrix layer_norm_backward(const NormTrace& t, const LayerNormParams& p, MatrixRef dy,
                           LayerNormParams& grad);

struct LayerTrace {
  Matrix input;         // X_l
  NormTrace norm_attn;  // .y = Z, the attention's input
  Trace attn;           // attend(Z): attn.X = Z, attn.output = A
  Matrix mid;           // M = X_l + A
  NormTrace norm_ffn;   // .y = U
  Matrix hidden;        // H = relu(U W_1 + b_1): n x d_ff
  Matrix ffn_out;       // F = H W_2 + b_2 (after dropout): what pass F3 adds to M, n x d_model
  Matrix output;        // X_{l+1}
  // a post-LayerNorm layer (BERT, hf_model.hpp): the residual sums its two LayerNorms read,
  // input + A and mid + F (n x d_model); empty for a pre-LayerNorm layer, whose sums are mid and
  // output
  Matrix sum_attn, sum_ffn;
  // residual dropout while training (Dropout below): per entry 0 or 1 / (1 - rate), n x d_model,
  // multiplying A in pass A3 and H W_2 + b_2 in pass F3; empty when there is none (inference)
  Matrix keep_attn, keep_ffn;
};

// One layer read as the walk a learner follows from its input to its output, in the order the
// steps run. A step reads earlier steps (kLayerInput = the layer's input X_l) and makes one
// n x d_model matrix. The kinds are the same for every transformer block; where the LayerNorms sit
// (before each block, as here and in GPT-2, or after each residual add, as in BERT) is only the
// order and the `from` of the steps, so a page that follows the walk needs no other knowledge of
// the architecture. Pointers are into the trace and the network: valid while both live.
enum class StepKind { norm, attention, add, feed_forward };
const char* to_string(StepKind k);
constexpr int kLayerInput = -1;

struct WalkStep {
  StepKind kind = StepKind::add;
  const char* name = "";            // "norm_attn", "attention", "residual_attn", "norm_ffn", ...
  std::vector<int> from;            // the steps it reads, in order (add: the two it sums)
  const Matrix* out = nullptr;      // n x d_model
  const NormTrace* norm = nullptr;  // norm: the row statistics
  const LayerNormParams* params = nullptr;  // norm: gain and bias
  const Matrix* hidden = nullptr;           // feed_forward: relu(U W_1 + b_1), n x d_ff
  float eps = kLayerNormEps;                // norm: the epsilon under its square root
};

struct LayerWalk {
  std::vector<WalkStep> steps;
  int attention_input = kLayerInput;  // the step whose out is the attention's X

  // Appends a step and returns it (valid until the next append). The shipped network's walk and
  // a real model's are built with these two.
  WalkStep* add_step(StepKind kind, const char* name, std::vector<int> from, const Matrix* out);
  // A LayerNorm step reading step `from`: its output, row statistics, gain and bias, epsilon.
  WalkStep* add_norm(const char* name, int from, const NormTrace& nt, const LayerNormParams& p,
                     float eps = kLayerNormEps);
};

struct NetworkTrace {
  std::vector<LayerTrace> layers;
  NormTrace norm_out;  // .y = Y, the read-out
};

// The walk of layer l of a pre-LayerNorm network: norm_attn, attention, residual_attn, norm_ffn,
// feed_forward, residual_ffn; the attention reads step 0.
LayerWalk layer_walk(const Network& net, const NetworkTrace& t, int l);

// Residual dropout, for training only: each entry of a block's output (the attention's A, the
// feed-forward's H W_2 + b_2) is zeroed with chance rate before it joins the stream, the others
// scaled by 1 / (1 - rate). rate 0 (or no rng) is the plain forward pass and draws nothing.
struct Dropout {
  float rate = 0.0f;
  Rng* rng = nullptr;
};

// opt: the learner's causal / scale / temperature; opt.heads must be net.heads. The masks drop
// draws are kept in the trace, so network_backward reverses exactly this pass.
NetworkTrace network_forward(const Network& net, MatrixRef X, const AttentionOptions& opt,
                             const Dropout& drop = {});

// Reverse of network_forward. dY: dL/dY (n x d_model). extra_dweights, when given, holds for each
// layer either nothing or one n x n matrix per head added to dL/d(weights) (a loss on the attention
// weights themselves). Adds every parameter's gradient into grad (shaped as net) and returns dL/dX.
Matrix network_backward(const Network& net, const NetworkTrace& t, MatrixRef dY, Network& grad,
                        const std::vector<std::vector<Matrix>>* extra_dweights = nullptr);

// dL/dA of the last layer's attention output (n x d_model) for a given dL/dY: the read-out and the
// last feed-forward block reversed. The page's one-row gradient starts here.
Matrix last_attention_output_grad(const Network& net, const NetworkTrace& t, MatrixRef dY);

}  // namespace ap
