// corpus.cpp: parsing the corpus TSV and turning its lines into vocabulary rows.
#include "corpus.hpp"

#include <string>

#include "error.hpp"
#include "inference.hpp"
#include "utf8.hpp"

namespace ap {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t p = s.find(sep);
    out.push_back(s.substr(0, p));
    if (p == std::string_view::npos) break;
    s.remove_prefix(p + 1);
  }
  return out;
}

bool parse_index(std::string_view s, int& out) {
  if (s.empty() || s.size() > 4) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  out = v;
  return true;
}

}  // namespace

std::vector<CorpusLine> parse_corpus(std::string_view tsv) {
  std::vector<CorpusLine> out;
  int number = 0;
  while (!tsv.empty()) {
    const std::size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv.remove_prefix(nl == std::string_view::npos ? tsv.size() : nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const auto bad = [&](const std::string& why) {
      throw Error("bad_corpus", "corpus line " + std::to_string(number) + ": " + why +
                                    " (regenerate it with model/generate.py)");
    };
    const std::vector<std::string_view> col = split(line, '\t');
    if (col.size() != 5) bad("expected 5 tab-separated columns, got " + std::to_string(col.size()));
    CorpusLine c;
    c.line_number = number;
    c.lang = std::string(col[0]);
    c.template_id = std::string(col[1]);
    c.text = std::string(col[2]);
    for (std::string_view t : split(col[3], '|')) {
      if (t.empty()) bad("an empty token");
      c.tokens.emplace_back(t);
    }
    if (col[4] != "-") {
      for (std::string_view item : split(col[4], ' ')) {
        const std::size_t colon = item.find(':'), gt = item.find('>');
        int from = 0, to = 0;
        if (colon == std::string_view::npos || gt == std::string_view::npos || gt < colon ||
            !parse_index(item.substr(colon + 1, gt - colon - 1), from) ||
            !parse_index(item.substr(gt + 1), to))
          bad("target \"" + std::string(item) + "\" is not kind:i>j");
        const std::string_view kind = item.substr(0, colon);
        CorpusTarget t{CorpusTarget::Kind::Pronoun, from, to};
        if (kind == "verb") {
          t.kind = CorpusTarget::Kind::Verb;
        } else if (kind != "pron") {
          bad("unknown target kind \"" + std::string(kind) + "\"");
        }
        const int n = static_cast<int>(c.tokens.size());
        if (from >= n || to >= n || from == to)
          bad("target " + std::string(item) + " is out of range");
        c.targets.push_back(t);
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<Example> prepare_examples(const std::vector<CorpusLine>& lines, const Vocabulary& vocab,
                                      const Lexicon& lex) {
  std::vector<Example> out;
  out.reserve(lines.size());
  for (const CorpusLine& c : lines) {
    const std::vector<Token> tokens = tokenize(c.text, lex, kMaxTokensLimit);
    bool same = tokens.size() == c.tokens.size();
    for (std::size_t i = 0; same && i < tokens.size(); ++i) same = tokens[i].text == c.tokens[i];
    if (!same) {
      std::string got;
      for (const Token& t : tokens) got += (got.empty() ? "" : "|") + t.text;
      throw Error("corpus_mismatch", "corpus line " + std::to_string(c.line_number) +
                                         " tokenizes as " + got +
                                         " but the corpus says otherwise: the lexicon and corpus "
                                         "are out of step; rerun model/generate.py");
    }
    Example e;
    const bool hand = c.template_id == kHandWrittenTemplate;
    for (const Token& t : tokens) {
      const bool known = vocab.knows(t) || vocab.read_as(Vocabulary::key(t)) >= 0;
      if (!known && !hand)
        throw Error("corpus_unknown_word", "corpus line " + std::to_string(c.line_number) + ": \"" +
                                               t.text + "\" is not in the vocabulary");
      const std::vector<int> pieces = known ? std::vector<int>{} : vocab.pieces(t);
      e.ids.push_back(pieces.size() == 1 ? pieces[0] : vocab.id(t));
      e.punctuation.push_back(t.kind == TokenKind::Punct);
      e.width.push_back(t.kind == TokenKind::Han ? static_cast<int>(decode_utf8(t.text).size())
                                                 : 1);
      if (hand) {
        const Lexicon::Entry* entry = lex.find(Vocabulary::key(t));
        if (entry != nullptr && entry->category.empty() && !entry->read_as.empty())
          entry = lex.find(entry->read_as);  // a read-as word has its target's category
        e.verb_free.push_back(entry == nullptr || entry->category == "verb");
      }
    }
    e.targets = c.targets;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace ap
