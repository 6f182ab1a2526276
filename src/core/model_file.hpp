// model_file.hpp: a trained model (vocabulary, embeddings, attention weights, notes per head), its
// small versioned binary file (.apm), and the trace of a sentence through it. Not the trainer
// (trainer.hpp) and not the attention maths (attention.hpp).
//
// Shapes: n tokens, d_model, h heads, d_k per head, V vocabulary rows.
//
// Unknown words. Every token becomes one row of E:
//   - its vocabulary key (English words lower-cased, everything else as typed) if the key is a
//     vocabulary word (the vocabulary is the lexicon, in file order);
//   - otherwise a word or a Chinese character falls back to one of `unknown_buckets` hashed rows
//     "<unk:k>", k = FNV-1a(key) mod unknown_buckets, so the same unknown word always gets the
//     same vector and two different ones usually differ; the trainer teaches these rows to behave
//     like an unseen noun by swapping them in for antecedents and objects now and then;
//   - numbers, emoji and punctuation missing from the lexicon share the row "<sym>".
//   Tokens that fell back are marked known = false.
//
// File format, version 2 (all integers little-endian; notes' accuracies IEEE-754 float32; the
// matrices IEEE-754 binary16 ("half"), little-endian, rounded to nearest even):
//   magic    8 bytes  "APMODEL\0"
//   version  u32      kModelFormatVersion
//   d_model, heads, d_k, vocab_size, unknown_buckets   u32 each
//   info     u32 count, then count x (string key, string value)   provenance: seed, loss, ...
//   vocab    vocab_size x string
//   notes    heads x (string role, string note, string note_zh, f32 pronoun_acc, f32 verb_acc)
//   E        vocab_size x d_model f16, row-major
//   W_Q, W_K, W_V   d_model x (heads*d_k) f16 each;  W_O  (heads*d_k) x d_model f16
//   crc32    u32      CRC-32 (IEEE) of every byte before it
// string = u32 byte length + UTF-8 bytes. float32 keeps the page's numbers identical to the
// trainer's; the default model is 127 KB.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "attention.hpp"
#include "model.hpp"
#include "tokenizer.hpp"

namespace ap {

constexpr std::uint32_t kModelFormatVersion = 2;
constexpr char kModelMagic[8] = {'A', 'P', 'M', 'O', 'D', 'E', 'L', '\0'};

// The model's word list: row i of E is word i.
class Vocabulary {
 public:
  Vocabulary() = default;
  // words as given (no duplicates), then "<unk:0>".."<unk:k-1>" and "<sym>" are appended.
  Vocabulary(std::vector<std::string> words, int unknown_buckets);
  // Every lexicon line's word, in file order (duplicates dropped), plus the fallback rows.
  static Vocabulary from_lexicon_tsv(std::string_view tsv, int unknown_buckets);
  // From a saved list that already ends with the fallback rows.
  static Vocabulary from_saved(std::vector<std::string> all_words, int unknown_buckets);

  int size() const { return static_cast<int>(words_.size()); }
  int unknown_buckets() const { return unknown_buckets_; }
  const std::string& word(int id) const { return words_[static_cast<std::size_t>(id)]; }
  const std::vector<std::string>& words() const { return words_; }
  int find(std::string_view key) const;  // -1 when absent
  int bucket(int k) const { return size() - 1 - unknown_buckets_ + k; }
  int symbol_row() const { return size() - 1; }
  bool is_fallback(int id) const { return id >= size() - 1 - unknown_buckets_; }

  static std::string key(const Token& t);  // English words lower-cased, others as typed
  int id(const Token& t) const;            // the row, with the fallback described above
  bool knows(const Token& t) const { return find(key(t)) >= 0; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int> index_;
  int unknown_buckets_ = 0;
};

// What one head learned, measured on the held-out sentences after training.
struct HeadNote {
  std::string role;            // "pronouns", "verbs", "pronouns+verbs" or "other"
  std::string note;            // one English sentence for the page
  std::string note_zh;         // the same in Chinese
  float pronoun_accuracy = 0;  // share of held-out pronouns whose largest weight is the antecedent
  float verb_accuracy = 0;     // share of held-out verbs whose largest weight is their argument
};

struct TrainedModel {
  int d_model = 0, heads = 0, d_k = 0;
  Vocabulary vocab;
  Matrix E;                     // V x d_model: input embeddings, and (tied) the output word matrix
  Weights weights;              // W_Q, W_K, W_V: d_model x (h*d_k); W_O: (h*d_k) x d_model
  std::vector<HeadNote> notes;  // one per head
  std::vector<std::pair<std::string, std::string>> info;  // provenance, in order
  std::string info_value(std::string_view key) const;     // "" when absent
};

// Bytes of the .apm file.
std::string save_model(const TrainedModel& m);
// Parses .apm bytes (from a file or from memory in the browser). Throws ap::Error with code
// model_bad_magic, model_bad_version, model_truncated, model_corrupt (checksum or trailing bytes)
// or model_invalid (impossible sizes, non-finite numbers).
TrainedModel load_model(std::string_view bytes);
// File conveniences for native tools; model_io error when the file cannot be read or written.
TrainedModel load_model_file(const std::string& path);
void save_model_file(const std::string& path, const TrainedModel& m);

// Row ids of the tokens (with the unknown-word fallback). n entries.
std::vector<int> token_ids(const std::vector<Token>& tokens, const Vocabulary& vocab);
// X = E[ids] (+ sinusoidal positions): n x d_model
Matrix embed_with_model(const std::vector<int>& ids, const TrainedModel& m, bool positions);

// tokenize -> embed with the model's vocabulary -> attend with the model's weights. The model
// fixes d_model, heads and d_k (and the weights, so seed does nothing); causal, scale,
// temperature, positions, tie_qk (W_K := W_Q) and max_tokens stay the learner's. The model was
// trained with the Settings defaults: causal off, scale on, temperature 1, positions on. Tokens the
// vocabulary does not know are marked known = false.
TextTrace trace_text_with_model(std::string_view text, const Settings& s, const TrainedModel& m);

// The model's own reading of each output row: softmax(output_i E^T). For a pronoun this is the
// word it thinks it refers to. One per token.
struct TokenGuess {
  int word = 0;  // row of the vocabulary
  float probability = 0.0f;
};
std::vector<TokenGuess> guess_words(const Trace& t, const TrainedModel& m);

// IEEE binary16 conversions (round to nearest even; overflow gives infinity). Pure integer code, so
// every platform agrees. round_to_half(m) is what a save/load round trip does to m.
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);
Matrix round_to_half(MatrixRef m);

// CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of the bytes.
std::uint32_t crc32(std::string_view bytes);

}  // namespace ap
