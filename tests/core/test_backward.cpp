// test_backward.cpp: finite-difference checks of every gradient in backward.hpp: each entry of E,
// W_Q, W_K, W_V and W_O through the whole training loss, for several shapes, with and without the
// causal mask, plus the softmax, loss and attention pieces on their own. Not the trainer.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "attention.hpp"
#include "backward.hpp"
#include "error.hpp"
#include "model.hpp"
#include "rng.hpp"
#include "test_util.hpp"

using ap_test::check_gradient;

using ap::Matrix;

namespace {

Matrix normal(int rows, int cols, std::uint64_t seed, double sd = 1.0) {
  ap::Rng rng(seed);
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal() * sd);
  return m;
}

struct Shape {
  int n, d_model, heads, d_k, vocab;
};

// The training loss of trainer.cpp on one sentence, plus a random linear read-out of every output
// row so that rows without a target are checked too.
struct Setup {
  Shape s;
  ap::AttentionOptions opt;
  std::vector<int> ids;
  std::vector<ap::CopyTarget> targets;
  Matrix E, R, P;
  ap::Weights w;

  Setup(Shape shape, bool causal, float temperature, bool scale, std::uint64_t seed) : s(shape) {
    opt.heads = s.heads;
    opt.causal = causal;
    opt.temperature = temperature;
    opt.scale = scale;
    ap::Rng rng(seed);
    for (int i = 0; i < s.n; ++i) ids.push_back(static_cast<int>(rng.next_u64() % s.vocab));
    for (int i = 0; i < s.n; i += 2)
      targets.push_back({i, static_cast<int>(rng.next_u64() % s.vocab)});
    E = normal(s.vocab, s.d_model, seed + 1);
    R = normal(s.n, s.d_model, seed + 2, 0.5);
    P = ap::positional_encoding(s.n, s.d_model);
    w = ap::random_weights(s.d_model, s.heads, s.d_k, seed + 3, false);
  }

  Matrix embed() const {
    Matrix X(s.n, s.d_model);
    for (int i = 0; i < s.n; ++i) X.row(i) = E.row(ids[static_cast<std::size_t>(i)]);
    return X + P;
  }

  double loss() const {
    const ap::Trace t = ap::attend(embed(), w, opt);
    const double ce = ap::tied_cross_entropy(t.output, E, targets, 0.0f, nullptr, nullptr);
    double lin = 0.0;
    for (Eigen::Index r = 0; r < t.output.rows(); ++r)
      for (Eigen::Index c = 0; c < t.output.cols(); ++c)
        lin += static_cast<double>(t.output(r, c)) * R(r, c);
    return ce / static_cast<double>(targets.size()) + lin;
  }

  struct Grads {
    Matrix E;
    ap::AttentionGrads a;
  };
  Grads grads() const {
    const ap::Trace t = ap::attend(embed(), w, opt);
    Grads g;
    g.E = Matrix::Zero(E.rows(), E.cols());
    Matrix dY = R;
    ap::tied_cross_entropy(t.output, E, targets, 1.0f / static_cast<float>(targets.size()), &dY,
                           &g.E);
    g.a = ap::attend_backward(t, dY);
    ap::embedding_backward(ids, g.a.dX, g.E);
    return g;
  }
};

// E and every weight matrix against finite differences of the loss
void check_every_parameter(Setup& S) {
  const Setup::Grads g = S.grads();
  const std::function<double()> f = [&] { return S.loss(); };
  check_gradient("E", S.E, g.E, f);
  check_gradient("W_Q", S.w.W_Q, g.a.dW_Q, f);
  check_gradient("W_K", S.w.W_K, g.a.dW_K, f);
  check_gradient("W_V", S.w.W_V, g.a.dW_V, f);
  check_gradient("W_O", S.w.W_O, g.a.dW_O, f);
}

}  // namespace

TEST_CASE("gradient check: every parameter, several shapes, with and without the causal mask") {
  const std::vector<Shape> shapes = {
      {1, 4, 1, 4, 5},                   // one token: its row is all there is
      {3, 4, 2, 2, 6},                   // heads divide d_model
      {5, 6, 2, 3, 7}, {4, 6, 3, 4, 5},  // h*d_k != d_model
      {6, 8, 4, 2, 9},
  };
  std::uint64_t seed = 100;
  for (const Shape& shape : shapes) {
    for (bool causal : {false, true}) {
      CAPTURE(shape.n);
      CAPTURE(shape.d_model);
      CAPTURE(shape.heads);
      CAPTURE(shape.d_k);
      CAPTURE(causal);
      Setup S(shape, causal, 1.0f, true, seed++);
      check_every_parameter(S);
    }
  }
}

TEST_CASE("gradient check: temperature and no scaling") {
  for (bool causal : {false, true}) {
    SUBCASE(causal ? "causal, temperature 0.7, no scaling" : "temperature 2.5") {
      Setup S({5, 6, 2, 3, 7}, causal, causal ? 0.7f : 2.5f, !causal, 7 + causal);
      check_every_parameter(S);
    }
  }
}

