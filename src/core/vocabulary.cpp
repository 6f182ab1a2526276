// vocabulary.cpp: the word list, its index and the unknown-word fallback.
#include "vocabulary.hpp"

#include <algorithm>

#include "error.hpp"
#include "lexicon.hpp"
#include "rng.hpp"

namespace ap {

namespace {

constexpr std::size_t kMinEnglishPiece = 3;  // letters of a word inside a compound (snow, man)

bool is_ascii_word(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || c == '\''; });
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Vocabulary::Vocabulary(std::vector<std::string> words, int unknown_buckets)
    : unknown_buckets_(unknown_buckets) {
  if (unknown_buckets < 1 || unknown_buckets > 1024)
    throw Error("bad_vocabulary", "unknown_buckets must be between 1 and 1024");
  for (int k = 0; k < unknown_buckets; ++k) words.push_back("<unk:" + std::to_string(k) + ">");
  words.push_back("<sym>");
  *this = from_saved(std::move(words), unknown_buckets);
}

Vocabulary Vocabulary::from_saved(std::vector<std::string> all_words, int unknown_buckets) {
  Vocabulary v;
  v.unknown_buckets_ = unknown_buckets;
  v.words_ = std::move(all_words);
  if (unknown_buckets < 1 || v.size() < unknown_buckets + 1)
    throw Error("bad_vocabulary", "the vocabulary must end with its fallback rows");
  for (int i = 0; i < v.size(); ++i) {
    const std::string& w = v.words_[static_cast<std::size_t>(i)];
    if (!v.index_.emplace(w, i).second)
      throw Error("bad_vocabulary", "the word \"" + w + "\" appears twice in the vocabulary");
  }
  return v;
}

Vocabulary Vocabulary::from_lexicon_tsv(std::string_view tsv, int unknown_buckets) {
  const std::string_view whole = tsv;
  std::vector<std::string> words;
  std::unordered_map<std::string, int> seen;
  while (!tsv.empty()) {
    const std::size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv.remove_prefix(nl == std::string_view::npos ? tsv.size() : nl + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line.empty() || line.front() == '#') continue;
    std::string word(line.substr(0, line.find('\t')));
    while (!word.empty() && word.back() == ' ') word.pop_back();
    const bool has_read_as = std::count(line.begin(), line.end(), '\t') >= 3;
    if (word.empty() || has_read_as || seen.count(word)) continue;
    seen.emplace(word, 0);
    words.push_back(word);
  }
  Vocabulary v(std::move(words), unknown_buckets);
  v.add_read_as(Lexicon::from_tsv(whole));
  return v;
}

void Vocabulary::add_read_as(const Lexicon& lex) {
  read_as_.clear();
  for (const auto& [word, e] : lex.entries()) {
    if (e.read_as.empty() || find(word) >= 0) continue;
    const int row = find(e.read_as);
    if (row >= 0 && !is_fallback(row)) read_as_.emplace(word, row);
  }
}

int Vocabulary::read_as(std::string_view key) const {
  const auto it = read_as_.find(std::string(key));
  return it == read_as_.end() ? -1 : it->second;
}

int Vocabulary::find(std::string_view key) const {
  const auto it = index_.find(std::string(key));
  return it == index_.end() ? -1 : it->second;
}

std::string Vocabulary::key(const Token& t) { return lexicon_key(t.text, t.kind); }

int Vocabulary::id(const Token& t) const {
  const std::string k = key(t);
  const int found = find(k);
  if (found >= 0) return found;
  const int as = read_as(k);
  if (as >= 0) return as;
  if (t.kind == TokenKind::Word || t.kind == TokenKind::Han)
    return bucket(static_cast<int>(hash_text(k) % static_cast<std::uint64_t>(unknown_buckets_)));
  return symbol_row();
}

std::vector<int> Vocabulary::pieces(const Token& t) const {
  std::vector<int> out;
  const auto add = [&](int id) {
    if (id >= 0 && std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  };
  const std::string k = key(t);
  if (find(k) >= 0) return out;
  if (read_as(k) >= 0) {
    add(read_as(k));
    return out;
  }
  if (t.kind == TokenKind::Word && is_ascii_word(k)) {
    // 1. the word without an inflection: the first stem that is a vocabulary word
    const std::pair<const char*, const char*> rules[] = {
        {"'s", ""},  {"s'", ""},  {"ies", "y"}, {"es", ""}, {"s", ""},  {"ied", "y"}, {"ed", ""},
        {"ed", "e"}, {"ing", ""}, {"ing", "e"}, {"ly", ""}, {"er", ""}, {"est", ""}};
    for (const auto& r : rules) {
      if (!ends_with(k, r.first)) continue;
      std::string stem = k.substr(0, k.size() - std::string_view(r.first).size()) + r.second;
      const int stem_row =
          find(stem) >= 0 ? find(stem) : read_as(stem);  // sharks -> shark -> animal
      if (stem.size() >= 2 && stem_row >= 0) {
        add(stem_row);
        return out;
      }
      // a doubled consonant before -ed/-ing (stopped -> stop)
      if ((std::string_view(r.first) == "ed" || std::string_view(r.first) == "ing") &&
          std::string_view(r.second).empty() && stem.size() >= 3 &&
          stem[stem.size() - 1] == stem[stem.size() - 2] &&
          find(stem.substr(0, stem.size() - 1)) >= 0) {
        add(find(stem.substr(0, stem.size() - 1)));
        return out;
      }
    }
    // 2. the whole word as vocabulary words of 3+ letters, fewest pieces (snowman -> snow + man)
    const std::size_t L = k.size();
    std::vector<int> best(L + 1, -1), from(L + 1, -1);
    best[0] = 0;
    for (std::size_t e = kMinEnglishPiece; e <= L; ++e)
      for (std::size_t b = 0; b + kMinEnglishPiece <= e; ++b) {
        if (best[b] < 0 || find(k.substr(b, e - b)) < 0) continue;
        if (best[e] < 0 || best[b] + 1 < best[e]) {
          best[e] = best[b] + 1;
          from[e] = static_cast<int>(b);
        }
      }
    if (best[L] >= 2) {
      std::vector<int> ids;
      for (std::size_t e = L; e > 0; e = static_cast<std::size_t>(from[e]))
        ids.push_back(find(k.substr(static_cast<std::size_t>(from[e]), e - from[e])));
      for (auto it = ids.rbegin(); it != ids.rend(); ++it) add(*it);
    }
    return out;
  }
  return out;
}

}  // namespace ap
