// lexicon.hpp: the word list that drives Chinese segmentation and marks tokens as known.
// Loaded from a plain TSV (word, language, category[, read as]); not a model and not a dictionary
// of meanings.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ap {

class Lexicon {
 public:
  struct Entry {
    std::string lang;      // "zh" or "en"
    std::string category;  // person, animal, food, object, place, verb, adj, pronoun, function, ...
    std::string read_as;   // a word the model reads this one as (it has no row of its own), or ""
  };

  Lexicon() = default;
  // Parses lines "word<TAB>lang<TAB>category[<TAB>read as]"; '#' starts a comment line; blank
  // lines skipped. A read-as word's category may be left empty: it is then its target's.
  static Lexicon from_tsv(std::string_view tsv);

  void add(const std::string& word, Entry e);
  const Entry* find(std::string_view word) const;
  bool contains(std::string_view word) const { return find(word) != nullptr; }
  // longest Chinese entry, in code points (bounds the longest-match search)
  std::size_t max_zh_length() const { return max_zh_length_; }
  std::size_t size() const { return words_.size(); }
  const std::unordered_map<std::string, Entry>& entries() const { return words_; }

 private:
  std::unordered_map<std::string, Entry> words_;
  std::size_t max_zh_length_ = 1;
};

// The lexicon compiled into the library from src/data/lexicon.tsv.
const Lexicon& default_lexicon();

}  // namespace ap
