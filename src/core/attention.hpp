// attention.hpp: multi-head scaled dot-product attention that keeps every intermediate stage.
// The passes are numbered exactly as the page's steps: project, score, scale, mask, softmax,
// mix values, merge heads. This is the readable reference; it is not a training graph.
//
// Shapes: n tokens, d_model, h heads, d_k per head.
//   X: n x d_model.  W_Q, W_K, W_V: d_model x (h*d_k); head i uses columns [i*d_k, (i+1)*d_k).
//   W_O: (h*d_k) x d_model.
#pragma once
#include <limits>
#include <vector>

#include "matrix.hpp"

namespace ap {

constexpr int kMaxDModel = 1024;
constexpr int kMaxHeads = 16;
constexpr int kMaxSequence = 512;
constexpr float kMaxTemperature = 1000.0f;
// h*d_k, the width of Q, K, V and the merged heads.
constexpr int kMaxHeadWidth = 1024;
// The page's memory budget for n x n x h, the cells of one layer's score matrices over all heads:
// each of scores, scaled, masked and weights has that many numbers: 512 tokens with 8 heads, 362
// with 16. With the caps above a trace then holds at most about 10 million numbers (n = 512,
// d_model = 1024, 8 heads), which bounds the memory of a trace and the size of the CLI's JSON of
// it. It is the default of AttentionOptions::max_attention_cells; a caller that runs a real
// model's size (the native benchmark, a loaded GPT-2 or BERT) passes that model's own limit.
constexpr long long kMaxAttentionCells = 512LL * 512 * 8;
// Rows and columns of any matrix handed to attend from outside (the CLI's JSON, the bench's
// matrices): a bound on what is read before any shape check.
constexpr int kMaxMatrixSide = 4096;
// The longest row softmax_steps, dot_steps and finite_range take (a row of scores has n <= 512
// entries, a row of Q or K at most d_k <= kMaxHeadWidth).
constexpr int kMaxVectorLength = kMaxHeadWidth;

// The sizes attend accepts besides the attention-cell cap (AttentionOptions). The defaults are the
// page's budget (the constants above); a caller that brings a model of its own (a Hugging Face
// model's n_positions, d_model, heads) passes that model's limits instead.
struct AttentionLimits {
  int max_sequence = kMaxSequence;
  int max_d_model = kMaxDModel;
  int max_heads = kMaxHeads;
  int max_head_width = kMaxHeadWidth;
};

struct AttentionOptions {
  int heads = 1;
  bool causal = false;       // query i may only look at keys j <= i
  bool scale = true;         // divide scores by sqrt(d_k)
  float temperature = 1.0f;  // softmax(masked / temperature); > 0
  // The most n x n x heads cells attend() accepts; the page's budget unless the caller's model
  // sets its own. Not a setting a learner changes, so no trace or settings object carries it.
  long long max_attention_cells = kMaxAttentionCells;
};

struct Weights {
  Matrix W_Q, W_K, W_V;  // d_model x (h*d_k)
  Matrix W_O;            // (h*d_k) x d_model; empty means "no output projection" (identity)
  // Biases (a Hugging Face model has them; the playground's own weights do not): 1 x (h*d_k)
  // added to X W_Q, X W_K, X W_V, and 1 x d_model added to the output; empty means none.
  Matrix b_Q, b_K, b_V, b_O;
};

struct HeadTrace {
  Matrix W_Q, W_K, W_V;  // d_model x d_k, this head's columns
  Matrix b_Q, b_K, b_V;  // 1 x d_k, this head's bias entries; empty when the weights have none
  Matrix Q, K, V;        // n x d_k        pass 1: project (X W + b)
  Matrix scores;         // n x n, row = query i, column = key j   pass 2: score = Q K^T
  Matrix scaled;         // n x n                                   pass 3: scale
  Matrix masked;         // n x n, -inf where j > i when causal     pass 4: mask
  Matrix weights;        // n x n, rows sum to 1                    pass 5: softmax
  Matrix output;         // n x d_k                                 pass 6: mix values
};

struct Trace {
  int n = 0, d_model = 0, heads = 0, d_k = 0;
  AttentionOptions options;
  float scale_factor = 1.0f;  // 1/sqrt(d_k), or 1 when scaling is off
  Matrix X;                   // n x d_model
  std::vector<HeadTrace> head;
  Matrix concat;  // n x (h*d_k)                                    pass 7: merge heads
  Matrix W_O;     // (h*d_k) x d_model (identity when none was given)
  Matrix output;  // n x d_model (concat W_O + b_O)
};

// Validates shapes, finiteness and options against `limits` (throws ap::Error), then runs every
// pass.
Trace attend(MatrixRef X, const Weights& w, const AttentionOptions& opt,
             const AttentionLimits& limits = {});

// The one softmax, for one row of k values: writes e_j = exp((x_j - max) / temperature) to exps
// and returns the row's max and the sum of the e_j. Subtracting the max first means huge scores,
// -inf (masked) entries and tiny temperatures never overflow; the max itself gives e = 1 exactly
// (also when it is +inf). A row with nothing visible (max -inf or NaN) gets e_j = 1 for all j, so
// it divides out to equal weights. x and exps may be the same memory; shifted, when given, gets
// the exponents. Every softmax in the core (the forward pass, the step-by-step panel, the
// explainer, the training loss) calls this.
struct SoftmaxRow {
  float max = 0;
  float sum = 0;
};
SoftmaxRow softmax_exps(const float* x, Eigen::Index k, float temperature, float* exps,
                        float* shifted = nullptr);

// Row softmax of (x / temperature): softmax_exps, then each row divided by its sum. Ties share
// equally; a row with nothing visible gets equal weights.
Matrix softmax_rows(MatrixRef x, float temperature = 1.0f);

// The softmax of one row, step by step, for the page's "enter raw scores yourself" panel.
struct SoftmaxSteps {
  RowVector input;    // as given
  float max = 0;      // row maximum
  RowVector shifted;  // (input - max) / temperature
  RowVector exps;     // exp(shifted)
  float sum = 0;      // sum of exps
  RowVector weights;  // exps / sum
};
SoftmaxSteps softmax_steps(const RowVector& scores, float temperature = 1.0f);

// One score cell explained: q . k as element-wise products, norms and the angle between them.
struct DotSteps {
  RowVector products;  // q_t * k_t
  float dot = 0;       // sum of products
  float norm_q = 0, norm_k = 0;
  float cosine = 0;         // dot / (|q||k|), 0 when either is zero
  float angle_degrees = 0;  // acos(cosine)
  float scaled = 0;         // dot / sqrt(d_k)
};
DotSteps dot_steps(const RowVector& q, const RowVector& k);

// How spread out a row is: max - min over its finite entries (the "why sqrt(d_k)" numbers).
float finite_range(const RowVector& row);

}  // namespace ap
