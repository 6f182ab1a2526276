// test_model_file.cpp: the .apm format (round trip; the int8 rows against NumPy's,
// tests/fixtures/quantize_v1.json from scripts/gen_fixtures; version 3 files; corrupt, truncated,
// wrong-magic, wrong-version files), the vocabulary and its unknown-word fallback,
// trace_text_with_model (inference.hpp), and the committed default model: its dev accuracy and the
// example sentences. The hand-written test set's numbers are checked by model/eval --check (CTest
// "eval"). Not the trainer's mechanics (test_trainer.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "default_model.hpp"
#include "error.hpp"
#include "evaluation.hpp"
#include "inference.hpp"
#include "lexicon.hpp"
#include "model_file.hpp"
#include "rng.hpp"
#include "test_util.hpp"
#include "trainer.hpp"

using ap::Matrix;

namespace {

using ap_test::read_file;

std::string code_of(const std::string& bytes) {
  try {
    ap::load_model(bytes);
  } catch (const ap::Error& e) {
    return e.code();
  }
  return "";
}

Matrix normal(int rows, int cols, std::uint64_t seed) {
  ap::Rng rng(seed);
  Matrix m(rows, cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) m(r, c) = static_cast<float>(rng.normal());
  return m;
}

// A small model by hand: 3 words + 2 unknown buckets + <sym>, d_model 4, 2 heads of d_k 3, d_ff 5,
// 2 layers, every parameter drawn at random (no gain exactly 1, no bias exactly 0).
ap::TrainedModel tiny_model() {
  ap::TrainedModel m;
  m.vocab = ap::Vocabulary({"cat", "它", "，"}, 2);
  m.E = normal(m.vocab.size(), 4, 1);
  m.net = ap::init_network(4, 2, 3, 5, 2, 2);
  std::uint64_t seed = 10;
  for (auto& p : ap::parameters(m.net))
    *p.second =
        normal(static_cast<int>(p.second->rows()), static_cast<int>(p.second->cols()), seed++);
  m.notes = {{"coreference", {{"pronoun", 0.9f}, {"verb", 0.1f}}},
             {"mixed", {}},
             {"previous_token", {{"previous", 0.75f}}},
             {"self", {{"self", 0.5f}}}};
  m.info = {{"seed", "7"}, {"note", "tiny"}};
  return m;
}

// ----- the committed default model -----

const std::string kDataDir = AP_DATA_DIR;

const ap::TrainedModel& default_model() {
  static const ap::TrainedModel m = ap::load_model_file(kDataDir + "/models/default.apm");
  return m;
}

int find_token(const ap::TextTrace& t, const std::string& text) {
  for (std::size_t i = 0; i < t.tokens.size(); ++i)
    if (t.tokens[i].text == text) return static_cast<int>(i);
  FAIL("token " << text << " not found");
  return -1;
}

// How many heads (of every layer) give query's largest weight to target; and the model's own guess
// for query.
struct Look {
  int heads_on_target = 0;
  std::vector<float> weight;  // per head: weight from query to target
  std::string guess;
};
Look look(const std::string& text, const std::string& query, const std::string& target) {
  const ap::TextTrace t = ap::trace_text_with_model(text, ap::Settings{}, default_model());
  const int q = find_token(t, query), k = find_token(t, target);
  Look out;
  for (const ap::LayerTrace& L : t.network.layers)
    for (const ap::HeadTrace& h : L.attn.head) {
      Eigen::Index best = 0;
      h.weights.row(q).maxCoeff(&best);
      out.heads_on_target += best == k;
      out.weight.push_back(h.weights(q, k));
    }
  const std::vector<ap::TokenGuess> g = ap::guess_words(t, default_model());
  out.guess = default_model().vocab.word(g[static_cast<std::size_t>(q)].word);
  return out;
}

}  // namespace

TEST_CASE("save_model / load_model: a round trip keeps every number and string") {
  const ap::TrainedModel m = tiny_model();
  const std::string bytes = ap::save_model(m);
  CHECK(bytes.compare(0, 8, std::string("APMODEL\0", 8)) == 0);
  const ap::TrainedModel r = ap::load_model(bytes);
  CHECK(r.net.d_model == 4);
  CHECK(r.net.heads == 2);
  CHECK(r.net.d_k == 3);
  CHECK(r.net.d_ff == 5);
  CHECK(r.net.depth() == 2);
  CHECK(r.vocab.words() == m.vocab.words());
  CHECK(r.vocab.unknown_buckets() == 2);
  // matrices are stored as int8 rows: a round trip is exactly round_to_int8
  CHECK(r.E == ap::round_to_int8(m.E));
  const auto want = ap::parameters(m.net), got = ap::parameters(r.net);
  REQUIRE(want.size() == got.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    CAPTURE(want[k].first);
    CHECK(got[k].first == want[k].first);
    CHECK(*got[k].second == ap::round_to_int8(*want[k].second));
  }
  REQUIRE(r.notes.size() == 4);
  CHECK(r.note(0, 0).role == "coreference");
  CHECK(r.note(0, 0).number("pronoun") == 0.9f);
  CHECK(r.note(0, 1).numbers.empty());
  CHECK(r.note(1, 0).number("previous") == 0.75f);
  CHECK(r.note(1, 1).role == "self");
  CHECK(r.info == m.info);
  CHECK(r.info_value("seed") == "7");
  CHECK(r.info_value("missing") == "");
  CHECK(ap::save_model(r) == bytes);
}

