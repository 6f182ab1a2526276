// hf_tokenizer.cpp: reading a model folder's tokenizer files, and GPT-2's byte-level BPE and
// BERT's WordPiece encoders (hf_tokenizer.hpp says what each does).
#include "hf_tokenizer.hpp"

#include <algorithm>
#include <array>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>

#include "error.hpp"
#include "json_reader.hpp"
#include "unicode_data.hpp"
#include "utf8.hpp"

namespace ap::hf {

namespace {

[[noreturn]] void invalid(const std::string& message) {
  throw Error("hf_tokenizer_invalid", message);
}

// ---------------------------------------------------------------------------------------------
// Files

const std::string_view* find_file(const Files& files, std::string_view name) {
  const auto it = files.find(name);
  if (it == files.end()) return nullptr;
  if (it->second.size() > kMaxTokenizerFileBytes)
    throw Error("hf_file_too_large", std::string(name) + " is " +
                                         std::to_string(it->second.size()) +
                                         " bytes; a tokenizer file may be at most " +
                                         std::to_string(kMaxTokenizerFileBytes >> 20) + " MiB");
  return &it->second;
}

json::Value parse_json_file(std::string_view bytes, std::string_view name) {
  json::Limits limits;
  limits.max_bytes = kMaxTokenizerFileBytes;
  limits.max_values = std::size_t{2} << 20;
  return json::parse(bytes, name, limits);
}

// The lines of a text file (without \n or \r\n), each checked as UTF-8 and at most max_bytes.
std::vector<std::string_view> text_lines(std::string_view bytes, std::string_view name,
                                         std::size_t max_bytes) {
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") bytes.remove_prefix(3);
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = bytes.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t number = lines.size() + 1;
    if (line.size() > max_bytes)
      invalid(std::string(name) + " line " + std::to_string(number) + " is " +
              std::to_string(line.size()) + " bytes long; a line may be at most " +
              std::to_string(max_bytes));
    try {
      (void)decode_utf8(line);
    } catch (const Error&) {
      invalid(std::string(name) + " line " + std::to_string(number) + " is not valid UTF-8");
    }
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Vocabulary: token text <-> id

struct Vocab {
  std::unordered_map<std::string, std::int32_t> ids;
  std::vector<std::string> tokens;  // by id; "" where no token has that id

  void add(std::string token, std::int32_t id, std::string_view file) {
    if (token.size() > kMaxTokenBytes)
      invalid(std::string(file) + ": the token \"" + printable(token, 40) + "\" is " +
              std::to_string(token.size()) + " bytes; a token may be at most " +
              std::to_string(kMaxTokenBytes));
    if (id < 0 || static_cast<std::size_t>(id) >= kMaxVocabSize)
      invalid(std::string(file) + ": the id " + std::to_string(id) + " of \"" +
              printable(token, 40) + "\" is outside 0.." + std::to_string(kMaxVocabSize - 1));
    if (static_cast<std::size_t>(id) >= tokens.size())
      tokens.resize(static_cast<std::size_t>(id) + 1);
    tokens[static_cast<std::size_t>(id)] = token;
    ids[std::move(token)] = id;  // a token listed twice: the later id, as Hugging Face reads it
  }
  const std::int32_t* find(std::string_view token) const {
    const auto it = ids.find(std::string(token));
    return it == ids.end() ? nullptr : &it->second;
  }
};

Vocab vocab_from_json(const json::Value& obj, std::string_view file, std::string_view what) {
  const std::string where = std::string(file) + ": " + std::string(what);
  const auto& keys = obj.keys(where);
  const auto& values = obj.values(where);
  if (keys.size() > kMaxVocabSize)
    invalid(where + " has " + std::to_string(keys.size()) + " tokens; at most " +
            std::to_string(kMaxVocabSize) + " are read");
  if (keys.empty()) invalid(where + " is empty");
  Vocab v;
  v.ids.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    v.add(keys[i],
          static_cast<std::int32_t>(values[i].as_int(where + "[\"" + printable(keys[i], 40) + "\"]",
                                                     0, kMaxVocabSize - 1)),
          file);
  return v;
}

Vocab vocab_from_txt(std::string_view bytes, std::string_view file) {
  const auto lines = text_lines(bytes, file, kMaxTokenBytes);
  Vocab v;
  std::size_t count = lines.size();
  // a final empty line is the file's last newline, not a token
  if (count > 0 && lines.back().empty()) --count;
  if (count > kMaxVocabSize)
    invalid(std::string(file) + " has " + std::to_string(count) + " lines; at most " +
            std::to_string(kMaxVocabSize) + " tokens are read");
  if (count == 0) invalid(std::string(file) + " is empty");
  v.ids.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::string_view t = lines[i];
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r'))
      t.remove_suffix(1);
    v.add(std::string(t), static_cast<std::int32_t>(i), file);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Added tokens: matched in the raw text before anything else, longest first at the leftmost place

struct AddedToken {
  std::string content;
  std::int32_t id = 0;
  bool special = false;
  bool lstrip = false;  // swallows white space to its left
  bool rstrip = false;  // swallows white space to its right
};

class AddedTokens {
 public:
  void add(AddedToken t, std::string_view file) {
    if (t.content.empty()) invalid(std::string(file) + ": an added token has no content");
    if (t.content.size() > kMaxTokenBytes)
      invalid(std::string(file) + ": an added token is longer than " +
              std::to_string(kMaxTokenBytes) + " bytes");
    if (list_.size() >= kMaxAddedTokens)
      invalid(std::string(file) + " has more than " + std::to_string(kMaxAddedTokens) +
              " added tokens");
    for (const auto& have : list_)
      if (have.content == t.content) return;
    // a trie over the bytes: node 0 is the root
    std::int32_t node = 0;
    for (const char ch : t.content) {
      const std::uint64_t key =
          (static_cast<std::uint64_t>(node) << 8) | static_cast<unsigned char>(ch);
      const auto it = edges_.find(key);
      if (it != edges_.end()) {
        node = it->second;
      } else {
        const auto next = static_cast<std::int32_t>(terminal_.size());
        terminal_.push_back(-1);
        edges_.emplace(key, next);
        node = next;
      }
    }
    terminal_[static_cast<std::size_t>(node)] = static_cast<std::int32_t>(list_.size());
    list_.push_back(std::move(t));
  }
  bool empty() const { return list_.empty(); }
  const AddedToken& at(std::size_t i) const { return list_[i]; }

  // The longest added token starting at byte `pos` of text: its index, or -1.
  std::int32_t match(std::string_view text, std::size_t pos, std::size_t& length) const {
    std::int32_t node = 0;
    std::int32_t best = -1;
    for (std::size_t i = pos; i < text.size(); ++i) {
      const std::uint64_t key =
          (static_cast<std::uint64_t>(node) << 8) | static_cast<unsigned char>(text[i]);
      const auto it = edges_.find(key);
      if (it == edges_.end()) break;
      node = it->second;
      if (terminal_[static_cast<std::size_t>(node)] >= 0) {
        best = terminal_[static_cast<std::size_t>(node)];
        length = i + 1 - pos;
      }
    }
    return best;
  }

 private:
  std::vector<AddedToken> list_;
  std::unordered_map<std::uint64_t, std::int32_t> edges_;
  std::vector<std::int32_t> terminal_{-1};  // per trie node: the token ending there, or -1
};

// A piece of the input between added tokens, or an added token.
struct Segment {
  std::size_t begin, end;  // bytes of the input
  std::int32_t added;      // index into AddedTokens, or -1 for plain text
};

bool ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::vector<Segment> split_added(std::string_view text, const AddedTokens& added) {
  std::vector<Segment> out;
  std::size_t plain = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t length = 0;
    const std::int32_t k = added.empty() ? -1 : added.match(text, pos, length);
    if (k < 0) {
      ++pos;
      continue;
    }
    const AddedToken& t = added.at(static_cast<std::size_t>(k));
    std::size_t begin = pos, end = pos + length;
    if (t.lstrip)
      while (begin > plain && ascii_space(text[begin - 1])) --begin;
    if (t.rstrip)
      while (end < text.size() && ascii_space(text[end])) ++end;
    if (begin > plain) out.push_back({plain, begin, -1});
    out.push_back({begin, end, k});
    plain = pos = end;
  }
  if (plain < text.size()) out.push_back({plain, text.size(), -1});
  return out;
}

// Reads tokenizer.json's added_tokens (ids must be in the vocabulary or beside it).
void read_added_tokens(const json::Value& root, AddedTokens& added, Vocab& vocab) {
  const json::Value* list = root.find("added_tokens");
  if (list == nullptr || list->is_null()) return;
  const auto& items = list->items("tokenizer.json: added_tokens");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string where = "tokenizer.json: added_tokens[" + std::to_string(i) + "]";
    const json::Value& item = items[i];
    AddedToken t;
    const json::Value* content = item.find("content");
    const json::Value* id = item.find("id");
    if (content == nullptr || id == nullptr) invalid(where + " needs \"content\" and \"id\"");
    t.content = content->as_string(where + ".content");
    t.id = static_cast<std::int32_t>(id->as_int(where + ".id", 0, kMaxVocabSize - 1));
    if (const json::Value* v = item.find("special"); v && !v->is_null())
      t.special = v->as_bool(where + ".special");
    if (const json::Value* v = item.find("lstrip"); v && !v->is_null())
      t.lstrip = v->as_bool(where + ".lstrip");
    if (const json::Value* v = item.find("rstrip"); v && !v->is_null())
      t.rstrip = v->as_bool(where + ".rstrip");
    // a text the vocabulary already has keeps the vocabulary's id, as Hugging Face's reader does
    // (it only warns when the file says otherwise), so every id encode emits names a token
    if (const std::int32_t* have = vocab.find(t.content); have != nullptr)
      t.id = *have;
    else
      vocab.add(t.content, t.id, "tokenizer.json");
    added.add(std::move(t), "tokenizer.json");
  }
}

// A special token named in tokenizer_config.json or special_tokens_map.json: a string, or an
// object with "content".
std::string special_token_text(const json::Value* v, std::string_view where) {
  if (v == nullptr || v->is_null()) return "";
  if (v->is_string()) return v->as_string(where);
  if (v->is_object()) {
    const json::Value* c = v->find("content");
    if (c != nullptr) return c->as_string(std::string(where) + ".content");
  }
  invalid(std::string(where) + " must be a string or an object with \"content\"");
}

// ---------------------------------------------------------------------------------------------
// Byte-level BPE (GPT-2)

// GPT-2's printable stand-in for each byte: bytes that are printable Latin-1 stand for
// themselves, the others are U+0100 upward in byte order.
std::array<char32_t, 256> byte_chars() {
  std::array<char32_t, 256> map{};
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
    map[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
  }
  return map;
}

struct Merge {
  std::int32_t rank;
  std::int32_t id;  // the merged token
};

std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
         static_cast<std::uint32_t>(b);
}

// GPT-2's pre-tokenizer: the end (exclusive) of the piece that starts at code point i. The
// pattern's alternatives, tried in order:
//   's|'t|'re|'ve|'m|'ll|'d | ?\p{L}+ | ?\p{N}+ | ?[^\s\p{L}\p{N}]+ | \s+(?!\S) | \s+
std::size_t gpt2_piece_end(const std::vector<CodePoint>& cps, std::size_t i) {
  const std::size_t n = cps.size();
  auto at = [&](std::size_t k) { return cps[k].value; };
  auto space = [](char32_t c) { return unicode::in_white_space(c); };
  auto letter = [](char32_t c) { return unicode::in_letter(c); };
  auto number = [](char32_t c) { return unicode::in_number(c); };
  auto other = [&](char32_t c) { return !space(c) && !letter(c) && !number(c); };
  if (at(i) == '\'' && i + 1 < n) {
    const char32_t a = at(i + 1);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if (i + 2 < n) {
      const char32_t b = at(i + 2);
      if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
    }
  }
  const std::size_t s = (at(i) == ' ' && i + 1 < n) ? i + 1 : i;
  for (auto cls : {+0, +1, +2}) {
    auto in_class = [&](char32_t c) {
      return cls == 0 ? letter(c) : cls == 1 ? number(c) : other(c);
    };
    if (s < n && in_class(at(s))) {
      std::size_t e = s + 1;
      while (e < n && in_class(at(e))) ++e;
      return e;
    }
  }
  // white space: all of it when it ends the text, else all but its last character (which then
  // joins what follows), else the one character
  std::size_t e = i + 1;
  while (e < n && space(at(e))) ++e;
  if (e == n) return n;
  if (e - 1 > i) return e - 1;
  return i + 1;
}

// ---------------------------------------------------------------------------------------------
// BERT's normalizer and pre-tokenizer

struct NormChar {
  char32_t c;
  std::size_t begin, end;  // the input bytes it came from
};

bool is_bert_chinese(char32_t c) {
  // the CJK Unified Ideographs blocks, as BERT's tokenizer lists them
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_punctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
         (c >= 123 && c <= 126) || unicode::in_punctuation(c);
}

bool is_bert_whitespace(char32_t c) {
  return c == '\t' || c == '\n' || c == '\r' || unicode::in_white_space(c);
}

bool is_bert_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  return unicode::in_other(c);
}

