// hf_tokenize.hpp: `qkv tokenize --hf DIR` (a Hugging Face model folder's tokenizer, JSON out)
// and reading a folder's tokenizer files for the CLI. Not the tokenizer (core/hf_tokenizer.hpp).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hf_tokenizer.hpp"

namespace ap::cli {

// The tokenizer files present in `dir` (tokenizer_file_names()), each read whole up to
// ap::hf::kMaxTokenizerFileBytes (a larger one is refused naming it).
struct TokenizerFolder {
  std::map<std::string, std::string> bytes;
  ap::hf::Files files() const;  // views of `bytes`
};
TokenizerFolder read_tokenizer_folder(const std::string& dir);

// qkv tokenize --hf DIR TEXT | --hf DIR --jsonl FILE: args are those after "tokenize". Prints
// {"tokens", "ids", "token_details", "tokenizer"}; with --jsonl, one such line for each line of
// FILE (each a JSON string). Throws ap::Error on bad input.
void tokenize_hf(const std::vector<std::string>& args);

}  // namespace ap::cli
