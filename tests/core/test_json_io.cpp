// test_json_io.cpp: traces to JSON and the strict `attend` input parser. Not the CLI's exit
// codes (tests/cli/run.sh).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "error.hpp"
#include "json_io.hpp"

using ap::Matrix;
using nlohmann::json;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// "ok", or the ap::Error code and message
std::string parse_result(const std::string& text) {
  try {
    ap::parse_attend_input(text);
  } catch (const ap::Error& e) {
    const std::string m = e.what();
    if (m.find('\n') != std::string::npos) return "multi-line message";
    return e.code();
  } catch (const std::exception& e) {
    return std::string("other exception: ") + e.what();
  }
  return "ok";
}

std::string with(const std::string& extra) {
  return R"({"X": [[1, 2], [3, 4]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]],
             "W_V": [[1, 0], [0, 1]])" +
         extra + "}";
}

}  // namespace

TEST_CASE("matrix_to_json: rows of numbers, null for -inf") {
  Matrix m(2, 3);
  m << 0.1f, -kInf, 2.0f,  //
      kInf, std::numeric_limits<float>::quiet_NaN(), -3.5f;
  const json j = ap::matrix_to_json(m);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  REQUIRE(j[0].size() == 3);
  CHECK(j[0][0].get<double>() == static_cast<double>(0.1f));  // the float exactly
  CHECK(j[0][1].is_null());
  CHECK(j[0][2] == 2.0);
  CHECK(j[1][0].is_null());
  CHECK(j[1][1].is_null());
  CHECK(j[1][2] == -3.5);
  // a dump never contains non-JSON tokens
  const std::string dumped = j.dump();
  CHECK(dumped.find("inf") == std::string::npos);
  CHECK(dumped.find("nan") == std::string::npos);
}

TEST_CASE("trace_to_json: every stage, causal mask as null") {
  ap::AttendInput in = ap::parse_attend_input(with(R"(, "causal": true, "heads": 2)"));
  const ap::Trace t = ap::attend(in.X, in.weights, in.options);
  const json j = ap::trace_to_json(t);
  CHECK(j.at("config").at("n") == 2);
  CHECK(j.at("config").at("d_model") == 2);
  CHECK(j.at("config").at("heads") == 2);
  CHECK(j.at("config").at("d_k") == 1);
  CHECK(j.at("config").at("causal") == true);
  CHECK(j.at("config").at("scale") == true);
  REQUIRE(j.at("heads").size() == 2);
  for (const char* k :
       {"W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled", "masked", "weights", "output"}) {
    CAPTURE(k);
    CHECK(j.at("heads").at(0).contains(k));
  }
  CHECK(j.at("heads").at(0).at("masked").at(0).at(1).is_null());
  CHECK(j.at("heads").at(0).at("weights").at(0).at(1) == 0.0);
  CHECK(j.at("heads").at(0).at("weights").at(0).at(0) == 1.0);
  CHECK(j.at("concat").size() == 2);
  CHECK(j.at("W_O") == json::parse("[[1, 0], [0, 1]]"));  // identity when none given
  CHECK(j.at("output") == j.at("concat"));

  SUBCASE("text traces add tokens and settings") {
    ap::Settings s;
    s.seed = 9;
    const json tj = ap::trace_to_json(ap::trace_text("我爱你", s));
    CHECK(tj.at("tokens") == json::parse(R"(["我", "爱", "你"])"));
    CHECK(tj.at("token_details").size() == 3);
    CHECK(tj.at("config").at("seed") == 9);
    CHECK(tj.at("config").at("tie_qk") == false);
    CHECK(tj.at("config").at("positions") == true);
    CHECK(tj.at("config").at("max_tokens") == 64);
  }
}

TEST_CASE("tokens_to_json") {
  const json j = ap::tokens_to_json(ap::tokenize("小猫 3.14"));
  CHECK(j.at("tokens") == json::parse(R"(["小猫", "3.14"])"));
  const json& d = j.at("token_details");
  REQUIRE(d.size() == 2);
  CHECK(d[0].at("kind") == "han");
  CHECK(d[0].at("known") == true);
  CHECK(d[0].at("byte_begin") == 0);
  CHECK(d[0].at("byte_end") == 6);
  CHECK(d[1].at("kind") == "number");
  CHECK(d[1].at("byte_begin") == 7);
  CHECK(d[1].at("byte_end") == 11);
  CHECK(d[0].at("pronoun") == false);
  CHECK(ap::tokens_to_json(ap::tokenize("它")).at("token_details")[0].at("pronoun") == true);
}

