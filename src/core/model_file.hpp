// model_file.hpp: a trained model (vocabulary, embeddings, the layer stack, what each head does,
// provenance) and its small versioned binary file (.apm). Not the inference (inference.hpp), not
// the layers' maths (network.hpp) and not the trainer (trainer.hpp).
//
// Shapes: d_model, h heads, d_k per head, d_ff, L layers, V vocabulary rows.
//
// File format, version 3 (all integers little-endian; note numbers IEEE-754 float32; the matrices
// IEEE-754 binary16 ("half"), little-endian, rounded to nearest even):
//   magic    8 bytes  "APMODEL\0"
//   version  u32      kModelFormatVersion
//   d_model, heads, d_k, d_ff, layers, vocab_size, unknown_buckets   u32 each
//   info     u32 count, then count x (string key, string value)   provenance (kInfoProjectVersion:
//            the project version that trained it) and measured numbers
//   vocab    vocab_size x string
//   notes    layers x heads x (string role, u32 count, count x (string key, f32 value))
//   E        vocab_size x d_model f16, row-major
//   then every matrix of the layer stack in the order of parameters(Network) (network.hpp),
//   each rows x cols f16, row-major
//   crc32    u32      CRC-32 (IEEE) of every byte before it
// string = u32 byte length + UTF-8 bytes. A note holds a role name and numbers, never prose: the
// page words each role in its locale files. Halves keep the file small (two bytes a weight, not
// four); every reader (the CLI, the page) computes with the same rounded weights.
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

constexpr std::uint32_t kModelFormatVersion = 3;
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

// Bytes of the .apm file.
std::string save_model(const TrainedModel& m);
// Parses .apm bytes (from a file or from memory in the browser). Throws ap::Error with code
// model_bad_magic, model_bad_version, model_truncated, model_corrupt (checksum or trailing bytes),
// model_too_large (over kMaxModelBytes) or model_invalid (impossible sizes, heads x d_k over
// kMaxHeadWidth, non-finite numbers, strings that are not UTF-8).
TrainedModel load_model(std::string_view bytes);
// File conveniences for native tools; model_io error when the file cannot be read or written.
TrainedModel load_model_file(const std::string& path);
void save_model_file(const std::string& path, const TrainedModel& m);

// IEEE binary16 conversions (round to nearest even; overflow gives infinity). Pure integer code, so
// every platform agrees. round_to_half(m) is what a save/load round trip does to m.
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);
Matrix round_to_half(MatrixRef m);

// CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of the bytes.
std::uint32_t crc32(std::string_view bytes);

}  // namespace ap
