// test_json_reader.cpp: the core's JSON reader, against nlohmann::json (a parser not ours) on
// generated documents, and its limits and messages on bad ones.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "error.hpp"
#include "json_reader.hpp"
#include "test_util.hpp"

namespace {

using ap_test::code_of;

std::string parse_code(const std::string& s, const ap::json::Limits& limits = {}) {
  return code_of([&] { ap::json::parse(s, "t.json", limits); });
}

// true when the two trees hold the same values (object members in the same order)
bool same(const ap::json::Value& a, const nlohmann::ordered_json& b) {
  using ap::json::Kind;
  switch (a.kind()) {
    case Kind::null:
      return b.is_null();
    case Kind::boolean:
      return b.is_boolean() && a.as_bool("") == b.get<bool>();
    case Kind::number:
      return b.is_number() && a.as_number("") == b.get<double>();
    case Kind::string:
      return b.is_string() && a.as_string("") == b.get<std::string>();
    case Kind::array: {
      if (!b.is_array() || a.items("").size() != b.size()) return false;
      for (std::size_t i = 0; i < b.size(); ++i)
        if (!same(a.items("")[i], b[i])) return false;
      return true;
    }
    case Kind::object: {
      if (!b.is_object() || a.size() != b.size()) return false;
      std::size_t i = 0;
      for (auto it = b.begin(); it != b.end(); ++it, ++i)
        if (a.keys("")[i] != it.key() || !same(a.values("")[i], it.value())) return false;
      return true;
    }
  }
  return false;
}

// A random document: nested arrays and objects of strings (with escapes and non-ASCII text),
// numbers in every JSON form, booleans and nulls.
std::string random_json(std::mt19937& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const char* pieces[] = {"a", "\\\"", "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "中", "é",
                          " ", "\\/",  "\\t",  "Ġ",   "##"};
  auto str = [&] {
    std::string s = "\"";
    const int n = pick(6);
    for (int i = 0; i < n; ++i) s += pieces[pick(13)];
    return s + "\"";
  };
  const int k = depth > 3 ? pick(4) : pick(6);
  switch (k) {
    case 0:
      return str();
    case 1: {
      const char* nums[] = {"0", "-1", "12", "3.5", "-0.25", "1e-05", "2E+3", "50256", "-7e2"};
      return nums[pick(9)];
    }
    case 2:
      return pick(2) ? "true" : "false";
    case 3:
      return "null";
    case 4: {
      std::string s = "[";
      const int n = pick(5);
      for (int i = 0; i < n; ++i) s += (i ? ", " : "") + random_json(rng, depth + 1);
      return s + "]";
    }
    default: {
      std::string s = "{";
      const int n = pick(5);
      for (int i = 0; i < n; ++i)
        s += std::string(i ? ",\n" : "") + "\"k" + std::to_string(i) +
             "\": " + random_json(rng, depth + 1);
      return s + "}";
    }
  }
}

}  // namespace

TEST_CASE("json_reader: generated documents read as nlohmann::json reads them") {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const std::string doc = random_json(rng, 0);
    const auto ours = ap::json::parse(doc, "t.json");
    const auto theirs = nlohmann::ordered_json::parse(doc);
    REQUIRE_MESSAGE(same(ours, theirs), doc);
  }
}

TEST_CASE("json_reader: values, lookups and kinds") {
  const auto v = ap::json::parse(
      "\xEF\xBB\xBF{\"n_layer\": 12, \"eps\": 1e-05, \"name\": \"gpt2\", \"list\": [1, 2],"
      " \"flag\": false, \"none\": null}",
      "config.json");
  REQUIRE(v.is_object());
  CHECK(v.find("n_layer")->as_int("n_layer", 1, 100) == 12);
  CHECK(v.find("eps")->as_number("eps") == doctest::Approx(1e-5));
  CHECK(v.find("eps")->text() == "1e-05");
  CHECK(v.find("name")->as_string("name") == "gpt2");
  CHECK(v.find("list")->items("list").size() == 2);
  CHECK_FALSE(v.find("flag")->as_bool("flag"));
  CHECK(v.find("none")->is_null());
  CHECK(v.find("absent") == nullptr);
  CHECK(code_of([&] { v.find("name")->as_number("config.json: name"); }) == "json_type");
  CHECK(code_of([&] { v.find("eps")->as_int("eps", 0, 10); }) == "json_type");
  CHECK(code_of([&] { v.find("n_layer")->as_int("n_layer", 0, 10); }) == "json_type");
  try {
    v.find("name")->as_int("config.json: n_head", 1, 100);
    FAIL("no error");
  } catch (const ap::Error& e) {
    CHECK(std::string(e.what()).find("config.json: n_head") != std::string::npos);
  }
}

TEST_CASE("json_reader: bad documents name the file, line and column") {
  for (const char* bad : {"",
                          "{",
                          "[1,]",
                          "{\"a\":1,}",
                          "{\"a\" 1}",
                          "[1 2]",
                          "01",
                          "1.",
                          "-",
                          "1e",
                          "tru",
                          "\"abc",
                          "\"\\x\"",
                          "\"\\ud800\"",
                          "\"\\udc00\"",
                          "\"\\u12g4\"",
                          "\"a\tb\"",
                          "[] []",
                          "{\"a\":1,\"a\":2}",
                          "\"\xC3\x28\"",
                          "\"\xED\xA0\x80\"",
                          "1e999",
                          "NaN",
                          "'a'"}) {
    CAPTURE(bad);
    CHECK(parse_code(bad) == "json_invalid");
  }
  try {
    ap::json::parse("{\n  \"a\": [1,\n  2,,]\n}", "tokenizer.json");
    FAIL("no error");
  } catch (const ap::Error& e) {
    CHECK(std::string(e.what()) ==
          "tokenizer.json is not valid JSON: line 3, column 5: expected a value");
  }
}

TEST_CASE("json_reader: limits on length, depth and values") {
  ap::json::Limits small;
  small.max_bytes = 10;
  CHECK(parse_code("[1,2,3,4,5,6]", small) == "json_too_large");
  CHECK(parse_code("[1,2,3,4]", small) == "no error");
  CHECK(parse_code(std::string(100000, '[') + std::string(100000, ']')) == "json_too_large");
  ap::json::Limits few;
  few.max_values = 3;
  CHECK(parse_code("[1,2]", few) == "no error");
  CHECK(parse_code("[1,2,3]", few) == "json_too_large");
  CHECK(parse_code(std::string(64, '[') + std::string(64, ']')) == "no error");
}
