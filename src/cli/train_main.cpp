// train_main.cpp: qkv-train, which trains the default attention model from the lexicon and the
// generated corpus and writes the .apm file; `qkv-train annotate MODEL NOTES.tsv` stores measured
// head notes and numbers in a model file (model/train runs model/eval, then this);
// `qkv-train measure MODEL` re-measures a model file's weights as stored on the generated dev split
// and writes it in the current format (a file of an older format keeps true numbers). Native only;
// not part of the page or of the qkv CLI. Errors: exit status 2 and one line on stderr.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "ap_version.hpp"
#include "corpus.hpp"
#include "error.hpp"
#include "evaluation.hpp"
#include "inference.hpp"
#include "io.hpp"
#include "lexicon.hpp"
#include "model_file.hpp"
#include "trainer.hpp"

namespace {

const std::string kUsage =
    "usage: qkv-train [--lexicon PATH] [--train PATH] [--test PATH] [--out PATH]\n"
    "                 [--seed N] [--steps N] [--batch N] [--lr X] [--d-model N] [--heads N]\n"
    "                 [--d-k N] [--d-ff N] [--layers N] [--supervise X] [--supervise-rows X]\n"
    "                 [--supervise-previous X] [--unknown-rate X] [--weight-decay X] [--dropout "
    "X]\n"
    "                 [--masked-rate X] [--masked-weight X] [--log-every N]\n"
    "       qkv-train annotate MODEL.apm NOTES.tsv\n"
    "       qkv-train measure MODEL.apm [--test PATH]\n"
    "NOTES.tsv lines: info<TAB>key<TAB>value, or note<TAB>layer<TAB>head<TAB>role<TAB>key=value "
    "...\n"
    "(layers and heads from 1); annotate replaces every note and sets the info keys given.\n"
    "measure replaces the head notes and dev_* info with the dev split's numbers for the weights\n"
    "as stored (keeping taught), and saves in format version " +
    std::to_string(ap::kModelFormatVersion) +
    "; run model/eval --notes and annotate after it.\n"
    "Defaults: src/data/lexicon.tsv, src/data/corpus/train.tsv, src/data/corpus/test.tsv,\n"
    "src/data/models/default.apm (relative to the current directory), and the TrainConfig\n"
    "defaults of src/core/trainer.hpp. --out - skips writing.\n";

[[noreturn]] void fail(const std::string& msg) {
  std::cerr << "qkv-train: error: " << ap::printable(msg, 400) << "\n";
  std::exit(2);
}

// The lexicon and the corpora, read only up to the corpus cap (a wrong path to /dev/zero or a
// huge file ends cheaply).
std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open " + path + ": run from the repository root or give the path");
  std::string bytes = ap::read_at_most(f, ap::kMaxCorpusBytes);
  if (bytes.size() > ap::kMaxCorpusBytes)
    fail(path + " is larger than " + std::to_string(ap::kMaxCorpusBytes) +
         " bytes: that is not a lexicon or corpus of this project");
  return bytes;
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

// Prints, for one sentence, the weight each head of each layer gives from the query token to the
// target token, and the word the model reads at the query.
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
  for (int l = 0; l < m.net.depth(); ++l)
    for (int h = 0; h < m.net.heads; ++h) {
      const ap::Matrix& w = t.network.layers[static_cast<std::size_t>(l)]
                                .attn.head[static_cast<std::size_t>(h)]
                                .weights;
      Eigen::Index best = 0;
      w.row(qi).maxCoeff(&best);
      std::cout << "    layer " << l + 1 << " head " << h + 1 << ": " << query << " -> " << target
                << " " << fmt("%.3f", w(qi, ti))
                << (best == ti
                        ? "  (largest)"
                        : "  (largest: " + t.tokens[static_cast<std::size_t>(best)].text + ")")
                << "\n";
    }
  const std::vector<ap::TokenGuess> g = ap::guess_words(t, m);
  std::cout << "    the model reads " << query << " as "
            << m.vocab.word(g[static_cast<std::size_t>(qi)].word)
            << " (p = " << fmt("%.3f", g[static_cast<std::size_t>(qi)].probability) << ")\n";
}