TEST_CASE("int8 rows: the scales and values NumPy computes (tests/fixtures/quantize_v1.json)") {
  const nlohmann::json doc =
      nlohmann::json::parse(read_file(std::string(AP_FIXTURES_DIR) + "/quantize_v1.json"));
  REQUIRE(doc.at("format_version") == 1);
  REQUIRE(doc.at("cases").size() >= 5);
  for (const nlohmann::json& c : doc.at("cases")) {
    CAPTURE(c.at("name").get<std::string>());
    const int rows = c.at("rows"), cols = c.at("cols");
    Matrix m(rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int k = 0; k < cols; ++k)
        m(r, k) = static_cast<float>(
            std::strtod(c.at("values")[r][k].get<std::string>().c_str(), nullptr));
    const ap::Int8Rows q = ap::quantize_rows(m);
    const Matrix back = ap::round_to_int8(m);
    REQUIRE(q.scale.size() == static_cast<std::size_t>(rows));
    for (int r = 0; r < rows; ++r) {
      CHECK(q.scale[static_cast<std::size_t>(r)] == c.at("scale_bits")[r].get<int>());
      for (int k = 0; k < cols; ++k) {
        CHECK(q.q[static_cast<std::size_t>(r * cols + k)] == c.at("q")[r][k].get<int>());
        CHECK(back(r, k) == ap::half_to_float(q.scale[static_cast<std::size_t>(r)]) *
                                static_cast<float>(c.at("q")[r][k].get<int>()));
      }
    }
  }
}

TEST_CASE("int8 rows: error at most half a step, |q| <= 127, the smallest scale, stable") {
  for (float magnitude : {1e-6f, 1e-3f, 0.05f, 1.0f, 40.0f, 3e4f}) {
    CAPTURE(magnitude);
    const Matrix m = normal(7, 33, 3) * magnitude;
    const ap::Int8Rows q = ap::quantize_rows(m);
    const Matrix back = ap::round_to_int8(m);
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
      const std::uint16_t h = q.scale[static_cast<std::size_t>(r)];
      const float s = ap::half_to_float(h), amax = m.row(r).cwiseAbs().maxCoeff();
      CHECK(h >= 0x0400u);  // 2^-14, the smallest scale
      CHECK(s * 127.0f >= amax);
      if (h > 0x0400u) CHECK(ap::half_to_float(static_cast<std::uint16_t>(h - 1)) * 127.0f < amax);
      // half a step, and float32's rounding of m / s (at most 127 x 2^-24 of a step)
      CHECK((m.row(r) - back.row(r)).cwiseAbs().maxCoeff() <= s * (0.5f + 1e-5f));
      for (Eigen::Index c = 0; c < m.cols(); ++c)
        CHECK(std::abs(q.q[static_cast<std::size_t>(r * m.cols() + c)]) <= 127);
    }
    // quantizing what a reader gets changes nothing: saving a loaded model keeps its weights
    CHECK(ap::round_to_int8(back) == back);
  }
  // a zero row: the smallest scale and zeros
  const ap::Int8Rows z = ap::quantize_rows(Matrix::Zero(1, 3));
  CHECK(z.scale == std::vector<std::uint16_t>{0x0400u});
  CHECK(z.q == std::vector<std::int8_t>{0, 0, 0});
  // beyond 65504 x 127 no half scale fits: refused when saving
  ap::TrainedModel t = tiny_model();
  t.E(0, 0) = 1e7f;
  CHECK_THROWS_WITH_AS(ap::save_model(t), doctest::Contains("beyond"), ap::Error);
}

