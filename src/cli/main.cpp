// main.cpp: qkv, the native command line over the attention core: text or JSON in, JSON out
// (json_io.hpp writes it). Errors: exit status 2 and one line on stderr. Not a server or the page.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ap_version.hpp"
#include "default_model.hpp"
#include "error.hpp"
#include "hf_convert.hpp"
#include "hf_folder.hpp"
#include "hf_model.hpp"
#include "hf_tokenize.hpp"
#include "inference.hpp"
#include "io.hpp"
#include "json_io.hpp"
#include "model.hpp"
#include "model_file.hpp"
#include "numpy_example.hpp"
#include "real_model_file.hpp"
#include "tokenizer.hpp"

namespace {

const char* const kUsage =
    "usage: qkv tokenize TEXT [--max-tokens N]\n"
    "       qkv tokenize --hf DIR TEXT | --hf DIR --jsonl FILE   (a Hugging Face model folder's\n"
    "                      tokenizer; each line of FILE a JSON string, one JSON line out each)\n"
    "       qkv trace TEXT [--seed N] [--d-model N] [--heads N] [--d-k N] [--causal]\n"
    "                      [--no-scale] [--temperature T] [--tie-qk] [--no-positions]\n"
    "                      [--max-tokens N] [--model default|random|numpy|FILE.apm]\n"
    "       qkv trace --hf DIR TEXT [--layer L] [--head H]\n"
    "       qkv trace --hf DIR --ids ID,ID,...  [--layer L] [--head H]\n"
    "       qkv trace --model REAL.apm TEXT | --ids ID,...  [--layer L] [--head H]\n"
    "       qkv convert DIR OUT.apm [--dtype f32|f16|int8] [--text TEXT]   (a model folder\n"
    "                      packed into one file; prints its size and the largest change of any\n"
    "                      attention weight on a test sentence)\n"
    "       qkv attend FILE        (FILE may be - for standard input)\n"
    "       qkv --version\n"
    "TEXT may be - to read it from standard input. --hf DIR: a Hugging Face model folder\n"
    "(config.json, model.safetensors and its tokenizer files; gpt2 or bert). REAL.apm: a file\n"
    "qkv convert wrote.\n";

// One short line: control characters escaped (a message quoting the input must not retitle or
// recolour the terminal), long messages cut with an ellipsis.
constexpr std::size_t kMaxMessageBytes = 400;

[[noreturn]] void fail(const std::string& msg) {
  std::cerr << "qkv: error: " << ap::printable(msg, kMaxMessageBytes) << "\n";
  std::exit(2);
}

std::string read_text_arg(const std::string& arg) {
  if (arg != "-") return arg;
  // stop at the cap: `qkv trace - < /dev/zero` must end, and cheaply
  std::string text = ap::read_at_most(std::cin, ap::kMaxTextBytes);
  if (text.size() > ap::kMaxTextBytes)
    fail("standard input has more than " + std::to_string(ap::kMaxTextBytes) +
         " bytes; the limit is " + std::to_string(ap::kMaxTextBytes) +
         " bytes: paste a shorter passage");
  return text;
}

std::string read_json_input(const std::string& arg) {
  std::string text;
  if (arg == "-") {
    text = ap::read_at_most(std::cin, ap::kMaxAttendJsonBytes);
  } else {
    std::ifstream f(arg, std::ios::binary);
    if (!f) fail("cannot open " + ap::printable(arg) + ": check the path");
    text = ap::read_at_most(f, ap::kMaxAttendJsonBytes);
  }
  if (text.size() > ap::kMaxAttendJsonBytes)
    fail(std::string(arg == "-" ? "standard input" : "the input file") + " has more than " +
         std::to_string(ap::kMaxAttendJsonBytes) + " bytes; attend reads at most " +
         std::to_string(ap::kMaxAttendJsonBytes >> 20) + " MiB of JSON");
  return text;
}

long long parse_int(const std::string& flag, const std::string& v, long long lo, long long hi) {
  if (v.empty() || v.size() > 20) fail(flag + " needs a whole number, got \"" + v + "\"");
  std::size_t i = 0;
  if (v[0] == '-') i = 1;
  if (i == v.size()) fail(flag + " needs a whole number, got \"" + v + "\"");
  for (std::size_t k = i; k < v.size(); ++k)
    if (v[k] < '0' || v[k] > '9') fail(flag + " needs a whole number, got \"" + v + "\"");
  errno = 0;
  const long long x = std::strtoll(v.c_str(), nullptr, 10);
  if (errno == ERANGE || x < lo || x > hi)
    fail(flag + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
         v);
  return x;
}

std::uint64_t parse_seed(const std::string& v) {
  try {
    return ap::parse_seed(v);
  } catch (const ap::Error& e) {
    fail("--seed: " + std::string(e.what()) + ", got \"" + ap::printable(v) + "\"");
  }
}

float parse_float(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !(d == d))
    fail(flag + " needs a number, got \"" + v + "\"");
  if (std::fabs(d) > 3.4e38) fail(flag + " is outside the float32 range, got " + v);
  return static_cast<float>(d);
}

