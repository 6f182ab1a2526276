// test_hf_tokenizer.cpp: the Hugging Face tokenizers' readers (errors name the file; limits),
// and properties of the encoders on small hand-made vocabularies. GPT-2's and BERT's real ids are
// checked against other implementations in tests/hf/tokenizers.test.mjs, not here.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "error.hpp"
#include "hf_tokenizer.hpp"
#include "test_util.hpp"
#include "unicode_data.hpp"
#include "utf8.hpp"

namespace {

using ap_test::code_of;

// GPT-2's stand-in character for each byte, as UTF-8.
std::string byte_symbol(int b) {
  int next = 256;
  for (int k = 0; k < 256; ++k) {
    const bool printable = (k >= 33 && k <= 126) || (k >= 161 && k <= 172) || k >= 174;
    const int c = printable ? k : next++;
    if (k == b) {
      std::string s;
      ap::append_utf8(s, static_cast<char32_t>(c));
      return s;
    }
  }
  return "";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A byte-level vocabulary: the 256 byte symbols (ids 0..255), then the merges' results in order,
// then <|endoftext|>.
struct SmallBpe {
  std::vector<std::pair<std::string, std::string>> merges;
  std::string vocab_json() const {
    std::string out = "{";
    int id = 0;
    for (int b = 0; b < 256; ++b)
      out += (b ? "," : "") + json_string(byte_symbol(b)) + ":" + std::to_string(id++);
    for (const auto& [a, c] : merges) out += "," + json_string(a + c) + ":" + std::to_string(id++);
    out += ",\"<|endoftext|>\":" + std::to_string(id) + "}";
    return out;
  }
  std::string merges_txt() const {
    std::string out = "#version: 0.2\n";
    for (const auto& [a, c] : merges) out += a + " " + c + "\n";
    return out;
  }
  std::string tokenizer_json(const std::string& pre_extra = "") const {
    std::string m = "[";
    for (std::size_t i = 0; i < merges.size(); ++i)
      m += (i ? "," : "") + json_string(merges[i].first + " " + merges[i].second);
    m += "]";
    const int eot = 256 + static_cast<int>(merges.size());
    return "{\"added_tokens\":[{\"id\":" + std::to_string(eot) +
           ",\"content\":\"<|endoftext|>\",\"special\":true}],\"normalizer\":null,"
           "\"pre_tokenizer\":{\"type\":\"ByteLevel\"" +
           pre_extra +
           "},"
           "\"model\":{\"type\":\"BPE\",\"vocab\":" +
           vocab_json() + ",\"merges\":" + m + "}}";
  }
};

const SmallBpe kBpe{{{"Ġ", "t"}, {"h", "e"}, {"Ġt", "he"}, {"i", "n"}, {"'", "s"}, {"a", "a"}}};

ap::hf::Tokenizer bpe_json(const std::string& extra = "") {
  const std::string tj = kBpe.tokenizer_json(extra);
  return ap::hf::Tokenizer::from_files({{"tokenizer.json", tj}});
}

ap::hf::Tokenizer bpe_old() {
  const std::string v = kBpe.vocab_json(), m = kBpe.merges_txt();
  return ap::hf::Tokenizer::from_files({{"vocab.json", v}, {"merges.txt", m}});
}

std::string joined(const ap::hf::Encoding& e, const char* sep = "|") {
  std::string out;
  for (std::size_t i = 0; i < e.size(); ++i) out += (i ? sep : "") + e.pieces[i];
  return out;
}

const char* const kBertVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n##s\nworld\n,\n!\nun\n##aff\n##able\ncafe\n"
    "中\n国\nhe\n##llo\nΣ\nσ\nς\nοδος\nοδοσ\nHello\nCafé\n";

ap::hf::Tokenizer bert(const std::string& config = "") {
  ap::hf::Files f{{"vocab.txt", kBertVocab}};
  if (!config.empty()) f.emplace("tokenizer_config.json", config);
  return ap::hf::Tokenizer::from_files(f);
}

std::string load_code(const ap::hf::Files& f) {
  return code_of([&] { ap::hf::Tokenizer::from_files(f); });
}

std::string load_message(const ap::hf::Files& f) {
  try {
    ap::hf::Tokenizer::from_files(f);
  } catch (const ap::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("hf_tokenizer: byte-level BPE reads tokenizer.json and vocab.json + merges.txt alike") {
  const auto a = bpe_json();
  const auto b = bpe_old();
  CHECK(a.kind() == ap::hf::Kind::byte_level_bpe);
  CHECK(a.source() == "tokenizer.json");
  CHECK(b.source() == "vocab.json + merges.txt");
  for (const char* text :
       {"the cat's hat", "in the  \n\n inn", "aaaaa", "中文 😀", "x<|endoftext|>y"}) {
    CAPTURE(text);
    const auto ea = a.encode(text), eb = b.encode(text);
    CHECK(ea.ids == eb.ids);
    CHECK(ea.pieces == eb.pieces);
  }
}

TEST_CASE("hf_tokenizer: byte-level pieces are the text, merged by rank, nothing added") {
  const auto t = bpe_json();
  // merges apply lowest rank first: "Ġt" + "he" needs both earlier merges
  CHECK(joined(t.encode(" the")) == " the");
  CHECK(t.encode(" the").size() == 1);
  // equal ranks: leftmost first, so five a's are aa|aa|a
  CHECK(joined(t.encode("aaaaa")) == "aa|aa|a");
  // contractions are their own pieces; spaces before a word join it, the last of a run of spaces
  // joins the word after it
  CHECK(joined(t.encode("it's")) == "i|t|'s");
  // (no merge joins "Ġ" and "b" here, so the piece " b" stays two tokens)
  const auto e = t.encode("a  b");
  CHECK(joined(e) == "a| | |b");
  CHECK(e.byte_begin[2] == 2);
  CHECK(e.byte_end[3] == 4);
  // a character split between tokens shows its bytes as \xHH; whole ones stay text
  const auto zh = t.encode("中");
  CHECK(zh.size() == 3);
  CHECK(joined(zh, "") == "\\xE4\\xB8\\xAD");
  // the added token is split off whole, and marked special
  const auto eot = t.encode("x<|endoftext|>y");
  REQUIRE(eot.size() == 3);
  CHECK(eot.pieces[1] == "<|endoftext|>");
  CHECK(eot.special[1]);
  CHECK(eot.byte_begin[1] == 1);
  CHECK(eot.byte_end[1] == 14);
  CHECK(t.id_to_token(eot.ids[1]) == "<|endoftext|>");
}

TEST_CASE("hf_tokenizer: byte offsets tile the input for byte-level BPE") {
  const auto t = bpe_json();
  const std::string text = "The cat's  hat\n\n in 中文, 123 😀!";
  const auto e = t.encode(text);
  std::size_t at = 0;
  std::string bytes;
  for (std::size_t i = 0; i < e.size(); ++i) {
    CHECK(e.byte_begin[i] == at);
    at = e.byte_end[i];
  }
  CHECK(at == text.size());
  // add_prefix_space: a space before the text, offset to nothing
  const auto p = bpe_json(",\"add_prefix_space\":true");
  const auto ep = p.encode("the");
  REQUIRE(ep.size() == 1);
  CHECK(ep.pieces[0] == " the");
  CHECK(ep.byte_begin[0] == 0);
  CHECK(ep.byte_end[0] == 3);
}

TEST_CASE("hf_tokenizer: a long word merges in bounded time") {
  const auto t = bpe_json();
  const auto e = t.encode(std::string(ap::hf::kMaxEncodeBytes, 'a'));
  CHECK(e.size() == ap::hf::kMaxEncodeBytes / 2);
  CHECK(code_of([&] { t.encode(std::string(ap::hf::kMaxEncodeBytes + 1, 'a')); }) ==
        "text_too_long");
  CHECK(code_of([&] { t.encode("\xC3\x28"); }) == "invalid_utf8");
}

TEST_CASE("hf_tokenizer: BERT basic tokenizer and WordPiece") {
  const auto t = bert();
  CHECK(t.kind() == ap::hf::Kind::wordpiece);
  // [CLS] and [SEP] around, lower-cased, accents stripped, punctuation split, ## pieces
  CHECK(joined(t.encode("Hello, WORLDS!")) == "[CLS]|hello|,|world|##s|!|[SEP]");
  CHECK(joined(t.encode("unaffable Café")) == "[CLS]|un|##aff|##able|cafe|[SEP]");
  // CJK characters are words of their own; control characters vanish
  CHECK(joined(t.encode("中国\x01hello")) == "[CLS]|中|国|hello|[SEP]");
  // a word with any unknown part is one [UNK]; so is a word past 100 characters
  CHECK(joined(t.encode("helloq")) == "[CLS]|[UNK]|[SEP]");
  CHECK(joined(t.encode(std::string(101, 's'))) == "[CLS]|[UNK]|[SEP]");
  // final sigma: the capital at the end of a word lower-cases to the final form
  CHECK(joined(t.encode("ΟΔΟΣ")) == "[CLS]|οδος|[SEP]");
  // special tokens in the text are kept whole
  CHECK(joined(t.encode("hello [MASK] world")) == "[CLS]|hello|[MASK]|world|[SEP]");
  const auto e = t.encode("Hello, world");
  CHECK(e.special[0]);
  CHECK(e.byte_begin[0] == 0);
  CHECK(e.byte_end[0] == 0);
  CHECK(e.byte_begin[1] == 0);
  CHECK(e.byte_end[1] == 5);
  CHECK(e.byte_begin[3] == 7);
  CHECK(e.byte_end[3] == 12);
}

TEST_CASE("hf_tokenizer: tokenizer_config.json's do_lower_case and strip_accents") {
  const auto cased = bert("{\"do_lower_case\": false}");
  CHECK(joined(cased.encode("Hello Café")) == "[CLS]|Hello|Café|[SEP]");
  const auto strip = bert("{\"do_lower_case\": false, \"strip_accents\": true}");
  CHECK(joined(strip.encode("Café")) == "[CLS]|[UNK]|[SEP]");
  const auto keep = bert("{\"do_lower_case\": true, \"strip_accents\": false}");
  CHECK(joined(keep.encode("CAFÉ")) == "[CLS]|[UNK]|[SEP]");
  CHECK(joined(keep.encode("CAFE")) == "[CLS]|cafe|[SEP]");
  const auto no_cjk = bert("{\"tokenize_chinese_chars\": false}");
  CHECK(joined(no_cjk.encode("中国")) == "[CLS]|[UNK]|[SEP]");
}

TEST_CASE("hf_tokenizer: BERT's tokenizer.json reads as vocab.txt does") {
  std::string vocab = "{";
  std::vector<std::string> lines;
  std::string line;
  for (const char* p = kBertVocab; *p; ++p) {
    if (*p == '\n') {
      vocab += (lines.empty() ? "" : ",") + json_string(line) + ":" + std::to_string(lines.size());
      lines.push_back(line);
      line.clear();
    } else {
      line += *p;
    }
  }
  vocab += "}";
  const std::string tj =
      "{\"added_tokens\":[{\"id\":4,\"content\":\"[MASK]\",\"special\":true}],"
      "\"normalizer\":{\"type\":\"BertNormalizer\",\"clean_text\":true,\"handle_chinese_chars\":"
      "true,\"strip_accents\":null,\"lowercase\":true},\"pre_tokenizer\":{\"type\":"
      "\"BertPreTokenizer\"},\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{"
      "\"SpecialToken\":{\"id\":\"[CLS]\"}},{\"Sequence\":{\"id\":\"A\"}},{\"SpecialToken\":{"
      "\"id\":\"[SEP]\"}}],\"special_tokens\":{\"[CLS]\":{\"id\":\"[CLS]\",\"ids\":[2]},"
      "\"[SEP]\":{\"id\":\"[SEP]\",\"ids\":[3]}}},\"model\":{\"type\":\"WordPiece\",\"unk_token\":"
      "\"[UNK]\",\"continuing_subword_prefix\":\"##\",\"max_input_chars_per_word\":100,"
      "\"vocab\":" +
      vocab + "}}";
  const auto a = ap::hf::Tokenizer::from_files({{"tokenizer.json", tj}});
  const auto b = bert();
  for (const char* text : {"Hello, WORLDS!", "unaffable Café 中国", "hello [MASK] x", "ΟΔΟΣ Σ"}) {
    CAPTURE(text);
    CHECK(a.encode(text).ids == b.encode(text).ids);
  }
  CHECK(a.vocab_size() == lines.size());
}

TEST_CASE("hf_tokenizer: an added token already in the vocabulary keeps the vocabulary's id") {
  // the file claims an id far past the vocabulary for a text the vocabulary has as "he"
  std::string tj = kBpe.tokenizer_json();
  const std::string claim = "{\"id\":70000,\"content\":\"he\",\"special\":false},";
  tj.insert(tj.find("{\"id\":"), claim);
  const auto tok = ap::hf::Tokenizer::from_files({{"tokenizer.json", tj}});
  const auto plain = bpe_json();
  // "the he" splits around the added text "he": t, he, Ġ, he; each "he" is the vocabulary's
  const auto e = tok.encode("the he");
  REQUIRE(e.size() == 4);
  for (std::size_t i = 0; i < e.size(); ++i) {
    CAPTURE(i);
    CHECK(static_cast<std::size_t>(e.ids[i]) < tok.vocab_size());
    CHECK_FALSE(tok.id_to_token(e.ids[i]).empty());
  }
  CHECK(tok.id_to_token(e.ids[1]) == "he");
  CHECK(e.ids[1] == e.ids[3]);
  CHECK(e.ids[1] == plain.encode("he").ids.at(0));
  CHECK(tok.vocab_size() == plain.vocab_size());
}

TEST_CASE("hf_tokenizer: missing or broken files are named in the error") {
  CHECK(load_code({}) == "hf_tokenizer_missing");
  CHECK(load_code({{"config.json", "{}"}}) == "hf_tokenizer_missing");
  const std::string v = kBpe.vocab_json();
  CHECK(load_code({{"vocab.json", v}}) == "hf_tokenizer_missing");
  CHECK(load_message({{"vocab.json", v}}).find("merges.txt") != std::string::npos);
  // a merge that uses a token the vocabulary lacks, a malformed merge line
  CHECK(
      load_message({{"vocab.json", v}, {"merges.txt", "q z\n"}}).rfind("merges.txt: merge 1", 0) ==
      0);
  CHECK(load_message({{"vocab.json", v}, {"merges.txt", "#version: 0.2\na b c\n"}})
            .rfind("merges.txt line 2", 0) == 0);
  // a byte-level vocabulary without every byte
  CHECK(load_message({{"vocab.json", "{\"a\": 0}"}, {"merges.txt", ""}})
            .rfind("vocab.json has no token for the byte 0x00", 0) == 0);
  // JSON that does not parse names its file
  CHECK(load_message({{"tokenizer.json", "{\"model\": }"}})
            .rfind("tokenizer.json is not valid JSON: line 1", 0) == 0);
  CHECK(load_code({{"tokenizer.json", "[]"}}) == "hf_tokenizer_invalid");
  CHECK(load_code({{"tokenizer.json", "{\"model\":{\"type\":\"Unigram\",\"vocab\":{\"a\":0}}}"}}) ==
        "hf_tokenizer_invalid");
  CHECK(load_message({{"tokenizer.json", "{\"model\":{\"type\":\"Unigram\",\"vocab\":{\"a\":0}}}"}})
            .find("Unigram") != std::string::npos);
  CHECK(load_code({{"tokenizer.json", "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":\"x\"}}}"}}) ==
        "json_type");
  CHECK(load_code({{"tokenizer.json", "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":-1}}}"}}) ==
        "json_type");
  CHECK(load_code({{"tokenizer.json",
                    "{\"model\":{\"type\":\"WordPiece\",\"vocab\":{\"a\":0}},\"pre_tokenizer\":{"
                    "\"type\":\"BertPreTokenizer\"}}"}}) == "hf_tokenizer_invalid");  // no [UNK]
  // vocab.txt without [CLS] / [SEP], or not UTF-8
  CHECK(load_message({{"vocab.txt", "[UNK]\na\n"}}).rfind("vocab.txt has no \"[CLS]\"", 0) == 0);
  CHECK(load_message({{"vocab.txt", "[UNK]\n\xFF\n"}}) == "vocab.txt line 2 is not valid UTF-8");
  CHECK(load_message({{"vocab.txt", "[UNK]\n[CLS]\n[SEP]\n"},
                      {"tokenizer_config.json", "{\"do_lower_case\": 1}"}})
            .rfind("tokenizer_config.json", 0) == 0);
}

TEST_CASE("hf_tokenizer: limits on file size, vocabulary, merges and line length") {
  const std::string big(ap::hf::kMaxTokenizerFileBytes + 1, ' ');
  CHECK(load_code({{"tokenizer.json", big}}) == "hf_file_too_large");
  CHECK(load_code({{"vocab.txt", big}}) == "hf_file_too_large");
  std::string many;
  for (std::size_t i = 0; i <= ap::hf::kMaxVocabSize; ++i) many += "t\n";
  CHECK(load_message({{"vocab.txt", many}}).rfind("vocab.txt has 300001 lines", 0) == 0);
  const std::string long_line(ap::hf::kMaxTokenBytes + 1, 'a');
  CHECK(load_code({{"vocab.txt", "[UNK]\n" + long_line + "\n"}}) == "hf_tokenizer_invalid");
  CHECK(load_code({{"tokenizer.json",
                    "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":300000}}}"}}) == "json_type");
  std::string merges = "#version: 0.2\n";
  for (std::size_t i = 0; i <= ap::hf::kMaxMerges; ++i) merges += "a a\n";
  const std::string v = kBpe.vocab_json();
  CHECK(load_message({{"vocab.json", v}, {"merges.txt", merges}})
            .find("more than 300000 merge rules") != std::string::npos);
}

TEST_CASE("unicode_data: tables agree with the core's own character classes where both speak") {
  // utf8.hpp's white space list is Unicode's White_Space: the generated table must say the same
  for (char32_t c = 0; c < 0x3100; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    CAPTURE(static_cast<unsigned>(c));
    CHECK(ap::unicode::in_white_space(c) == ap::is_space(c));
  }
  // GPT-2's \s is White_Space as Oniguruma reads it: U+0085 in, U+FEFF out
  CHECK(ap::unicode::in_white_space(0x85));
  CHECK_FALSE(ap::unicode::in_white_space(0xFEFF));
  // a decomposition is canonical: the letter and its marks (Hangul is algorithmic, not in it)
  std::u32string d;
  CHECK(ap::unicode::decompose(0xE9, d));
  CHECK(d.size() == 2);
  CHECK(ap::unicode::in_nonspacing(d[1]));
  CHECK(ap::unicode::combining_class(d[1]) > 0);
  d.clear();
  CHECK_FALSE(ap::unicode::decompose(0xAC00, d));
  CHECK(ap::unicode::to_lower('A') == 'a');
  CHECK(ap::unicode::to_lower('a') == 'a');
}
