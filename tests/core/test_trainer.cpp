// test_trainer.cpp: the corpus (format, agreement with the tokenizer, the split), the generated
// lexicon's size, and the trainer: it learns, it is reproducible bit for bit, its schedule and its
// head notes. Not gradient maths (test_backward.cpp) or the file format (test_model_file.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "corpus.hpp"
#include "error.hpp"
#include "evaluation.hpp"
#include "lexicon.hpp"
#include "model_file.hpp"
#include "test_util.hpp"
#include "tokenizer.hpp"
#include "trainer.hpp"
#include "vocabulary.hpp"

namespace {

const std::string kDataDir = AP_DATA_DIR;
const std::string kModelDir = AP_MODEL_DIR;  // the model lab: model/sentences/{train,dev,heldout}

using ap_test::read_file;

std::string code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ap::Error& e) {
    return e.code();
  }
  return "";
}

const std::vector<ap::CorpusLine>& corpus(const char* name) {
  static const std::vector<ap::CorpusLine> train =
      ap::parse_corpus(read_file(kDataDir + "/corpus/train.tsv"));
  static const std::vector<ap::CorpusLine> test =
      ap::parse_corpus(read_file(kDataDir + "/corpus/test.tsv"));
  return std::string(name) == "train" ? train : test;
}

const ap::Vocabulary& lexicon_vocab() {
  static const ap::Vocabulary v =
      ap::Vocabulary::from_lexicon_tsv(read_file(kDataDir + "/lexicon.tsv"), 8);
  return v;
}

// A few dozen real sentences, enough to see learning in a fraction of a second.
std::vector<ap::Example> small_set(std::size_t n = 48) {
  std::vector<ap::CorpusLine> lines(corpus("train").begin(), corpus("train").begin() + n);
  return ap::prepare_examples(lines, lexicon_vocab(), ap::default_lexicon());
}

ap::TrainConfig small_config() {
  ap::TrainConfig c;
  c.d_model = 8;
  c.heads = 2;
  c.d_k = 4;
  c.d_ff = 8;
  c.layers = 2;
  c.steps = 40;
  c.batch = 8;
  c.warmup = 5;
  return c;
}

std::string train_bytes(const ap::TrainConfig& c, int steps) {
  const std::vector<ap::Example> data = small_set();
  ap::Trainer t(c, lexicon_vocab(), data);
  for (int s = 0; s < steps; ++s) t.step();
  ap::TrainedModel m = t.model();
  m.notes = ap::dev_notes(ap::evaluate(m, data));
  return ap::save_model(m);
}

}  // namespace

