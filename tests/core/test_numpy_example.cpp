// test_numpy_example.cpp: the "numpy" model (the article's program) and its program text.
// The weights are compared with NumPy's own run of the article (tests/fixtures/attention_v1.json,
// case "seed_article"); the CLI test runs the program text itself with NumPy.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "numpy_example.hpp"
#include "numpy_random.hpp"
#include "test_util.hpp"

using nlohmann::json;

namespace {

const json& seed_article_case() {
  static const json doc = json::parse(ap_test::read_file(AP_FIXTURES_DIR "/attention_v1.json"));
  for (const json& c : doc.at("cases"))
    if (c.at("name") == "seed_article") return c;
  FAIL("no seed_article case in attention_v1.json: run scripts/gen_fixtures");
  return doc;
}

double worst_diff(const ap::Matrix& m, const json& want) {
  REQUIRE(want.size() == static_cast<std::size_t>(m.rows()));
  double worst = 0;
  for (int r = 0; r < m.rows(); ++r) {
    REQUIRE(want[static_cast<std::size_t>(r)].size() == static_cast<std::size_t>(m.cols()));
    for (int c = 0; c < m.cols(); ++c)
      worst = std::max(
          worst,
          std::fabs(m(r, c) -
                    want[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)].get<double>()));
  }
  return worst;
}

ap::Settings article() {
  ap::Settings s;
  s.seed = 42;
  s.d_model = 8;
  s.d_k = 4;
  s.heads = 1;
  return s;
}

const char* const kFourTokens = "小猫爱吃鱼";

}  // namespace

TEST_CASE("numpy model: the article's X and weights, and its attention weights") {
  const json& c = seed_article_case();
  const ap::TextTrace t = ap::trace_text_numpy(kFourTokens, article());
  REQUIRE(t.tokens.size() == 4);
  CHECK(t.weights == "numpy");
  CHECK(t.trace.heads == 1);
  CHECK(t.trace.d_k == 4);
  // X and the weights are NumPy's draws rounded to float32: exactly the fixture's inputs
  CHECK(worst_diff(t.trace.X, c.at("inputs").at("X")) == 0.0);
  CHECK(worst_diff(t.trace.head[0].W_Q, c.at("inputs").at("W_Q")) == 0.0);
  CHECK(worst_diff(t.trace.head[0].W_K, c.at("inputs").at("W_K")) == 0.0);
  CHECK(worst_diff(t.trace.head[0].W_V, c.at("inputs").at("W_V")) == 0.0);
  const json& h = c.at("expected").at("heads")[0];
  CHECK(worst_diff(t.trace.head[0].weights, h.at("weights")) < 1e-6);
  CHECK(worst_diff(t.trace.head[0].output, h.at("output")) < 1e-5);
  // no positions, no W_O: the output is the head's output
  CHECK(t.positions.size() == 0);
  CHECK_FALSE(t.settings.positions);
  CHECK(t.trace.X == t.embeddings);
  CHECK(t.trace.W_O == ap::Matrix::Identity(4, 4));
  CHECK(t.trace.output == t.trace.head[0].output);
}

TEST_CASE("numpy model: X is drawn first, so the weights depend on the number of tokens") {
  const ap::TextTrace four = ap::trace_text_numpy(kFourTokens, article());
  const ap::TextTrace five = ap::trace_text_numpy("小猫爱吃鱼。", article());
  REQUIRE(five.tokens.size() == 5);
  CHECK(five.trace.X.topRows(4) == four.trace.X);
  CHECK(five.trace.head[0].W_Q != four.trace.head[0].W_Q);
  // the same count, other words: the same numbers (X does not come from the words)
  const ap::TextTrace other = ap::trace_text_numpy("I love you !", article());
  REQUIRE(other.tokens.size() == 4);
  CHECK(other.trace.head[0].weights == four.trace.head[0].weights);
}

