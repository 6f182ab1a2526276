// model_file.hpp: a trained model (vocabulary, embeddings, the layer stack, what each head does,
// provenance) and its small versioned binary file (.apm). Not the inference (inference.hpp), not
// the layers' maths (network.hpp) and not the trainer (trainer.hpp).
//
// Shapes: d_model, h heads, d_k per head, d_ff, L layers, V vocabulary rows.
//
// File format, version 4 (all integers little-endian; note numbers IEEE-754 float32):
//   magic    8 bytes  "APMODEL\0"
//   version  u32      kModelFormatVersion
//   d_model, heads, d_k, d_ff, layers, vocab_size, unknown_buckets   u32 each
//   info     u32 count, then count x (string key, string value)   provenance (kInfoProjectVersion:
//            the project version that trained it) and measured numbers
//   vocab    vocab_size x string
//   notes    layers x heads x (string role, u32 count, count x (string key, f32 value))
//   E        vocab_size x d_model, a matrix
//   then every matrix of the layer stack in the order of parameters(Network) (network.hpp)
//   crc32    u32      CRC-32 (IEEE) of every byte before it
// string = u32 byte length + UTF-8 bytes. A note holds a role name and numbers, never prose: the
// page words each role in its locale files.
// matrix (rows x cols) = rows x f16 scale, then rows x cols i8 q, row-major: int8, symmetric,
// one scale per row. The scale s_r of row r is the smallest IEEE-754 binary16 ("half") value
// >= 2^-14 with s_r * 127 >= max_c |m(r, c)|, and q(r, c) = m(r, c) / s_r rounded to nearest
// (ties to even; float32 arithmetic), so |q| <= 127 and the error is at most s_r / 2. A reader's
// weight is s_r * q(r, c) in float32 (exact: 11 by 7 significant bits), so every reader (the CLI,
// the page) computes with the same weights: round_to_int8(m) below. A scale that is not finite
// (a NaN or infinite weight), negative or below 2^-14, or a q of -128, is model_invalid. A byte a
// weight (halves took two) keeps the page's download small.
// Version 3 files (matrices as rows x cols f16, round_to_half below, nothing else different) are
// still read, so a model saved from an older page loads; save_model writes version 4.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "matrix.hpp"
#include "network.hpp"
#include "vocabulary.hpp"

namespace ap {

constexpr std::uint32_t kModelFormatVersion = 4;
// The oldest format version load_model still reads.
constexpr std::uint32_t kOldestModelFormatVersion = 3;
// The info key under which a trainer records the project version it was built from
// (ap::kVersion, from CMake's project() VERSION). Files without it (older ones) still load.
constexpr const char* kInfoProjectVersion = "project_version";
constexpr char kModelMagic[8] = {'A', 'P', 'M', 'O', 'D', 'E', 'L', '\0'};
// Model files larger than this are refused (model_too_large) before they are read or copied.
constexpr std::size_t kMaxModelBytes = std::size_t{64} << 20;

// What one head does, measured after training: a role name (the page's locale key
// "role.<role>") and the numbers behind it, e.g. {"pronoun", 0.87}: the share of the hand-written
// test set's pronouns whose largest weight in this head is on their antecedent.
struct HeadNote {
  std::string role;
  std::vector<std::pair<std::string, float>> numbers;
  float number(std::string_view key) const;  // NaN when absent
};

struct TrainedModel {
  Vocabulary vocab;
  Matrix E;     // V x d_model: input embeddings, and (tied) the output word matrix
  Network net;  // the layers (network.hpp); net.d_model, net.heads, net.d_k fix the shape
  std::vector<HeadNote> notes;  // one per head of every layer: notes[layer * heads + head]
  std::vector<std::pair<std::string, std::string>> info;  // provenance, in order
  std::string info_value(std::string_view key) const;     // "" when absent
  const HeadNote& note(int layer, int head) const;
};

// Bytes of the .apm file, in format `version` (kModelFormatVersion, or 3 for tests of the older
// reader). Throws model_invalid when the shapes disagree or a weight is too large for a half scale
// (|w| > 65504 * 127). NaN and infinity are written as a NaN scale, which load_model refuses.
std::string save_model(const TrainedModel& m, std::uint32_t version = kModelFormatVersion);
// Parses .apm bytes (from a file or from memory in the browser). Throws ap::Error with code
// model_bad_magic, model_bad_version (not kOldestModelFormatVersion to kModelFormatVersion),
// model_truncated, model_corrupt (checksum or trailing bytes),
// model_too_large (over kMaxModelBytes) or model_invalid (impossible sizes, heads x d_k over
// kMaxHeadWidth, non-finite numbers, strings that are not UTF-8).
TrainedModel load_model(std::string_view bytes);
// File conveniences for native tools; model_io error when the file cannot be read or written.
TrainedModel load_model_file(const std::string& path);
void save_model_file(const std::string& path, const TrainedModel& m);

// IEEE binary16 conversions (round to nearest even; overflow gives infinity). Pure integer code, so
// every platform agrees. round_to_half(m) is what a version 3 save/load round trip did to m.
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);
Matrix round_to_half(MatrixRef m);

// A matrix as the file stores it (the format above): scale[r] the half bits of row r's scale,
// q the rows x cols int8 values, row-major. A row holding NaN or infinity gets a NaN scale.
struct Int8Rows {
  std::vector<std::uint16_t> scale;
  std::vector<std::int8_t> q;
};
Int8Rows quantize_rows(MatrixRef m);
// What a save/load round trip does to m: s_r * q(r, c).
Matrix round_to_int8(MatrixRef m);

// CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of the bytes.
std::uint32_t crc32(std::string_view bytes);

}  // namespace ap