TEST_CASE("parse_corpus: the format, and a clear error naming the line") {
  const std::vector<ap::CorpusLine> c = ap::parse_corpus(
      "# comment\n"
      "zh\tz01\t小猫吃鱼，它很开心\t小猫|吃|鱼|，|它|很|开心\tpron:4>0 verb:1>2\r\n"
      "\n"
      "zh\tseed\t苹果很好吃\t苹果|很|好吃\t-\n");
  REQUIRE(c.size() == 2);
  CHECK(c[0].line_number == 2);
  CHECK(c[0].lang == "zh");
  CHECK(c[0].template_id == "z01");
  CHECK(c[0].tokens.size() == 7);
  REQUIRE(c[0].targets.size() == 2);
  CHECK(c[0].targets[0].kind == ap::CorpusTarget::Kind::Pronoun);
  CHECK(c[0].targets[0].from == 4);
  CHECK(c[0].targets[0].to == 0);
  CHECK(c[0].targets[1].kind == ap::CorpusTarget::Kind::Verb);
  CHECK(c[1].targets.empty());
  for (const char* bad :
       {"zh\tz\ta\ta\n", "zh\tz\tab\ta|b\tpron:0>5\n", "zh\tz\tab\ta|b\tnoun:0>1\n",
        "zh\tz\tab\ta|b\tpron:0-1\n", "zh\tz\tab\ta||b\t-\n", "zh\tz\tab\ta|b\tpron:1>1\n"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(ap::parse_corpus(std::string("# x\n") + bad),
                         doctest::Contains("corpus line 2"), ap::Error);
  }
}

TEST_CASE("prepare_examples: tokens must agree with the tokenizer and the vocabulary") {
  const ap::Vocabulary& v = lexicon_vocab();
  const std::vector<ap::CorpusLine> ok =
      ap::parse_corpus("zh\ts\t小猫吃鱼\t小猫|吃|鱼\tverb:1>2\n");
  const std::vector<ap::Example> e = ap::prepare_examples(ok, v, ap::default_lexicon());
  REQUIRE(e.size() == 1);
  CHECK(e[0].ids[0] == v.find("小猫"));
  // a swapped-out Chinese word becomes one unknown row per character, as the tokenizer splits it
  CHECK(e[0].width == std::vector<int>{2, 1, 1});
  const std::vector<ap::Example> en = ap::prepare_examples(
      ap::parse_corpus("en\ts\tThe animal ate\tThe|animal|ate\t-\n"), v, ap::default_lexicon());
  REQUIRE(en.size() == 1);
  CHECK(en[0].width == std::vector<int>{1, 1, 1});
  const std::vector<ap::CorpusLine> split_wrong =
      ap::parse_corpus("zh\ts\t小猫吃鱼\t小|猫|吃|鱼\tverb:2>3\n");
  CHECK(code_of([&] { ap::prepare_examples(split_wrong, v, ap::default_lexicon()); }) ==
        "corpus_mismatch");
  const std::vector<ap::CorpusLine> unknown = ap::parse_corpus("en\ts\tZork ate\tZork|ate\t-\n");
  CHECK(code_of([&] { ap::prepare_examples(unknown, v, ap::default_lexicon()); }) ==
        "corpus_unknown_word");
  // a hand-written line may hold such words: each gets the row the traced sentence gives it
  const std::vector<ap::Example> hand =
      ap::prepare_examples(ap::parse_corpus("en\thand\tZork ate cookies\tZork|ate|cookies\t-\n"), v,
                           ap::default_lexicon());
  REQUIRE(hand.size() == 1);
  const std::vector<ap::Token> toks = ap::tokenize("Zork ate cookies", ap::default_lexicon(), 64);
  REQUIRE(toks.size() == 3);
  CHECK(v.pieces(toks[0]).empty());
  CHECK(hand[0].ids[0] == v.id(toks[0]));  // no piece: its hashed row
  CHECK(v.is_fallback(hand[0].ids[0]));
  REQUIRE(v.pieces(toks[2]).size() == 1);
  CHECK(hand[0].ids[2] == v.pieces(toks[2])[0]);  // cookies -> cookie, as the page reads it
  CHECK(hand[0].ids[2] == v.find("cookie"));
  // its verbs carry no targets, so the trainer leaves the verb head's rows at its verbs (and at
  // words outside the lexicon) free, and no row of a generated sentence
  CHECK(hand[0].verb_free == std::vector<bool>{true, true, true});
  const std::vector<ap::Example> hand2 = ap::prepare_examples(
      ap::parse_corpus("zh\thand\t小猫吃鱼\t小猫|吃|鱼\t-\n"), v, ap::default_lexicon());
  REQUIRE(hand2.size() == 1);
  CHECK(hand2[0].verb_free == std::vector<bool>{false, true, false});
  CHECK(e[0].verb_free.empty());
  // add_unknowns keeps one flag per token, a swapped Chinese word's flag on each of its rows
  ap::TrainConfig all;
  all.unknown_rate = 1.0f;
  ap::Rng rng(3);
  const ap::Noised n = ap::add_unknowns(hand2[0], v, all, rng);
  CHECK(n.verb_free == std::vector<bool>{false, false, true, false});
}

TEST_CASE("the generated corpus: every line tokenizes as stored; the split is clean") {
  const std::vector<ap::Example> train =
      ap::prepare_examples(corpus("train"), lexicon_vocab(), ap::default_lexicon());
  const std::vector<ap::Example> test =
      ap::prepare_examples(corpus("test"), lexicon_vocab(), ap::default_lexicon());
  CHECK(train.size() >= 10000);
  CHECK(test.size() >= 1000);
  std::set<std::string> train_text;
  for (const ap::CorpusLine& c : corpus("train")) train_text.insert(c.text);
  int overlap = 0;
  for (const ap::CorpusLine& c : corpus("test")) overlap += train_text.count(c.text) > 0;
  CHECK(overlap == 0);
  for (const char* seed : {"我爱你", "苹果很好吃"}) CHECK(train_text.count(seed) == 1);
  // the hand-written dev and held-out sets, every file of model/sentences/dev and heldout (their
  // example sentences too), are in neither split
  int held_lines = 0;
  std::set<std::string> names;
  for (const char* role : {"/sentences/dev/", "/sentences/heldout/"})
    for (const auto& f : std::filesystem::directory_iterator(kModelDir + role))
      if (f.path().extension() == ".tsv") names.insert(role + f.path().filename().string());
  CHECK(names.count("/sentences/dev/handwritten.tsv") == 1);
  CHECK(names.count("/sentences/dev/dev.tsv") == 1);
  CHECK(names.count("/sentences/heldout/heldout3.tsv") == 1);
  for (const std::string& name : names) {
    std::istringstream in(read_file(kModelDir + name));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const std::size_t a = line.find('\t'), b = line.find('\t', a + 1), c = line.find('\t', b + 1);
      const std::string text = line.substr(b + 1, c - b - 1);
      CAPTURE(text);
      CHECK(train_text.count(text) == 0);
      CHECK(train_text.count(text + ".") == 0);
      ++held_lines;
    }
  }
  CHECK(held_lines >= 700);
  // targets start at a pronoun or a verb of the lexicon, and pronouns point at nouns (a
  // hand-written sentence's antecedent may be a word the lexicon lacks: the rest hold there too)
  const ap::Lexicon& lex = ap::default_lexicon();
  const std::set<std::string> nouns = {"person", "animal", "food", "object", "place"};
  int checked = 0, hand = 0, hand_verbs = 0;
  for (const char* name : {"train", "test"}) {
    for (const ap::CorpusLine& c : corpus(name)) {
      if (c.template_id == ap::kHandWrittenTemplate) {
        CHECK(std::string(name) == "train");
        for (const ap::CorpusTarget& t : c.targets) {
          const ap::Lexicon::Entry* e = lex.find(ap::Vocabulary::key(
              ap::tokenize(c.tokens[static_cast<std::size_t>(t.from)]).front()));
          if (t.kind == ap::CorpusTarget::Kind::Pronoun) {
            REQUIRE(e != nullptr);
            CHECK(e->category == "pronoun");
            ++hand;
          } else {  // a verb the lexicon may lack, never a pronoun
            CHECK((e == nullptr || e->category != "pronoun"));
            ++hand_verbs;
          }
          CHECK(t.from != t.to);
        }
        continue;
      }
      for (const ap::CorpusTarget& t : c.targets) {
        const ap::Token from = ap::tokenize(c.tokens[static_cast<std::size_t>(t.from)]).front();
        const ap::Lexicon::Entry* e = lex.find(ap::Vocabulary::key(from));
        REQUIRE(e != nullptr);
        const ap::Lexicon::Entry* to = lex.find(
            ap::Vocabulary::key(ap::tokenize(c.tokens[static_cast<std::size_t>(t.to)]).front()));
        REQUIRE(to != nullptr);
        if (t.kind == ap::CorpusTarget::Kind::Pronoun) {
          CHECK(e->category == "pronoun");
          CHECK(nouns.count(to->category) == 1);
        } else {
          CHECK(e->category == "verb");
        }
        ++checked;
      }
    }
  }
  CHECK(checked > 20000);
  CHECK(hand > 1000);  // model/sentences/train's sentences, each several times
  CHECK(hand_verbs > 1000);
}

