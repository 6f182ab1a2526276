// main.cpp: a program that uses the attention core as a library: it tokenizes and traces the seed
// article's sentence with the article's NumPy program ("numpy" model) and compares the attention
// weights with NumPy's own run of that program (reference.hpp, generated from the test fixture),
// then traces with the trained model compiled into the library. Not a test of the core's maths
// (tests/core does that): it proves the installed headers, targets and package link and run.
#include <attention_playground/ap_version.hpp>
#include <attention_playground/numpy_example.hpp>
#include <attention_playground/session.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "reference.hpp"

// The library's users see its headers only through the project-named folder.
#if __has_include("session.hpp") || __has_include(<session.hpp>)
#error "the core's flat source headers are on the consumer's include path"
#endif

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "consumer: FAILED: %s\n", what);
      ++failures;
    }
  };

  check(std::string(ap::kVersion) == kRefVersion, "ap::kVersion is the project's version");

  ap::Settings s;
  s.seed = ap::kNumpyArticle.seed;
  s.d_model = ap::kNumpyArticle.d_model;
  s.d_k = ap::kNumpyArticle.d_k;
  const ap::TextTrace t = ap::trace_text_numpy("小猫爱吃鱼", s);
  check(static_cast<int>(t.tokens.size()) == kRefTokens, "the lexicon splits the sentence");
  double worst = 0;
  if (t.tokens.size() == static_cast<std::size_t>(kRefTokens) && t.trace.head.size() == 1) {
    const ap::Matrix& w = t.trace.head[0].weights;
    for (int i = 0; i < kRefTokens; ++i)
      for (int j = 0; j < kRefTokens; ++j)
        worst = std::fmax(worst, std::fabs(w(i, j) - kRefWeights[i * kRefTokens + j]));
    check(worst < 1e-6, "the attention weights are NumPy's");
  } else {
    check(false, "one head of n x n weights");
  }

  ap::Session session;
  const ap::TrainedModel* used = nullptr;
  const ap::TextTrace d =
      session.trace("The cat sat on the mat.", ap::Settings{}, "default", &used);
  check(used != nullptr && used->net.heads == d.trace.heads, "the compiled-in trained model");
  bool rows_sum_to_one = d.trace.heads > 0;
  for (const ap::HeadTrace& h : d.trace.head)
    for (int i = 0; i < h.weights.rows(); ++i)
      rows_sum_to_one = rows_sum_to_one && std::fabs(h.weights.row(i).sum() - 1.0f) < 1e-5f;
  check(rows_sum_to_one, "the trained model's weights are distributions");

  std::printf("consumer: attention_playground %s, %zu tokens, largest difference from NumPy %.3g\n",
              ap::kVersion, t.tokens.size(), worst);
  return failures == 0 ? 0 : 1;
}
