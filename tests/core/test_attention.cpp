// test_attention.cpp: attend, softmax_rows, softmax_steps, dot_steps and finite_range against
// NumPy fixtures (tests/fixtures/attention_v1.json), mathematical properties and error codes.
// Not the tokenizer or the seeded model (test_tokenizer.cpp, test_model.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "attention.hpp"
#include "error.hpp"
#include "rng.hpp"
#include "test_util.hpp"

using ap::Matrix;
using ap::RowVector;
using nlohmann::json;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kTol = 1e-5;

const json& fixture() {
  static const json j = [] {
    std::ifstream f(AP_FIXTURES_DIR "/attention_v1.json");
    REQUIRE_MESSAGE(f.good(),
                    "cannot open " AP_FIXTURES_DIR "/attention_v1.json: run scripts/gen_fixtures");
    return json::parse(f);
  }();
  return j;
}

// null in the fixture is -inf
float num(const json& v) { return v.is_null() ? -kInf : static_cast<float>(v.get<double>()); }

Matrix matrix(const json& rows) {
  Matrix m(rows.size(), rows.at(0).size());
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < rows[r].size(); ++c) m(r, c) = num(rows[r][c]);
  return m;
}

RowVector row_vector(const json& values) {
  RowVector v(values.size());
  for (std::size_t c = 0; c < values.size(); ++c) v[c] = num(values[c]);
  return v;
}

bool close(double got, double want) {
  return std::fabs(got - want) <= kTol * std::max(1.0, std::fabs(want));
}

// "" when got matches want (-inf exactly where want is null, else within kTol abs+rel);
// otherwise a description of the first mismatch, which doctest prints.
std::string mismatch(const Matrix& got, const json& want, const std::string& what) {
  if (got.rows() != static_cast<Eigen::Index>(want.size()) ||
      got.cols() != static_cast<Eigen::Index>(want.at(0).size()))
    return what + ": shape " + std::to_string(got.rows()) + "x" + std::to_string(got.cols());
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    for (Eigen::Index c = 0; c < got.cols(); ++c) {
      const json& w = want[r][c];
      const float g = got(r, c);
      const bool ok = w.is_null() ? g == -kInf : (std::isfinite(g) && close(g, w.get<double>()));
      if (!ok) {
        std::ostringstream os;
        os.precision(10);
        os << what << "(" << r << "," << c << "): got " << g << ", NumPy " << w.dump();
        return os.str();
      }
    }
  }
  return "";
}

std::string mismatch(const RowVector& got, const json& want, const std::string& what) {
  return mismatch(Matrix(got), json::array({want}), what);
}

ap::Weights weights_of(const json& in) {
  ap::Weights w;
  w.W_Q = matrix(in.at("W_Q"));
  w.W_K = matrix(in.at("W_K"));
  w.W_V = matrix(in.at("W_V"));
  if (in.contains("W_O")) w.W_O = matrix(in.at("W_O"));
  return w;
}

ap::AttentionOptions options_of(const json& in) {
  ap::AttentionOptions o;
  o.heads = in.at("heads").get<int>();
  o.causal = in.at("causal").get<bool>();
  o.scale = in.at("scale").get<bool>();
  o.temperature = static_cast<float>(in.at("temperature").get<double>());
  return o;
}

using ap_test::code_of;

Matrix random_matrix(int rows, int cols, std::uint64_t seed, double sd = 1.0) {
  ap::Rng rng(seed);
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal() * sd);
  return m;
}

ap::Weights random_weights(int d_model, int hd, std::uint64_t seed, bool with_w_o) {
  const double sd = 1.0 / std::sqrt(static_cast<double>(d_model));
  ap::Weights w;
  w.W_Q = random_matrix(d_model, hd, seed + 1, sd);
  w.W_K = random_matrix(d_model, hd, seed + 2, sd);
  w.W_V = random_matrix(d_model, hd, seed + 3, sd);
  if (with_w_o) w.W_O = random_matrix(hd, d_model, seed + 4, sd);
  return w;
}

bool all_finite(const ap::Trace& t) {
  bool ok = t.concat.allFinite() && t.output.allFinite();
  for (const ap::HeadTrace& h : t.head) ok = ok && h.weights.allFinite() && h.output.allFinite();
  return ok;
}

}  // namespace