TEST_CASE("the corpus: a hand-written line's copies swap nouns for nouns of their kind, no more") {
  // A sentence's frame: its tokens, each noun of the lexicon (a row of its own) written as its
  // kind and "an" as "a". A copy of a written line (model/generate.py's swap_nouns) has the frame
  // and the targets of a line some writer wrote; a copy that changed anything else would not.
  const ap::Lexicon& lex = ap::default_lexicon();
  const std::set<std::string> kinds = {"person", "animal", "food", "object", "place"};
  const auto frame = [&](const std::vector<std::string>& tokens) {
    std::string f;
    for (const std::string& t : tokens) {
      const ap::Lexicon::Entry* e = lex.find(ap::Vocabulary::key(ap::tokenize(t).front()));
      const bool noun = e != nullptr && e->read_as.empty() && kinds.count(e->category) == 1;
      const bool article = t == "a" || t == "an" || t == "A" || t == "An";  // fits the noun
      f += (noun ? "<" + e->category + ">" : article ? "a" : t) + "|";
    }
    return f;
  };
  std::set<std::string> written;
  for (const auto& f : std::filesystem::directory_iterator(kModelDir + "/sentences/train")) {
    if (f.path().extension() != ".tsv") continue;
    std::istringstream in(read_file(f.path().string()));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const std::size_t a = line.find('\t'), b = line.find('\t', a + 1), c = line.find('\t', b + 1);
      written.insert(line.substr(b + 1, c - b - 1));
    }
  }
  std::map<std::string, std::set<std::string>> targets_of;  // frame -> targets of written lines
  const auto targets = [](const ap::CorpusLine& c) {
    std::string out;
    for (const ap::CorpusTarget& t : c.targets)
      out += std::to_string(static_cast<int>(t.kind)) + ":" + std::to_string(t.from) + ">" +
             std::to_string(t.to) + " ";
    return out;
  };
  int originals = 0, copies = 0, swapped = 0;
  for (const ap::CorpusLine& c : corpus("train"))
    if (c.template_id == ap::kHandWrittenTemplate && written.count(c.text) == 1) {
      targets_of[frame(c.tokens)].insert(targets(c));
      ++originals;
    }
  for (const ap::CorpusLine& c : corpus("train")) {
    if (c.template_id != ap::kHandWrittenTemplate || written.count(c.text) == 1) continue;
    CAPTURE(c.text);
    const auto it = targets_of.find(frame(c.tokens));
    REQUIRE(it != targets_of.end());
    CHECK(it->second.count(targets(c)) == 1);
    ++copies;
  }
  for (const ap::CorpusLine& c : corpus("train"))
    swapped += c.template_id == ap::kHandWrittenTemplate && written.count(c.text) == 0;
  MESSAGE(originals << " written rows, " << copies << " copies with nouns swapped");
  CHECK(written.size() > 2000);
  CHECK(copies > 1000);  // the copies do differ from what was written
  CHECK(swapped == copies);
}