TEST_CASE("attend_backward: dX by finite differences, and no W_O means the identity") {
  const Matrix X0 = normal(4, 6, 1);
  Matrix X = X0;
  ap::Weights w = ap::random_weights(6, 2, 3, 2, false);
  w.W_O.resize(0, 0);  // output = concat (6 columns)
  ap::AttentionOptions opt;
  opt.heads = 2;
  const Matrix R = normal(4, 6, 3);
  const auto loss = [&] {
    const ap::Trace t = ap::attend(X, w, opt);
    return static_cast<double>(t.output.cwiseProduct(R).sum());
  };
  const ap::AttentionGrads g = ap::attend_backward(ap::attend(X, w, opt), R);
  check_gradient("X", X, g.dX, loss);
  check_gradient("W_V", w.W_V, g.dW_V, loss);
  CHECK(g.dW_O.rows() == 6);
  CHECK(g.dW_O.cols() == 6);
}

TEST_CASE("attend_backward: masked cells pass no gradient to future keys") {
  // With a causal mask, query 0 sees only key 0: changing the last token's K or V cannot change
  // output row 0, so a loss on row 0 alone gives the last token zero gradient.
  const Matrix X = normal(4, 4, 11);
  const ap::Weights w = ap::random_weights(4, 1, 4, 12, false);
  ap::AttentionOptions opt;
  opt.causal = true;
  Matrix dOut = Matrix::Zero(4, 4);
  dOut.row(0) = normal(1, 4, 13);
  const ap::AttentionGrads g = ap::attend_backward(ap::attend(X, w, opt), dOut);
  CHECK(g.dX.row(3).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(g.dX.row(1).cwiseAbs().maxCoeff() == 0.0f);
  CHECK(g.dX.row(0).cwiseAbs().maxCoeff() > 0.0f);
}

TEST_CASE("softmax_rows_backward: finite differences, and a constant added to a row") {
  Matrix x = normal(3, 5, 21);
  x(2, 4) = -std::numeric_limits<float>::infinity();  // a masked cell
  const Matrix dP = normal(3, 5, 22);
  for (float temperature : {1.0f, 0.5f, 3.0f}) {
    CAPTURE(temperature);
    const Matrix P = ap::softmax_rows(x, temperature);
    const Matrix dx = ap::softmax_rows_backward(P, dP, temperature);
    CHECK(dx(2, 4) == 0.0f);
    // softmax is unchanged by adding a constant to a row, so each row's gradient sums to 0
    for (int r = 0; r < 3; ++r) CHECK(dx.row(r).sum() == doctest::Approx(0.0).epsilon(1e-5));
    Matrix xf = x;
    xf(2, 4) = 0.0f;  // finite differences on the finite cells only
    const auto loss = [&] {
      Matrix xm = xf;
      xm(2, 4) = -std::numeric_limits<float>::infinity();
      return static_cast<double>(ap::softmax_rows(xm, temperature).cwiseProduct(dP).sum());
    };
    Matrix expect = dx;
    expect(2, 4) = 0.0f;
    check_gradient("x", xf, expect, loss);
  }
}

TEST_CASE("tied_cross_entropy: value, gradients and errors") {
  Matrix Y = normal(3, 4, 31);
  Matrix E = normal(6, 4, 32);
  const std::vector<ap::CopyTarget> t = {{0, 2}, {2, 5}, {0, 0}};
  SUBCASE("the value is -log softmax") {
    double expect = 0.0;
    for (const ap::CopyTarget& c : t) {
      const Eigen::RowVectorXd logits = (Y.row(c.row) * E.transpose()).cast<double>();
      expect += std::log(logits.array().exp().sum()) - logits[c.word];
    }
    CHECK(ap::tied_cross_entropy(Y, E, t, 0.0f, nullptr, nullptr) ==
          doctest::Approx(expect).epsilon(1e-5));
  }
  SUBCASE("gradients for Y and E") {
    Matrix dY = Matrix::Zero(3, 4), dE = Matrix::Zero(6, 4);
    ap::tied_cross_entropy(Y, E, t, 1.0f, &dY, &dE);
    const auto loss = [&] { return ap::tied_cross_entropy(Y, E, t, 0.0f, nullptr, nullptr); };
    CHECK(dY.row(1).cwiseAbs().maxCoeff() == 0.0f);  // row 1 has no target
    check_gradient("Y", Y, dY, loss);
    check_gradient("E (output side only)", E, dE, loss);
  }
  SUBCASE("a huge logit does not overflow") {
    Matrix big = Y * 1e4f;
    const double l = ap::tied_cross_entropy(big, E, t, 0.0f, nullptr, nullptr);
    CHECK(std::isfinite(l));
  }
  SUBCASE("errors") {
    const std::vector<ap::CopyTarget> bad = {{3, 0}};
    CHECK_THROWS_AS(ap::tied_cross_entropy(Y, E, bad, 1.0f, nullptr, nullptr), ap::Error);
    const std::vector<ap::CopyTarget> bad_word = {{0, 6}};
    CHECK_THROWS_AS(ap::tied_cross_entropy(Y, E, bad_word, 1.0f, nullptr, nullptr), ap::Error);
    Matrix wrong(2, 4);
    CHECK_THROWS_AS(ap::tied_cross_entropy(Y, E, t, 1.0f, &wrong, nullptr), ap::Error);
    CHECK(ap::tied_cross_entropy(Y, E, {}, 1.0f, nullptr, nullptr) == 0.0);
  }
}

TEST_CASE("attend_backward: a dOutput of the wrong shape is an error") {
  const ap::Trace t = ap::attend(normal(3, 4, 41), ap::random_weights(4, 2, 2, 42, false),
                                 ap::AttentionOptions{2, false, true, 1.0f});
  CHECK_THROWS_AS(ap::attend_backward(t, Matrix::Zero(2, 4)), ap::Error);
}