std::vector<std::string> split_tabs(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

void set_info(ap::TrainedModel& m, const std::string& key, const std::string& value) {
  for (auto& kv : m.info)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  m.info.emplace_back(key, value);
}

// How the matrices are stored (model_file.hpp), for the model's info.
const char* const kStorage = "int8 rows, a float16 scale each (format 4)";

// The compiler that built this trainer: training reproduces bit for bit only with the same
// compiler on the same machine, so the model file records it (model/train adds the corpus hash
// and the source commit).
#if defined(__clang__)
const char* const kCompiler = "clang " __clang_version__;
#elif defined(__GNUC__)
const char* const kCompiler = "gcc " __VERSION__;
#else
const char* const kCompiler = "unknown";
#endif

// The generated dev split's numbers for m's weights: each head's role and dev_* shares (a note's
// "taught" is kept), and the dev_* info keys. m should hold the weights as stored
// (load_model(save_model(...))), so that the numbers are the ones every reader reproduces.
ap::Evaluation measure_dev(ap::TrainedModel& m, const std::vector<ap::Example>& dev) {
  const ap::Evaluation ev = ap::evaluate(m, dev);
  std::vector<ap::HeadNote> notes = ap::dev_notes(ev);
  for (std::size_t k = 0; k < notes.size() && k < m.notes.size(); ++k) {
    const float taught = m.notes[k].number("taught");
    if (!std::isnan(taught)) notes[k].numbers.push_back({"taught", taught});
  }
  m.notes = std::move(notes);
  set_info(m, "storage", kStorage);
  set_info(m, "dev_sentences", std::to_string(dev.size()));
  set_info(m, "dev_loss", fmt("%.4f", ev.loss));
  set_info(m, "dev_accuracy", fmt("%.4f", ev.accuracy()));
  set_info(m, "dev_pronoun_accuracy", fmt("%.4f", ev.pronoun_accuracy()));
  set_info(m, "dev_verb_accuracy", fmt("%.4f", ev.verb_accuracy()));
  return ev;
}

void print_dev(const ap::TrainedModel& m, const ap::Evaluation& ev) {
  std::cout << "dev: accuracy " << fmt("%.4f", ev.accuracy()) << " (" << ev.correct << "/"
            << ev.targets << "), pronouns " << fmt("%.4f", ev.pronoun_accuracy()) << ", verbs "
            << fmt("%.4f", ev.verb_accuracy()) << ", loss " << fmt("%.4f", ev.loss) << "\n";
  for (int l = 0; l < m.net.depth(); ++l)
    for (int h = 0; h < m.net.heads; ++h) {
      const std::size_t k = static_cast<std::size_t>(l * m.net.heads + h);
      std::cout << "layer " << l + 1 << " head " << h + 1 << " (" << m.notes[k].role
                << "): pronoun->antecedent " << fmt("%.3f", ev.head_pronoun_accuracy(l, h))
                << ", verb->argument " << fmt("%.3f", ev.head_verb_accuracy(l, h)) << ", self "
                << fmt("%.3f", ev.head_self[k]) << ", previous " << fmt("%.3f", ev.head_previous[k])
                << "\n";
    }
}

// qkv-train measure MODEL [--test PATH]: measure_dev on the weights as stored, saved in place.
int measure(const std::vector<std::string>& a) {
  std::string test_path = "src/data/corpus/test.tsv";
  if (a.size() == 4 && a[2] == "--test")
    test_path = a[3];
  else if (a.size() != 2)
    fail("measure needs MODEL.apm and optionally --test PATH (see --help)");
  const std::string model_path = a[1];
  const ap::TrainedModel stored = ap::load_model_file(model_path);
  ap::TrainedModel m = ap::load_model(ap::save_model(stored));
  const std::vector<ap::Example> dev =
      ap::prepare_examples(ap::parse_corpus(read_file(test_path)), m.vocab, ap::default_lexicon());
  print_dev(m, measure_dev(m, dev));
  ap::save_model_file(model_path, m);
  std::cout << "measured " << model_path << " (" << ap::save_model(m).size() << " bytes)\n";
  return 0;
}

// qkv-train annotate MODEL NOTES: every note replaced, the info keys given set (in order).
int annotate(const std::string& model_path, const std::string& notes_path) {
  ap::TrainedModel m = ap::load_model_file(model_path);
  const int layers = m.net.depth(), heads = m.net.heads;
  std::vector<ap::HeadNote> notes(static_cast<std::size_t>(layers * heads));
  std::vector<bool> seen(notes.size(), false);
  std::istringstream in(read_file(notes_path));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> col = split_tabs(line, '\t');
    const std::string where = notes_path + " line " + std::to_string(number);
    if (col[0] == "info" && col.size() == 3) {
      set_info(m, col[1], col[2]);
    } else if (col[0] == "note" && col.size() == 5) {
      const long long l = to_int(where, col[1]) - 1, h = to_int(where, col[2]) - 1;
      if (l < 0 || l >= layers || h < 0 || h >= heads) fail(where + ": no such layer or head");
      ap::HeadNote& n = notes[static_cast<std::size_t>(l * heads + h)];
      n.role = col[3];
      for (const std::string& kv : split_tabs(col[4], ' ')) {
        if (kv.empty()) continue;
        const std::size_t eq = kv.find('=');
        if (eq == std::string::npos) fail(where + ": expected key=value, got " + kv);
        char* end = nullptr;
        const float v = std::strtof(kv.c_str() + eq + 1, &end);
        if (*end != '\0') fail(where + ": " + kv + " is not a number");
        n.numbers.emplace_back(kv.substr(0, eq), v);
      }
      seen[static_cast<std::size_t>(l * heads + h)] = true;
    } else {
      fail(where +
           ": expected info<TAB>key<TAB>value or note<TAB>layer<TAB>head<TAB>role<TAB>numbers");
    }
  }
  for (std::size_t k = 0; k < seen.size(); ++k)
    if (!seen[k])
      fail(notes_path + " has no note for layer " + std::to_string(k / heads + 1) + " head " +
           std::to_string(k % heads + 1));
  m.notes = std::move(notes);
  ap::save_model_file(model_path, m);
  std::cout << "annotated " << model_path << " (" << ap::save_model(m).size() << " bytes)\n";
  return 0;
}