TEST_CASE("fixture: format and contents") {
  const json& f = fixture();
  CHECK(f.at("format_version") == 1);
  std::vector<std::string> names;
  for (const json& c : f.at("cases")) names.push_back(c.at("name"));
  CHECK(std::find(names.begin(), names.end(), "seed_article") != names.end());
  CHECK(f.at("cases").size() >= 8);
  CHECK(f.at("softmax").size() >= 2);
}

TEST_CASE("fixture: every stage of every case matches NumPy") {
  for (const json& c : fixture().at("cases")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    const json& in = c.at("inputs");
    const json& ex = c.at("expected");
    const ap::Trace t = ap::attend(matrix(in.at("X")), weights_of(in), options_of(in));
    const int h = in.at("heads").get<int>();
    REQUIRE(t.heads == h);
    REQUIRE(static_cast<int>(t.head.size()) == h);
    CHECK(t.n == static_cast<int>(in.at("X").size()));
    CHECK(t.d_model == static_cast<int>(in.at("X").at(0).size()));
    CHECK(t.d_k == ex.at("d_k").get<int>());
    CHECK(close(t.scale_factor, ex.at("scale_factor").get<double>()));
    for (int i = 0; i < h; ++i) {
      const ap::HeadTrace& H = t.head[i];
      const json& E = ex.at("heads").at(i);
      const std::string p = name + " head " + std::to_string(i) + " ";
      CHECK(mismatch(H.Q, E.at("Q"), p + "Q") == "");
      CHECK(mismatch(H.K, E.at("K"), p + "K") == "");
      CHECK(mismatch(H.V, E.at("V"), p + "V") == "");
      CHECK(mismatch(H.scores, E.at("scores"), p + "scores") == "");
      CHECK(mismatch(H.scaled, E.at("scaled"), p + "scaled") == "");
      CHECK(mismatch(H.masked, E.at("masked"), p + "masked") == "");
      CHECK(mismatch(H.weights, E.at("weights"), p + "weights") == "");
      CHECK(mismatch(H.output, E.at("output"), p + "output") == "");
    }
    CHECK(mismatch(t.concat, ex.at("concat"), name + " concat") == "");
    CHECK(mismatch(t.output, ex.at("output"), name + " output") == "");
    if (!in.contains("W_O")) {
      const Eigen::Index hd = t.concat.cols();
      CHECK(t.W_O == Matrix::Identity(hd, hd));
    } else {
      CHECK(t.W_O == matrix(in.at("W_O")));
    }
  }
}

TEST_CASE("fixture: the article's example is there, verbatim shape") {
  const json* seed = nullptr;
  for (const json& c : fixture().at("cases"))
    if (c.at("name") == "seed_article") seed = &c;
  REQUIRE(seed != nullptr);
  const json& in = seed->at("inputs");
  CHECK(in.at("X").size() == 4);
  CHECK(in.at("X").at(0).size() == 8);
  CHECK(in.at("W_Q").size() == 8);
  CHECK(in.at("W_Q").at(0).size() == 4);
  CHECK_FALSE(in.contains("W_O"));
  CHECK(in.at("heads") == 1);
  CHECK(in.at("scale") == true);
  CHECK(in.at("causal") == false);
  // np.random.seed(42); np.random.randn() starts 0.4967141530112327 (float32: 0.49671414494514465)
  CHECK(in.at("X").at(0).at(0).get<double>() == doctest::Approx(0.4967141530112327).epsilon(1e-7));
}

TEST_CASE("fixture: softmax_steps matches NumPy") {
  for (const json& s : fixture().at("softmax")) {
    const std::string row = s.at("input").dump();
    CAPTURE(row);
    const float T = static_cast<float>(s.at("temperature").get<double>());
    const ap::SoftmaxSteps st = ap::softmax_steps(row_vector(s.at("input")), T);
    CHECK(mismatch(st.input, s.at("input"), "input") == "");
    CHECK(close(st.max, s.at("max").get<double>()));
    CHECK(mismatch(st.shifted, s.at("shifted"), "shifted") == "");
    CHECK(mismatch(st.exps, s.at("exps"), "exps") == "");
    CHECK(close(st.sum, s.at("sum").get<double>()));
    CHECK(mismatch(st.weights, s.at("weights"), "weights") == "");
    CHECK(st.weights.sum() == doctest::Approx(1.0).epsilon(1e-6));
    // softmax_rows agrees with the step-by-step version
    CHECK(mismatch(ap::softmax_rows(Matrix(st.input), T), json::array({s.at("weights")}),
                   "softmax_rows") == "");
  }
}