TEST_CASE("the generated lexicon: big enough, and the example sentences segment as intended") {
  const std::string tsv = read_file(kDataDir + "/lexicon.tsv");
  CHECK(tsv.rfind("# Generated by model/generate.py", 0) == 0);
  std::map<std::string, int> nouns, verbs_adjs;
  std::istringstream in(tsv);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t a = line.find('\t'), b = line.find('\t', a + 1);
    const std::string lang = line.substr(a + 1, b - a - 1), cat = line.substr(b + 1);
    if (cat == "person" || cat == "animal" || cat == "food" || cat == "object" || cat == "place")
      ++nouns[lang];
    if (cat == "verb" || cat == "adj") ++verbs_adjs[lang];
  }
  for (const char* lang : {"zh", "en"}) {
    CAPTURE(lang);
    CHECK(nouns[lang] >= 100);
    CHECK(verbs_adjs[lang] >= 50);
  }
  const auto tok = [](const char* s) {
    std::vector<std::string> out;
    for (const ap::Token& t : ap::tokenize(s)) out.push_back(t.text);
    return out;
  };
  CHECK(tok("小猫吃鱼，它很开心") ==
        std::vector<std::string>{"小猫", "吃", "鱼", "，", "它", "很", "开心"});
  CHECK(tok("我爱你") == std::vector<std::string>{"我", "爱", "你"});
  CHECK(tok("苹果很好吃") == std::vector<std::string>{"苹果", "很", "好吃"});
}

