// test_model.cpp: settings validation, seeded embeddings and weights, positional encoding
// (against NumPy) and trace_text end to end. Not the attention maths (test_attention.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "error.hpp"
#include "model.hpp"
#include "test_util.hpp"

using ap::Matrix;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

using ap_test::code_of;

std::string validate_code(const ap::Settings& s) {
  return code_of([&] { ap::validate(s); });
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

bool symmetric(const Matrix& m) {
  const Matrix t = m.transpose();
  return (m - t).cwiseAbs().maxCoeff() <= 1e-5f * std::max(1.0f, m.cwiseAbs().maxCoeff());
}

}  // namespace

TEST_CASE("validate: defaults and the effective d_k") {
  ap::Settings s;
  CHECK(ap::validate(s) == 4);  // 8 / 2
  s.heads = 8;
  CHECK(ap::validate(s) == 1);
  s.heads = 3;
  s.d_k = 5;  // explicit d_k: heads need not divide d_model
  CHECK(ap::validate(s) == 5);
  s = ap::Settings{};
  s.d_model = 1024;
  s.heads = 16;
  CHECK(ap::validate(s) == 64);
}

TEST_CASE("validate: every error code") {
  auto with = [](const std::function<void(ap::Settings&)>& change) {
    ap::Settings s;
    change(s);
    return validate_code(s);
  };
  CHECK(with([](ap::Settings& s) { s.d_model = 0; }) == "bad_d_model");
  CHECK(with([](ap::Settings& s) { s.d_model = -8; }) == "bad_d_model");
  CHECK(with([](ap::Settings& s) { s.d_model = 1025; }) == "bad_d_model");
  CHECK(with([](ap::Settings& s) { s.heads = 0; }) == "bad_heads");
  CHECK(with([](ap::Settings& s) { s.heads = -1; }) == "bad_heads");
  CHECK(with([](ap::Settings& s) { s.heads = 17; }) == "bad_heads");
  CHECK(with([](ap::Settings& s) { s.heads = 3; }) == "heads_divide");
  CHECK(with([](ap::Settings& s) {
          s.d_model = 10;
          s.heads = 4;
        }) == "heads_divide");
  CHECK(with([](ap::Settings& s) { s.d_k = -1; }) == "bad_d_k");
  CHECK(with([](ap::Settings& s) { s.d_k = 1025; }) == "bad_d_k");
  for (float T : {0.0f, -0.0f, -1.0f, kNaN, kInf, 1001.0f}) {
    CAPTURE(T);
    CHECK(with([T](ap::Settings& s) { s.temperature = T; }) == "bad_temperature");
  }
  CHECK(with([](ap::Settings& s) { s.temperature = 1e-30f; }) == "no error");
  CHECK(with([](ap::Settings& s) { s.max_tokens = 0; }) == "bad_max_tokens");
  CHECK(with([](ap::Settings& s) { s.max_tokens = 513; }) == "bad_max_tokens");
  CHECK(with([](ap::Settings& s) { s.max_tokens = 512; }) == "no error");
  // heads x d_k is capped: 16 x 1024 would be gigabytes of JSON from qkv trace
  CHECK(with([](ap::Settings& s) {
          s.d_model = 1024;
          s.heads = 16;
          s.d_k = 1024;
        }) == "bad_d_k");
  CHECK(with([](ap::Settings& s) {
          s.heads = 16;
          s.d_k = ap::kMaxHeadWidth / 16 + 1;
        }) == "bad_d_k");
  CHECK(with([](ap::Settings& s) {
          s.heads = 16;
          s.d_k = ap::kMaxHeadWidth / 16;
        }) == "no error");
  CHECK(with([](ap::Settings& s) {
          s.heads = 1;
          s.d_k = ap::kMaxHeadWidth;
        }) == "no error");
}

TEST_CASE("positional_encoding matches NumPy") {
  std::ifstream f(AP_FIXTURES_DIR "/attention_v1.json");
  REQUIRE(f.good());
  const nlohmann::json j = nlohmann::json::parse(f);
  const nlohmann::json& pe = j.at("positional_encoding");
  const int n = pe.at("n"), d = pe.at("d_model");
  const Matrix got = ap::positional_encoding(n, d);
  REQUIRE(got.rows() == n);
  REQUIRE(got.cols() == d);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < d; ++c) {
      CAPTURE(r);
      CAPTURE(c);
      CHECK(got(r, c) == doctest::Approx(pe.at("values").at(r).at(c).get<double>()).epsilon(1e-6));
    }
  CHECK(got(0, 0) == 0.0f);  // sin(0)
  CHECK(got(0, 1) == 1.0f);  // cos(0)
}