int run(int argc, char** argv) {
  std::string lexicon_path = "src/data/lexicon.tsv";
  std::string train_path = "src/data/corpus/train.tsv";
  std::string test_path = "src/data/corpus/test.tsv";
  std::string out_path = "src/data/models/default.apm";
  ap::TrainConfig cfg;
  int log_every = 500;
  std::vector<std::string> a(argv + 1, argv + argc);
  if (!a.empty() && a[0] == "annotate") {
    if (a.size() != 3) fail("annotate needs MODEL.apm and NOTES.tsv (see --help)");
    return annotate(a[1], a[2]);
  }
  if (!a.empty() && a[0] == "measure") return measure(a);
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
    else if (f == "--d-ff")
      cfg.d_ff = static_cast<int>(to_int(f, v));
    else if (f == "--layers")
      cfg.layers = static_cast<int>(to_int(f, v));
    else if (f == "--supervise")
      cfg.attention_supervision = std::strtof(v.c_str(), nullptr);
    else if (f == "--supervise-rows")
      cfg.row_supervision = std::strtof(v.c_str(), nullptr);
    else if (f == "--supervise-previous")
      cfg.previous_supervision = std::strtof(v.c_str(), nullptr);
    else if (f == "--unknown-rate")
      cfg.unknown_rate = std::strtof(v.c_str(), nullptr);
    else if (f == "--log-every")
      log_every = static_cast<int>(to_int(f, v));
    else if (f == "--lr")
      cfg.learning_rate = std::strtof(v.c_str(), nullptr);
    else if (f == "--weight-decay")
      cfg.weight_decay = std::strtof(v.c_str(), nullptr);
    else if (f == "--dropout")
      cfg.dropout = std::strtof(v.c_str(), nullptr);
    else if (f == "--masked-rate")
      cfg.masked_rate = std::strtof(v.c_str(), nullptr);
    else if (f == "--masked-weight")
      cfg.masked_weight = std::strtof(v.c_str(), nullptr);
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
            << test.size() << " dev sentences; d_model " << cfg.d_model << ", heads " << cfg.heads
            << ", d_k " << cfg.d_k << ", d_ff " << cfg.d_ff << ", layers " << cfg.layers
            << ", attention supervision " << cfg.attention_supervision << ", seed " << cfg.seed
            << "\n";
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

  // the weights as the file stores them (int8 rows): every number below is measured on them
  ap::TrainedModel m = trainer.model();
  m.notes.assign(static_cast<std::size_t>(m.net.depth() * m.net.heads), ap::HeadNote{});
  m = ap::load_model(ap::save_model(m));
  // the heads an attention loss taught (the page says so next to them): taught = that loss's weight
  const auto taught = [&](int layer, int head, float weight) {
    if (weight > 0.0f)
      m.notes[static_cast<std::size_t>(layer * m.net.heads + head)].numbers.push_back(
          {"taught", weight});
  };
  if (cfg.attention_supervision > 0.0f) {
    taught(m.net.depth() - 1, cfg.pronoun_head, cfg.attention_supervision);
    if (cfg.verb_head != cfg.pronoun_head)
      taught(m.net.depth() - 1, cfg.verb_head, cfg.attention_supervision);
  }
  if (m.net.depth() > 1) taught(0, cfg.previous_head, cfg.previous_supervision);
  m.info = {
      {"trainer", "qkv-train (src/cli/train_main.cpp), run by model/train"},
      {ap::kInfoProjectVersion, ap::kVersion},
      {"objective", "pronoun -> antecedent word, verb -> object (or subject) word; tied E"},
      {"attention_supervision", fmt("%g", cfg.attention_supervision)},
      {"attention_supervision_rows", fmt("%g", cfg.row_supervision)},
      {"attention_supervision_previous", fmt("%g", cfg.previous_supervision)},
      {"corpus", "src/data/corpus/train.tsv from model/generate.py"},
      {"storage", kStorage},
      {"compiler", kCompiler},
      {"seed", std::to_string(cfg.seed)},
      {"steps", std::to_string(cfg.steps)},
      {"batch", std::to_string(cfg.batch)},
      {"learning_rate", fmt("%g", cfg.learning_rate)},
      {"weight_decay", fmt("%g", cfg.weight_decay)},
      {"dropout", fmt("%g", cfg.dropout)},
      {"masked_rate", fmt("%g", cfg.masked_rate)},
      {"masked_weight", fmt("%g", cfg.masked_weight)},
      {"train_sentences", std::to_string(n_train)},
      {"dev_sentences", std::to_string(test.size())},
      {"final_train_loss", fmt("%.4f", final_loss)},
  };
  // roles and dev_* numbers from the dev split; model/eval adds the hand-written sets' (annotate)
  const ap::Evaluation ev = measure_dev(m, test);

  std::cout << "training loss (mean of the last 500 steps) " << fmt("%.4f", final_loss) << "\n";
  print_dev(m, ev);
  show(m, "小猫吃鱼，它很开心", "它", "小猫");
  show(m, "The animal didn't cross the street because it was too tired", "it", "animal");
  show(m, "The animal didn't cross the street because it was too wide", "it", "street");

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