TEST_CASE("load_model: version 3 files (halves) still load") {
  const ap::TrainedModel m = tiny_model();
  const std::string v3 = ap::save_model(m, 3);
  CHECK(v3.size() > ap::save_model(m).size());  // two bytes a weight against one and a scale
  const ap::TrainedModel r = ap::load_model(v3);
  CHECK(r.E == ap::round_to_half(m.E));
  const auto want = ap::parameters(m.net), got = ap::parameters(r.net);
  REQUIRE(want.size() == got.size());
  for (std::size_t k = 0; k < want.size(); ++k)
    CHECK(*got[k].second == ap::round_to_half(*want[k].second));
  CHECK(r.info == m.info);
  CHECK(r.vocab.words() == m.vocab.words());
  CHECK(r.note(1, 0).number("previous") == 0.75f);
  // saved again, it is a version 4 file of the same weights, rounded to int8 rows
  const ap::TrainedModel v4 = ap::load_model(ap::save_model(r));
  CHECK(v4.E == ap::round_to_int8(r.E));
  CHECK(ap::save_model(r, 3) == v3);
  CHECK_THROWS_AS(ap::save_model(m, 2), ap::Error);
  SUBCASE("cut anywhere or changed anywhere, a version 3 file is refused too") {
    for (std::size_t len = 8; len < v3.size(); ++len)
      CHECK(code_of(v3.substr(0, len)) == "model_truncated");
    for (std::size_t i = 0; i < v3.size(); ++i) {
      std::string b = v3;
      b[i] = static_cast<char>(b[i] ^ 0x40);
      CAPTURE(i);
      CHECK(code_of(b) != "");
    }
    ap::TrainedModel nan = tiny_model();
    nan.net.layers[1].W_2(1, 1) = std::numeric_limits<float>::quiet_NaN();
    CHECK(code_of(ap::save_model(nan, 3)) == "model_invalid");
  }
}

TEST_CASE("float16 conversion: exact values, rounding to nearest even, subnormals, overflow") {
  // values a half holds exactly come back unchanged
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 0.099975586f, 65504.0f, 6.1035156e-05f, 5.9604645e-08f})
    CHECK(ap::half_to_float(ap::float_to_half(f)) == f);
  CHECK(ap::float_to_half(1.0f) == 0x3C00u);
  CHECK(ap::float_to_half(-2.0f) == 0xC000u);
  CHECK(ap::float_to_half(65504.0f) == 0x7BFFu);
  CHECK(ap::float_to_half(1e6f) == 0x7C00u);   // overflow: infinity
  CHECK(ap::float_to_half(1e-9f) == 0x0000u);  // underflow: zero
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1.0)
  CHECK(ap::float_to_half(1.0f + 0.00048828125f) == 0x3C00u);
  CHECK(ap::float_to_half(1.0f + 3 * 0.00048828125f) == 0x3C02u);
  // relative error of a normal value is at most 2^-11
  for (float f : {0.1f, -0.3333f, 3.14159f, 123.456f, -0.0123f}) {
    const float r = ap::half_to_float(ap::float_to_half(f));
    CHECK(std::fabs(r - f) <= std::fabs(f) * 0.00049f);
  }
}