TEST_CASE("fixture: softmax_exps, the one softmax, in place and out of place") {
  for (const json& s : fixture().at("softmax")) {
    CAPTURE(s.at("input").dump());
    const float T = static_cast<float>(s.at("temperature").get<double>());
    const RowVector x = row_vector(s.at("input"));
    RowVector e(x.size()), z(x.size());
    const ap::SoftmaxRow r = ap::softmax_exps(x.data(), x.size(), T, e.data(), z.data());
    CHECK(close(r.max, s.at("max").get<double>()));
    CHECK(close(r.sum, s.at("sum").get<double>()));
    CHECK(mismatch(e, s.at("exps"), "exps") == "");
    CHECK(mismatch(z, s.at("shifted"), "shifted") == "");
    RowVector same = x;  // the training loss works in place
    const ap::SoftmaxRow r2 = ap::softmax_exps(same.data(), same.size(), T, same.data());
    CHECK(r2.sum == r.sum);
    CHECK(same == e);
  }
}

TEST_CASE("softmax_exps: nothing visible gives equal weights; +inf takes the max's place") {
  const float inf = std::numeric_limits<float>::infinity();
  RowVector hidden(3), e(3);
  hidden << -inf, -inf, -inf;
  ap::SoftmaxRow r = ap::softmax_exps(hidden.data(), 3, 1.0f, e.data());
  CHECK(r.sum == 3.0f);
  CHECK(e == RowVector::Ones(3));
  RowVector nan_row(2);
  nan_row << 1.0f, std::numeric_limits<float>::quiet_NaN();
  r = ap::softmax_exps(nan_row.data(), 2, 1.0f, e.data());
  CHECK(r.sum == 2.0f);
  RowVector big(2);
  big << inf, 0.0f;
  r = ap::softmax_exps(big.data(), 2, 1.0f, e.data());
  CHECK(e[0] == 1.0f);
  CHECK(e[1] == 0.0f);
}

TEST_CASE(
    "softmax_steps of [3.2, 1.8, 0.4] gives the true values, not the article's 0.72/0.22/0.06") {
  const json& first = fixture().at("softmax").at(0);
  REQUIRE(first.at("input").size() == 3);
  REQUIRE(first.at("temperature").get<double>() == 1.0);
  RowVector x(3);
  x << 3.2f, 1.8f, 0.4f;
  const ap::SoftmaxSteps st = ap::softmax_steps(x);
  for (int j = 0; j < 3; ++j) {
    CHECK(close(st.weights[j], first.at("weights").at(j).get<double>()));
  }
  // The article's rounded table is only illustrative: the true first weight is not 0.72.
  CHECK(std::fabs(st.weights[0] - 0.72f) > 0.01f);
  CHECK(st.max == 3.2f);
  CHECK(st.shifted[0] == 0.0f);
}

TEST_CASE("property: weights rows sum to 1 and causal zeroes the upper triangle") {
  for (const json& c : fixture().at("cases")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    const json& in = c.at("inputs");
    const ap::Trace t = ap::attend(matrix(in.at("X")), weights_of(in), options_of(in));
    for (const ap::HeadTrace& H : t.head) {
      for (Eigen::Index r = 0; r < H.weights.rows(); ++r) {
        CHECK(H.weights.row(r).sum() == doctest::Approx(1.0).epsilon(1e-6));
        CHECK(H.weights.row(r).minCoeff() >= 0.0f);
      }
      if (t.options.causal) {
        for (Eigen::Index r = 0; r < t.n; ++r)
          for (Eigen::Index col = r + 1; col < t.n; ++col) {
            CHECK(H.weights(r, col) == 0.0f);
            CHECK(H.masked(r, col) == -kInf);
          }
        CHECK(H.weights(0, 0) == 1.0f);  // the first token can only see itself
      }
    }
  }
  SUBCASE("a causal random case, many rows") {
    ap::AttentionOptions o;
    o.heads = 4;
    o.causal = true;
    const ap::Trace t = ap::attend(random_matrix(40, 16, 7), random_weights(16, 16, 70, true), o);
    for (const ap::HeadTrace& H : t.head) {
      CHECK(H.weights.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0f));
      CHECK(H.weights.rowwise().sum().isApproxToConstant(1.0f, 1e-6f));
      CHECK(H.masked.triangularView<Eigen::Lower>().toDenseMatrix() ==
            H.scaled.triangularView<Eigen::Lower>().toDenseMatrix());
    }
  }
  SUBCASE("non-causal attention does look ahead") {
    ap::AttentionOptions o;
    const ap::Trace t = ap::attend(random_matrix(6, 8, 8), random_weights(8, 8, 80, false), o);
    CHECK(t.head[0].weights(0, 5) > 0.0f);
    CHECK(t.head[0].masked == t.head[0].scaled);
  }
}

