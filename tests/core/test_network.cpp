// test_network.cpp: the layer stack (network.hpp). Finite-difference checks of every parameter of
// every layer (LayerNorm gains and biases, attention, feed-forward, the read-out norm), of E and of
// X through the whole training loss, with and without the attention loss on one head; LayerNorm on
// its own; what the residual stream and the read-out mean; the parameter list's order and shapes.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "backward.hpp"
#include "error.hpp"
#include "inference.hpp"
#include "network.hpp"
#include "rng.hpp"
#include "test_util.hpp"

using ap::Matrix;
using ap_test::check_gradient;

namespace {

Matrix normal(int rows, int cols, std::uint64_t seed, double sd = 1.0) {
  ap::Rng rng(seed);
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal() * sd);
  return m;
}

// Perturbs the network so no gain is exactly 1 and no bias exactly 0 (a fresh network would hide
// mistakes that multiply by the gain or ignore the bias).
void roughen(ap::Network& net, std::uint64_t seed) {
  for (auto& p : ap::parameters(net)) {
    *p.second +=
        normal(static_cast<int>(p.second->rows()), static_cast<int>(p.second->cols()), seed++, 0.3);
  }
}

struct Setup {
  int n, d_model, heads, d_k, d_ff, layers, vocab;
  ap::AttentionOptions opt;
  std::vector<int> ids;
  std::vector<ap::CopyTarget> targets;
  Matrix E, R;
  ap::Network net;
  float supervision = 0.0f;  // weight of -log weights(0, n-1) in the last layer's head 0
  float dropout = 0.0f;      // residual dropout, the same masks in every pass (one fixed seed)

  Setup(int n_, int d_model_, int heads_, int d_k_, int d_ff_, int layers_, bool causal,
        std::uint64_t seed)
      : n(n_), d_model(d_model_), heads(heads_), d_k(d_k_), d_ff(d_ff_), layers(layers_), vocab(7) {
    opt.heads = heads;
    opt.causal = causal;
    ap::Rng rng(seed);
    for (int i = 0; i < n; ++i) ids.push_back(static_cast<int>(rng.next_u64() % vocab));
    for (int i = 0; i < n; i += 2) targets.push_back({i, static_cast<int>(rng.next_u64() % vocab)});
    E = normal(vocab, d_model, seed + 1);
    R = normal(n, d_model, seed + 2, 0.5);
    net = ap::init_network(d_model, heads, d_k, d_ff, layers, seed + 3);
    roughen(net, seed + 10);
  }

  Matrix X() const { return ap::add_positions(ap::gather_rows(E, ids)); }

  ap::NetworkTrace trace() const {
    ap::Rng masks(4242);
    return ap::network_forward(net, X(), opt, ap::Dropout{dropout, &masks});
  }

  // the cross-entropy per target, a random linear read-out of every row of Y, and the attention
  // loss
  double loss() const {
    const ap::NetworkTrace t = trace();
    const Matrix& Y = t.norm_out.y;
    double l = ap::tied_cross_entropy(Y, E, targets, 0.0f, nullptr, nullptr) /
               static_cast<double>(targets.size());
    l += static_cast<double>(Y.cwiseProduct(R).sum());
    if (supervision > 0.0f) {
      const float w = t.layers.back().attn.head[0].weights(0, n - 1);
      l -= supervision * std::log(static_cast<double>(w));
    }
    return l;
  }

  struct Grads {
    Matrix E;
    ap::Network net;
  };
  Grads grads() const {
    const ap::NetworkTrace t = trace();
    Grads g{Matrix::Zero(E.rows(), E.cols()), ap::zeros_like(net)};
    Matrix dY = R;
    ap::tied_cross_entropy(t.norm_out.y, E, targets, 1.0f / static_cast<float>(targets.size()), &dY,
                           &g.E);
    std::vector<std::vector<Matrix>> extra(static_cast<std::size_t>(layers));
    if (supervision > 0.0f) {
      extra.back().assign(static_cast<std::size_t>(heads), Matrix::Zero(n, n));
      extra.back()[0](0, n - 1) = -supervision / t.layers.back().attn.head[0].weights(0, n - 1);
    }
    const Matrix dX =
        ap::network_backward(net, t, dY, g.net, supervision > 0.0f ? &extra : nullptr);
    ap::embedding_backward(ids, dX, g.E);
    return g;
  }
};