TEST_CASE("load_model: corrupt, truncated, wrong-magic and wrong-version files are ap::Errors") {
  const std::string good = ap::save_model(tiny_model());
  SUBCASE("empty and a prefix of the magic number are truncated files") {
    CHECK(code_of("") == "model_truncated");
    CHECK(code_of("APMOD") == "model_truncated");
  }
  SUBCASE("something else entirely") {
    CHECK(code_of("hello, this is not a model") == "model_bad_magic");
    CHECK(code_of("\x89PNG\r\n\x1a\n0000000000000") == "model_bad_magic");
    std::string m = good;
    m[0] = 'X';
    CHECK(code_of(m) == "model_bad_magic");
  }
  SUBCASE("another format version") {
    for (std::uint32_t v : {0u, 1u, 2u, 5u, 1000u}) {
      std::string m = good;
      for (int k = 0; k < 4; ++k) m[8 + k] = static_cast<char>((v >> (8 * k)) & 0xFF);
      CHECK(code_of(m) == "model_bad_version");
      try {
        ap::load_model(m);
      } catch (const ap::Error& e) {
        CHECK(std::string(e.what()).find("version " + std::to_string(v)) != std::string::npos);
      }
    }
  }
  SUBCASE("cut anywhere: truncated") {
    for (std::size_t len = 8; len < good.size(); ++len) {
      CAPTURE(len);
      CHECK(code_of(good.substr(0, len)) == "model_truncated");
    }
  }
  SUBCASE("one changed byte anywhere is caught; in the numbers it is the checksum") {
    for (std::size_t i = 0; i < good.size(); ++i) {
      std::string m = good;
      m[i] = static_cast<char>(m[i] ^ 0x40);
      CAPTURE(i);
      CHECK(code_of(m) != "");
    }
    std::string m = good;
    m[good.size() - 10] = static_cast<char>(m[good.size() - 10] ^ 0x01);  // norm_out.bias's scale
    CHECK(code_of(m) == "model_corrupt");
    std::string v = good;
    v[good.size() - 5] = static_cast<char>(v[good.size() - 5] ^ 0x01);  // its last int8 value
    CHECK(code_of(v) == "model_corrupt");
  }
  SUBCASE("bytes after the end") { CHECK(code_of(good + "x") == "model_corrupt"); }
  SUBCASE("impossible sizes") {
    std::string m = good;
    m[12] = 0;  // d_model = 0
    m[13] = m[14] = m[15] = 0;
    CHECK(code_of(m) == "model_invalid");
    std::string v = good;
    for (int k = 0; k < 4; ++k) v[32 + k] = static_cast<char>(0xFF);  // vocab_size = 2^32 - 1
    CHECK(code_of(v) == "model_invalid");
    std::string l = good;
    l[28] = 0;  // layers = 0
    CHECK(code_of(l) == "model_invalid");
  }
  SUBCASE("NaN in the weights, even with a valid checksum") {
    ap::TrainedModel t = tiny_model();
    t.net.layers[1].W_2(1, 1) = std::numeric_limits<float>::quiet_NaN();
    CHECK(code_of(ap::save_model(t)) == "model_invalid");
    t = tiny_model();
    t.E(2, 0) = std::numeric_limits<float>::infinity();
    CHECK(code_of(ap::save_model(t)) == "model_invalid");
  }
  SUBCASE("a scale or int8 value the writer never writes, even with a valid checksum") {
    // the last matrix (norm_out.bias, 1 x 4): its scale, then its 4 values, then the checksum
    const auto resealed = [&](std::size_t at, std::initializer_list<unsigned char> bytes) {
      std::string m = good;
      for (unsigned char b : bytes) m[at++] = static_cast<char>(b);
      const std::uint32_t crc = ap::crc32(std::string_view(m).substr(0, m.size() - 4));
      for (int k = 0; k < 4; ++k) m[m.size() - 4 + k] = static_cast<char>((crc >> (8 * k)) & 0xFF);
      return m;
    };
    CHECK(code_of(resealed(good.size() - 10, {})) == "");  // resealing alone changes nothing
    CHECK(code_of(resealed(good.size() - 5, {0x80})) == "model_invalid");         // q = -128
    CHECK(code_of(resealed(good.size() - 10, {0x01, 0x00})) == "model_invalid");  // below 2^-14
    CHECK(code_of(resealed(good.size() - 10, {0x00, 0xBC})) == "model_invalid");  // -1
    CHECK(code_of(resealed(good.size() - 10, {0x00, 0x7C})) == "model_invalid");  // infinity
  }
  SUBCASE("a missing file") {
    CHECK_THROWS_WITH_AS(ap::load_model_file("/nonexistent/model.apm"),
                         doctest::Contains("cannot open"), ap::Error);
  }
}

TEST_CASE("save_model refuses a model whose shapes disagree") {
  ap::TrainedModel m = tiny_model();
  m.notes.pop_back();
  CHECK_THROWS_AS(ap::save_model(m), ap::Error);
  m = tiny_model();
  m.E.resize(2, 4);
  CHECK_THROWS_AS(ap::save_model(m), ap::Error);
}

TEST_CASE("crc32 is the IEEE / zlib checksum") {
  CHECK(ap::crc32("") == 0u);
  CHECK(ap::crc32("123456789") == 0xCBF43926u);
}

TEST_CASE("Vocabulary: lookup, English case, and the documented fallback for unknown words") {
  const ap::Vocabulary v({"cat", "它", "，"}, 4);
  CHECK(v.size() == 3 + 4 + 1);
  CHECK(v.word(3) == "<unk:0>");
  CHECK(v.word(7) == "<sym>");
  const std::vector<ap::Token> t = ap::tokenize("Cat 它 龘 Zork 42 🐟 ，", ap::Lexicon{});
  REQUIRE(t.size() == 7);
  CHECK(v.id(t[0]) == 0);  // English is looked up lower-cased
  CHECK(v.id(t[1]) == 1);
  CHECK(v.id(t[6]) == 2);
  CHECK(v.knows(t[0]));
  CHECK_FALSE(v.knows(t[2]));
  // unknown words and characters: one of the hashed <unk:k> rows, always the same one
  for (int i : {2, 3}) {
    const int id = v.id(t[static_cast<std::size_t>(i)]);
    CHECK(v.is_fallback(id));
    CHECK(id == v.bucket(static_cast<int>(
                    ap::hash_text(ap::Vocabulary::key(t[static_cast<std::size_t>(i)])) % 4)));
  }
  CHECK(ap::Vocabulary::key(t[3]) == "zork");
  // numbers and emoji: <sym>
  CHECK(v.id(t[4]) == v.symbol_row());
  CHECK(v.id(t[5]) == v.symbol_row());
  CHECK_THROWS_AS(ap::Vocabulary({"a", "a"}, 2), ap::Error);
  CHECK_THROWS_AS(ap::Vocabulary({"a"}, 0), ap::Error);
}