TEST_CASE("property: adding a constant to a score row leaves softmax_rows unchanged") {
  SUBCASE("exactly, when the shift is exact in float32") {
    Matrix x(3, 5);
    x << 0.5f, -1.25f, 2.0f, 0.0f, 3.75f,  //
        1.0f, 1.0f, 1.0f, -2.0f, 0.125f,   //
        -4.0f, 8.0f, 0.25f, 0.5f, -0.5f;
    Matrix shifted = x;
    shifted.row(0).array() += 64.0f;
    shifted.row(1).array() -= 32.0f;
    shifted.row(2).array() += 1024.0f;
    for (float T : {1.0f, 0.5f, 3.0f}) {
      CAPTURE(T);
      CHECK(ap::softmax_rows(shifted, T) == ap::softmax_rows(x, T));
    }
  }
  SUBCASE("closely, for random rows and constants") {
    const Matrix x = random_matrix(8, 10, 11);
    ap::Rng rng(12);
    Matrix shifted = x;
    for (Eigen::Index r = 0; r < x.rows(); ++r)
      shifted.row(r).array() += static_cast<float>(rng.normal() * 3.0);
    const Matrix a = ap::softmax_rows(x), b = ap::softmax_rows(shifted);
    CHECK((a - b).cwiseAbs().maxCoeff() < 1e-5f);
  }
  SUBCASE("a masked (-inf) entry stays at weight 0 after the shift") {
    Matrix x(1, 3);
    x << 1.0f, -kInf, 2.0f;
    Matrix y = x;
    y.array() += 10.0f;
    CHECK(std::isinf(y(0, 1)));
    const Matrix a = ap::softmax_rows(x), b = ap::softmax_rows(y);
    CHECK(a == b);
    CHECK(a(0, 1) == 0.0f);
  }
}

TEST_CASE("property: tying W_K = W_Q in attend gives symmetric scores") {
  const Matrix X = random_matrix(9, 12, 21);
  ap::Weights w = random_weights(12, 12, 210, true);
  ap::AttentionOptions o;
  o.heads = 3;
  SUBCASE("untied scores are not symmetric (so the check below can fail)") {
    const ap::Trace t = ap::attend(X, w, o);
    CHECK_FALSE(t.head[0].scores.isApprox(t.head[0].scores.transpose(), 1e-3f));
  }
  SUBCASE("tied") {
    w.W_K = w.W_Q;
    const ap::Trace t = ap::attend(X, w, o);
    for (const ap::HeadTrace& H : t.head) {
      const Matrix st = H.scores.transpose();
      CHECK((H.scores - st).cwiseAbs().maxCoeff() <=
            1e-5f * std::max(1.0f, H.scores.cwiseAbs().maxCoeff()));
      CHECK(H.Q == H.K);
    }
  }
}

TEST_CASE("property: with scaling, scaled = scores / sqrt(d_k)") {
  for (int d_k : {1, 2, 3, 4, 8, 16, 64}) {
    CAPTURE(d_k);
    ap::AttentionOptions o;
    o.heads = 2;
    const ap::Trace t =
        ap::attend(random_matrix(5, 8, 30 + d_k), random_weights(8, 2 * d_k, 300 + d_k, false), o);
    CHECK(t.d_k == d_k);
    const float sqrt_dk = std::sqrt(static_cast<float>(d_k));
    CHECK(t.scale_factor ==
          doctest::Approx(1.0 / std::sqrt(static_cast<double>(d_k))).epsilon(1e-7));
    for (const ap::HeadTrace& H : t.head) {
      const Matrix want = H.scores / sqrt_dk;
      if (d_k == 1 || d_k == 4 || d_k == 16 || d_k == 64) {
        CHECK(H.scaled == want);  // sqrt(d_k) is a power of two: no rounding at all
      } else {
        // scores * (1/sqrt(d_k)) and scores / sqrt(d_k) may differ in the last bit only
        for (Eigen::Index i = 0; i < want.size(); ++i)
          CHECK(std::fabs(H.scaled(i) - want(i)) <= 2.5e-7f * std::fabs(want(i)));
      }
    }
  }
  SUBCASE("scale off leaves the scores alone") {
    ap::AttentionOptions o;
    o.scale = false;
    const ap::Trace t = ap::attend(random_matrix(5, 8, 31), random_weights(8, 8, 310, false), o);
    CHECK(t.scale_factor == 1.0f);
    CHECK(t.head[0].scaled == t.head[0].scores);
  }
}