// Canonical decomposition of one character, Hangul syllables included (Unicode 3.12).
void nfd_char(char32_t c, std::u32string& out) {
  constexpr char32_t kS = 0xAC00, kL = 0x1100, kV = 0x1161, kT = 0x11A7;
  constexpr char32_t kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = 11172;
  if (c >= kS && c < kS + kSCount) {
    const char32_t s = c - kS;
    out += kL + s / kNCount;
    out += kV + (s % kNCount) / kTCount;
    if (s % kTCount != 0) out += kT + s % kTCount;
    return;
  }
  if (!unicode::decompose(c, out)) out += c;
}

// Lower-casing as str.lower() and String.prototype.toLowerCase do it: the simple mappings, U+0130
// to "i" + U+0307, and a capital sigma at the end of a word to the final form.
void bert_lowercase(std::vector<NormChar>& text) {
  std::vector<NormChar> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const NormChar& nc = text[i];
    if (nc.c == 0x130) {
      out.push_back({'i', nc.begin, nc.end});
      out.push_back({0x307, nc.begin, nc.end});
      continue;
    }
    if (nc.c == 0x3A3) {
      // final: a cased letter before it and none after it (case-ignorable ones skipped)
      bool before = false, after = false;
      for (std::size_t k = i; k-- > 0;) {
        if (unicode::in_case_ignorable(text[k].c)) continue;
        before = unicode::in_cased(text[k].c);
        break;
      }
      for (std::size_t k = i + 1; k < text.size(); ++k) {
        if (unicode::in_case_ignorable(text[k].c)) continue;
        after = unicode::in_cased(text[k].c);
        break;
      }
      out.push_back({before && !after ? char32_t{0x3C2} : char32_t{0x3C3}, nc.begin, nc.end});
      continue;
    }
    out.push_back({unicode::to_lower(nc.c), nc.begin, nc.end});
  }
  text = std::move(out);
}