TEST_CASE("numpy model: settings") {
  ap::Settings s = article();
  SUBCASE("one head whatever the settings say: the program has one") {
    s.heads = 2;
    const ap::TextTrace t = ap::trace_text_numpy(kFourTokens, s);
    CHECK(t.trace.heads == 1);
    CHECK(t.settings.heads == 1);
    CHECK(t.trace.head[0].weights ==
          ap::trace_text_numpy(kFourTokens, article()).trace.head[0].weights);
  }
  SUBCASE("seeds beyond np.random.seed's range are refused") {
    s.seed = 4294967296ULL;
    CHECK(ap_test::code_of([&] { ap::trace_text_numpy(kFourTokens, s); }) == "numpy_seed");
    s.seed = 4294967295ULL;
    CHECK(ap_test::code_of([&] { ap::trace_text_numpy(kFourTokens, s); }) == "no error");
  }
  SUBCASE("d_k 0 means d_model") {
    s.d_k = 0;
    CHECK(ap::trace_text_numpy(kFourTokens, s).trace.d_k == 8);
  }
  SUBCASE("positions are never added, even when asked") {
    s.positions = true;
    const ap::TextTrace t = ap::trace_text_numpy(kFourTokens, s);
    CHECK(t.positions.size() == 0);
    CHECK(t.trace.X == ap::trace_text_numpy(kFourTokens, article()).trace.X);
  }
  SUBCASE("tie: W_K = W_Q after all three draws, so W_V stays the article's") {
    s.tie_qk = true;
    const ap::TextTrace t = ap::trace_text_numpy(kFourTokens, s);
    const ap::TextTrace a = ap::trace_text_numpy(kFourTokens, article());
    CHECK(t.trace.head[0].W_K == a.trace.head[0].W_Q);
    CHECK(t.trace.head[0].W_V == a.trace.head[0].W_V);
  }
  SUBCASE("the program computes the trace only with the article's options") {
    CHECK(ap::numpy_program_matches(s));
    ap::Settings c = s;
    c.causal = true;
    CHECK_FALSE(ap::numpy_program_matches(c));
    c = s;
    c.scale = false;
    CHECK_FALSE(ap::numpy_program_matches(c));
    c = s;
    c.temperature = 0.5f;
    CHECK_FALSE(ap::numpy_program_matches(c));
    c = s;
    c.tie_qk = true;
    CHECK_FALSE(ap::numpy_program_matches(c));
  }
}

TEST_CASE("numpy program: the article's text, with the sizes set and each stage's lines") {
  SUBCASE("at the article's values it is the article's program, unchanged") {
    CHECK(ap::numpy_program(42, 4, 8, 4) == std::string(ap::numpy_program_original()));
  }
  SUBCASE("other values change exactly the lines that state them") {
    const std::string p = ap::numpy_program(7, 5, 6, 3);
    CHECK(p.find("np.random.seed(7)\n") != std::string::npos);
    CHECK(p.find("\nseq_len = 5   #") != std::string::npos);
    CHECK(p.find("\nd_model = 6  #") != std::string::npos);
    CHECK(p.find("\nd_k = 3       #") != std::string::npos);
    CHECK(p.find("假设句子有 5 个词，每个词的向量维度是 6") != std::string::npos);
    CHECK(p.find("# (5, 6) × (6, 3) → (5, 3)") != std::string::npos);
    CHECK(p.find("42") == std::string::npos);
    CHECK(std::count(p.begin(), p.end(), '\n') == std::count(ap::numpy_program_original().begin(),
                                                             ap::numpy_program_original().end(),
                                                             '\n'));
  }
  SUBCASE("every stage but the mask has its lines; the score stage is np.matmul(Q, K.T)") {
    std::set<std::string> stages;
    for (const ap::ProgramLine& l : ap::numpy_program_lines(42, 4, 8, 4)) {
      if (l.stage.empty()) continue;
      stages.insert(l.stage);
      if (l.stage == "score") CHECK(l.text == "    scores = np.matmul(Q, K.T)");
      if (l.stage == "scale") CHECK(l.text == "    scores = scores / np.sqrt(d_k)");
      if (l.stage == "mix") CHECK(l.text == "    output = np.matmul(attention_weights, V)");
    }
    CHECK(stages == std::set<std::string>{"tokens", "embeddings", "project", "score", "scale",
                                          "softmax", "mix", "heads"});
  }
  SUBCASE("a seed beyond np.random.seed's range is refused") {
    CHECK(ap_test::code_of([] { ap::numpy_program(4294967296ULL, 4, 8, 4); }) == "numpy_seed");
  }
}
