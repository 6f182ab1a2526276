// vocabulary.hpp: the trained model's word list and the row every token becomes, with the fallback
// for words outside it. Not the lexicon that drives segmentation (lexicon.hpp), though the
// vocabulary is built from the same file; not the model file (model_file.hpp).
//
// Unknown words. Every token becomes one embedding row:
//   - its vocabulary key (English words lower-cased, everything else as typed) if the key is a
//     vocabulary word (the vocabulary is the lexicon's words that have a row of their own, in file
//     order);
//   - a lexicon word with a fourth column, "read as", has no row of its own: it uses the row of
//     that vocabulary word, one of the same kind (小白兔 -> 兔子, nephew -> boy). This is how
//     a small vocabulary covers the everyday words learners type at the cost of a lexicon
//     line, not an embedding row: the model knows such a word only as its kind;
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
//   Tokens that fell back are marked known = false (and read_as lists the pieces or the word read
//   as, if any).
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer.hpp"

namespace ap {

class Lexicon;

// The model's word list: row i of E is word i.
class Vocabulary {
 public:
  Vocabulary() = default;
  // words as given (no duplicates), then "<unk:0>".."<unk:k-1>" and "<sym>" are appended.
  Vocabulary(std::vector<std::string> words, int unknown_buckets);
  // Every lexicon line's word that has no "read as" column, in file order (duplicates dropped),
  // plus the fallback rows; the others become read-as words (add_read_as).
  static Vocabulary from_lexicon_tsv(std::string_view tsv, int unknown_buckets);
  // From a saved list that already ends with the fallback rows.
  static Vocabulary from_saved(std::vector<std::string> all_words, int unknown_buckets);

  int size() const { return static_cast<int>(words_.size()); }
  int unknown_buckets() const { return unknown_buckets_; }
  const std::string& word(int id) const { return words_[static_cast<std::size_t>(id)]; }
  const std::vector<std::string>& words() const { return words_; }
  int find(std::string_view key) const;  // -1 when absent
  // Takes the lexicon's read-as words whose target is a row here and which are not rows
  // themselves; replaces any taken before. A saved model gets the built-in lexicon's.
  void add_read_as(const Lexicon& lex);
  int read_as(std::string_view key) const;  // the row a read-as word uses, -1 when it is none
  int read_as_count() const { return static_cast<int>(read_as_.size()); }
  int bucket(int k) const { return size() - 1 - unknown_buckets_ + k; }
  int symbol_row() const { return size() - 1; }
  bool is_fallback(int id) const { return id >= size() - 1 - unknown_buckets_; }

  static std::string key(const Token& t);  // English words lower-cased, others as typed
  // One row: the word's, else the row it is read as, else the hashed or <sym> row.
  int id(const Token& t) const;
  // The vocabulary rows an unknown word is read through (see above), in order, without repeats:
  // the row of a read-as word, or an English word's pieces; empty for a known token and when no
  // piece fits (then id() alone).
  std::vector<int> pieces(const Token& t) const;
  bool knows(const Token& t) const { return find(key(t)) >= 0; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int> index_;
  std::unordered_map<std::string, int> read_as_;  // read-as word -> its row
  int unknown_buckets_ = 0;
};

}  // namespace ap
