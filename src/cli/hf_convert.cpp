// hf_convert.cpp: `qkv convert`, reading a model folder, writing its .apm, checking the file.
#include "hf_convert.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ap_version.hpp"
#include "error.hpp"
#include "hf_folder.hpp"
#include "hf_model.hpp"
#include "hf_tokenize.hpp"
#include "io.hpp"
#include "model_file.hpp"
#include "real_model_file.hpp"

namespace ap::cli {

namespace {

// The ids of `text`, cut to the model's positions (a long sentence still gives a check; the report
// lists the ids traced).
std::vector<int> ids_of(const hf::Tokenizer& t, const std::string& text, int positions) {
  const hf::Encoding e = t.encode(text);
  std::vector<int> ids(e.ids.begin(), e.ids.end());
  if (ids.size() > static_cast<std::size_t>(positions)) ids.resize(positions);
  if (ids.empty()) throw Error("empty_text", "the --text gives no tokens: give a sentence");
  return ids;
}

}  // namespace

void convert_hf(const std::vector<std::string>& args) {
  std::string dir, out_path, text = kConvertSentence;
  RealDtype dtype = RealDtype::f32;
  std::vector<std::string> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& f = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw Error("bad_setting", f + " needs a value");
      return args[++i];
    };
    if (f == "--dtype") {
      dtype = parse_real_dtype(value());
    } else if (f == "--text") {
      text = value();
    } else if (f.size() > 2 && f.rfind("--", 0) == 0) {
      throw Error("bad_setting",
                  "unknown option " + printable(f) + " for convert (run qkv --help)");
    } else {
      positional.push_back(f);
    }
  }
  if (positional.size() != 2)
    throw Error("bad_setting",
                "convert takes a model folder and the file to write: "
                "qkv convert DIR OUT.apm [--dtype f32|f16|int8]");
  dir = positional[0];
  out_path = positional[1];

  const auto start = std::chrono::steady_clock::now();
  const std::string config_text = read_hf_config(dir);
  const HfConfig config = parse_hf_config(config_text, kHfConfigFile);
  const TokenizerFolder folder = read_tokenizer_folder(dir);
  const hf::Tokenizer tokenizer = hf::Tokenizer::from_files(folder.files());
  check_tokenizer(config, tokenizer);
  HfModel source;
  std::uint64_t source_bytes = 0;
  {
    const MappedFile weights(dir + "/" + kHfWeightsFile);
    source = load_hf_model(config, weights.data(), weights.size(), kHfWeightsFile);
    source_bytes = weights.size();
  }
  std::string bytes =
      save_real_model(source, config_text, folder.files(), dtype,
                      {{kInfoProjectVersion, kVersion}, {kInfoSourceDtype, source.dtype}});

  // the file as every reader will read it, traced beside the folder's float32 weights
  const ConvertedModel converted =
      load_real_model(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  const std::vector<int> ids = ids_of(tokenizer, text, config.positions);
  if (ids_of(*converted.tokenizer, text, config.positions) != ids)
    throw Error("internal", "the converted file's tokenizer gives other ids than the folder's");
  const WeightChange change =
      max_weight_change(hf_forward(source, ids), hf_forward(converted.model, ids));

  {
    std::ofstream f(out_path, std::ios::binary | std::ios::trunc);
    if (!f)
      throw Error("model_io", "cannot write " + printable(out_path, 200) + ": check the path");
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f) {
      std::remove(out_path.c_str());
      throw Error("model_io",
                  "writing " + printable(out_path, 200) + " failed (is the disk full?)");
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  nlohmann::json o = {{"file", out_path},
                      {"bytes", bytes.size()},
                      {"dtype", real_dtype_name(dtype)},
                      {"source_dtype", source.dtype},
                      {"source_bytes", source_bytes},
                      {"parameters", converted.model.parameters},
                      {"sentence", text},
                      {"tokens", ids.size()},
                      {"ids", ids},
                      {"max_weight_change", change.value},
                      {"at",
                       {{"layer", change.layer},
                        {"head", change.head},
                        {"query", change.query},
                        {"key", change.key}}},
                      {"seconds", seconds}};
  std::cout << o << "\n";
}

}  // namespace ap::cli