TEST_CASE(
    "Vocabulary::pieces: an unknown English word is read through words that carry its meaning") {
  const ap::Vocabulary v({"cookie", "bed", "room", "stop", "chase", "ben", "fly", "cat", "小猫"},
                         2);
  const auto pieces = [&](const char* text) {
    std::vector<std::string> out;
    for (int id : v.pieces(ap::tokenize(text, ap::Lexicon{}).front())) out.push_back(v.word(id));
    return out;
  };
  using W = std::vector<std::string>;
  CHECK(pieces("cookies") == W{"cookie"});       // plural
  CHECK(pieces("Ben's") == W{"ben"});            // possessive, case folded
  CHECK(pieces("stopped") == W{"stop"});         // doubled consonant
  CHECK(pieces("chased") == W{"chase"});         // -d after e
  CHECK(pieces("flies") == W{"fly"});            // -ies -> -y
  CHECK(pieces("bedroom") == W{"bed", "room"});  // a compound, in order
  CHECK(pieces("cat").empty());                  // known: its own row
  CHECK(pieces("zork").empty());                 // nothing fits: the hashed row
  CHECK(pieces("catbed").size() == 2);
  CHECK(pieces("cats") == W{"cat"});
  CHECK(pieces("龘").empty());  // one Chinese character has no smaller piece
  CHECK(pieces("42").empty());
}

TEST_CASE("Vocabulary::from_lexicon_tsv keeps file order, skips comments and duplicates") {
  const ap::Vocabulary v = ap::Vocabulary::from_lexicon_tsv(
      "# header\n小猫\tzh\tanimal\r\n\nit\ten\tpronoun\n小猫\tzh\tanimal\n", 2);
  REQUIRE(v.size() == 2 + 3);
  CHECK(v.word(0) == "小猫");
  CHECK(v.word(1) == "it");
}

TEST_CASE("Vocabulary: a read-as word has no row and uses its target's") {
  const std::string tsv =
      "兔子\tzh\tanimal\nshark\ten\tanimal\tanimal\nanimal\ten\tanimal\n"
      "小白兔\tzh\tanimal\t兔子\nghost\ten\tperson\tnobody\n";
  const ap::Vocabulary v = ap::Vocabulary::from_lexicon_tsv(tsv, 2);
  REQUIRE(v.size() == 2 + 3);  // 兔子, animal and the fallback rows: no row for a read-as word
  CHECK(v.word(1) == "animal");
  CHECK(v.read_as_count() == 2);  // ghost's target is no vocabulary word: it stays unknown
  const ap::Lexicon lex = ap::Lexicon::from_tsv(tsv);
  REQUIRE(lex.find("小白兔") != nullptr);
  CHECK(lex.find("小白兔")->read_as == "兔子");
  CHECK(lex.find("小白兔")->category == "animal");
  CHECK(lex.find("兔子")->read_as.empty());
  const std::vector<ap::Token> t = ap::tokenize("小白兔 shark Sharks ghost", lex);
  REQUIRE(t.size() == 4);
  CHECK(t[0].text == "小白兔");  // one token: segmentation knows the word
  CHECK(v.id(t[0]) == v.find("兔子"));
  CHECK(v.pieces(t[0]) == std::vector<int>{v.find("兔子")});
  CHECK_FALSE(v.knows(t[0]));  // marked as not in the vocabulary on the page
  CHECK(v.id(t[1]) == v.find("animal"));
  CHECK(v.pieces(t[2]) == std::vector<int>{v.find("animal")});  // sharks -> shark -> animal
  CHECK(v.is_fallback(v.id(t[3])));
  CHECK(v.pieces(t[3]).empty());
  ap::Vocabulary saved = ap::Vocabulary::from_saved(v.words(), 2);  // as a model file stores it
  CHECK(saved.read_as_count() == 0);
  saved.add_read_as(lex);
  CHECK(saved.id(t[0]) == v.find("兔子"));
}

TEST_CASE("the built-in lexicon: every read-as target is a row of the shipped model") {
  const ap::TrainedModel& m = ap::default_model();
  int read_as = 0;
  for (const auto& [word, e] : ap::default_lexicon().entries()) {
    if (e.read_as.empty()) continue;
    ++read_as;
    CAPTURE(word);
    CHECK(m.vocab.find(word) < 0);
    CHECK(m.vocab.read_as(word) == m.vocab.find(e.read_as));
    REQUIRE(m.vocab.find(e.read_as) >= 0);
    CHECK(ap::default_lexicon().find(e.read_as)->category == e.category);
  }
  CHECK(read_as == m.vocab.read_as_count());
  CHECK(read_as > 1000);
}

