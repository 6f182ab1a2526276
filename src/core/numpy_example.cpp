// numpy_example.cpp: the article's draws, its trace, and its program text with the sizes set.
#include "numpy_example.hpp"

#include <string>

#include "error.hpp"
#include "numpy_random.hpp"

namespace ap {

extern const char* const kNumpyExamplePy;

namespace {

// Which stage each line computes, by the line's code (leading spaces removed).
struct StageOf {
  const char* code_prefix;
  const char* stage;
};
constexpr StageOf kStages[] = {
    {"seq_len = ", "tokens"},
    {"np.random.seed(", "embeddings"},
    {"d_model = ", "embeddings"},
    {"X = np.random.randn(", "embeddings"},
    {"d_k = 4 ", "project"},  // the module-level size, not `d_k = Q.shape[-1]` in the function
    {"W_Q = np.random.randn(", "project"},
    {"W_K = np.random.randn(", "project"},
    {"W_V = np.random.randn(", "project"},
    {"Q = X @ W_Q", "project"},
    {"K = X @ W_K", "project"},
    {"V = X @ W_V", "project"},
    {"scores = np.matmul(Q, K.T)", "score"},
    {"scores = scores / np.sqrt(d_k)", "scale"},
    {"e_x = np.exp(", "softmax"},
    {"return e_x / e_x.sum(", "softmax"},
    {"attention_weights = softmax(scores)", "softmax"},
    {"output = np.matmul(attention_weights, V)", "mix"},
    {"output, weights = scaled_dot_product_attention(Q, K, V)", "heads"},
};

std::string trim_left(const std::string& s) {
  const std::size_t p = s.find_first_not_of(' ');
  return p == std::string::npos ? std::string() : s.substr(p);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Replaces `from` by `to` in the one line that contains it; the program is compiled in, so a
// missing anchor is a broken build, caught by the tests.
void replace_once(std::vector<ProgramLine>& lines, const std::string& from, const std::string& to) {
  int found = 0;
  for (ProgramLine& l : lines) {
    const std::size_t p = l.text.find(from);
    if (p == std::string::npos) continue;
    l.text.replace(p, from.size(), to);
    ++found;
  }
  if (found != 1)
    throw Error("internal", "numpy_example.py: expected \"" + from + "\" exactly once, found " +
                                std::to_string(found));
}

std::string shape(int a, int b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

}  // namespace

NumpyExample numpy_example(int n, int d_model, int d_k, std::uint64_t seed) {
  NumpyRandomState rs(seed);  // checks the seed first, as np.random.seed does
  NumpyExample e;
  e.X = rs.randn(n, d_model);
  e.w.W_Q = rs.randn(d_model, d_k);
  e.w.W_K = rs.randn(d_model, d_k);
  e.w.W_V = rs.randn(d_model, d_k);
  return e;
}

Settings numpy_settings(const Settings& s) {
  Settings eff = s;
  eff.heads = 1;  // fixed by the model, as a trained model fixes its shape
  eff.positions = false;
  validate(eff);
  NumpyRandomState::check_seed(eff.seed);
  return eff;
}

TextTrace trace_text_numpy(std::string_view text, const Settings& s, const Lexicon& lex) {
  const Settings eff = numpy_settings(s);
  return trace_tokens_numpy(tokenize(text, lex, eff.max_tokens), eff);
}

TextTrace trace_tokens_numpy(std::vector<Token> tokens, const Settings& s) {
  const Settings eff = numpy_settings(s);
  const int d_k = validate(eff);
  TextTrace out;
  out.settings = eff;
  out.weights = "numpy";
  out.tokens = std::move(tokens);
  NumpyExample e = numpy_example(static_cast<int>(out.tokens.size()), eff.d_model, d_k, eff.seed);
  if (eff.tie_qk) e.w.W_K = e.w.W_Q;
  out.embeddings = std::move(e.X);
  attend_text(out, e.w);
  return out;
}

bool numpy_program_matches(const Settings& s) {
  return !s.causal && s.scale && s.temperature == 1.0f && !s.tie_qk;
}

std::vector<ProgramLine> numpy_program_lines(std::uint64_t seed, int n, int d_model, int d_k) {
  NumpyRandomState::check_seed(seed);
  std::vector<ProgramLine> lines;
  const std::string all = kNumpyExamplePy;
  std::size_t begin = 0;
  while (begin < all.size()) {
    std::size_t end = all.find('\n', begin);
    if (end == std::string::npos) end = all.size();
    lines.push_back({all.substr(begin, end - begin), ""});
    begin = end + 1;
  }
  for (ProgramLine& l : lines) {
    const std::string code = trim_left(l.text);
    for (const StageOf& s : kStages)
      if (starts_with(code, s.code_prefix)) l.stage = s.stage;
  }
  const std::string N = std::to_string(n), D = std::to_string(d_model), K = std::to_string(d_k);
  // the article's values (kNumpyArticle), as the program text writes them
  const NumpyArticle& a = kNumpyArticle;
  const std::string aN = std::to_string(a.n), aD = std::to_string(a.d_model),
                    aK = std::to_string(a.d_k);
  replace_once(lines, "np.random.seed(" + std::to_string(a.seed) + ")",
               "np.random.seed(" + std::to_string(seed) + ")");
  replace_once(lines, "seq_len = " + aN + " ", "seq_len = " + N + " ");
  replace_once(lines, "d_model = " + aD + " ", "d_model = " + D + " ");
  replace_once(lines, "d_k = " + aK + " ", "d_k = " + K + " ");
  // the comments that state the sizes
  replace_once(lines, "假设句子有 " + aN + " 个词，每个词的向量维度是 " + aD,
               "假设句子有 " + N + " 个词，每个词的向量维度是 " + D);
  replace_once(
      lines,
      "# " + shape(a.n, a.d_model) + " × " + shape(a.d_model, a.d_k) + " → " + shape(a.n, a.d_k),
      "# " + shape(n, d_model) + " × " + shape(d_model, d_k) + " → " + shape(n, d_k));
  replace_once(lines, "X.shape)          # " + shape(a.n, a.d_model),
               "X.shape)          # " + shape(n, d_model));
  replace_once(lines, "Q.shape)            # " + shape(a.n, a.d_k),
               "Q.shape)            # " + shape(n, d_k));
  replace_once(lines, "output.shape)         # " + shape(a.n, a.d_k),
               "output.shape)         # " + shape(n, d_k));
  return lines;
}

std::string numpy_program(std::uint64_t seed, int n, int d_model, int d_k) {
  std::string out;
  for (const ProgramLine& l : numpy_program_lines(seed, n, d_model, d_k)) {
    out += l.text;
    out += '\n';
  }
  return out;
}

std::string_view numpy_program_original() { return kNumpyExamplePy; }

}  // namespace ap