TEST_CASE("Trainer: the loss goes down") {
  ap::TrainConfig c = small_config();
  c.steps = 150;
  c.learning_rate = 0.02f;
  ap::Trainer t(c, lexicon_vocab(), small_set(32));
  double first = 0.0, last = 0.0;
  for (int s = 0; s < c.steps; ++s) {
    const double loss = t.step();
    if (s < 10) first += loss;
    if (s >= c.steps - 10) last += loss;
  }
  MESSAGE("mean loss: first 10 steps " << first / 10 << ", last 10 steps " << last / 10);
  CHECK(last < 0.5 * first);
  CHECK(t.steps_done() == 150);
}

TEST_CASE("add_unknowns: a swapped Chinese word is a run of unknown rows; targets follow it") {
  const ap::Vocabulary& v = lexicon_vocab();
  const std::vector<ap::Example> e = ap::prepare_examples(
      ap::parse_corpus("zh\ts\t小猫吃鱼，它很开心\t小猫|吃|鱼|，|它|很|开心\tpron:4>0 verb:1>2\n"),
      v, ap::default_lexicon());
  REQUIRE(e.size() == 1);
  ap::TrainConfig c = small_config();
  c.symbol_rate = 0.0f;
  ap::Rng rng(7);
  c.unknown_rate = 0.0f;  // nothing swapped: the example as it is
  const ap::Noised same = ap::add_unknowns(e[0], v, c, rng);
  CHECK(same.ids == e[0].ids);
  CHECK(same.targets[0].from == 4);
  CHECK(same.targets[0].to == 0);
  c.unknown_rate = 1.0f;  // every word: 小猫 and 开心 become two rows each
  const ap::Noised all = ap::add_unknowns(e[0], v, c, rng);
  REQUIRE(all.ids.size() == 9);  // 小 猫 吃 鱼 ， 它 很 开 心
  for (std::size_t i = 0; i < all.ids.size(); ++i) {
    CAPTURE(i);
    CHECK(v.is_fallback(all.ids[i]) == (i != 4));  // the comma stays itself
  }
  CHECK(all.ids[4] == e[0].ids[3]);
  REQUIRE(all.targets.size() == 2);
  CHECK(all.targets[0].from == 5);  // 它
  CHECK(all.targets[0].to == 1);    // the last row of 小猫's run
  CHECK(all.targets[1].from == 2);  // 吃
  CHECK(all.targets[1].to == 3);    // 鱼
}