TEST_CASE("property: temperature -> 0 approaches argmax with no NaN") {
  const Matrix X = random_matrix(7, 8, 41);
  const ap::Weights w = random_weights(8, 8, 410, false);
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    ap::AttentionOptions o;
    o.heads = 2;
    o.causal = causal;
    o.temperature = 1e-30f;
    const ap::Trace t = ap::attend(X, w, o);
    REQUIRE(all_finite(t));
    for (const ap::HeadTrace& H : t.head) {
      for (Eigen::Index r = 0; r < H.masked.rows(); ++r) {
        Eigen::Index arg = 0;
        H.masked.row(r).maxCoeff(&arg);
        CHECK(H.weights(r, arg) == 1.0f);
        CHECK(H.weights.row(r).sum() == 1.0f);
        // the output row is exactly the argmax token's value row
        CHECK(H.output.row(r) == H.V.row(arg));
      }
    }
  }
  SUBCASE("ties share equally") {
    Matrix x(1, 4);
    x << 1.0f, 2.0f, 2.0f, -kInf;
    const Matrix s = ap::softmax_rows(x, 1e-30f);
    CHECK(s(0, 0) == 0.0f);
    CHECK(s(0, 1) == 0.5f);
    CHECK(s(0, 2) == 0.5f);
    CHECK(s(0, 3) == 0.0f);
  }
  SUBCASE("large temperature flattens") {
    Matrix x(1, 3);
    x << 3.2f, 1.8f, 0.4f;
    const Matrix s = ap::softmax_rows(x, 1000.0f);
    CHECK(s(0, 0) == doctest::Approx(1.0 / 3).epsilon(1e-2));
    CHECK(s(0, 2) == doctest::Approx(1.0 / 3).epsilon(1e-2));
  }
}

TEST_CASE("property: huge scores give no NaN") {
  SUBCASE("softmax_rows") {
    Matrix x(5, 3);
    x << 1e30f, 0.0f, -1e30f,    //
        1e30f, 1e30f, -1e30f,    //
        -1e30f, -1e30f, -1e30f,  //
        3e38f, -3e38f, 0.0f,     //
        -kInf, -kInf, -kInf;     // fully masked: cannot happen in attend, but must not be NaN
    for (float T : {1e-30f, 1.0f, 1000.0f}) {
      CAPTURE(T);
      const Matrix s = ap::softmax_rows(x, T);
      REQUIRE(s.allFinite());
      CHECK(s.rowwise().sum().isApproxToConstant(1.0f, 1e-6f));
      CHECK(s(1, 0) == 0.5f);
      CHECK(s(1, 1) == 0.5f);
      CHECK(s(2, 0) == doctest::Approx(1.0 / 3));
      CHECK(s(4, 0) == doctest::Approx(1.0 / 3));
    }
    CHECK(ap::softmax_rows(x)(0, 0) == 1.0f);
    CHECK(ap::softmax_rows(x)(3, 0) == 1.0f);
  }
  SUBCASE("softmax_steps") {
    RowVector x(3);
    x << 1e30f, -1e30f, 0.0f;
    const ap::SoftmaxSteps st = ap::softmax_steps(x);
    CHECK(st.weights.allFinite());
    CHECK(st.weights[0] == 1.0f);
    CHECK(std::isfinite(st.sum));
  }
  SUBCASE("attend with scores around 1e30") {
    Matrix X(3, 1);
    X << 1e15f, -1e15f, 5e14f;
    ap::Weights w;
    w.W_Q = Matrix::Constant(1, 1, 1.0f);
    w.W_K = w.W_Q;
    w.W_V = w.W_Q;
    const ap::Trace t = ap::attend(X, w, ap::AttentionOptions{});
    REQUIRE(all_finite(t));
    CHECK(t.head[0].scores(0, 0) == doctest::Approx(1e30));
    CHECK(t.head[0].weights(0, 0) == 1.0f);
    CHECK(t.head[0].weights(1, 1) == 1.0f);
    CHECK(t.head[0].weights.rowwise().sum().isApproxToConstant(1.0f, 1e-6f));
  }
}

