// lexicon.hpp: the word list that drives Chinese segmentation and marks tokens as known.
// Loaded from a plain TSV (word, language, category); not a model and not a dictionary of meanings.
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
  };

  Lexicon() = default;
  // Parses lines "word<TAB>lang<TAB>category"; '#' starts a comment line; blank lines skipped.
  static Lexicon from_tsv(std::string_view tsv);

  void add(const std::string& word, Entry e);
  const Entry* find(std::string_view word) const;
  bool contains(std::string_view word) const { return find(word) != nullptr; }
  // longest Chinese entry, in code points (bounds the longest-match search)
  std::size_t max_zh_length() const { return max_zh_length_; }
  std::size_t size() const { return words_.size(); }

 private:
  std::unordered_map<std::string, Entry> words_;
  std::size_t max_zh_length_ = 1;
};

// The lexicon compiled into the library from src/data/lexicon.tsv.
const Lexicon& default_lexicon();

}  // namespace ap