TEST_CASE("token_embedding: same word same vector, seeded, English case-insensitive") {
  using ap::TokenKind;
  const auto cat = ap::token_embedding("cat", TokenKind::Word, 16, 42);
  CHECK(cat.size() == 16);
  CHECK(cat == ap::token_embedding("cat", TokenKind::Word, 16, 42));
  CHECK(cat == ap::token_embedding("CAT", TokenKind::Word, 16, 42));
  CHECK(cat == ap::token_embedding("Cat", TokenKind::Word, 16, 42));
  CHECK(cat != ap::token_embedding("cat", TokenKind::Word, 16, 43));
  CHECK(cat != ap::token_embedding("dog", TokenKind::Word, 16, 42));
  // the first entries do not depend on d_model: the stream is per text
  CHECK(ap::token_embedding("cat", TokenKind::Word, 8, 42) == cat.head(8));
  CHECK(ap::token_embedding("小猫", TokenKind::Han, 8, 42) ==
        ap::token_embedding("小猫", TokenKind::Han, 8, 42));
  CHECK(ap::token_embedding("小猫", TokenKind::Han, 8, 42) !=
        ap::token_embedding("小狗", TokenKind::Han, 8, 42));
}

TEST_CASE("embed: embeddings plus positions") {
  const auto tokens = ap::tokenize("I love you");
  ap::Settings s;
  s.positions = false;
  const Matrix bare = ap::embed(tokens, s);
  REQUIRE(bare.rows() == 3);
  REQUIRE(bare.cols() == 8);
  for (int i = 0; i < 3; ++i)
    CHECK(bare.row(i) == ap::token_embedding(tokens[i].text, tokens[i].kind, 8, s.seed));
  s.positions = true;
  const Matrix with = ap::embed(tokens, s);
  const Matrix want = bare + ap::positional_encoding(3, 8);
  CHECK(with == want);
}

TEST_CASE("random_weights: shapes, seeding, tie_qk, scale") {
  const ap::Weights w = ap::random_weights(8, 2, 4, 42, false);
  CHECK(w.W_Q.rows() == 8);
  CHECK(w.W_Q.cols() == 8);
  CHECK(w.W_O.rows() == 8);
  CHECK(w.W_O.cols() == 8);
  CHECK(w.W_Q != w.W_K);
  CHECK(w.W_Q != w.W_V);
  const ap::Weights again = ap::random_weights(8, 2, 4, 42, false);
  CHECK(w.W_Q == again.W_Q);
  CHECK(w.W_O == again.W_O);
  CHECK(w.W_Q != ap::random_weights(8, 2, 4, 43, false).W_Q);
  const ap::Weights tied = ap::random_weights(8, 2, 4, 42, true);
  CHECK(tied.W_K == tied.W_Q);
  CHECK(tied.W_Q == w.W_Q);  // tying does not move W_Q
  CHECK(tied.W_V == w.W_V);
  SUBCASE("entries are N(0, 1/d_model)") {
    const ap::Weights big = ap::random_weights(256, 4, 64, 7, false);
    const double var = big.W_Q.squaredNorm() / big.W_Q.size();
    CHECK(var * 256 == doctest::Approx(1.0).epsilon(0.05));
    const double var_o = big.W_O.squaredNorm() / big.W_O.size();
    CHECK(var_o * 256 == doctest::Approx(1.0).epsilon(0.05));
  }
}

TEST_CASE("trace_text: end to end") {
  ap::Settings s;
  const ap::TextTrace t = ap::trace_text("小猫吃鱼，它很开心", s);
  REQUIRE(t.tokens.size() == 7);
  CHECK(t.trace.n == 7);
  CHECK(t.trace.d_model == 8);
  CHECK(t.trace.heads == 2);
  CHECK(t.trace.d_k == 4);
  CHECK(t.trace.X == ap::embed(t.tokens, s));
  for (const ap::HeadTrace& H : t.trace.head)
    CHECK(H.weights.rowwise().sum().isApproxToConstant(1.0f, 1e-6f));
  CHECK(t.trace.output.allFinite());

  SUBCASE("deterministic for a seed, different for another") {
    const ap::TextTrace again = ap::trace_text("小猫吃鱼，它很开心", s);
    CHECK(again.trace.output == t.trace.output);
    ap::Settings other = s;
    other.seed = 7;
    CHECK(ap::trace_text("小猫吃鱼，它很开心", other).trace.output != t.trace.output);
  }
  SUBCASE("explicit d_k") {
    ap::Settings e = s;
    e.heads = 3;
    e.d_k = 5;
    const ap::TextTrace x = ap::trace_text("I love you", e);
    CHECK(x.trace.d_k == 5);
    CHECK(x.trace.concat.cols() == 15);
    CHECK(x.trace.output.cols() == 8);
  }
  SUBCASE("causal") {
    ap::Settings c = s;
    c.causal = true;
    for (const ap::HeadTrace& H : ap::trace_text("I love you so much", c).trace.head)
      CHECK(H.weights.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0f));
  }
}