TEST_CASE("dot_steps: products, dot, cosine, angle, scaled") {
  RowVector q(3), k(3);
  q << 1.0f, 2.0f, 3.0f;
  k << 4.0f, -5.0f, 6.0f;
  const ap::DotSteps d = ap::dot_steps(q, k);
  CHECK(d.products[0] == 4.0f);
  CHECK(d.products[1] == -10.0f);
  CHECK(d.products[2] == 18.0f);
  CHECK(d.dot == 12.0f);
  CHECK(d.norm_q == doctest::Approx(std::sqrt(14.0)));
  CHECK(d.norm_k == doctest::Approx(std::sqrt(77.0)));
  const double cosine = 12.0 / std::sqrt(14.0 * 77.0);
  CHECK(d.cosine == doctest::Approx(cosine));
  CHECK(d.angle_degrees == doctest::Approx(std::acos(cosine) * 180.0 / std::acos(-1.0)));
  CHECK(d.scaled == doctest::Approx(12.0 / std::sqrt(3.0)));

  SUBCASE("parallel, orthogonal, opposite, zero") {
    RowVector a(2), b(2);
    a << 3.0f, 4.0f;
    b << 6.0f, 8.0f;
    CHECK(ap::dot_steps(a, b).cosine == doctest::Approx(1.0));
    CHECK(ap::dot_steps(a, b).angle_degrees == doctest::Approx(0.0).epsilon(1e-3));
    b << -4.0f, 3.0f;
    CHECK(ap::dot_steps(a, b).dot == 0.0f);
    CHECK(ap::dot_steps(a, b).angle_degrees == doctest::Approx(90.0));
    b << -3.0f, -4.0f;
    CHECK(ap::dot_steps(a, b).cosine == doctest::Approx(-1.0));
    CHECK(ap::dot_steps(a, b).angle_degrees == doctest::Approx(180.0));
    b << 0.0f, 0.0f;
    const ap::DotSteps z = ap::dot_steps(a, b);
    CHECK(z.cosine == 0.0f);
    CHECK(z.angle_degrees == doctest::Approx(90.0));
    CHECK(std::isfinite(z.angle_degrees));
  }
  SUBCASE("beyond float32: overflow, never infinity; huge but finite inputs still work") {
    RowVector a(2), b(2);
    a << 2e38f, 2e38f;
    b << 1.0f, 1.0f;  // the sum of the products overflows
    CHECK(ap_test::code_of([&] { ap::dot_steps(a, b); }) == "overflow");
    b << 2.0f, 0.0f;  // one product overflows
    CHECK(ap_test::code_of([&] { ap::dot_steps(a, b); }) == "overflow");
    b << 1e-38f, 1e-38f;  // |q| |k| would overflow as a product of norms; each is finite
    const ap::DotSteps d = ap::dot_steps(a, b);
    CHECK(std::isfinite(d.norm_q));
    CHECK(d.cosine == doctest::Approx(1.0));
    CHECK(d.dot == doctest::Approx(4.0));
    a << std::numeric_limits<float>::infinity(), 1.0f;
    CHECK(ap_test::code_of([&] { ap::dot_steps(a, b); }) == "non_finite");
  }
  SUBCASE("agrees with the attend scores cell by cell") {
    ap::AttentionOptions o;
    o.heads = 2;
    const ap::Trace t = ap::attend(random_matrix(4, 8, 51), random_weights(8, 8, 510, false), o);
    const ap::HeadTrace& H = t.head[1];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const ap::DotSteps c = ap::dot_steps(H.Q.row(i), H.K.row(j));
        CHECK(c.dot == doctest::Approx(H.scores(i, j)).epsilon(1e-5));
        CHECK(c.scaled == doctest::Approx(H.scaled(i, j)).epsilon(1e-5));
      }
  }
  SUBCASE("shape_mismatch") {
    CHECK(code_of([] { ap::dot_steps(RowVector::Ones(3), RowVector::Ones(2)); }) ==
          "shape_mismatch");
    CHECK(code_of([] { ap::dot_steps(RowVector(0), RowVector(0)); }) == "shape_mismatch");
  }
}

TEST_CASE("finite_range ignores -inf") {
  RowVector r(4);
  r << 1.0f, -kInf, 5.5f, -2.0f;
  CHECK(ap::finite_range(r) == 7.5f);
  RowVector all_masked = RowVector::Constant(3, -kInf);
  CHECK(ap::finite_range(all_masked) == 0.0f);
}