TEST_CASE("parse_attend_input: valid input") {
  SUBCASE("defaults") {
    const ap::AttendInput in = ap::parse_attend_input(with(""));
    CHECK(in.X.rows() == 2);
    CHECK(in.X(1, 0) == 3.0f);
    CHECK(in.weights.W_O.size() == 0);
    CHECK(in.options.heads == 1);
    CHECK(in.options.causal == false);
    CHECK(in.options.scale == true);
    CHECK(in.options.temperature == 1.0f);
  }
  SUBCASE("every option") {
    const ap::AttendInput in = ap::parse_attend_input(with(
        R"(, "W_O": [[0, 1], [1, 0]], "heads": 2, "causal": true, "scale": false, "temperature": 0.5)"));
    CHECK(in.weights.W_O(0, 1) == 1.0f);
    CHECK(in.options.heads == 2);
    CHECK(in.options.causal == true);
    CHECK(in.options.scale == false);
    CHECK(in.options.temperature == 0.5f);
  }
  SUBCASE("W_O null means none; heads 16 and 1 are accepted") {
    CHECK(ap::parse_attend_input(with(R"(, "W_O": null)")).weights.W_O.size() == 0);
    CHECK(parse_result(with(R"(, "heads": 16)")) == "ok");
    CHECK(parse_result(with(R"(, "heads": 1)")) == "ok");
  }
  SUBCASE("every fixture case parses to exactly its float32 inputs") {
    std::ifstream f(AP_FIXTURES_DIR "/attention_v1.json");
    REQUIRE(f.good());
    const json fx = json::parse(f);
    for (const json& c : fx.at("cases")) {
      const json& inputs = c.at("inputs");
      const ap::AttendInput in = ap::parse_attend_input(inputs.dump());
      const json& X = inputs.at("X");
      for (std::size_t r = 0; r < X.size(); ++r)
        for (std::size_t k = 0; k < X[r].size(); ++k)
          CHECK(static_cast<double>(in.X(r, k)) == X[r][k].get<double>());
      CHECK(in.options.heads == inputs.at("heads").get<int>());
      const std::size_t w_o_rows = inputs.contains("W_O") ? inputs.at("W_O").size() : 0;
      CHECK(static_cast<std::size_t>(in.weights.W_O.rows()) == w_o_rows);
    }
  }
}