// NFD (with canonical ordering of combining marks), then every Mn character removed.
void bert_strip_accents(std::vector<NormChar>& text) {
  std::vector<NormChar> out;
  out.reserve(text.size());
  std::u32string d;
  for (const NormChar& nc : text) {
    d.clear();
    nfd_char(nc.c, d);
    for (const char32_t c : d) out.push_back({c, nc.begin, nc.end});
  }
  // canonical ordering: a stable sort of each run of non-starters by combining class
  for (std::size_t i = 0; i < out.size();) {
    if (unicode::combining_class(out[i].c) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < out.size() && unicode::combining_class(out[j].c) != 0) ++j;
    std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(i),
                     out.begin() + static_cast<std::ptrdiff_t>(j),
                     [](const NormChar& a, const NormChar& b) {
                       return unicode::combining_class(a.c) < unicode::combining_class(b.c);
                     });
    i = j;
  }
  out.erase(std::remove_if(out.begin(), out.end(),
                           [](const NormChar& nc) { return unicode::in_nonspacing(nc.c); }),
            out.end());
  text = std::move(out);
}

// A piece's bytes as the learner reads them: whole UTF-8 characters as themselves, any other
// byte as \xHH.
std::string readable_bytes(std::string_view bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto b0 = static_cast<unsigned char>(bytes[i]);
    std::size_t len = b0 < 0x80         ? 1
                      : (b0 >> 5) == 6  ? 2
                      : (b0 >> 4) == 14 ? 3
                      : (b0 >> 3) == 30 ? 4
                                        : 0;
    bool ok = len > 0 && i + len <= bytes.size();
    if (ok && len > 1) {
      try {
        (void)decode_utf8(bytes.substr(i, len));
      } catch (const Error&) {
        ok = false;
      }
    }
    if (ok) {
      out.append(bytes.substr(i, len));
      i += len;
    } else {
      static const char* const kHex = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[b0 >> 4];
      out += kHex[b0 & 15];
      ++i;
    }
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

struct Tokenizer::Impl {
  Kind kind = Kind::byte_level_bpe;
  std::string source;
  Vocab vocab;
  AddedTokens added;

  // byte-level BPE
  std::unordered_map<std::uint64_t, Merge> merges;
  std::array<std::int32_t, 256> byte_ids{};  // the id of each byte's one-symbol token
  bool add_prefix_space = false;
  bool use_regex = true;

  // WordPiece
  bool clean_text = true;
  bool chinese_chars = true;
  bool lowercase = true;
  bool strip_accents = true;
  std::string prefix = "##";
  std::size_t max_chars_per_word = 100;
  std::size_t max_token_chars = 1;  // the longest vocabulary entry, in characters
  // token text -> id for a word's first part, and (text after the prefix) for the parts after
  std::unordered_map<std::string_view, std::int32_t> word_ids, continuation_ids;
  std::int32_t unk_id = -1;
  std::string unk_text;
  std::vector<std::int32_t> before, after;  // the ids the post-processor adds around a text

  void finish_bpe(std::string_view file) {
    const auto chars = byte_chars();
    for (int b = 0; b < 256; ++b) {
      std::string s;
      append_utf8(s, chars[static_cast<std::size_t>(b)]);
      const std::int32_t* id = vocab.find(s);
      if (id == nullptr)
        invalid(std::string(file) + " has no token for the byte 0x" + "0123456789ABCDEF"[b >> 4] +
                "0123456789ABCDEF"[b & 15] + " (\"" + s +
                "\"): a byte-level vocabulary needs all 256");
      byte_ids[static_cast<std::size_t>(b)] = *id;
    }
  }

  void add_merge(std::string_view a, std::string_view b, std::string_view file, std::size_t index) {
    const std::int32_t* ia = vocab.find(a);
    const std::int32_t* ib = vocab.find(b);
    const std::int32_t* im = vocab.find(std::string(a) + std::string(b));
    if (ia == nullptr || ib == nullptr || im == nullptr)
      invalid(std::string(file) + ": merge " + std::to_string(index + 1) + " (\"" +
              printable(a, 40) + "\" + \"" + printable(b, 40) +
              "\") uses or makes a token not in the vocabulary");
    merges.emplace(pair_key(*ia, *ib), Merge{static_cast<std::int32_t>(index), *im});
  }

  void finish_wordpiece(std::string_view file) {
    const std::int32_t* unk = vocab.find(unk_text);
    if (unk == nullptr)
      invalid(std::string(file) + ": the unknown token \"" + printable(unk_text, 40) +
              "\" is not in the vocabulary");
    unk_id = *unk;
    // views of the vocabulary's keys (an unordered_map's nodes do not move), so looking up a
    // part of a word copies nothing
    word_ids.reserve(vocab.ids.size());
    for (const auto& [token, id] : vocab.ids) {
      const std::string_view t = token;
      word_ids[t] = id;
      if (prefix.empty() || t.substr(0, prefix.size()) == prefix) {
        const std::string_view rest = t.substr(prefix.size());
        continuation_ids[rest] = id;
        std::size_t chars = 0;
        for (const char ch : rest) chars += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
        max_token_chars = std::max(max_token_chars, chars);
      }
      std::size_t chars = 0;
      for (const char ch : t) chars += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
      max_token_chars = std::max(max_token_chars, chars);
    }
  }

  void encode_bpe(std::string_view text, std::size_t begin, std::size_t end, Encoding& out) const;
  void bpe_piece(std::string_view bytes, std::size_t base, std::size_t prefix_bytes,
                 Encoding& out) const;
  void encode_wordpiece(std::string_view text, std::size_t begin, std::size_t end,
                        Encoding& out) const;
  void wordpiece_word(const std::vector<NormChar>& t, std::size_t first, std::size_t last,
                      Encoding& out) const;
};

namespace {

void push(Encoding& out, std::int32_t id, std::string piece, std::size_t b, std::size_t e,
          bool special) {
  out.ids.push_back(id);
  out.pieces.push_back(std::move(piece));
  out.byte_begin.push_back(b);
  out.byte_end.push_back(e);
  out.special.push_back(special);
}

}  // namespace

void Tokenizer::Impl::bpe_piece(std::string_view bytes, std::size_t base, std::size_t prefix_bytes,
                                Encoding& out) const {
  // symbols: a doubly linked list over the piece's bytes, merged in place
  struct Symbol {
    std::int32_t id;
    std::int32_t prev, next;
    std::size_t start, length;  // bytes of the piece
  };
  const auto n = static_cast<std::int32_t>(bytes.size());
  std::vector<Symbol> sym(bytes.size());
  for (std::int32_t k = 0; k < n; ++k)
    sym[static_cast<std::size_t>(k)] = {
        byte_ids[static_cast<unsigned char>(bytes[static_cast<std::size_t>(k)])], k - 1,
        k + 1 < n ? k + 1 : -1, static_cast<std::size_t>(k), 1};
  // lowest rank first; among equal ranks the leftmost
  struct Candidate {
    std::int32_t rank, pos, id;
    bool operator<(const Candidate& o) const {
      return rank != o.rank ? rank > o.rank : pos > o.pos;
    }
  };
  std::priority_queue<Candidate> queue;
  auto consider = [&](std::int32_t left) {
    if (left < 0) return;
    const std::int32_t right = sym[static_cast<std::size_t>(left)].next;
    if (right < 0) return;
    const auto it = merges.find(
        pair_key(sym[static_cast<std::size_t>(left)].id, sym[static_cast<std::size_t>(right)].id));
    if (it != merges.end()) queue.push({it->second.rank, left, it->second.id});
  };
  for (std::int32_t k = 0; k + 1 < n; ++k) consider(k);
  while (!queue.empty()) {
    const Candidate c = queue.top();
    queue.pop();
    Symbol& left = sym[static_cast<std::size_t>(c.pos)];
    if (left.length == 0 || left.next < 0) continue;  // merged away, or now last
    Symbol& right = sym[static_cast<std::size_t>(left.next)];
    const auto it = merges.find(pair_key(left.id, right.id));
    if (it == merges.end() || it->second.id != c.id || it->second.rank != c.rank)
      continue;  // stale
    left.id = c.id;
    left.length += right.length;
    right.length = 0;
    left.next = right.next;
    if (left.next >= 0) sym[static_cast<std::size_t>(left.next)].prev = c.pos;
    consider(left.prev);
    consider(c.pos);
  }
  auto offset = [&](std::size_t k) { return base + (k > prefix_bytes ? k - prefix_bytes : 0); };
  for (std::int32_t k = 0; k >= 0 && k < n; k = sym[static_cast<std::size_t>(k)].next) {
    const Symbol& s = sym[static_cast<std::size_t>(k)];
    push(out, s.id, readable_bytes(bytes.substr(s.start, s.length)), offset(s.start),
         offset(s.start + s.length), false);
  }
}

void Tokenizer::Impl::encode_bpe(std::string_view text, std::size_t begin, std::size_t end,
                                 Encoding& out) const {
  std::string seg(text.substr(begin, end - begin));
  std::size_t prefix_bytes = 0;
  if (add_prefix_space && (seg.empty() || seg[0] != ' ')) {
    seg.insert(seg.begin(), ' ');
    prefix_bytes = 1;
  }
  if (!use_regex) {
    bpe_piece(seg, begin, prefix_bytes, out);
    return;
  }
  const auto cps = decode_utf8(seg);
  for (std::size_t i = 0; i < cps.size();) {
    const std::size_t j = gpt2_piece_end(cps, i);
    const std::size_t b = cps[i].byte_begin, e = cps[j - 1].byte_end;
    const std::size_t pre = b < prefix_bytes ? prefix_bytes - b : 0;
    bpe_piece(std::string_view(seg).substr(b, e - b),
              begin + (b > prefix_bytes ? b - prefix_bytes : 0), pre, out);
    i = j;
  }
}

void Tokenizer::Impl::wordpiece_word(const std::vector<NormChar>& t, std::size_t first,
                                     std::size_t last, Encoding& out) const {
  const std::size_t before = out.size();
  if (last - first > max_chars_per_word) {
    push(out, unk_id, unk_text, t[first].begin, t[last - 1].end, false);
    return;
  }
  // the word's UTF-8 once; at[k] = the byte where character first + k starts
  std::string word;
  std::vector<std::size_t> at;
  for (std::size_t k = first; k < last; ++k) {
    at.push_back(word.size());
    append_utf8(word, t[k].c);
  }
  at.push_back(word.size());
  const std::string_view w = word;
  for (std::size_t start = first; start < last;) {
    const auto& map = start > first ? continuation_ids : word_ids;
    std::size_t stop = std::min(last, start + max_token_chars);
    bool found = false;
    for (; stop > start; --stop) {
      const std::string_view sub =
          w.substr(at[start - first], at[stop - first] - at[start - first]);
      const auto it = map.find(sub);
      if (it != map.end()) {
        push(out, it->second, (start > first ? prefix : std::string()) + std::string(sub),
             t[start].begin, t[stop - 1].end, false);
        found = true;
        break;
      }
    }
    if (!found) {
      // one unknown part makes the whole word unknown
      out.ids.resize(before);
      out.pieces.resize(before);
      out.byte_begin.resize(before);
      out.byte_end.resize(before);
      out.special.resize(before);
      push(out, unk_id, unk_text, t[first].begin, t[last - 1].end, false);
      return;
    }
    start = stop;
  }
}

void Tokenizer::Impl::encode_wordpiece(std::string_view text, std::size_t begin, std::size_t end,
                                       Encoding& out) const {
  // 1. the normalizer: control characters dropped, white space made ' ', CJK spaced
  std::vector<NormChar> t;
  for (const CodePoint& cp : decode_utf8(text.substr(begin, end - begin))) {
    const NormChar nc{cp.value, begin + cp.byte_begin, begin + cp.byte_end};
    if (clean_text) {
      if (nc.c == 0 || nc.c == 0xFFFD || is_bert_control(nc.c)) continue;
      if (is_bert_whitespace(nc.c)) {
        t.push_back({' ', nc.begin, nc.end});
        continue;
      }
    }
    if (chinese_chars && is_bert_chinese(nc.c)) {
      t.push_back({' ', nc.begin, nc.begin});
      t.push_back(nc);
      t.push_back({' ', nc.end, nc.end});
      continue;
    }
    t.push_back(nc);
  }
  if (lowercase) bert_lowercase(t);
  if (strip_accents) bert_strip_accents(t);
  // 2. the pre-tokenizer: words split at white space, each punctuation character its own word
  for (std::size_t i = 0; i < t.size();) {
    if (is_bert_whitespace(t[i].c)) {
      ++i;
      continue;
    }
    if (is_bert_punctuation(t[i].c)) {
      wordpiece_word(t, i, i + 1, out);
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < t.size() && !is_bert_whitespace(t[j].c) && !is_bert_punctuation(t[j].c)) ++j;
    wordpiece_word(t, i, j, out);
    i = j;
  }
}

// ---------------------------------------------------------------------------------------------
// Loading

namespace {

bool flag(const json::Value& obj, std::string_view key, bool fallback, const std::string& where) {
  const json::Value* v = obj.find(key);
  if (v == nullptr || v->is_null()) return fallback;
  // "tokenizer_config.json: do_lower_case", "tokenizer.json: normalizer.lowercase"
  const bool file = where.size() > 5 && where.compare(where.size() - 5, 5, ".json") == 0;
  return v->as_bool(where + (file ? ": " : ".") + std::string(key));
}

const json::Value& member(const json::Value& obj, std::string_view key, const std::string& where) {
  const json::Value* v = obj.find(key);
  if (v == nullptr) invalid(where + " has no \"" + std::string(key) + "\"");
  return *v;
}

std::string type_of(const json::Value& obj, const std::string& where) {
  if (!obj.is_object()) invalid(where + " must be an object");
  const json::Value* t = obj.find("type");
  if (t == nullptr) invalid(where + " has no \"type\"");
  return t->as_string(where + ".type");
}

// The ids a post-processor adds before and after one text: TemplateProcessing's "single"
// template, BertProcessing's cls and sep, RobertaProcessing likewise; ByteLevel adds none.
void read_post_processor(const json::Value* pp, const Vocab& vocab,
                         std::vector<std::int32_t>& before, std::vector<std::int32_t>& after) {
  if (pp == nullptr || pp->is_null()) return;
  const std::string where = "tokenizer.json: post_processor";
  const std::string type = type_of(*pp, where);
  auto token_id = [&](const json::Value& pair, const std::string& w) {
    const auto& items = pair.items(w);
    if (items.size() != 2) invalid(w + " must be [token, id]");
    return static_cast<std::int32_t>(items[1].as_int(w + "[1]", 0, kMaxVocabSize - 1));
  };
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    before.push_back(token_id(member(*pp, "cls", where), where + ".cls"));
    after.push_back(token_id(member(*pp, "sep", where), where + ".sep"));
    return;
  }
  if (type == "ByteLevel") return;
  if (type == "Sequence") {
    const auto& list = member(*pp, "processors", where).items(where + ".processors");
    for (const auto& p : list) read_post_processor(&p, vocab, before, after);
    return;
  }
  if (type != "TemplateProcessing")
    invalid(where + " is " + printable(type, 40) + ", which this reader does not do");
  const auto& single = member(*pp, "single", where).items(where + ".single");
  const json::Value& specials = member(*pp, "special_tokens", where);
  bool seen_sequence = false;
  for (std::size_t i = 0; i < single.size(); ++i) {
    const std::string w = where + ".single[" + std::to_string(i) + "]";
    if (single[i].find("Sequence") != nullptr) {
      seen_sequence = true;
      continue;
    }
    const json::Value* st = single[i].find("SpecialToken");
    if (st == nullptr) invalid(w + " must be a Sequence or a SpecialToken");
    const std::string& name =
        member(*st, "id", w + ".SpecialToken").as_string(w + ".SpecialToken.id");
    const json::Value* entry = specials.find(name);
    if (entry == nullptr) invalid(where + ".special_tokens has no \"" + printable(name, 40) + "\"");
    const auto& ids =
        member(*entry, "ids", where + ".special_tokens").items(where + ".special_tokens.ids");
    for (const auto& id : ids) {
      const auto v =
          static_cast<std::int32_t>(id.as_int(where + ".special_tokens.ids", 0, kMaxVocabSize - 1));
      (seen_sequence ? after : before).push_back(v);
    }
  }
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

const std::vector<std::string>& tokenizer_file_names() {
  static const std::vector<std::string> names = {
      "tokenizer.json",         "vocab.json", "merges.txt", "vocab.txt", "tokenizer_config.json",
      "special_tokens_map.json"};
  return names;
}

namespace {

std::unique_ptr<Tokenizer::Impl> from_tokenizer_json(std::string_view bytes) {
  const std::string file = "tokenizer.json";
  const json::Value root = parse_json_file(bytes, file);
  if (!root.is_object()) invalid(file + " must hold a JSON object");
  auto impl = std::make_unique<Tokenizer::Impl>();
  impl->source = file;
  const json::Value& model = member(root, "model", file);
  const std::string model_where = file + ": model";
  std::string type;
  if (model.find("type") != nullptr) {
    type = type_of(model, model_where);
  } else if (model.find("merges") != nullptr) {
    type = "BPE";  // older files leave the type out
  } else {
    type = "WordPiece";
  }
  impl->vocab = vocab_from_json(member(model, "vocab", model_where), file, "model.vocab");
  read_added_tokens(root, impl->added, impl->vocab);
  const json::Value* normalizer = root.find("normalizer");
  const json::Value* pre = root.find("pre_tokenizer");
  if (type == "BPE") {
    impl->kind = Kind::byte_level_bpe;
    if (normalizer != nullptr && !normalizer->is_null())
      invalid(file + ": a BPE tokenizer with a normalizer (" +
              printable(type_of(*normalizer, file + ": normalizer"), 40) +
              ") is not GPT-2's; this reader does GPT-2's byte-level BPE only");
    if (pre == nullptr || pre->is_null() || type_of(*pre, file + ": pre_tokenizer") != "ByteLevel")
      invalid(file +
              ": a BPE tokenizer needs the ByteLevel pre-tokenizer (GPT-2's); this "
              "reader does GPT-2's byte-level BPE only");
    impl->add_prefix_space = flag(*pre, "add_prefix_space", false, file + ": pre_tokenizer");
    impl->use_regex = flag(*pre, "use_regex", true, file + ": pre_tokenizer");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
      const json::Value* v = model.find(key);
      if (v != nullptr && !v->is_null() && !v->as_string(model_where + "." + key).empty())
        invalid(model_where + "." + key + " is set; GPT-2's BPE has none");
    }
    if (const json::Value* v = model.find("byte_fallback");
        v && !v->is_null() && v->as_bool(model_where + ".byte_fallback"))
      invalid(model_where + ".byte_fallback is true; GPT-2's BPE has none");
    impl->finish_bpe(file);
    const auto& merges = member(model, "merges", model_where).items(model_where + ".merges");
    if (merges.size() > kMaxMerges)
      invalid(model_where + ".merges has " + std::to_string(merges.size()) + " rules; at most " +
              std::to_string(kMaxMerges) + " are read");
    impl->merges.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
      const std::string w = model_where + ".merges[" + std::to_string(i) + "]";
      if (merges[i].is_string()) {
        const std::string& m = merges[i].as_string(w);
        const std::size_t sp = m.find(' ');
        if (sp == std::string::npos || m.find(' ', sp + 1) != std::string::npos)
          invalid(w + " must be two tokens separated by one space");
        impl->add_merge(std::string_view(m).substr(0, sp), std::string_view(m).substr(sp + 1), file,
                        i);
      } else {
        const auto& pair = merges[i].items(w);
        if (pair.size() != 2) invalid(w + " must be a pair of tokens");
        impl->add_merge(pair[0].as_string(w + "[0]"), pair[1].as_string(w + "[1]"), file, i);
      }
    }
  } else if (type == "WordPiece") {
    impl->kind = Kind::wordpiece;
    if (normalizer == nullptr || normalizer->is_null()) {
      impl->clean_text = impl->chinese_chars = impl->lowercase = impl->strip_accents = false;
    } else {
      const std::string w = file + ": normalizer";
      const std::string nt = type_of(*normalizer, w);
      if (nt != "BertNormalizer")
        invalid(w + " is " + printable(nt, 40) + "; this reader does BERT's (BertNormalizer)");
      impl->clean_text = flag(*normalizer, "clean_text", true, w);
      impl->chinese_chars = flag(*normalizer, "handle_chinese_chars", true, w);
      impl->lowercase = flag(*normalizer, "lowercase", true, w);
      impl->strip_accents = flag(*normalizer, "strip_accents", impl->lowercase, w);
    }
    if (pre == nullptr || pre->is_null() ||
        type_of(*pre, file + ": pre_tokenizer") != "BertPreTokenizer")
      invalid(file + ": a WordPiece tokenizer needs BERT's pre-tokenizer (BertPreTokenizer)");
    if (const json::Value* v = model.find("unk_token"); v && !v->is_null())
      impl->unk_text = v->as_string(model_where + ".unk_token");
    else
      impl->unk_text = "[UNK]";
    if (const json::Value* v = model.find("continuing_subword_prefix"); v && !v->is_null())
      impl->prefix = v->as_string(model_where + ".continuing_subword_prefix");
    if (const json::Value* v = model.find("max_input_chars_per_word"); v && !v->is_null())
      impl->max_chars_per_word = static_cast<std::size_t>(
          v->as_int(model_where + ".max_input_chars_per_word", 1, kMaxWordChars));
    impl->finish_wordpiece(file);
    read_post_processor(root.find("post_processor"), impl->vocab, impl->before, impl->after);
  } else {
    invalid(model_where + ".type is " + printable(type, 40) +
            "; this reader does BPE (GPT-2) and WordPiece (BERT)");
  }
  for (const auto& list : {impl->before, impl->after})
    for (const std::int32_t id : list)
      if (static_cast<std::size_t>(id) >= impl->vocab.tokens.size() ||
          impl->vocab.tokens[static_cast<std::size_t>(id)].empty())
        invalid(file + ": the post-processor adds the id " + std::to_string(id) +
                ", which is not in the vocabulary");
  return impl;
}

// tokenizer_config.json and special_tokens_map.json, when given: the settings of the older files.
struct OldConfig {
  json::Value config, specials;
  std::string token(std::string_view key) const {
    for (const auto* pair : {&specials, &config}) {
      const std::string file =
          pair == &specials ? "special_tokens_map.json" : "tokenizer_config.json";
      if (const json::Value* v = pair->find(key)) {
        std::string s = special_token_text(v, file + ": " + std::string(key));
        if (!s.empty()) return s;
      }
    }
    return "";
  }
};

OldConfig read_old_config(const Files& files) {
  OldConfig c;
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    if (const std::string_view* bytes = find_file(files, name)) {
      json::Value v = parse_json_file(*bytes, name);
      if (!v.is_object()) invalid(std::string(name) + " must hold a JSON object");
      (std::string_view(name) == "tokenizer_config.json" ? c.config : c.specials) = std::move(v);
    }
  }
  return c;
}