TEST_CASE("add_unknowns: hidden words are unknown rows the read-out must name; links stay") {
  const ap::Vocabulary& v = lexicon_vocab();
  const std::vector<ap::Example> e = ap::prepare_examples(
      ap::parse_corpus("zh\ts\t小猫吃鱼，它很开心\t小猫|吃|鱼|，|它|很|开心\tpron:4>0 verb:1>2\n"),
      v, ap::default_lexicon());
  REQUIRE(e.size() == 1);
  ap::TrainConfig c = small_config();
  c.symbol_rate = 0.0f;
  c.unknown_rate = 0.0f;
  c.masked_rate = 1.0f;  // every word that may be hidden is: 很 and 开心
  ap::Rng rng(7);
  const ap::Noised x = ap::add_unknowns(e[0], v, c, rng);
  REQUIRE(x.ids.size() == e[0].ids.size());  // a hidden word is one row, even a Chinese one
  REQUIRE(x.masked.size() == 2);
  CHECK(x.masked[0].row == 5);
  CHECK(x.masked[0].word == e[0].ids[5]);
  CHECK(x.masked[1].row == 6);
  CHECK(x.masked[1].word == e[0].ids[6]);
  for (std::size_t i = 0; i < x.ids.size(); ++i) {
    CAPTURE(i);
    CHECK(v.is_fallback(x.ids[i]) == (i >= 5));  // 小猫 吃 鱼 它 (linked) and ， stay
  }
  CHECK(x.targets[0].from == 4);
  CHECK(x.targets[0].to == 0);
  // with masked_rate 0 nothing is hidden
  c.masked_rate = 0.0f;
  c.unknown_rate = 0.5f;
  CHECK(ap::add_unknowns(e[0], v, c, rng).masked.empty());
  // and the two rates may not add up past 1
  c.masked_rate = 0.6f;
  CHECK_THROWS_AS(ap::validate(c), ap::Error);
}

TEST_CASE("Trainer: bit-for-bit reproducible for a seed, different for another") {
  const ap::TrainConfig c = small_config();
  const std::string a = train_bytes(c, 25);
  const std::string b = train_bytes(c, 25);
  CHECK(a == b);
  ap::TrainConfig other = c;
  other.seed = 2;
  CHECK(train_bytes(other, 25) != a);
  CHECK(train_bytes(c, 26) != a);  // and a step does change something
}

TEST_CASE(
    "Trainer: weight decay shrinks E and every W; decay, dropout and hidden words stay "
    "reproducible") {
  const std::vector<ap::Example> data = small_set(16);
  const auto after = [&](const ap::TrainConfig& c, int steps) {
    ap::Trainer t(c, lexicon_vocab(), data);
    for (int s = 0; s < steps; ++s) t.step();
    return t.model();
  };
  ap::TrainConfig plain = small_config();
  ap::TrainConfig decayed = plain;
  decayed.weight_decay = 0.5f;
  const ap::TrainedModel a = after(plain, 30), b = after(decayed, 30);
  CHECK(b.E.norm() < a.E.norm());
  const auto pa = ap::parameters(a.net), pb = ap::parameters(b.net);
  int weights = 0;
  for (std::size_t k = 0; k < pa.size(); ++k) {
    if (pa[k].first.find(".W_") == std::string::npos) continue;
    CAPTURE(pa[k].first);
    CHECK(pb[k].second->norm() < pa[k].second->norm());
    ++weights;
  }
  CHECK(weights == 6 * plain.layers);  // W_Q W_K W_V W_O W_1 W_2 in each layer
  // dropout and decay stay bit-for-bit reproducible
  ap::TrainConfig all = plain;
  all.weight_decay = 0.1f;
  all.dropout = 0.2f;
  CHECK(train_bytes(all, 20) == train_bytes(all, 20));
  CHECK(train_bytes(all, 20) != train_bytes(plain, 20));
  // the hidden-word loss moves the weights: the same words hidden (the same draws), with and
  // without its weight, train differently; and it stays reproducible
  ap::TrainConfig hidden = plain;
  hidden.masked_rate = 0.3f;
  ap::TrainConfig unweighted = hidden;
  unweighted.masked_weight = 0.0f;
  CHECK(train_bytes(hidden, 20) == train_bytes(hidden, 20));
  CHECK(train_bytes(hidden, 20) != train_bytes(unweighted, 20));
}