TEST_CASE("parse_attend_input: rejects bad input with bad_json and one line") {
  CHECK(parse_result("") == "bad_json");
  CHECK(parse_result("not json") == "bad_json");
  CHECK(parse_result("{\"X\": [[1]]") == "bad_json");  // cut short
  CHECK(parse_result("[1, 2]") == "bad_json");         // not an object
  CHECK(parse_result("42") == "bad_json");
  CHECK(parse_result("null") == "bad_json");
  CHECK(parse_result(with(R"(, "wq": [[1]])")) == "bad_json");  // unknown key
  CHECK(parse_result(with(R"(, "Heads": 2)")) == "bad_json");   // keys are case-sensitive
  CHECK(parse_result(R"({"W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");  // missing X
  CHECK(parse_result(R"({"X": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");  // missing W_Q
  CHECK(parse_result(R"({"X": [[1, 2], [3]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") ==
        "bad_json");  // ragged rows
  CHECK(parse_result(R"({"X": [[1], [2, 3]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") ==
        "bad_json");  // ragged the other way
  CHECK(parse_result(R"({"X": [], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [[]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [1, 2], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [[1], 2], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [["1"]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [[true]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [[null]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [[1e400]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") ==
        "bad_json");
  CHECK(parse_result(R"({"X": [[-1e39]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") ==
        "bad_json");
  CHECK(parse_result(R"({"X": [[NaN]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "bad_json");
  CHECK(parse_result(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "W_O": 3})") ==
        "bad_json");
  for (const char* h : {"0", "17", "-1", "\"2\"", "2.5", "2.0", "true", "null", "1e2"}) {
    CAPTURE(h);
    CHECK(parse_result(with(std::string(", \"heads\": ") + h)) == "bad_json");
  }
  for (const char* k : {"causal", "scale"})
    for (const char* v : {"\"yes\"", "1", "0", "null", "\"true\""}) {
      CAPTURE(k);
      CAPTURE(v);
      CHECK(parse_result(with(std::string(", \"") + k + "\": " + v)) == "bad_json");
    }
  CHECK(parse_result(with(R"(, "temperature": "hot")")) == "bad_json");
  CHECK(parse_result(with(R"(, "temperature": null)")) == "bad_json");

  SUBCASE("nesting deeper than 8 is refused as such, before the schema is looked at") {
    auto message = [](const std::string& text) -> std::string {
      try {
        ap::parse_attend_input(text);
      } catch (const ap::Error& e) {
        return e.code() + ": " + e.what();
      }
      return "ok";
    };
    auto nested = [&](const std::string& text) {
      const std::string m = message(text);
      return m.rfind("bad_json: ", 0) == 0 && m.find("nested") != std::string::npos;
    };
    CHECK(nested(R"({"X": [[[[[[[[[[1]]]]]]]]]]})"));
    CHECK(nested(std::string(100000, '[') + std::string(100000, ']')));
    CHECK(nested(std::string(100000, '[')));
    std::string deep_objects;
    for (int i = 0; i < 50000; ++i) deep_objects += "{\"a\":";
    CHECK(nested(deep_objects));
    CHECK_FALSE(nested(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})"));
  }
  SUBCASE("the message names the problem") {
    try {
      ap::parse_attend_input(with(R"(, "wq": 1)"));
      FAIL("no error");
    } catch (const ap::Error& e) {
      CHECK(std::string(e.what()).find("wq") != std::string::npos);
    }
  }
}

TEST_CASE("parsed input errors surface from attend") {
  // the parser checks types; attend checks shapes and values
  // 1e300 does not fit a float: the parser refuses it instead of narrowing (undefined behaviour)
  CHECK_THROWS_AS(ap::parse_attend_input(with(", \"temperature\": 1e300")), ap::Error);
  for (const char* T : {"0", "-1", "1001"}) {
    CAPTURE(T);
    const ap::AttendInput in = ap::parse_attend_input(with(std::string(", \"temperature\": ") + T));
    try {
      ap::attend(in.X, in.weights, in.options);
      FAIL("no error");
    } catch (const ap::Error& e) {
      CHECK(e.code() == "bad_temperature");
    }
  }
  const ap::AttendInput shapes =
      ap::parse_attend_input(R"({"X": [[1, 2]], "W_Q": [[1, 0, 0]], "W_K": [[1]], "W_V": [[1]]})");
  try {
    ap::attend(shapes.X, shapes.weights, shapes.options);
    FAIL("no error");
  } catch (const ap::Error& e) {
    CHECK(e.code() == "shape_mismatch");
  }
}

TEST_CASE("parse_attend_input: a key given twice is an error naming the key") {
  auto message = [](const std::string& text) -> std::string {
    try {
      ap::parse_attend_input(text);
    } catch (const ap::Error& e) {
      return e.code() + ": " + e.what();
    }
    return "ok";
  };
  const std::string twice = message(with(R"(, "X": [[5, 6]])"));
  CHECK(twice.rfind("bad_json: ", 0) == 0);
  CHECK(twice.find("\"X\" appears twice") != std::string::npos);
  CHECK(message(with(R"(, "heads": 1, "heads": 2)")).find("\"heads\" appears twice") !=
        std::string::npos);
  CHECK(message(with(R"(, "causal": true, "causal": true)")).find("twice") != std::string::npos);
  CHECK(message(with(R"(, "heads": 2)")) == "ok");
}

TEST_CASE("parse_attend_input: keys are quoted safely and briefly in messages") {
  auto message = [](const std::string& text) -> std::string {
    try {
      ap::parse_attend_input(text);
    } catch (const ap::Error& e) {
      return e.what();
    }
    return "ok";
  };
  const std::string esc = message(R"({"\u001b]0;PWNED\u0007\u001b[31mRED": 1})");
  CHECK(esc.find('\x1b') == std::string::npos);
  CHECK(esc.find('\a') == std::string::npos);
  CHECK(esc.find("\\u001B]0;PWNED") != std::string::npos);
  const std::string nul = message(R"({"a\u0000b": 1})");
  CHECK(nul.find("a\\u0000b") != std::string::npos);  // not cut at the NUL
  CHECK(message("{\"" + std::string(1 << 20, 'k') + "\": 1}").size() < 300);
  CHECK(message("{\"X\": [[1" + std::string(10 << 20, '1') + "]]}").size() < 300);
}

TEST_CASE("parse_attend_input: more values than X and the weights can hold are refused") {
  // a million tiny numbers in one row: refused while parsing, by count
  std::string many = "{\"X\": [[0";
  many.reserve(2 * ap::kMaxAttendJsonValues + 32);
  for (std::size_t i = 0; i < ap::kMaxAttendJsonValues; ++i) many += ",0";
  many += "]]}";
  try {
    ap::parse_attend_input(many);
    FAIL("no error");
  } catch (const ap::Error& e) {
    CHECK(e.code() == "bad_json");
    CHECK(std::string(e.what()).find("values") != std::string::npos);
  }
  CHECK(parse_result(std::string(ap::kMaxAttendJsonBytes + 1, ' ')) == "bad_json");
}