// the smallest |U W_1 + b_1| over every feed-forward unit of every layer and token
float kink_distance(const Setup& S) {
  const ap::NetworkTrace t = S.trace();
  float d = std::numeric_limits<float>::infinity();
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    const ap::Layer& L = S.net.layers[l];
    const Matrix z = (t.layers[l].norm_ffn.y * L.W_1).rowwise() + L.b_1.row(0);
    d = std::min(d, z.cwiseAbs().minCoeff());
  }
  return d;
}

void check_every_parameter(Setup& S) {
  const Setup::Grads g = S.grads();
  const std::function<double()> f = [&] { return S.loss(); };
  check_gradient("E", S.E, g.E, f);
  const auto params = ap::parameters(S.net);
  const auto grads = ap::parameters(static_cast<const ap::Network&>(g.net));
  REQUIRE(params.size() == grads.size());
  for (std::size_t k = 0; k < params.size(); ++k) {
    CAPTURE(params[k].first);
    check_gradient(params[k].first.c_str(), *params[k].second, *grads[k].second, f);
  }
}

}  // namespace

TEST_CASE("network gradient check: every parameter of every layer, with and without the mask") {
  struct Shape {
    int n, d_model, heads, d_k, d_ff, layers;
  };
  const std::vector<Shape> shapes = {
      {1, 4, 1, 4, 3, 1},  // one token, one layer
      {4, 4, 2, 2, 6, 2},  // the shipped model's shape, small
      {5, 6, 2, 4, 5, 3},  // h*d_k != d_model, three layers
  };
  std::uint64_t seed = 600;
  for (const Shape& s : shapes) {
    for (bool causal : {false, true}) {
      CAPTURE(s.n);
      CAPTURE(s.layers);
      CAPTURE(causal);
      // Central differences are wrong where a step of eps moves a ReLU input across 0 (a kink,
      // where the loss has no derivative): take the first seed whose feed-forward inputs all stay
      // clear of 0.
      int tries = 0;
      while (kink_distance(Setup(s.n, s.d_model, s.heads, s.d_k, s.d_ff, s.layers, causal, seed)) <
             0.05f) {
        ++seed;
        REQUIRE(++tries < 1000);
      }
      Setup S(s.n, s.d_model, s.heads, s.d_k, s.d_ff, s.layers, causal, seed++);
      check_every_parameter(S);
    }
  }
}

TEST_CASE("network gradient check: the attention loss on one head (extra_dweights)") {
  std::uint64_t seed = 900;
  while (kink_distance(Setup(5, 6, 2, 3, 8, 2, false, seed)) < 0.05f) REQUIRE(++seed < 1900);
  Setup S(5, 6, 2, 3, 8, 2, false, seed);
  S.supervision = 0.7f;
  check_every_parameter(S);
}

TEST_CASE("network gradient check: residual dropout, its masks kept in the trace") {
  std::uint64_t seed = 1300;
  const auto with_dropout = [](std::uint64_t sd) {
    Setup S(6, 6, 2, 3, 8, 2, false, sd);
    S.dropout = 0.3f;
    S.supervision = 0.5f;
    return S;
  };
  while (kink_distance(with_dropout(seed)) < 0.05f) REQUIRE(++seed < 2300);
  Setup S = with_dropout(seed);
  const ap::NetworkTrace t = S.trace();
  // each mask entry is 0 or 1 / (1 - rate), and some of both were drawn
  int zeros = 0, kept = 0;
  for (const ap::LayerTrace& L : t.layers)
    for (const Matrix* m : {&L.keep_attn, &L.keep_ffn}) {
      REQUIRE(m->rows() == S.n);
      REQUIRE(m->cols() == S.d_model);
      for (Eigen::Index i = 0; i < m->size(); ++i) {
        const float v = m->data()[i];
        CHECK((v == 0.0f || v == doctest::Approx(1.0 / 0.7)));
        (v == 0.0f ? zeros : kept) += 1;
      }
    }
  CHECK(zeros > 0);
  CHECK(kept > zeros);
  // the block's output is masked before it joins the stream
  const ap::LayerTrace& L0 = t.layers[0];
  CHECK((L0.mid - (L0.input + L0.attn.output.cwiseProduct(L0.keep_attn))).cwiseAbs().maxCoeff() <
        1e-6f);
  check_every_parameter(S);
  // rate 0 draws nothing and leaves no masks: the inference pass
  ap::Rng untouched(9), fresh(9);
  const ap::NetworkTrace plain = ap::network_forward(S.net, S.X(), S.opt, {0.0f, &untouched});
  CHECK(plain.layers[0].keep_attn.size() == 0);
  CHECK(untouched.next_u64() == fresh.next_u64());
  CHECK_THROWS_AS(ap::network_forward(S.net, S.X(), S.opt, {1.0f, &untouched}), ap::Error);
}

