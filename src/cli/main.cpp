// qkv: the native command line over the attention core. Text or JSON in, JSON out.
// Errors: exit status 2 and one line on stderr. Not a server and not the page.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "default_model.hpp"
#include "error.hpp"
#include "json_io.hpp"
#include "model.hpp"
#include "model_file.hpp"
#include "tokenizer.hpp"

namespace {

const char* const kUsage =
    "usage: qkv tokenize TEXT [--max-tokens N]\n"
    "       qkv trace TEXT [--seed N] [--d-model N] [--heads N] [--d-k N] [--causal]\n"
    "                      [--no-scale] [--temperature T] [--tie-qk] [--no-positions]\n"
    "                      [--max-tokens N] [--model default|random|FILE.apm]\n"
    "       qkv attend FILE        (FILE may be - for standard input)\n"
    "TEXT may be - to read it from standard input.\n";

[[noreturn]] void fail(const std::string& msg) {
  std::string line = msg;
  for (char& c : line)
    if (c == '\n' || c == '\r') c = ' ';
  std::cerr << "qkv: error: " << line << "\n";
  std::exit(2);
}

std::string read_all(std::istream& in) {
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string read_text_arg(const std::string& arg) {
  if (arg == "-") return read_all(std::cin);
  return arg;
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
  if (v.empty() || v.size() > 20 || v.find_first_not_of("0123456789") != std::string::npos)
    fail("--seed needs a whole number from 0 to 18446744073709551615, got \"" + v + "\"");
  errno = 0;
  const unsigned long long x = std::strtoull(v.c_str(), nullptr, 10);
  if (errno == ERANGE) fail("--seed must be at most 18446744073709551615, got " + v);
  return x;
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
  std::string model = "default";  // the trained model; "random" = seeded random weights
  bool shaped = false;            // --d-model, --heads, --d-k or --seed given
};

Args parse_args(const std::vector<std::string>& a, bool trace) {
  Args out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string& f = a[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= a.size()) fail(f + " needs a value");
      return a[++i];
    };
    if (f == "--max-tokens") {
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
      fail("unknown option " + f + " (run qkv --help)");
    } else if (!out.have_text) {
      out.text = read_text_arg(f);
      out.have_text = true;
    } else {
      fail("more than one TEXT given: quote the sentence, e.g. qkv trace \"I love you\"");
    }
  }
  if (!out.have_text) fail("no TEXT given (run qkv --help)");
  return out;
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) fail("no command given: use tokenize, trace or attend (run qkv --help)");
  if (args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "tokenize") {
    const Args a = parse_args(args, false);
    const auto tokens = ap::tokenize(a.text, ap::default_lexicon(), a.settings.max_tokens);
    std::cout << ap::tokens_to_json(tokens).dump() << "\n";
  } else if (cmd == "trace") {
    const Args a = parse_args(args, true);
    if (a.model == "random") {
      std::cout << ap::trace_to_json(ap::trace_text(a.text, a.settings)).dump() << "\n";
    } else {
      if (a.shaped)
        fail(
            "--d-model, --heads, --d-k and --seed shape random weights; the trained model fixes "
            "them: add --model random");
      ap::TrainedModel file_model;
      const ap::TrainedModel* m = &ap::default_model();
      if (a.model != "default") {
        file_model = ap::load_model_file(a.model);
        m = &file_model;
      }
      const ap::TextTrace t = ap::trace_text_with_model(a.text, a.settings, *m);
      std::cout << ap::trace_to_json(t, *m, a.model).dump() << "\n";
    }
  } else if (cmd == "attend") {
    if (args.size() != 1) fail("attend takes one FILE (or - for standard input)");
    std::string text;
    if (args[0] == "-") {
      text = read_all(std::cin);
    } else {
      std::ifstream f(args[0], std::ios::binary);
      if (!f) fail("cannot open " + args[0] + ": check the path");
      text = read_all(f);
    }
    const ap::AttendInput in = ap::parse_attend_input(text);
    const ap::Trace t = ap::attend(in.X, in.weights, in.options);
    std::cout << ap::trace_to_json(t).dump() << "\n";
  } else {
    fail("unknown command \"" + cmd + "\": use tokenize, trace or attend");
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