TEST_CASE("row helpers refuse rows beyond the documented lengths") {
  const RowVector ok = RowVector::Ones(ap::kMaxVectorLength);
  const RowVector long_row = RowVector::Ones(ap::kMaxVectorLength + 1);
  CHECK(code_of([&] { ap::finite_range(long_row); }) == "too_many_values");
  CHECK(code_of([&] { ap::finite_range(ok); }) == "no error");
  CHECK(code_of([&] { ap::dot_steps(long_row, long_row); }) == "too_many_values");
  CHECK(code_of([&] { ap::dot_steps(ok, ok); }) == "no error");
  CHECK(code_of([&] { ap::softmax_steps(RowVector::Zero(ap::kMaxSequence + 1)); }) ==
        "too_many_scores");
}

TEST_CASE("attend refuses heads x d_k beyond kMaxHeadWidth") {
  const Matrix X = random_matrix(2, 4, 62);
  ap::Weights w;
  w.W_Q = random_matrix(4, ap::kMaxHeadWidth + 2, 1);
  w.W_K = w.W_Q;
  w.W_V = w.W_Q;
  ap::AttentionOptions o;
  o.heads = 2;
  CHECK(code_of([&] { ap::attend(X, w, o); }) == "bad_d_k");
  w.W_Q = random_matrix(4, ap::kMaxHeadWidth, 1);
  w.W_K = w.W_Q;
  w.W_V = w.W_Q;
  CHECK(code_of([&] { ap::attend(X, w, o); }) == "no error");
}

