// vocabulary.hpp: the trained model's word list and the row every token becomes, with the fallback
// for words outside it. Not the lexicon that drives segmentation (lexicon.hpp), though the
// vocabulary is built from the same file; not the model file (model_file.hpp).
//
// Unknown words. Every token becomes one embedding row:
//   - its vocabulary key (English words lower-cased, everything else as typed) if the key is a
//     vocabulary word (the vocabulary is the lexicon, in file order);
//   - otherwise an English word is read through vocabulary words that carry part of its meaning
//     (pieces()): the word without its inflection (cookies -> cookie, stopped -> stop, Ben's ->
//     ben) or, failing that, the whole word split into vocabulary words of 3+ letters (bedroom ->
//     bed + room). Its embedding is the mean of those rows (inference.hpp). Chinese needs no such
//     step: the tokenizer already splits an unknown Chinese word into characters, so an unknown
//     Chinese token is one character with no smaller piece. (Reading such a character through the
//     vocabulary words that contain it, 子 -> 兔子 狮子 …, was tried: on the hand-written set those
//     rows pulled attention like nouns and the Chinese pronouns got worse.)
//   - a word or character with no such pieces falls back to one of `unknown_buckets` hashed rows
//     "<unk:k>", k = FNV-1a(key) mod unknown_buckets, so the same unknown word always gets the
//     same vector and two different ones usually differ; the trainer teaches these rows to behave
//     like an unseen noun by swapping them in now and then;
//   - numbers, emoji and punctuation missing from the lexicon share the row "<sym>".
//   Tokens that fell back are marked known = false (and read_as lists the pieces, if any).
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer.hpp"

namespace ap {

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
  int id(const Token& t) const;            // one row: the word's, else the hashed or <sym> row
  // The vocabulary rows an unknown English word is read through (see above), in order, without
  // repeats; empty for a known token, for anything but English words, and when no piece fits
  // (then id() alone).
  std::vector<int> pieces(const Token& t) const;
  bool knows(const Token& t) const { return find(key(t)) >= 0; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int> index_;
  int unknown_buckets_ = 0;
};

}  // namespace ap