TEST_CASE("layer_norm: each row has mean bias and spread gain; backward by finite differences") {
  Matrix x = normal(3, 5, 1, 3.0);
  ap::LayerNormParams p{normal(1, 5, 2), normal(1, 5, 3)};
  const ap::NormTrace t = ap::layer_norm(x, p);
  for (int i = 0; i < 3; ++i) {
    CHECK(t.xhat.row(i).mean() == doctest::Approx(0.0).epsilon(1e-5));
    CHECK(t.xhat.row(i).squaredNorm() / 5.0f == doctest::Approx(1.0).epsilon(1e-3));
  }
  const Matrix R = normal(3, 5, 4);
  ap::LayerNormParams g{Matrix::Zero(1, 5), Matrix::Zero(1, 5)};
  const Matrix dx = ap::layer_norm_backward(t, p, R, g);
  const auto loss = [&] {
    return static_cast<double>(ap::layer_norm(x, p).y.cwiseProduct(R).sum());
  };
  check_gradient("x", x, dx, loss);
  check_gradient("gain", p.gain, g.gain, loss);
  check_gradient("bias", p.bias, g.bias, loss);
  // adding a constant to a row changes nothing, so each row of dx sums to 0
  for (int i = 0; i < 3; ++i) CHECK(dx.row(i).sum() == doctest::Approx(0.0).epsilon(1e-4));
}