struct Args {
  std::string text;
  bool have_text = false;
  ap::Settings settings;
  // the trained model; "random" = seeded random weights; "numpy" = the article's NumPy
  // program (np.random.seed, X then W_Q, W_K, W_V from np.random.randn)
  std::string model = "default";
  bool shaped = false;  // --d-model, --heads, --d-k or --seed given
  bool heads_given = false;
  std::string hf;            // --hf DIR: a Hugging Face model folder
  int layer = -1, head = 0;  // --layer, --head: the layer traced in full, the head asked for
  bool layer_given = false, head_given = false;
  std::vector<int> ids;  // --ids: token ids instead of TEXT (with --hf)
  bool ids_given = false;
};

std::vector<int> parse_ids(const std::string& v) {
  std::vector<int> ids;
  std::size_t begin = 0;
  while (begin <= v.size()) {
    std::size_t end = v.find(',', begin);
    if (end == std::string::npos) end = v.size();
    ids.push_back(
        static_cast<int>(parse_int("--ids", v.substr(begin, end - begin), 0, ap::kMaxHfVocab)));
    if (ids.size() > static_cast<std::size_t>(ap::kMaxHfPositions))
      fail("--ids: more than " + std::to_string(ap::kMaxHfPositions) + " ids");
    begin = end + 1;
  }
  return ids;
}

Args parse_args(const std::vector<std::string>& a, bool trace) {
  Args out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string& f = a[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= a.size()) fail(f + " needs a value");
      return a[++i];
    };
    if (trace && f == "--hf") {
      out.hf = value();
    } else if (trace && f == "--layer") {
      out.layer = static_cast<int>(parse_int(f, value(), 0, ap::kMaxHfLayers - 1));
      out.layer_given = true;
    } else if (trace && f == "--head") {
      out.head = static_cast<int>(parse_int(f, value(), 0, ap::kMaxHfHeads - 1));
      out.head_given = true;
    } else if (trace && f == "--ids") {
      out.ids = parse_ids(value());
      out.ids_given = true;
    } else if (f == "--max-tokens") {
      out.settings.max_tokens = static_cast<int>(parse_int(f, value(), 1, ap::kMaxTokensLimit));
    } else if (trace && f == "--model") {
      out.model = value();
    } else if (trace && f == "--seed") {
      out.settings.seed = parse_seed(value());
      out.shaped = true;
    } else if (trace && f == "--d-model") {
      out.settings.d_model = static_cast<int>(parse_int(f, value(), 1, ap::kMaxDModel));
      out.shaped = true;
    } else if (trace && f == "--heads") {
      out.settings.heads = static_cast<int>(parse_int(f, value(), 1, ap::kMaxHeads));
      out.shaped = true;
      out.heads_given = true;
    } else if (trace && f == "--d-k") {
      out.settings.d_k = static_cast<int>(parse_int(f, value(), 1, ap::kMaxDModel));
      out.shaped = true;
    } else if (trace && f == "--causal") {
      out.settings.causal = true;
    } else if (trace && f == "--no-scale") {
      out.settings.scale = false;
    } else if (trace && f == "--temperature") {
      out.settings.temperature = parse_float(f, value());
    } else if (trace && f == "--tie-qk") {
      out.settings.tie_qk = true;
    } else if (trace && f == "--no-positions") {
      out.settings.positions = false;
    } else if (f.size() > 2 && f.rfind("--", 0) == 0) {
      fail("unknown option " + ap::printable(f) + " (run qkv --help)");
    } else if (!out.have_text) {
      out.text = read_text_arg(f);
      out.have_text = true;
    } else {
      fail("more than one TEXT given: quote the sentence, e.g. qkv trace \"I love you\"");
    }
  }
  // a model file may be a converted real model (checked once it is read)
  const bool file_model = out.model != "default" && out.model != "random" && out.model != "numpy";
  if (out.ids_given && out.hf.empty() && !file_model)
    fail("--ids needs --hf DIR (a model with its own vocabulary)");
  if (out.ids_given && out.have_text) fail("give TEXT or --ids, not both");
  if ((out.layer_given || out.head_given) && out.hf.empty() && !file_model)
    fail("--layer and --head choose a head of a real model: add --hf DIR");
  if (!out.have_text && !out.ids_given) fail("no TEXT given (run qkv --help)");
  return out;
}

// Whether the file at path begins as a converted real model (version 5 .apm): its first 12 bytes.
bool is_real_model_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  unsigned char head[12] = {};
  if (!f || !f.read(reinterpret_cast<char*>(head), sizeof head)) return false;
  return ap::apm_version(head, sizeof head) == ap::kRealModelFormatVersion;
}

