// real_model_file.hpp: a Hugging Face GPT-2 or BERT model (hf_model.hpp) packed into one .apm
// file: its config.json, its tokenizer's files and its weights, in float32, float16 or int8 rows,
// so that a course page can host one file. Version 5 of the .apm format (model_file.hpp holds
// versions 3 and 4, the trained playground model, and the magic they share). Not the reading of a
// model folder (hf_model.hpp, hf_tokenizer.hpp) and not the forward pass.
//
// File format, version 5 (all integers little-endian):
//   magic      8 bytes  "APMODEL\0" (kModelMagic)
//   version    u32      kRealModelFormatVersion
//   dtype      u32      how the matrices are stored: 0 f32, 1 f16, 2 int8 (RealDtype)
//   config     blob     config.json's text as the folder had it (at most kMaxHfConfigBytes)
//   tokenizer  u32 count (at most tokenizer_file_names()'s), then count x (string name, blob
//              text): the folder's tokenizer files, by their names (each at most
//              hf::kMaxTokenizerFileBytes)
//   info       u32 count (at most kMaxRealInfo), then count x (string key, string value)
//   weights    every parameter in the order of real_parameters() below, each rows x cols,
//              row-major, in the forward pass's orientation (x W: d_in x d_out):
//                a vector (rows 1: biases, LayerNorm gains and biases, BERT's token type row)
//                  rows x cols f32 in every dtype: a small share of the bytes, and a LayerNorm
//                  gain rounded to int8 would move every number after it;
//                a matrix, by dtype: f32 rows x cols f32; f16 rows x cols IEEE binary16
//                  (model_file.hpp float_to_half); int8 rows half scales, then rows x cols int8,
//                  exactly as version 4 stores a matrix (model_file.hpp quantize_rows: one scale
//                  per row, the reader's weight s_r * q in float32)
//   crc32      u32      CRC-32 (IEEE) of every byte before it
// blob = u32 byte length + bytes; string = a blob of at most 64 KiB of UTF-8.
// The config says every parameter's shape, so the reader knows the file's exact length before it
// allocates anything: a file that ends early is refused naming the first parameter it lacks,
// and no weight is converted before the length and the checksum are right.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hf_model.hpp"
#include "hf_tokenizer.hpp"

namespace ap {

constexpr std::uint32_t kRealModelFormatVersion = 5;
// How the name of a model file ends (the page's loader takes a file so named as a converted model).
inline constexpr const char* kModelFileSuffix = ".apm";
// The most info entries a converted model's file may list.
constexpr std::uint32_t kMaxRealInfo = 64;
// The info key naming the dtype of the folder's token rows (F32, F16, BF16) a file was made from.
constexpr const char* kInfoSourceDtype = "source_dtype";

enum class RealDtype : std::uint32_t { f32 = 0, f16 = 1, int8 = 2 };
// "f32", "f16", "int8" (the CLI's --dtype values) and back; parse_real_dtype throws bad_setting.
const char* real_dtype_name(RealDtype d);
RealDtype parse_real_dtype(std::string_view name);

// One parameter of a model: a name for messages ("layer 3 W_Q"), where it lives, and its shape.
template <class M>
struct RealParameterOf {
  std::string name;
  M* value;
  Eigen::Index rows, cols;
};
using RealParameter = RealParameterOf<Matrix>;
using ConstRealParameter = RealParameterOf<const Matrix>;
// Every parameter of m in the file's order: token rows, position rows, (bert: token type row,
// embedding LayerNorm), then each layer's attention LayerNorm (gpt2: before; bert: after),
// W_Q b_Q W_K b_K W_V b_V W_O b_O, FFN LayerNorm, W_1 b_1 W_2 b_2, then (gpt2) the final
// LayerNorm. Shapes from m.config; m.layers must hold config.layers layers (their matrices may
// be empty: the reader shapes them from this list).
std::vector<RealParameter> real_parameters(HfModel& m);
std::vector<ConstRealParameter> real_parameters(const HfModel& m);

// What a converted file holds: the model (its dtype "F32", "F16" or "INT8"; file_bytes the .apm's
// size), its tokenizer, and the info entries.
struct ConvertedModel {
  HfModel model;
  std::shared_ptr<const hf::Tokenizer> tokenizer;
  std::vector<std::pair<std::string, std::string>> info;
};

// The .apm bytes of m. config_text is the folder's config.json (stored as is, so the reader
// parses the same config); tokenizer the folder's tokenizer files (names outside
// tokenizer_file_names() are not stored). Throws model_invalid when a matrix's shape is not what
// the config says, or (f16) a weight is beyond binary16's range, or (int8) beyond a row scale's,
// naming the parameter.
std::string save_real_model(const HfModel& m, std::string_view config_text,
                            const hf::Files& tokenizer, RealDtype dtype,
                            const std::vector<std::pair<std::string, std::string>>& info = {});

// Reads version 5 bytes (the caller keeps them alive during the call). Throws ap::Error:
// model_bad_magic, model_bad_version (another version: the trained model's files are load_model's),
// model_truncated (naming the section or the first parameter the file lacks), model_corrupt
// (checksum, trailing bytes, a length past its limit), model_invalid (an unknown dtype or
// tokenizer file, a scale or weight that is not finite), and the config's and tokenizer's own
// errors (parse_hf_config, hf::Tokenizer::from_files, check_tokenizer).
ConvertedModel load_real_model(const unsigned char* bytes, std::size_t size);

// The format version of .apm bytes: 0 when they are not an .apm file (no magic, or fewer than 12
// bytes). For a reader that takes both kinds (the CLI's --model).
std::uint32_t apm_version(const unsigned char* bytes, std::size_t size);

// The largest |a - b| over every layer's every head's attention weights of two traces of the same
// tokens, with where it is. Throws bad_setting when their shapes differ.
struct WeightChange {
  double value = 0;
  int layer = 0, head = 0, query = 0, key = 0;
};
WeightChange max_weight_change(const TextTrace& a, const TextTrace& b);

}  // namespace ap