TEST_CASE("network_forward: residual stream, read-out, and what the last layer's query carries") {
  ap::Network net = ap::init_network(8, 2, 4, 12, 2, 7);
  roughen(net, 70);
  ap::AttentionOptions opt;
  opt.heads = 2;
  const Matrix X = normal(4, 8, 8);
  const ap::NetworkTrace t = ap::network_forward(net, X, opt);
  REQUIRE(t.layers.size() == 2);
  // pass A3 and F3: the stream is the input plus what each block adds
  CHECK((t.layers[0].input - X).cwiseAbs().maxCoeff() == 0.0f);
  CHECK((t.layers[0].mid - (X + t.layers[0].attn.output)).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK((t.layers[1].input - t.layers[0].output).cwiseAbs().maxCoeff() == 0.0f);
  CHECK((t.layers[1].attn.X - t.layers[1].norm_attn.y).cwiseAbs().maxCoeff() == 0.0f);
  CHECK((t.norm_out.y - ap::layer_norm(t.layers[1].output, net.norm_out).y).cwiseAbs().maxCoeff() ==
        0.0f);
  // Changing a later token changes the first token's query in layer 2 (the stream carries context),
  // but never in layer 1 (its query is the token itself).
  Matrix X2 = X;
  X2.row(3) += normal(1, 8, 9);
  const ap::NetworkTrace t2 = ap::network_forward(net, X2, opt);
  CHECK((t2.layers[0].attn.head[0].Q.row(0) - t.layers[0].attn.head[0].Q.row(0))
            .cwiseAbs()
            .maxCoeff() == 0.0f);
  CHECK((t2.layers[1].attn.head[0].Q.row(0) - t.layers[1].attn.head[0].Q.row(0))
            .cwiseAbs()
            .maxCoeff() > 1e-4f);
}

TEST_CASE("parameters: one fixed order, named, and the shapes of the network") {
  ap::Network net = ap::init_network(6, 3, 2, 10, 2, 1);
  const auto p = ap::parameters(net);
  REQUIRE(p.size() == 2 * 12 + 2);
  CHECK(p[0].first == "layer1.norm_attn.gain");
  CHECK(p[2].first == "layer1.W_Q");
  CHECK(p[2].second->rows() == 6);
  CHECK(p[2].second->cols() == 6);
  CHECK(p[8].first == "layer1.W_1");
  CHECK(p[8].second->cols() == 10);
  CHECK(p[12].first == "layer2.norm_attn.gain");
  CHECK(p.back().first == "out.bias");
  const ap::Network z = ap::zeros_like(net);
  for (const auto& q : ap::parameters(z)) CHECK(q.second->cwiseAbs().maxCoeff() == 0.0f);
  CHECK(ap_test::code_of([] { ap::init_network(6, 3, 2, 10, 0, 1); }) == "model_invalid");
  CHECK(ap_test::code_of([] { ap::init_network(6, 3, 2, 0, 2, 1); }) == "model_invalid");
}

TEST_CASE("layer_walk: every step recomputes from the steps it reads, layer to layer") {
  ap::Network net = ap::init_network(8, 2, 4, 12, 3, 7);
  roughen(net, 90);
  ap::AttentionOptions opt;
  opt.heads = 2;
  const Matrix X = normal(5, 8, 11);
  const ap::NetworkTrace t = ap::network_forward(net, X, opt);
  Matrix input = X;
  for (int l = 0; l < net.depth(); ++l) {
    const ap::LayerWalk w = ap::layer_walk(net, t, l);
    REQUIRE(w.steps.size() == 6);
    const auto read = [&](int from) -> const Matrix& {
      return from == ap::kLayerInput ? input : *w.steps[static_cast<std::size_t>(from)].out;
    };
    for (std::size_t s = 0; s < w.steps.size(); ++s) {
      const ap::WalkStep& st = w.steps[s];
      CAPTURE(l);
      CAPTURE(st.name);
      for (int f : st.from) CHECK(f < static_cast<int>(s));  // a step reads only earlier steps
      const Matrix& a = read(st.from.at(0));
      switch (st.kind) {
        case ap::StepKind::norm:
          REQUIRE(st.norm != nullptr);
          for (Eigen::Index i = 0; i < a.rows(); ++i) {
            const float mean = a.row(i).mean();
            const float var = (a.row(i).array() - mean).square().mean();
            CHECK(st.norm->mean[i] == doctest::Approx(mean).epsilon(1e-5));
            CHECK(st.norm->std[i] == doctest::Approx(std::sqrt(var + ap::kLayerNormEps)));
            for (Eigen::Index j = 0; j < a.cols(); ++j)
              CHECK((*st.out)(i, j) == doctest::Approx((a(i, j) - st.norm->mean[i]) /
                                                           st.norm->std[i] * st.params->gain(0, j) +
                                                       st.params->bias(0, j))
                                           .epsilon(1e-4));
          }
          break;
        case ap::StepKind::add:
          REQUIRE(st.from.size() == 2);
          CHECK((*st.out - (a + read(st.from[1]))).cwiseAbs().maxCoeff() < 1e-5f);
          break;
        case ap::StepKind::attention:
          CHECK((*st.out - ap::attend(a, net.layers[static_cast<std::size_t>(l)].attn, opt).output)
                    .cwiseAbs()
                    .maxCoeff() < 1e-5f);
          break;
        case ap::StepKind::feed_forward: {
          const ap::Layer& L = net.layers[static_cast<std::size_t>(l)];
          const Matrix h = ((a * L.W_1).rowwise() + L.b_1.row(0)).cwiseMax(0.0f);
          CHECK((*st.hidden - h).cwiseAbs().maxCoeff() < 1e-5f);
          CHECK((*st.out - ((h * L.W_2).rowwise() + L.b_2.row(0))).cwiseAbs().maxCoeff() < 1e-5f);
          break;
        }
      }
    }
    // the attention's X is the step the walk names; the last step is the layer's output
    CHECK((read(w.attention_input) - t.layers[static_cast<std::size_t>(l)].attn.X)
              .cwiseAbs()
              .maxCoeff() == 0.0f);
    input = *w.steps.back().out;
    CHECK((input - t.layers[static_cast<std::size_t>(l)].output).cwiseAbs().maxCoeff() == 0.0f);
  }
  CHECK_THROWS_AS(ap::layer_walk(net, t, 3), ap::Error);
  CHECK(std::string(ap::to_string(ap::StepKind::feed_forward)) == "feed_forward");
}

TEST_CASE("parameter_shapes: the names and shapes of parameters(Network), without a network") {
  for (const auto& [d_model, heads, d_k, d_ff, layers] :
       {std::array<int, 5>{4, 2, 3, 5, 2}, std::array<int, 5>{8, 1, 8, 16, 1},
        std::array<int, 5>{6, 3, 2, 7, 3}}) {
    const ap::Network net = ap::init_network(d_model, heads, d_k, d_ff, layers, 1);
    const auto have = ap::parameters(net);
    const auto shapes = ap::parameter_shapes(d_model, heads, d_k, d_ff, layers);
    REQUIRE(shapes.size() == have.size());
    for (std::size_t k = 0; k < have.size(); ++k) {
      CAPTURE(have[k].first);
      CHECK(shapes[k].name == have[k].first);
      CHECK(shapes[k].rows == have[k].second->rows());
      CHECK(shapes[k].cols == have[k].second->cols());
    }
  }
  CHECK(ap_test::code_of([] { ap::parameter_shapes(4, 2, 3, 5, 0); }) == "model_invalid");
}