TEST_CASE("trace_text_with_model: the model's shape and weights; the learner's switches") {
  const ap::TrainedModel m = tiny_model();
  ap::Settings s;
  s.d_model = 64;  // ignored: the model decides
  s.heads = 8;
  s.seed = 999;  // ignored: no random weights
  const ap::TextTrace t = ap::trace_text_with_model("cat 它 dog", s, m);
  CHECK(t.settings.d_model == 4);
  CHECK(t.settings.heads == 2);
  CHECK(t.settings.d_k == 3);
  REQUIRE(t.tokens.size() == 3);
  CHECK(t.tokens[0].known);
  CHECK_FALSE(t.tokens[2].known);  // "dog" is not in this model's vocabulary
  const std::vector<int> ids = ap::token_ids(t.tokens, m.vocab);
  Matrix X(3, 4);
  for (int i = 0; i < 3; ++i) X.row(i) = m.E.row(ids[static_cast<std::size_t>(i)]);
  X += ap::positional_encoding(3, 4);
  CHECK(t.network.layers[0].input == X);
  CHECK(t.embeddings.row(1) == m.E.row(1));
  CHECK(t.positions == ap::positional_encoding(3, 4));
  ap::AttentionOptions opt;
  opt.heads = 2;
  const ap::NetworkTrace want = ap::network_forward(m.net, X, opt);
  REQUIRE(t.network.layers.size() == 2);
  CHECK(t.network.norm_out.y == want.norm_out.y);
  // the top-level trace is the last layer's attention
  CHECK(t.trace.X == want.layers[1].attn.X);
  CHECK(t.trace.head[1].weights == want.layers[1].attn.head[1].weights);
  CHECK(t.trace.output == want.layers[1].attn.output);
  SUBCASE("causal, temperature and positions stay the learner's") {
    ap::Settings c;
    c.causal = true;
    c.temperature = 0.5f;
    c.positions = false;
    const ap::TextTrace tc = ap::trace_text_with_model("cat 它 dog", c, m);
    for (const ap::LayerTrace& L : tc.network.layers) CHECK(L.attn.head[0].weights(0, 2) == 0.0f);
    CHECK(tc.trace.options.temperature == 0.5f);
    CHECK(tc.network.layers[0].input.row(0) == m.E.row(0));
    CHECK(tc.positions.size() == 0);
  }
  SUBCASE("bad settings are still errors") {
    ap::Settings bad;
    bad.temperature = 0.0f;
    CHECK_THROWS_AS(ap::trace_text_with_model("cat", bad, m), ap::Error);
  }
  SUBCASE("tie_qk ties W_K to W_Q in every layer") {
    ap::Settings c;
    c.tie_qk = true;
    const ap::TextTrace tt = ap::trace_text_with_model("cat 它 dog", c, m);
    for (const ap::LayerTrace& L : tt.network.layers)
      CHECK(L.attn.head[0].scores == L.attn.head[0].scores.transpose());
  }
  const std::vector<ap::TokenGuess> g = ap::guess_words(t, m);
  REQUIRE(g.size() == 3);
  for (const ap::TokenGuess& x : g) {
    CHECK(x.probability > 0.0f);
    CHECK(x.probability <= 1.0f);
  }
}

// ------------------------------------------------------------------------------------------------
// The committed default model (src/data/models/default.apm, made by model/train)

TEST_CASE("default model: within budget, layered, roles as data") {
  const std::string bytes = read_file(kDataDir + "/models/default.apm");
  CHECK(bytes.size() <= 250u * 1024u);
  const ap::TrainedModel& m = default_model();
  CHECK(m.net.depth() >= 2);
  CHECK(m.net.heads >= 2);
  REQUIRE(m.notes.size() == static_cast<std::size_t>(m.net.depth() * m.net.heads));
  const std::set<std::string> roles = {"coreference", "verb_argument", "previous_token", "self",
                                       "mixed"};
  std::set<std::string> seen;
  for (const ap::HeadNote& n : m.notes) {
    CHECK(roles.count(n.role) == 1);
    seen.insert(n.role);
    CHECK_FALSE(std::isnan(n.number("dev_pronoun")));
    CHECK_FALSE(std::isnan(n.number("pronoun")));  // measured on the hand-written set
  }
  CHECK(seen.size() >= 2);  // the heads do different things
  CHECK(m.info_value("storage") == "int8 rows, a float16 scale each (format 4)");
  CHECK_FALSE(m.info_value("dev_accuracy").empty());
  CHECK_FALSE(m.info_value("eval_pronoun_any_head").empty());
}