TEST_CASE("Trainer: the learning-rate schedule warms up, then decays to the final ratio") {
  ap::TrainConfig c = small_config();
  c.steps = 100;
  c.warmup = 10;
  c.learning_rate = 0.01f;
  c.final_lr_ratio = 0.1f;
  const ap::Trainer t(c, lexicon_vocab(), small_set(4));
  CHECK(t.learning_rate_at(0) == doctest::Approx(0.001));
  CHECK(t.learning_rate_at(9) == doctest::Approx(0.01));
  CHECK(t.learning_rate_at(10) == doctest::Approx(0.01));
  CHECK(t.learning_rate_at(55) < 0.01f);
  CHECK(t.learning_rate_at(55) > 0.001f);
  CHECK(t.learning_rate_at(100) == doctest::Approx(0.001));
}

TEST_CASE("TrainConfig and Trainer: bad input is an ap::Error") {
  const auto bad = [](auto change) {
    ap::TrainConfig c = small_config();
    change(c);
    return code_of([&] { ap::validate(c); });
  };
  CHECK(bad([](ap::TrainConfig& c) { c.heads = 0; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.batch = 0; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.learning_rate = 0; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.beta2 = 1.0f; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.unknown_rate = 2.0f; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.row_supervision = -1.0f; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.previous_supervision = 101.0f; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.previous_head = c.heads; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.weight_decay = -0.1f; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig& c) { c.dropout = 1.0f; }) == "bad_train_config");
  CHECK(bad([](ap::TrainConfig&) {}) == "");
  CHECK(code_of([] { ap::Trainer t(small_config(), lexicon_vocab(), {}); }) == "bad_train_config");
  ap::Example e;
  e.ids = {lexicon_vocab().size()};
  e.punctuation = {false};
  CHECK(code_of([&] { ap::Trainer t(small_config(), lexicon_vocab(), {e}); }) ==
        "bad_train_config");
}

TEST_CASE("dev_notes: a role per head from what it measurably does, numbers as data") {
  ap::Evaluation ev;
  ev.layers = 2;
  ev.heads = 2;
  ev.pronouns = 100;
  ev.verbs = 50;
  ev.head_pronoun_hits = {97, 10, 20, 5};
  ev.head_verb_hits = {5, 45, 10, 5};
  ev.head_self = {0.1, 0.2, 0.3, 0.2};
  ev.head_previous = {0.0, 0.1, 0.7, 0.3};
  const std::vector<ap::HeadNote> n = ap::dev_notes(ev);
  REQUIRE(n.size() == 4);
  CHECK(n[0].role == "coreference");
  CHECK(n[0].number("dev_pronoun") == doctest::Approx(0.97));
  CHECK(n[1].role == "verb_argument");
  CHECK(n[1].number("dev_verb") == doctest::Approx(0.9));
  CHECK(n[2].role == "previous_token");
  CHECK(n[3].role == "mixed");
  CHECK(std::isnan(n[3].number("no such number")));
  // a head that links pronouns and rests on itself elsewhere is named by its link, and a head
  // that links nothing but rests on itself is "self"
  ev.head_pronoun_hits = {80, 10, 20, 5};
  ev.head_self = {0.9, 0.2, 0.3, 0.9};
  const std::vector<ap::HeadNote> m = ap::dev_notes(ev);
  CHECK(m[0].role == "coreference");
  CHECK(m[0].number("dev_self") == doctest::Approx(0.9));
  CHECK(m[3].role == "self");
}

TEST_CASE("evaluate: counts targets and per-head hits") {
  const std::vector<ap::Example> data = small_set(20);
  ap::Trainer t(small_config(), lexicon_vocab(), data);
  const ap::Evaluation ev = ap::evaluate(t.model(), data);
  int targets = 0;
  for (const ap::Example& e : data) targets += static_cast<int>(e.targets.size());
  CHECK(ev.targets == targets);
  CHECK(ev.pronouns + ev.verbs == targets);
  CHECK(ev.sentences == 20);
  REQUIRE(ev.head_pronoun_hits.size() == 4);  // 2 layers x 2 heads
  CHECK(ev.head_pronoun_hits[0] <= ev.pronouns);
  CHECK(ev.loss > 0.0);
}