TEST_CASE("trace_text: tie_qk gives symmetric scores") {
  ap::Settings s;
  s.d_model = 16;
  s.heads = 4;
  const std::string text = "The animal didn't cross the street because it was too tired.";
  CHECK_FALSE(symmetric(ap::trace_text(text, s).trace.head[0].scores));
  s.tie_qk = true;
  const ap::TextTrace t = ap::trace_text(text, s);
  for (const ap::HeadTrace& H : t.trace.head) CHECK(symmetric(H.scores));
}

TEST_CASE("trace_text: without positions, permuting tokens permutes the outputs") {
  ap::Settings s;
  s.positions = false;
  const ap::TextTrace a = ap::trace_text("the cat ate fish", s);
  const ap::TextTrace b = ap::trace_text("fish the ate cat", s);
  // b's token i is a's token perm[i]
  const int perm[] = {3, 0, 2, 1};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(b.tokens[i].text == a.tokens[perm[i]].text);
    CHECK(b.trace.output.row(i).isApprox(a.trace.output.row(perm[i]), 1e-5f));
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < 4; ++j)
        CHECK(b.trace.head[h].weights(i, j) ==
              doctest::Approx(a.trace.head[h].weights(perm[i], perm[j])).epsilon(1e-5));
  }
  SUBCASE("with positions the outputs are not a permutation (so the check can fail)") {
    s.positions = true;
    const ap::TextTrace pa = ap::trace_text("the cat ate fish", s);
    const ap::TextTrace pb = ap::trace_text("fish the ate cat", s);
    CHECK_FALSE(pb.trace.output.row(0).isApprox(pa.trace.output.row(3), 1e-3f));
  }
}

TEST_CASE("trace_text: temperature near 0 and the limits") {
  ap::Settings s;
  s.temperature = 1e-30f;
  const ap::TextTrace t = ap::trace_text("I love you and you love me", s);
  CHECK(t.trace.output.allFinite());
  for (const ap::HeadTrace& H : t.trace.head)
    for (Eigen::Index r = 0; r < H.weights.rows(); ++r) CHECK(H.weights.row(r).maxCoeff() >= 0.5f);
}

TEST_CASE("trace_text: errors") {
  ap::Settings s;
  CHECK(code_of([&] { ap::trace_text("", s); }) == "empty_text");
  CHECK(code_of([&] { ap::trace_text(" \n ", s); }) == "empty_text");
  CHECK(code_of([&] { ap::trace_text("\xED\xA0\x80", s); }) == "invalid_utf8");
  CHECK(code_of([&] { ap::trace_text(std::string("a\0", 2), s); }) == "control_char");
  CHECK(code_of([&] { ap::trace_text(repeat("a ", 65), s); }) == "too_many_tokens");
  s.max_tokens = 512;
  CHECK(code_of([&] { ap::trace_text(repeat("a ", 65), s); }) == "no error");
  CHECK(ap::trace_text(repeat("a ", 300), s).trace.n == 300);
  s.heads = 3;
  CHECK(code_of([&] { ap::trace_text("a b", s); }) == "heads_divide");
  s = ap::Settings{};
  s.temperature = 0.0f;
  CHECK(code_of([&] { ap::trace_text("a b", s); }) == "bad_temperature");
}

TEST_CASE("trace_text with the weights given equals drawing them (the page draws them once)") {
  ap::Settings s;
  s.d_model = 16;
  s.heads = 4;
  s.seed = 7;
  s.causal = true;
  const ap::Weights w = ap::random_weights(s.d_model, s.heads, ap::validate(s), s.seed, s.tie_qk);
  const ap::TextTrace a = ap::trace_text("the cat sat on the mat", s);
  const ap::TextTrace b = ap::trace_text("the cat sat on the mat", s, w);
  CHECK(a.trace.output == b.trace.output);
  CHECK(a.trace.head[3].weights == b.trace.head[3].weights);
  CHECK(a.embeddings == b.embeddings);
  s.seed = 8;  // other settings, other weights: the trace differs
  CHECK_FALSE(ap::trace_text("the cat sat on the mat", s).trace.output == b.trace.output);
}