TEST_CASE("attend errors") {
  const Matrix X = random_matrix(4, 8, 61);
  const ap::Weights good = random_weights(8, 8, 610, true);
  ap::AttentionOptions o;
  o.heads = 2;
  REQUIRE(code_of([&] { ap::attend(X, good, o); }) == "no error");

  SUBCASE("shape_mismatch") {
    ap::Weights w = good;
    w.W_K = random_matrix(7, 8, 1);
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "shape_mismatch");
    w = good;
    w.W_V = random_matrix(8, 6, 1);
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "shape_mismatch");
    w = good;
    w.W_O = random_matrix(8, 7, 1);
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "shape_mismatch");
    w = good;
    w.W_O = random_matrix(6, 8, 1);
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "shape_mismatch");
    ap::AttentionOptions three = o;
    three.heads = 3;  // 8 columns do not split into 3 heads
    CHECK(code_of([&] { ap::attend(X, good, three); }) == "shape_mismatch");
    w = good;
    w.W_Q = Matrix(8, 0);
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "shape_mismatch");
  }
  SUBCASE("non_finite") {
    Matrix bad = X;
    bad(2, 3) = kNaN;
    CHECK(code_of([&] { ap::attend(bad, good, o); }) == "non_finite");
    bad = X;
    bad(0, 0) = kInf;
    CHECK(code_of([&] { ap::attend(bad, good, o); }) == "non_finite");
    ap::Weights w = good;
    w.W_Q(1, 1) = -kInf;
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "non_finite");
    w = good;
    w.W_V(0, 7) = kNaN;
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "non_finite");
    w = good;
    w.W_O(7, 0) = kNaN;
    CHECK(code_of([&] { ap::attend(X, w, o); }) == "non_finite");
  }
  SUBCASE("bad_heads") {
    for (int h : {0, -1, 17, 1000}) {
      CAPTURE(h);
      ap::AttentionOptions b = o;
      b.heads = h;
      CHECK(code_of([&] { ap::attend(X, good, b); }) == "bad_heads");
    }
  }
  SUBCASE("bad_temperature") {
    for (float T : {0.0f, -0.0f, -1.0f, kNaN, kInf, -kInf, 1000.5f}) {
      CAPTURE(T);
      ap::AttentionOptions b = o;
      b.temperature = T;
      CHECK(code_of([&] { ap::attend(X, good, b); }) == "bad_temperature");
      CHECK(code_of([&] { ap::softmax_steps(RowVector::Ones(3), T); }) == "bad_temperature");
    }
    ap::AttentionOptions edge = o;
    edge.temperature = 1000.0f;
    CHECK(code_of([&] { ap::attend(X, good, edge); }) == "no error");
  }
  SUBCASE("too_many_tokens and empty_input") {
    CHECK(code_of([&] { ap::attend(random_matrix(513, 8, 2), good, o); }) == "too_many_tokens");
    CHECK(code_of([&] { ap::attend(random_matrix(512, 8, 2), good, o); }) == "no error");
    CHECK(code_of([&] { ap::attend(Matrix(0, 8), good, o); }) == "empty_input");
  }
  SUBCASE("too_much_attention: n x n x heads is capped") {
    // 512 tokens with 8 heads is the largest; 16 heads past 362 tokens are refused
    ap::Weights w;
    w.W_Q = w.W_K = w.W_V = random_matrix(8, 16, 3);
    ap::AttentionOptions h8 = o, h16 = o;
    h8.heads = 8;
    h16.heads = 16;
    CHECK(512LL * 512 * 8 == ap::kMaxAttentionCells);
    CHECK(code_of([&] { ap::attend(random_matrix(512, 8, 2), w, h8); }) == "no error");
    CHECK(code_of([&] { ap::attend(random_matrix(362, 8, 2), w, h16); }) == "no error");
    CHECK(code_of([&] { ap::attend(random_matrix(363, 8, 2), w, h16); }) == "too_much_attention");
    CHECK(code_of([&] { ap::attend(random_matrix(512, 8, 2), w, h16); }) == "too_much_attention");
  }
  SUBCASE("a caller with a real model's size passes its own limit on attention cells") {
    // BERT-base's layer: 512 tokens x 12 heads is over the page's budget and within its own
    ap::Weights w;
    w.W_Q = w.W_K = w.W_V = random_matrix(8, 24, 3);
    ap::AttentionOptions page = o, bert = o;
    page.heads = bert.heads = 12;
    bert.max_attention_cells = 512LL * 512 * 12;
    CHECK(page.max_attention_cells == ap::kMaxAttentionCells);
    CHECK(code_of([&] { ap::attend(random_matrix(512, 8, 2), w, page); }) == "too_much_attention");
    CHECK(code_of([&] { ap::attend(random_matrix(512, 8, 2), w, bert); }) == "no error");
    bert.max_attention_cells = 512LL * 512 * 12 - 1;
    CHECK(code_of([&] { ap::attend(random_matrix(512, 8, 2), w, bert); }) == "too_much_attention");
  }
  SUBCASE("bad_d_model") {
    ap::Weights w;
    w.W_Q = w.W_K = w.W_V = Matrix(0, 2);
    CHECK(code_of([&] { ap::attend(Matrix(3, 0), w, ap::AttentionOptions{}); }) == "bad_d_model");
    w.W_Q = w.W_K = w.W_V = Matrix::Zero(1025, 2);
    CHECK(code_of([&] { ap::attend(Matrix::Zero(2, 1025), w, ap::AttentionOptions{}); }) ==
          "bad_d_model");
  }
  SUBCASE("overflow") {
    Matrix big = Matrix::Constant(2, 8, 1e20f);
    ap::Weights w = good;
    w.W_V = Matrix::Constant(8, 8, 1e20f);
    CHECK(code_of([&] { ap::attend(big, w, o); }) == "overflow");
  }
  SUBCASE("overflow in the scores alone is reported too, never shown as null (masked)") {
    // scores = 1e40 overflow while V and the output stay finite
    Matrix X2(2, 2);
    X2 << 1e20f, 1e20f, 1.0f, 2.0f;
    ap::Weights w;
    w.W_Q = w.W_K = w.W_V = Matrix::Identity(2, 2);
    CHECK(code_of([&] { ap::attend(X2, w, ap::AttentionOptions{}); }) == "overflow");
    X2(0, 0) = X2(0, 1) = 1e18f;  // 2e36: large but finite
    CHECK(code_of([&] { ap::attend(X2, w, ap::AttentionOptions{}); }) == "no error");
  }
  SUBCASE("softmax_steps input errors") {
    RowVector r(3);
    r << 1.0f, kNaN, 2.0f;
    CHECK(code_of([&] { ap::softmax_steps(r); }) == "non_finite");
    r << 1.0f, kInf, 2.0f;
    CHECK(code_of([&] { ap::softmax_steps(r); }) == "non_finite");
    r << 1.0f, -kInf, 2.0f;
    CHECK(code_of([&] { ap::softmax_steps(r); }) == "no error");
    CHECK(code_of([&] { ap::softmax_steps(RowVector(0)); }) == "empty_input");
    CHECK(code_of([&] { ap::softmax_steps(RowVector::Zero(513)); }) == "too_many_scores");
  }
  SUBCASE("messages are one line") {
    try {
      ap::Weights w = good;
      w.W_K = random_matrix(7, 8, 1);
      ap::attend(X, w, o);
      FAIL("no error");
    } catch (const ap::Error& e) {
      const std::string m = e.what();
      CHECK(m.find('\n') == std::string::npos);
      CHECK(m.find("W_K") != std::string::npos);
    }
  }
}
