// numpy_example.hpp: the article's NumPy program as a model ("numpy"). Its X and weights are
// NumPy's own draws (numpy_random.hpp): np.random.seed(seed), X = randn(n, d_model), then W_Q,
// W_K, W_V = randn(d_model, d_k) in that order; one head, no positional encoding, no W_O, exactly
// as the program does. Also the program's text (src/data/numpy_example.py, the article's code as
// printed there) with its sizes set, and which line computes which stage of the walkthrough.
// Not the attention maths (attention.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace ap {

// The values the article's program runs with: np.random.seed(42), seq_len = 4, d_model = 8,
// d_k = 4. The page's preset uses them; the program text is written with them.
struct NumpyArticle {
  std::uint64_t seed;
  int n;
  int d_model;
  int d_k;
};
inline constexpr NumpyArticle kNumpyArticle{42, 4, 8, 4};

struct NumpyExample {
  Matrix X;   // n x d_model, np.random.randn(seq_len, d_model) rounded to float32
  Weights w;  // W_Q, W_K, W_V: d_model x d_k each; W_O empty (no output projection)
};

// The draws of the article's program for these sizes and seed. Throws ap::Error("numpy_seed") when
// the seed is outside np.random.seed's range (0 .. 2^32-1).
NumpyExample numpy_example(int n, int d_model, int d_k, std::uint64_t seed);

// tokenize -> the article's draws for the text's n tokens -> attend. Settings: seed, d_model, d_k
// (0 = d_model), causal, scale, temperature and tie_qk (W_K = W_Q after all three are drawn, so
// W_V stays the article's) apply. The model fixes the rest, as a trained model fixes its shape:
// one head and no positional encoding (the returned settings say heads 1, positions false).
TextTrace trace_text_numpy(std::string_view text, const Settings& s,
                           const Lexicon& lex = default_lexicon());
// The settings the model runs with (heads 1, positions off), checked: ap::Error on a bad one.
Settings numpy_settings(const Settings& s);
// The second half of trace_text_numpy, for tokens already made.
TextTrace trace_tokens_numpy(std::vector<Token> tokens, const Settings& s);

// True when the article's program, run unchanged, computes this trace's numbers: no causal mask,
// scaling on, temperature 1 and W_K not tied to W_Q.
bool numpy_program_matches(const Settings& s);

// One line of the program, and the walkthrough stage it computes ("" for none; stage names are
// the page's: tokens, embeddings, project, score, scale, softmax, mix, heads; the program has no
// mask).
struct ProgramLine {
  std::string text;
  std::string stage;
};

// The article's program with np.random.seed(seed), seq_len = n, d_model and d_k set (and the
// comments that state those sizes), so running it prints this model's numbers.
std::vector<ProgramLine> numpy_program_lines(std::uint64_t seed, int n, int d_model, int d_k);
std::string numpy_program(std::uint64_t seed, int n, int d_model, int d_k);  // lines joined by \n

// The program exactly as the article prints it (kNumpyArticle's seed and sizes).
std::string_view numpy_program_original();

}  // namespace ap