// A real model's trace of TEXT (through tok) or of --ids (tok, when there is one, names them).
void print_real_trace(ap::HfModel m, std::shared_ptr<const ap::hf::Tokenizer> tok, const Args& a) {
  if (a.head >= m.config.heads)
    fail("--head must be between 0 and " + std::to_string(m.config.heads - 1) + " for this model");
  if (a.layer >= m.config.layers)
    fail("--layer must be between 0 and " + std::to_string(m.config.layers - 1) +
         " for this model");
  ap::TextTrace t;
  if (a.ids_given) {
    if (tok) ap::check_tokenizer(m.config, *tok);
    t = ap::hf_forward(m, a.ids, a.layer);
    for (const int id : a.ids) {
      ap::Token tk{};
      tk.text = tok ? tok->id_to_token(id) : "";
      if (tk.text.empty()) tk.text = "#" + std::to_string(id);
      tk.kind = ap::TokenKind::Word;
      tk.known = true;
      tk.id = id;
      t.tokens.push_back(tk);
    }
    t.head = a.head;
    std::cout << ap::trace_to_json(t, m) << "\n";
  } else {
    const ap::HfTextModel hm(std::move(m), std::move(tok));  // the weights move, never copied
    t = hm.trace(a.text, a.settings, a.layer);
    t.head = a.head;
    std::cout << ap::trace_to_json(t, hm.model()) << "\n";
  }
}

// JSON goes to stdout through operator<< (streamed), never dump()ed into one string first: the
// largest trace within the limits is about half a gigabyte of JSON.
int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) fail("no command given: use tokenize, trace or attend (run qkv --help)");
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return 0;
  }
  if (args[0] == "--version") {
    std::cout << "qkv " << ap::kVersion << "\n";
    return 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "tokenize" && std::find(args.begin(), args.end(), "--hf") != args.end()) {
    ap::cli::tokenize_hf(args);
  } else if (cmd == "tokenize") {
    const Args a = parse_args(args, false);
    const auto tokens = ap::tokenize(a.text, ap::default_lexicon(), a.settings.max_tokens);
    std::cout << ap::tokens_to_json(tokens) << "\n";
  } else if (cmd == "trace") {
    const Args a = parse_args(args, true);
    if (!a.hf.empty()) {
      if (a.shaped || a.model != "default")
        fail("--hf DIR is the model: drop --model, --seed, --d-model, --heads and --d-k");
      ap::HfModel m = ap::load_hf_folder(a.hf);
      std::shared_ptr<const ap::hf::Tokenizer> tok;
      if (!a.ids_given || std::ifstream(a.hf + "/tokenizer.json") ||
          std::ifstream(a.hf + "/vocab.json") || std::ifstream(a.hf + "/vocab.txt")) {
        const ap::cli::TokenizerFolder folder = ap::cli::read_tokenizer_folder(a.hf);
        tok = std::make_shared<const ap::hf::Tokenizer>(
            ap::hf::Tokenizer::from_files(folder.files()));
      }
      print_real_trace(std::move(m), std::move(tok), a);
    } else if (a.model == "random") {
      std::cout << ap::trace_to_json(ap::trace_text(a.text, a.settings)) << "\n";
    } else if (a.model == "numpy") {
      if (a.heads_given && a.settings.heads != 1)
        fail(
            "the NumPy example has one head, as the article's program does: drop --heads or use "
            "--heads 1");
      std::cout << ap::trace_to_json(ap::trace_text_numpy(a.text, a.settings)) << "\n";
    } else {
      if (a.shaped)
        fail(
            "--d-model, --heads, --d-k and --seed shape random weights; the trained model fixes "
            "them: add --model random (or --model numpy)");
      if (a.model != "default" && is_real_model_file(a.model)) {
        const ap::MappedFile file(a.model);
        ap::ConvertedModel c = ap::load_real_model(file.data(), file.size());
        print_real_trace(std::move(c.model), std::move(c.tokenizer), a);
        return 0;
      }
      if (a.ids_given || a.layer_given || a.head_given)
        fail("--ids, --layer and --head are for a real model; " + ap::printable(a.model) +
             " is a trained playground model");
      ap::TrainedModel file_model;
      const ap::TrainedModel* m = nullptr;
      if (a.model == "default") {
        m = &ap::default_model();
      } else {
        file_model = ap::load_model_file(a.model);
        m = &file_model;
      }
      const ap::TextTrace t = ap::trace_text_with_model(a.text, a.settings, *m);
      std::cout << ap::trace_to_json(t, *m, a.model) << "\n";
    }
  } else if (cmd == "convert") {
    ap::cli::convert_hf(args);
  } else if (cmd == "attend") {
    if (args.size() != 1) fail("attend takes one FILE (or - for standard input)");
    const ap::AttendInput in = ap::parse_attend_input(read_json_input(args[0]));
    const ap::Trace t = ap::attend(in.X, in.weights, in.options);
    std::cout << ap::trace_to_json(t) << "\n";
  } else {
    fail("unknown command \"" + ap::printable(cmd) + "\": use tokenize, trace, convert or attend");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const ap::Error& e) {
    fail(e.what());
  } catch (const std::bad_alloc&) {
    fail("out of memory: use a smaller input");
  } catch (const std::exception& e) {
    fail(std::string("unexpected: ") + e.what());
  }
}