std::unique_ptr<Tokenizer::Impl> from_vocab_json(std::string_view vocab_bytes,
                                                 std::string_view merges_bytes,
                                                 const OldConfig& config) {
  auto impl = std::make_unique<Tokenizer::Impl>();
  impl->kind = Kind::byte_level_bpe;
  impl->source = "vocab.json + merges.txt";
  const json::Value v = parse_json_file(vocab_bytes, "vocab.json");
  if (!v.is_object()) invalid("vocab.json must hold a JSON object of token: id");
  impl->vocab = vocab_from_json(v, "vocab.json", "the vocabulary");
  impl->finish_bpe("vocab.json");
  impl->add_prefix_space = flag(config.config, "add_prefix_space", false, "tokenizer_config.json");
  const auto lines = text_lines(merges_bytes, "merges.txt", 2 * kMaxTokenBytes + 1);
  std::size_t rank = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (line.empty() || (i == 0 && line.substr(0, 8) == "#version")) continue;
    const std::size_t sp = line.find(' ');
    if (sp == std::string_view::npos || line.find(' ', sp + 1) != std::string_view::npos)
      invalid("merges.txt line " + std::to_string(i + 1) +
              " must be two tokens separated by one space");
    if (rank >= kMaxMerges)
      invalid("merges.txt has more than " + std::to_string(kMaxMerges) + " merge rules");
    impl->add_merge(line.substr(0, sp), line.substr(sp + 1), "merges.txt", rank++);
  }
  // the special tokens the older GPT-2 tokenizer splits off
  for (const char* key : {"bos_token", "eos_token", "unk_token", "pad_token"}) {
    std::string t = config.token(key);
    if (t.empty() && std::string_view(key) != "pad_token") t = "<|endoftext|>";
    if (t.empty()) continue;
    if (const std::int32_t* id = impl->vocab.find(t)) {
      AddedToken a;
      a.content = t;
      a.id = *id;
      a.special = true;
      impl->added.add(std::move(a), "vocab.json");
    }
  }
  return impl;
}

