// hf_tokenize.cpp: `qkv tokenize --hf DIR` and the CLI's reading of a model folder's tokenizer.
#include "hf_tokenize.hpp"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "error.hpp"
#include "io.hpp"

namespace ap::cli {

ap::hf::Files TokenizerFolder::files() const {
  ap::hf::Files out;
  for (const auto& [name, b] : bytes) out.emplace(name, b);
  return out;
}

TokenizerFolder read_tokenizer_folder(const std::string& dir) {
  TokenizerFolder folder;
  for (const std::string& name : ap::hf::tokenizer_file_names()) {
    const std::string path = dir + "/" + name;
    std::ifstream f(path, std::ios::binary);
    if (!f) continue;
    std::string b = ap::read_at_most(f, ap::hf::kMaxTokenizerFileBytes);
    if (b.size() > ap::hf::kMaxTokenizerFileBytes)
      throw Error("hf_file_too_large", path + " is larger than " +
                                           std::to_string(ap::hf::kMaxTokenizerFileBytes >> 20) +
                                           " MiB, more than a tokenizer file may be");
    folder.bytes.emplace(name, std::move(b));
  }
  if (folder.bytes.empty())
    throw Error("hf_tokenizer_missing",
                "no tokenizer files in " + ap::printable(dir) +
                    ": it needs tokenizer.json, or vocab.json and merges.txt (GPT-2), or "
                    "vocab.txt (BERT), from the model's Files page");
  return folder;
}

namespace {

nlohmann::json encoding_json(const ap::hf::Encoding& e, const ap::hf::Tokenizer& t) {
  nlohmann::json details = nlohmann::json::array();
  for (std::size_t i = 0; i < e.size(); ++i)
    details.push_back({{"text", e.pieces[i]},
                       {"id", e.ids[i]},
                       {"byte_begin", e.byte_begin[i]},
                       {"byte_end", e.byte_end[i]},
                       {"special", static_cast<bool>(e.special[i])}});
  // pieces may hold \xHH text but are always UTF-8; ids are plain numbers
  return {
      {"tokens", e.pieces}, {"ids", e.ids}, {"token_details", details}, {"tokenizer", t.source()}};
}

}  // namespace

void tokenize_hf(const std::vector<std::string>& args) {
  std::string dir, text, jsonl;
  bool have_text = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& f = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error("bad_setting", f + " needs a value");
      return args[++i];
    };
    if (f == "--hf") {
      dir = value();
    } else if (f == "--jsonl") {
      jsonl = value();
    } else if (f.size() > 2 && f.rfind("--", 0) == 0) {
      throw Error("bad_setting",
                  "unknown option " + ap::printable(f) + " for tokenize --hf (run qkv --help)");
    } else if (!have_text) {
      if (f == "-") {
        text = ap::read_at_most(std::cin, ap::hf::kMaxEncodeBytes);
      } else {
        text = f;
      }
      have_text = true;
    } else {
      throw Error("bad_setting", "more than one TEXT given: quote the text");
    }
  }
  if (dir.empty()) throw Error("bad_setting", "tokenize --hf needs a model folder");
  if (have_text == !jsonl.empty())
    throw Error("bad_setting", "tokenize --hf takes one TEXT or --jsonl FILE");
  const TokenizerFolder folder = read_tokenizer_folder(dir);
  const ap::hf::Tokenizer tok = ap::hf::Tokenizer::from_files(folder.files());
  if (have_text) {
    std::cout << encoding_json(tok.encode(text), tok) << "\n";
    return;
  }
  std::ifstream in(jsonl, std::ios::binary);
  if (!in) throw Error("bad_setting", "cannot open " + ap::printable(jsonl) + ": check the path");
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    std::string s;
    try {
      s = nlohmann::json::parse(line).get<std::string>();
    } catch (const nlohmann::json::exception&) {
      throw Error("bad_setting", ap::printable(jsonl) + " line " + std::to_string(number) +
                                     " is not a JSON string");
    }
    std::cout << encoding_json(tok.encode(s), tok) << "\n";
  }
}

}  // namespace ap::cli
