// qkv-train: trains the default attention model from the lexicon and the template corpus and writes
// the .apm file. Native only (scripts/train runs it); not part of the page or of the qkv CLI.
// Errors: exit status 2 and one line on stderr.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "error.hpp"
#include "lexicon.hpp"
#include "model_file.hpp"
#include "trainer.hpp"

namespace {

const char* const kUsage =
    "usage: qkv-train [--lexicon PATH] [--train PATH] [--test PATH] [--out PATH]\n"
    "                 [--seed N] [--steps N] [--batch N] [--lr X] [--d-model N] [--heads N]\n"
    "                 [--d-k N] [--log-every N]\n"
    "Defaults: src/data/lexicon.tsv, src/data/corpus/train.tsv, src/data/corpus/test.tsv,\n"
    "src/data/models/default.apm (relative to the current directory), and the TrainConfig\n"
    "defaults of src/core/trainer.hpp. --out - skips writing.\n";

[[noreturn]] void fail(const std::string& msg) {
  std::cerr << "qkv-train: error: " << msg << "\n";
  std::exit(2);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open " + path + ": run from the repository root or give the path");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

long long to_int(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') fail(flag + " needs a whole number, got \"" + v + "\"");
  return x;
}

// Prints, for one sentence, the weight each head gives from the query token to the target token.
void show(const ap::TrainedModel& m, const std::string& text, const std::string& query,
          const std::string& target) {
  const ap::TextTrace t = ap::trace_text_with_model(text, ap::Settings{}, m);
  int qi = -1, ti = -1;
  for (std::size_t i = 0; i < t.tokens.size(); ++i) {
    if (qi < 0 && t.tokens[i].text == query) qi = static_cast<int>(i);
    if (ti < 0 && t.tokens[i].text == target) ti = static_cast<int>(i);
  }
  std::cout << "  " << text << "\n";
  if (qi < 0 || ti < 0) {
    std::cout << "    (tokens not found)\n";
    return;
  }
  for (int h = 0; h < m.heads; ++h) {
    const ap::Matrix& w = t.trace.head[static_cast<std::size_t>(h)].weights;
    Eigen::Index best = 0;
    w.row(qi).maxCoeff(&best);
    std::cout << "    head " << h << ": " << query << " -> " << target << " "
              << fmt("%.3f", w(qi, ti))
              << (best == ti ? "  (largest)"
                             : "  (largest: " + t.tokens[static_cast<std::size_t>(best)].text + ")")
              << "\n";
  }
  const std::vector<ap::TokenGuess> g = ap::guess_words(t.trace, m);
  std::cout << "    the model reads " << query << " as "
            << m.vocab.word(g[static_cast<std::size_t>(qi)].word)
            << " (p = " << fmt("%.3f", g[static_cast<std::size_t>(qi)].probability) << ")\n";
}

int run(int argc, char** argv) {
  std::string lexicon_path = "src/data/lexicon.tsv";
  std::string train_path = "src/data/corpus/train.tsv";
  std::string test_path = "src/data/corpus/test.tsv";
  std::string out_path = "src/data/models/default.apm";
  ap::TrainConfig cfg;
  int log_every = 500;
  std::vector<std::string> a(argv + 1, argv + argc);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string& f = a[i];
    if (f == "--help" || f == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (i + 1 >= a.size()) fail("unknown option or missing value: " + f + " (see --help)");
    const std::string& v = a[++i];
    if (f == "--lexicon")
      lexicon_path = v;
    else if (f == "--train")
      train_path = v;
    else if (f == "--test")
      test_path = v;
    else if (f == "--out")
      out_path = v;
    else if (f == "--seed")
      cfg.seed = static_cast<std::uint64_t>(to_int(f, v));
    else if (f == "--steps")
      cfg.steps = static_cast<int>(to_int(f, v));
    else if (f == "--batch")
      cfg.batch = static_cast<int>(to_int(f, v));
    else if (f == "--d-model")
      cfg.d_model = static_cast<int>(to_int(f, v));
    else if (f == "--heads")
      cfg.heads = static_cast<int>(to_int(f, v));
    else if (f == "--d-k")
      cfg.d_k = static_cast<int>(to_int(f, v));
    else if (f == "--log-every")
      log_every = static_cast<int>(to_int(f, v));
    else if (f == "--lr")
      cfg.learning_rate = std::strtof(v.c_str(), nullptr);
    else
      fail("unknown option " + f + " (see --help)");
  }
  ap::validate(cfg);

  const auto t0 = std::chrono::steady_clock::now();
  const auto seconds = [&]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const std::string lexicon_tsv = read_file(lexicon_path);
  const ap::Lexicon lex = ap::Lexicon::from_tsv(lexicon_tsv);
  ap::Vocabulary vocab = ap::Vocabulary::from_lexicon_tsv(lexicon_tsv, 8);
  std::vector<ap::Example> train =
      ap::prepare_examples(ap::parse_corpus(read_file(train_path)), vocab, lex);
  const std::vector<ap::Example> test =
      ap::prepare_examples(ap::parse_corpus(read_file(test_path)), vocab, lex);
  std::cout << "vocabulary " << vocab.size() << " rows, " << train.size() << " training and "
            << test.size() << " held-out sentences; d_model " << cfg.d_model << ", heads "
            << cfg.heads << ", d_k " << cfg.d_k << ", seed " << cfg.seed << "\n";
  const std::size_t n_train = train.size();

  ap::Trainer trainer(cfg, std::move(vocab), std::move(train));
  // the stored training loss is the mean over the last 500 steps, whatever --log-every says
  const int tail_from = std::max(0, cfg.steps - 500);
  double window = 0.0, tail = 0.0;
  int in_window = 0;
  for (int s = 0; s < cfg.steps; ++s) {
    const double loss = trainer.step();
    window += loss;
    if (s >= tail_from) tail += loss;
    ++in_window;
    if ((s + 1) % log_every == 0 || s + 1 == cfg.steps) {
      std::cout << "step " << s + 1 << "  loss " << fmt("%.4f", window / in_window) << "  lr "
                << fmt("%.5f", trainer.learning_rate_at(s)) << "  " << fmt("%.1f", seconds())
                << " s\n";
      window = 0.0;
      in_window = 0;
    }
  }
  const double train_seconds = seconds();
  const double final_loss = cfg.steps > 0 ? tail / (cfg.steps - tail_from) : 0.0;

  ap::TrainedModel m = trainer.model();
  const ap::Evaluation ev = ap::evaluate(m, test);
  ap::annotate_heads(m, ev);
  m.info = {
      {"trainer", "qkv-train (src/cli/train_main.cpp), run by scripts/train"},
      {"objective",
       "pronoun -> antecedent word, verb -> object (or subject) word; tied E; no residual"},
      {"corpus", "src/data/corpus/train.tsv from scripts/gen_lexicon"},
      {"storage", "float16 little-endian"},
      {"seed", std::to_string(cfg.seed)},
      {"steps", std::to_string(cfg.steps)},
      {"batch", std::to_string(cfg.batch)},
      {"learning_rate", fmt("%g", cfg.learning_rate)},
      {"train_sentences", std::to_string(n_train)},
      {"heldout_sentences", std::to_string(test.size())},
      {"final_train_loss", fmt("%.4f", final_loss)},
      {"heldout_loss", fmt("%.4f", ev.loss)},
      {"heldout_accuracy", fmt("%.4f", ev.accuracy())},
      {"heldout_pronoun_accuracy", fmt("%.4f", ev.pronoun_accuracy())},
      {"heldout_verb_accuracy", fmt("%.4f", ev.verb_accuracy())},
  };

  std::cout << "training loss (mean of the last 500 steps) " << fmt("%.4f", final_loss) << "\n";
  std::cout << "held-out: accuracy " << fmt("%.4f", ev.accuracy()) << " (" << ev.correct << "/"
            << ev.targets << "), pronouns " << fmt("%.4f", ev.pronoun_accuracy()) << ", verbs "
            << fmt("%.4f", ev.verb_accuracy()) << ", loss " << fmt("%.4f", ev.loss) << "\n";
  for (int h = 0; h < m.heads; ++h) {
    const ap::HeadNote& n = m.notes[static_cast<std::size_t>(h)];
    std::cout << "head " << h << " [" << n.role << "] pronoun->antecedent "
              << fmt("%.3f", n.pronoun_accuracy) << ", verb->argument "
              << fmt("%.3f", n.verb_accuracy) << ": " << n.note << "\n";
  }
  show(m, "小猫吃鱼，它很开心", "它", "小猫");
  show(m, "The animal didn't cross the street because it was too tired", "it", "animal");

  if (out_path != "-") {
    ap::save_model_file(out_path, m);
    std::cout << "wrote " << out_path << " (" << ap::save_model(m).size() << " bytes)\n";
  }
  std::cout << "training took " << fmt("%.1f", train_seconds) << " s (" << cfg.steps << " steps, "
            << fmt("%.0f", cfg.steps / train_seconds) << " steps/s); total "
            << fmt("%.1f", seconds()) << " s\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const ap::Error& e) {
    fail(e.what());
  } catch (const std::exception& e) {
    fail(std::string("unexpected: ") + e.what());
  }
}