std::unique_ptr<Tokenizer::Impl> from_vocab_txt(std::string_view vocab_bytes,
                                                const OldConfig& config) {
  auto impl = std::make_unique<Tokenizer::Impl>();
  impl->kind = Kind::wordpiece;
  impl->source = "vocab.txt";
  impl->vocab = vocab_from_txt(vocab_bytes, "vocab.txt");
  const std::string where = "tokenizer_config.json";
  impl->lowercase = flag(config.config, "do_lower_case", true, where);
  impl->strip_accents = flag(config.config, "strip_accents", impl->lowercase, where);
  impl->chinese_chars = flag(config.config, "tokenize_chinese_chars", true, where);
  const std::array<std::pair<const char*, const char*>, 5> keys = {{{"unk_token", "[UNK]"},
                                                                    {"sep_token", "[SEP]"},
                                                                    {"pad_token", "[PAD]"},
                                                                    {"cls_token", "[CLS]"},
                                                                    {"mask_token", "[MASK]"}}};
  std::string cls, sep;
  for (const auto& [key, fallback] : keys) {
    std::string t = config.token(key);
    if (t.empty()) t = fallback;
    if (std::string_view(key) == "unk_token") impl->unk_text = t;
    if (std::string_view(key) == "cls_token") cls = t;
    if (std::string_view(key) == "sep_token") sep = t;
    if (const std::int32_t* id = impl->vocab.find(t)) {
      AddedToken a;
      a.content = t;
      a.id = *id;
      a.special = true;
      impl->added.add(std::move(a), "vocab.txt");
    }
  }
  impl->finish_wordpiece("vocab.txt");
  const std::int32_t* cls_id = impl->vocab.find(cls);
  const std::int32_t* sep_id = impl->vocab.find(sep);
  if (cls_id == nullptr || sep_id == nullptr)
    invalid("vocab.txt has no \"" + printable(cls_id == nullptr ? cls : sep, 40) +
            "\", which BERT's tokenizer adds around every text");
  impl->before.push_back(*cls_id);
  impl->after.push_back(*sep_id);
  return impl;
}

}  // namespace

