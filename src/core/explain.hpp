// explain.hpp: numbers the page shows to explain attention, beyond the trace itself: one
// example's gradient made readable (which scores the loss pushes up and which down, per head),
// the "why divide by sqrt(d_k)" experiment on random vectors, and the shapes of well-known
// models. Not training (trainer) and not the general backward pass (backward.hpp).
//
// Shapes: n tokens, d_model, h heads, d_k per head, V vocabulary rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention.hpp"
#include "model.hpp"
#include "model_file.hpp"

namespace ap {

struct HeadGradient {
  RowVector d_weights;  // 1 x n: dL/d weights(i, j) = dO_i . V_j (how much more of V_j would help)
  RowVector d_scores;   // 1 x n: dL/d (masked scores)(i, j); negative = the loss wants it higher
};

struct RowGradient {
  int row = 0;            // the query token i
  int target_word = 0;    // vocabulary row the output at i should name
  float loss = 0;         // -log p(target): the training loss (tied_cross_entropy) of this row
  float probability = 0;  // p(target) = softmax(output_i E^T)[target]
  RowVector d_output;     // 1 x d_model: dL/dA_i, A the last layer's attention output
  std::vector<HeadGradient> head;
};

// The model reads token `row` as softmax(Y_row E^T), Y its read-out (tied embeddings, as trained).
// The gradient runs back through the read-out and the last feed-forward block to the last layer's
// attention (t.trace), whose heads it splits. `target_word` is a vocabulary row (e.g. the
// antecedent's id). t must come from trace_text_with_model with m. Throws ap::Error on bad indices.
RowGradient explain_gradient(const TextTrace& t, const TrainedModel& m, int row, int target_word);

// The "why sqrt(d_k)" experiment. q and k have d_k independent N(0, 1) entries (the assumption
// of "Attention Is All You Need", footnote 4), so q . k has mean 0 and variance d_k: its spread
// grows like sqrt(d_k), and softmax of an unscaled row saturates. `rows` queries each meet `keys`
// keys (one attention row each); every q . k of every row is one sample.
struct ScaleDemo {
  int d_k = 0, keys = 0, rows = 0;
  float sqrt_d_k = 0;
  RowVector dots;           // 1 x (rows*keys): q_r . k_rj, row r's keys at [r*keys, (r+1)*keys)
  float mean = 0;           // mean of dots
  float spread = 0;         // standard deviation of dots
  float spread_scaled = 0;  // standard deviation of dots / sqrt(d_k)
  float top_raw = 0;        // mean over rows of the row's largest softmax weight, unscaled
  float top_scaled = 0;     // the same for the row divided by sqrt(d_k)
  // histograms of dots and of dots / sqrt(d_k) over the same `bins` equal bins of
  // [-range, range], range = the largest |q . k| (so both pictures share one axis)
  float range = 0;
  std::vector<int> hist_raw, hist_scaled;
};

// Limits of scale_demo's arguments (the page reads them; errors name them).
constexpr int kScaleDemoMaxDk = 4096;
constexpr int kScaleDemoMaxSamples = 1 << 16;       // rows * keys
constexpr long long kScaleDemoMaxWork = 1LL << 23;  // rows * (keys + 1) * d_k normal draws
constexpr int kScaleDemoMaxBins = 256;

// Deterministic for a seed. Throws ap::Error("bad_setting") on arguments outside the limits.
ScaleDemo scale_demo(int d_k, int keys, int rows, std::uint64_t seed, int bins);

// The d_k values the page's experiment steps through: 2, 4, 8, ..., 1024.
std::vector<int> scale_demo_dks();

// The shape of one attention layer of a published model: h heads of d_k, h * d_k = d_model.
struct ModelShape {
  std::string name;
  int heads = 0, d_k = 0, d_model = 0;
};

// BERT-base (Devlin et al. 2018: 12 heads, d_model 768) and GPT-3 175B (Brown et al. 2020:
// 96 heads of 128, d_model 12288).
const std::vector<ModelShape>& reference_shapes();

}  // namespace ap