TEST_CASE("default model: accuracy on the generated dev split reproduces its info") {
  const ap::TrainedModel& m = default_model();
  const std::vector<ap::Example> test = ap::prepare_examples(
      ap::parse_corpus(read_file(kDataDir + "/corpus/test.tsv")), m.vocab, ap::default_lexicon());
  const ap::Evaluation ev = ap::evaluate(m, test);
  MESSAGE("dev accuracy " << ev.accuracy() << " (" << ev.correct << "/" << ev.targets
                          << "), pronouns " << ev.pronoun_accuracy() << ", verbs "
                          << ev.verb_accuracy() << ", loss " << ev.loss);
  CHECK(ev.targets > 2000);
  // the file's numbers were measured on the weights as stored (4 decimals)
  CHECK(std::fabs(ev.accuracy() - std::stod(m.info_value("dev_accuracy"))) <= 0.00005);
  CHECK(std::fabs(ev.pronoun_accuracy() - std::stod(m.info_value("dev_pronoun_accuracy"))) <=
        0.00005);
}

TEST_CASE("default model: 它 looks at 小猫, it looks at animal") {
  const Look zh = look("小猫吃鱼，它很开心", "它", "小猫");
  MESSAGE("它 -> 小猫 per head: " << zh.weight[0] << ", " << zh.weight[1]);
  CHECK(zh.heads_on_target >= 1);
  CHECK(zh.guess == "小猫");
  const Look en =
      look("The animal didn't cross the street because it was too tired", "it", "animal");
  MESSAGE("it -> animal per head: " << en.weight[0] << ", " << en.weight[1]);
  CHECK(en.heads_on_target >= 1);
  CHECK(en.guess == "animal");
  // and the verbs of the example sentences look at their objects
  CHECK(look("小猫吃鱼，它很开心", "吃", "鱼").heads_on_target >= 1);
  CHECK(look("我爱你", "爱", "你").heads_on_target >= 1);
}

TEST_CASE("default model: unseen sentences built from the lexicon") {
  struct Case {
    const char* text;
    const char* query;
    const char* target;
  };
  // None of these is in the corpus (checked below); they mix templates the model never saw.
  const Case cases[] = {
      {"小狗吃苹果，它很高兴", "它", "小狗"},
      {"老师看见了小狗，他很开心", "他", "老师"},
      {"妈妈给了小猫一条鱼，因为她很善良", "她", "妈妈"},
      {"小明喜欢他的自行车，因为它很新", "它", "自行车"},
      {"哥哥和小狗去了公园，他很累", "他", "哥哥"},
      {"Mary gave the cat a fish because she was kind", "she", "Mary"},
      {"The dog chased the ball because it was bored", "it", "dog"},
      {"Tom saw the dog and he smiled", "he", "Tom"},
      {"The girl loves her cat because it is cute", "it", "cat"},
      {"My sister bought a new phone and she likes it", "she", "sister"},
      {"The children saw a monkey and they laughed", "they", "children"},
      {"The teacher read the book because it was interesting", "it", "book"},
      {"Tom saw the dog and he smiled", "saw", "dog"},
      {"小狗吃苹果，它很高兴", "吃", "苹果"},
  };
  const std::string corpus =
      read_file(kDataDir + "/corpus/train.tsv") + read_file(kDataDir + "/corpus/test.tsv");
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(corpus.find(c.text) == std::string::npos);
    const Look l = look(c.text, c.query, c.target);
    CHECK(l.heads_on_target >= 1);
    CHECK(l.guess == ap::Vocabulary::key(ap::tokenize(c.target).front()));
  }
}

TEST_CASE("default model: unknown words fall back and are marked") {
  const ap::TextTrace t = ap::trace_text_with_model("Zork ate the apple and he was happy 🍎",
                                                    ap::Settings{}, default_model());
  REQUIRE(t.tokens.size() == 9);
  CHECK_FALSE(t.tokens[0].known);
  CHECK(t.tokens[3].known);
  CHECK_FALSE(t.tokens[8].known);
  CHECK(t.tokens[0].read_as.empty());  // nothing fits: the hashed row
  // the unknown name is still the best place for "he" to look
  Look l = look("Zork ate the apple and he was happy", "he", "Zork");
  CHECK(l.heads_on_target >= 1);
  // an inflected word is read through its stem: the same embedding row, and read_as says so
  const ap::TextTrace c =
      ap::trace_text_with_model("The boy ate the apples", ap::Settings{}, default_model());
  const ap::TrainedModel& m = default_model();
  CHECK_FALSE(c.tokens[4].known);
  CHECK(c.tokens[4].read_as == std::vector<std::string>{"apple"});
  CHECK(c.embeddings.row(4) == m.E.row(m.vocab.find("apple")));
}