Tokenizer Tokenizer::from_files(const Files& files) {
  if (const std::string_view* tj = find_file(files, "tokenizer.json"))
    return Tokenizer(from_tokenizer_json(*tj));
  const std::string_view* vocab_json = find_file(files, "vocab.json");
  const std::string_view* merges = find_file(files, "merges.txt");
  const std::string_view* vocab_txt = find_file(files, "vocab.txt");
  if (vocab_json != nullptr && merges == nullptr)
    throw Error("hf_tokenizer_missing",
                "vocab.json needs merges.txt beside it (GPT-2's older "
                "tokenizer files come as that pair), or give tokenizer.json");
  if (vocab_json != nullptr)
    return Tokenizer(from_vocab_json(*vocab_json, *merges, read_old_config(files)));
  if (vocab_txt != nullptr) return Tokenizer(from_vocab_txt(*vocab_txt, read_old_config(files)));
  throw Error("hf_tokenizer_missing",
              "no tokenizer files: give tokenizer.json, or vocab.json and merges.txt (GPT-2), or "
              "vocab.txt (BERT), from the model's Files page");
}

Encoding Tokenizer::encode(std::string_view text) const {
  if (text.size() > kMaxEncodeBytes)
    throw Error("text_too_long", "the text is " + std::to_string(text.size()) +
                                     " bytes; the tokenizer takes at most " +
                                     std::to_string(kMaxEncodeBytes));
  (void)decode_utf8(text);  // invalid_utf8 names the offset
  const Impl& m = *impl_;
  Encoding out;
  for (const std::int32_t id : m.before)
    push(out, id, m.vocab.tokens[static_cast<std::size_t>(id)], 0, 0, true);
  for (const Segment& s : split_added(text, m.added)) {
    if (s.added >= 0) {
      const AddedToken& a = m.added.at(static_cast<std::size_t>(s.added));
      push(out, a.id, a.content, s.begin, s.end, a.special);
    } else if (m.kind == Kind::byte_level_bpe) {
      m.encode_bpe(text, s.begin, s.end, out);
    } else {
      m.encode_wordpiece(text, s.begin, s.end, out);
    }
  }
  for (const std::int32_t id : m.after)
    push(out, id, m.vocab.tokens[static_cast<std::size_t>(id)], 0, 0, true);
  return out;
}

Kind Tokenizer::kind() const { return impl_->kind; }
std::size_t Tokenizer::vocab_size() const { return impl_->vocab.tokens.size(); }
std::string Tokenizer::id_to_token(std::int32_t id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= impl_->vocab.tokens.size()) return "";
  return impl_->vocab.tokens[static_cast<std::size_t>(id)];
}
std::string Tokenizer::source() const { return impl_->source; }

}  // namespace ap::hf
