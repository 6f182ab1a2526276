// attention.cpp: the forward pass, written as the page's numbered passes.
#include "attention.hpp"

#include <cmath>
#include <string>

#include "error.hpp"
#include "gemm.hpp"

namespace ap {

namespace {
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::string shape(const Matrix& m) {
  return std::to_string(m.rows()) + "x" + std::to_string(m.cols());
}

void require_finite(MatrixRef m, const char* name) {
  if (!m.allFinite())
    throw Error("non_finite", std::string(name) +
                                  " contains NaN or infinity: every entry must be a finite number");
}

void require_shape(const Matrix& m, Eigen::Index rows, Eigen::Index cols, const char* name,
                   const char* why) {
  if (m.rows() != rows || m.cols() != cols)
    throw Error("shape_mismatch", std::string(name) + " is " + shape(m) + " but must be " +
                                      std::to_string(rows) + "x" + std::to_string(cols) + " (" +
                                      why + ")");
}

void validate_options(const AttentionOptions& opt, const AttentionLimits& lim) {
  if (opt.heads < 1 || opt.heads > lim.max_heads)
    throw Error("bad_heads", "heads must be between 1 and " + std::to_string(lim.max_heads) +
                                 ", got " + std::to_string(opt.heads));
  if (!(opt.temperature > 0.0f) || !(opt.temperature <= kMaxTemperature))
    throw Error("bad_temperature", "temperature must be greater than 0 and at most " +
                                       std::to_string(static_cast<int>(kMaxTemperature)) +
                                       ", got " + std::to_string(opt.temperature));
}
}  // namespace

SoftmaxRow softmax_exps(const float* x, Eigen::Index k, float temperature, float* exps,
                        float* shifted) {
  SoftmaxRow r;
  r.max = kNegInf;
  for (Eigen::Index j = 0; j < k; ++j) {
    if (std::isnan(x[j])) {  // a row with a NaN has nothing to compare: "nothing visible"
      r.max = x[j];
      break;
    }
    if (x[j] > r.max) r.max = x[j];
  }
  const bool none = r.max == kNegInf || std::isnan(r.max);
  for (Eigen::Index j = 0; j < k; ++j) {
    // +inf ties with the max; everything else is finite or -inf
    const float z = (none || x[j] == r.max) ? 0.0f : (x[j] - r.max) / temperature;
    if (shifted) shifted[j] = z;
    exps[j] = std::exp(z);
    r.sum += exps[j];
  }
  return r;
}

Matrix softmax_rows(MatrixRef x, float temperature) {
  Matrix out(x.rows(), x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    const SoftmaxRow r = softmax_exps(x.row(i).data(), x.cols(), temperature, out.row(i).data());
    out.row(i) /= r.sum;
  }
  return out;
}

Trace attend(MatrixRef X, const Weights& w, const AttentionOptions& opt,
             const AttentionLimits& lim) {
  validate_options(opt, lim);
  const int n = static_cast<int>(X.rows());
  const int d_model = static_cast<int>(X.cols());
  if (n < 1) throw Error("empty_input", "X has no rows: give at least one token vector");
  if (n > lim.max_sequence)
    throw Error("too_many_tokens", "X has " + std::to_string(n) + " rows; the limit is " +
                                       std::to_string(lim.max_sequence));
  if (d_model < 1 || d_model > lim.max_d_model)
    throw Error("bad_d_model", "d_model (the columns of X) must be between 1 and " +
                                   std::to_string(lim.max_d_model) + ", got " +
                                   std::to_string(d_model));
  const Eigen::Index hd = w.W_Q.cols();
  if (hd < 1 || hd % opt.heads != 0)
    throw Error("shape_mismatch", "W_Q has " + std::to_string(hd) +
                                      " columns, which must be heads x d_k (heads = " +
                                      std::to_string(opt.heads) + ")");
  if (hd > lim.max_head_width)
    throw Error("bad_d_k",
                "W_Q has " + std::to_string(hd) + " columns (heads x d_k); the limit is " +
                    std::to_string(lim.max_head_width) + ": use fewer heads or a smaller d_k");
  const int h = opt.heads;
  const int d_k = static_cast<int>(hd / h);
  const long long cells = static_cast<long long>(n) * n * h;
  if (cells > opt.max_attention_cells)
    throw Error("too_much_attention",
                std::to_string(n) + " tokens x " + std::to_string(n) + " x " + std::to_string(h) +
                    " heads is " + std::to_string(cells) + " attention weights; the limit is " +
                    std::to_string(opt.max_attention_cells) + ": use fewer tokens or fewer heads");
  require_shape(w.W_Q, d_model, hd, "W_Q", "d_model x heads*d_k");
  require_shape(w.W_K, d_model, hd, "W_K", "d_model x heads*d_k");
  require_shape(w.W_V, d_model, hd, "W_V", "d_model x heads*d_k");
  if (w.W_O.size() != 0) require_shape(w.W_O, hd, d_model, "W_O", "heads*d_k x d_model");
  if (w.b_Q.size() != 0) require_shape(w.b_Q, 1, hd, "b_Q", "1 x heads*d_k");
  if (w.b_K.size() != 0) require_shape(w.b_K, 1, hd, "b_K", "1 x heads*d_k");
  if (w.b_V.size() != 0) require_shape(w.b_V, 1, hd, "b_V", "1 x heads*d_k");
  if (w.b_O.size() != 0) require_shape(w.b_O, 1, d_model, "b_O", "1 x d_model");
  require_finite(X, "X");
  require_finite(w.W_Q, "W_Q");
  require_finite(w.W_K, "W_K");
  require_finite(w.W_V, "W_V");
  require_finite(w.W_O, "W_O");
  require_finite(w.b_Q, "b_Q");
  require_finite(w.b_K, "b_K");
  require_finite(w.b_V, "b_V");
  require_finite(w.b_O, "b_O");

  Trace t;
  t.n = n;
  t.d_model = d_model;
  t.heads = h;
  t.d_k = d_k;
  t.options = opt;
  t.scale_factor = opt.scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
  t.X = X;
  t.concat.resize(n, hd);
  t.head.resize(h);
  for (int i = 0; i < h; ++i) {
    HeadTrace& H = t.head[i];
    H.W_Q = w.W_Q.middleCols(i * d_k, d_k);
    H.W_K = w.W_K.middleCols(i * d_k, d_k);
    H.W_V = w.W_V.middleCols(i * d_k, d_k);
    // pass 1: project. Q, K, V: n x d_k (plus each column's bias, when the weights have one)
    gemm(t.X, H.W_Q, H.Q);
    gemm(t.X, H.W_K, H.K);
    gemm(t.X, H.W_V, H.V);
    if (w.b_Q.size() != 0) {
      H.b_Q = w.b_Q.middleCols(i * d_k, d_k);
      H.Q.rowwise() += H.b_Q.row(0);
    }
    if (w.b_K.size() != 0) {
      H.b_K = w.b_K.middleCols(i * d_k, d_k);
      H.K.rowwise() += H.b_K.row(0);
    }
    if (w.b_V.size() != 0) {
      H.b_V = w.b_V.middleCols(i * d_k, d_k);
      H.V.rowwise() += H.b_V.row(0);
    }
    // pass 2: score. scores: n x n, row i = query i, column j = key j
    gemm_abt(H.Q, H.K, H.scores);
    // pass 3: scale by 1/sqrt(d_k)
    H.scaled = H.scores * t.scale_factor;
    // pass 4: mask the future (j > i) with -inf
    H.masked = H.scaled;
    if (opt.causal)
      for (int r = 0; r < n; ++r)
        for (int c = r + 1; c < n; ++c) H.masked(r, c) = kNegInf;
    // pass 5: softmax each row (with temperature)
    H.weights = softmax_rows(H.masked, opt.temperature);
    // pass 6: mix values. output: n x d_k, row i = sum_j weights(i, j) V_j
    gemm(H.weights, H.V, H.output);
    // pass 7: merge heads (concatenate)
    t.concat.middleCols(i * d_k, d_k) = H.output;
  }
  // pass 8: output projection
  if (w.W_O.size() != 0) {
    t.W_O = w.W_O;
  } else {
    t.W_O = Matrix::Identity(hd, hd);
  }
  gemm(t.concat, t.W_O, t.output);
  if (w.b_O.size() != 0) t.output.rowwise() += w.b_O.row(0);
  // Q K^T squares the inputs' size: the scores can overflow while the output stays finite
  bool finite = t.output.allFinite();
  for (const HeadTrace& H : t.head) finite = finite && H.scores.allFinite();
  if (!finite)
    throw Error("overflow",
                "the numbers grew beyond float32 range (about 3.4e38): use smaller "
                "inputs or weights");
  return t;
}

SoftmaxSteps softmax_steps(const RowVector& scores, float temperature) {
  if (!(temperature > 0.0f) || !(temperature <= kMaxTemperature))
    throw Error("bad_temperature", "temperature must be greater than 0 and at most " +
                                       std::to_string(static_cast<int>(kMaxTemperature)));
  if (scores.size() < 1) throw Error("empty_input", "give at least one score");
  if (scores.size() > kMaxSequence)
    throw Error("too_many_scores", "at most " + std::to_string(kMaxSequence) + " scores");
  for (Eigen::Index j = 0; j < scores.size(); ++j)
    if (std::isnan(scores[j]) || scores[j] == std::numeric_limits<float>::infinity())
      throw Error("non_finite", "scores must be numbers (-inf is allowed, meaning masked)");
  SoftmaxSteps s;
  s.input = scores;
  s.exps.resize(scores.size());
  s.shifted.resize(scores.size());
  const SoftmaxRow r =
      softmax_exps(scores.data(), scores.size(), temperature, s.exps.data(), s.shifted.data());
  s.max = r.max;
  s.sum = r.sum;
  s.weights = s.exps / s.sum;
  return s;
}

namespace {
void require_vector_length(Eigen::Index n, const char* name) {
  if (n > kMaxVectorLength)
    throw Error("too_many_values", std::string(name) + " has " + std::to_string(n) +
                                       " numbers; the limit is " +
                                       std::to_string(kMaxVectorLength));
}
}  // namespace

DotSteps dot_steps(const RowVector& q, const RowVector& k) {
  require_vector_length(q.size(), "q");
  require_vector_length(k.size(), "k");
  if (q.size() != k.size() || q.size() < 1)
    throw Error("shape_mismatch", "q and k must have the same, non-zero length");
  if (!q.allFinite() || !k.allFinite())
    throw Error("non_finite", "q and k must be finite numbers (no NaN or infinity)");
  DotSteps d;
  d.products = q.cwiseProduct(k);
  d.dot = d.products.sum();
  // stableNorm: |q| is finite whenever q is, where the sum of squares would overflow first
  d.norm_q = q.stableNorm();
  d.norm_k = k.stableNorm();
  // divided one norm at a time: their product can overflow where the cosine does not
  d.cosine = d.norm_q > 0.0f && d.norm_k > 0.0f
                 ? std::max(-1.0f, std::min(1.0f, d.dot / d.norm_q / d.norm_k))
                 : 0.0f;
  d.angle_degrees = std::acos(d.cosine) * 57.29577951308232f;
  d.scaled = d.dot / std::sqrt(static_cast<float>(q.size()));
  // a product or their sum beyond float32 (about 3.4e38) is refused, as attend refuses a score
  if (!d.products.allFinite() || !std::isfinite(d.dot) || !std::isfinite(d.norm_q) ||
      !std::isfinite(d.norm_k))
    throw Error("overflow", "q . k grew beyond float32 range (about 3.4e38): use smaller numbers");
  return d;
}

float finite_range(const RowVector& row) {
  require_vector_length(row.size(), "the row");
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (Eigen::Index j = 0; j < row.size(); ++j) {
    if (!std::isfinite(row[j])) continue;
    lo = std::min(lo, row[j]);
    hi = std::max(hi, row[j]);
  }
  return hi >= lo ? hi - lo : 0.0f;
}

}  // namespace ap