TEST_CASE(
    "default model: the heads have different jobs, and the example sentence does not collapse") {
  const ap::TrainedModel& m = default_model();
  const int L = m.net.depth(), H = m.net.heads;
  const auto note = [&](int l, int h) -> const ap::HeadNote& {
    return m.notes[static_cast<std::size_t>(l * H + h)];
  };
  // one coreference head and one verb-argument head in the last layer, each poor at the other job
  int coref = -1, verb = -1;
  for (int h = 0; h < H; ++h) {
    if (note(L - 1, h).role == "coreference") coref = h;
    if (note(L - 1, h).role == "verb_argument") verb = h;
  }
  REQUIRE(coref >= 0);
  REQUIRE(verb >= 0);
  CHECK(note(L - 1, coref).number("dev_verb") < 0.2f);
  CHECK(note(L - 1, verb).number("dev_pronoun") < 0.2f);
  CHECK(note(0, 0).role == "previous_token");
  // on 小猫吃鱼，它很开心 no head sends every row to one token
  const ap::TextTrace t =
      ap::trace_text_with_model("小猫吃鱼，它很开心", ap::Settings{}, default_model());
  for (const ap::LayerTrace& layer : t.network.layers)
    for (const ap::HeadTrace& h : layer.attn.head) {
      std::set<Eigen::Index> tops;
      for (Eigen::Index i = 0; i < h.weights.rows(); ++i) {
        Eigen::Index j = 0;
        h.weights.row(i).maxCoeff(&j);
        tops.insert(j);
      }
      CHECK(tops.size() >= 3);
    }
}

TEST_CASE("load_model: strings that are not UTF-8 are model_invalid at load time") {
  // CRC-valid files: the writer does not check, the reader must
  for (const char* bad : {"k\xff", "\xc0\xaf", "\xed\xa0\x80", "ok\xe4\xbd"}) {
    CAPTURE(bad);
    ap::TrainedModel key = tiny_model();
    key.info = {{bad, "v"}};
    CHECK(code_of(ap::save_model(key)) == "model_invalid");
    ap::TrainedModel note = tiny_model();
    note.notes[1].role = bad;
    CHECK(code_of(ap::save_model(note)) == "model_invalid");
    ap::TrainedModel word = tiny_model();
    word.vocab = ap::Vocabulary({"cat", bad, "，"}, 2);
    CHECK(code_of(ap::save_model(word)) == "model_invalid");
  }
}

TEST_CASE("load_model: a header claiming more parameters than the file holds is refused first") {
  // scripts/gen_crafted_models.py: about 3 KB (v4) and 5 KB (v3) whose header claims about 100
  // million parameters; the reader must refuse them from the header's shape, before it reads the
  // vocabulary or makes E or the network (the module's budget test and the CLI test measure the
  // memory this costs)
  const std::string dir = std::string(AP_FUZZ_CORPUS_DIR) + "/model_file/";
  for (const char* name :
       {"regress-header-claims-100m-parameters-v4", "regress-header-claims-100m-parameters-v3"}) {
    CAPTURE(name);
    const std::string bytes = read_file(dir + name);
    CHECK(bytes.size() < 8 * 1024);
    CHECK_THROWS_WITH_AS(ap::load_model(bytes),
                         doctest::Contains("while reading the model's parameters"), ap::Error);
    CHECK(code_of(bytes) == "model_truncated");
  }
  // the fuzzer's starting file is a good model
  CHECK(code_of(read_file(dir + "small-v4")) == "");
}

TEST_CASE("load_model: sizes beyond the limits are refused before reading or allocating") {
  CHECK(code_of(std::string(ap::kMaxModelBytes + 1, 'A')) == "model_too_large");
  // heads x d_k over kMaxHeadWidth: load_model checks the shape it reads with the same rule
  CHECK(ap_test::code_of([] { ap::check_network_shape(4, 2, ap::kMaxHeadWidth / 2 + 1, 5, 1); }) ==
        "model_invalid");
  CHECK(ap_test::code_of([] { ap::init_network(4, 2, ap::kMaxHeadWidth / 2 + 1, 5, 1, 2); }) ==
        "model_invalid");
  CHECK_NOTHROW(ap::check_network_shape(4, 2, ap::kMaxHeadWidth / 2, 5, 1));
  // a huge file (sparse, so it costs no disk) is refused after reading at most the cap
  const std::string path = "/tmp/ap_test_huge_model.apm";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    REQUIRE(f.good());
    f.seekp(static_cast<std::streamoff>(1) << 31);
    f.put('\0');
  }
  CHECK_THROWS_WITH_AS(ap::load_model_file(path), doctest::Contains("larger than"), ap::Error);
  std::remove(path.c_str());
  CHECK_THROWS_WITH_AS(ap::load_model_file("/dev/zero"), doctest::Contains("larger than"),
                       ap::Error);
}
