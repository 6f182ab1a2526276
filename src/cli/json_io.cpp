// json_io.cpp: strict conversion between JSON and the core's types.
#include "json_io.hpp"

#include <cfloat>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "error.hpp"
#include "schema.hpp"

namespace ap {

using nlohmann::json;

namespace {
constexpr int kMaxDepth = 8;

[[noreturn]] void bad(const std::string& msg) { throw Error("bad_json", msg); }

Matrix matrix_from_json(const json& j, const char* name) {
  if (!j.is_array() || j.empty())
    bad(std::string(name) + " must be a non-empty list of rows, e.g. [[1, 2], [3, 4]]");
  const std::size_t rows = j.size();
  if (!j[0].is_array() || j[0].empty())
    bad(std::string(name) + "[0] must be a non-empty list of numbers");
  const std::size_t cols = j[0].size();
  if (rows > ap::kMaxMatrixSide || cols > ap::kMaxMatrixSide)
    bad(std::string(name) + " is larger than " + std::to_string(ap::kMaxMatrixSide) + " x " +
        std::to_string(ap::kMaxMatrixSide));
  Matrix m(rows, cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const json& row = j[r];
    if (!row.is_array())
      bad(std::string(name) + "[" + std::to_string(r) + "] must be a list of numbers");
    if (row.size() != cols)
      bad(std::string(name) + "[" + std::to_string(r) + "] has " + std::to_string(row.size()) +
          " numbers but row 0 has " + std::to_string(cols) + ": all rows must be the same length");
    for (std::size_t c = 0; c < cols; ++c) {
      const json& v = row[c];
      if (!v.is_number())
        bad(std::string(name) + "[" + std::to_string(r) + "][" + std::to_string(c) +
            "] is not a number");
      const double d = v.get<double>();
      if (!std::isfinite(d) || std::fabs(d) > FLT_MAX)
        bad(std::string(name) + "[" + std::to_string(r) + "][" + std::to_string(c) +
            "] is outside the float32 range (about 3.4e38)");
      m(r, c) = static_cast<float>(d);
    }
  }
  return m;
}
}  // namespace

json matrix_to_json(MatrixRef m) {
  json rows = json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    json row = json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) {
      const float v = m(r, c);
      if (std::isfinite(v))
        row.push_back(static_cast<double>(v));
      else
        row.push_back(nullptr);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {
// schema.hpp's writer for nlohmann::json.
struct JsonWriter {
  using Node = json;
  Node object() const { return json::object(); }
  Node array() const { return json::array(); }
  template <class V>
  Node value(const V& v) const {
    return v;
  }
  Node value(float v) const { return static_cast<double>(v); }
  Node value(schema::Uint64 v) const { return v.value; }
  Node matrix(MatrixRef m) const { return matrix_to_json(m); }
  Node row(const RowVector& r) const {
    json a = json::array();
    for (Eigen::Index i = 0; i < r.size(); ++i)
      a.push_back(std::isfinite(r[i]) ? json(static_cast<double>(r[i])) : json(nullptr));
    return a;
  }
  void set(Node& o, const char* key, Node v) const { o[key] = std::move(v); }
  void set_dynamic(Node& o, const std::string& key, Node v) const { o[key] = std::move(v); }
  void push(Node& a, Node v) const { a.push_back(std::move(v)); }
};
}  // namespace

json trace_to_json(const Trace& t) {
  json out = json::object();
  schema::write_trace(JsonWriter{}, out, t);
  return out;
}

json tokens_to_json(const std::vector<Token>& tokens) {
  json out = json::object();
  schema::write_tokens(JsonWriter{}, out, tokens);
  return out;
}

json trace_to_json(const TextTrace& t) {
  json out = json::object();
  schema::write_text_trace(JsonWriter{}, out, t, nullptr, t.weights);
  return out;
}

json trace_to_json(const TextTrace& t, const HfModel& m) {
  json out = json::object();
  schema::write_hf_trace(JsonWriter{}, out, t, m);
  return out;
}

json trace_to_json(const TextTrace& t, const TrainedModel& m, const std::string& name) {
  json out = json::object();
  schema::write_text_trace(JsonWriter{}, out, t, &m, name);
  return out;
}

AttendInput parse_attend_input(std::string_view text) {
  if (text.size() > kMaxAttendJsonBytes)
    bad("the input is larger than " + std::to_string(kMaxAttendJsonBytes >> 20) + " MiB");
  json j;
  std::size_t values = 0;
  std::vector<std::set<std::string>> keys;  // the keys seen so far in each open object
  try {
    j = json::parse(text.begin(), text.end(), [&](int depth, json::parse_event_t event, json& v) {
      if (depth > kMaxDepth)
        throw Error("bad_json", "the JSON is nested more than " + std::to_string(kMaxDepth) +
                                    " levels deep; matrices need only 2");
      switch (event) {
        case json::parse_event_t::object_start:
          keys.emplace_back();
          break;
        case json::parse_event_t::object_end:
          keys.pop_back();
          break;
        case json::parse_event_t::key:
          if (!keys.back().insert(v.get<std::string>()).second)
            bad("the key \"" + printable(v.get<std::string>()) +
                "\" appears twice in one object: give it once");
          break;
        case json::parse_event_t::value:
        case json::parse_event_t::array_start:
          if (++values > kMaxAttendJsonValues)
            bad("the JSON has more than " + std::to_string(kMaxAttendJsonValues) +
                " values, more than X and the weights can hold within the limits");
          break;
        default:
          break;
      }
      return true;
    });
  } catch (const json::exception& e) {
    // parse_error for bad syntax; out_of_range for numbers like 1e99999 (found by fuzzing)
    std::string what = e.what();
    const std::size_t p = what.find("] ");
    bad("not valid JSON: " + printable(p == std::string::npos ? what : what.substr(p + 2), 200));
  }
  if (!j.is_object())
    bad("the input must be a JSON object with X, W_Q, W_K, W_V (and optionally W_O, heads, "
        "causal, scale, temperature)");
  static const char* const kKnown[] = {"X",     "W_Q",    "W_K",   "W_V",        "W_O",
                                       "heads", "causal", "scale", "temperature"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known)
      bad("unknown key \"" + printable(it.key()) +
          "\": expected X, W_Q, W_K, W_V, W_O, heads, causal, scale, temperature");
  }
  for (const char* k : {"X", "W_Q", "W_K", "W_V"})
    if (!j.contains(k)) bad(std::string("missing \"") + k + "\"");
  AttendInput in;
  in.X = matrix_from_json(j["X"], "X");
  in.weights.W_Q = matrix_from_json(j["W_Q"], "W_Q");
  in.weights.W_K = matrix_from_json(j["W_K"], "W_K");
  in.weights.W_V = matrix_from_json(j["W_V"], "W_V");
  if (j.contains("W_O") && !j["W_O"].is_null()) in.weights.W_O = matrix_from_json(j["W_O"], "W_O");
  if (j.contains("heads")) {
    if (!j["heads"].is_number_integer()) bad("\"heads\" must be a whole number from 1 to 16");
    const auto h = j["heads"].get<long long>();
    if (h < 1 || h > kMaxHeads) bad("\"heads\" must be a whole number from 1 to 16");
    in.options.heads = static_cast<int>(h);
  }
  for (const char* k : {"causal", "scale"}) {
    if (!j.contains(k)) continue;
    if (!j[k].is_boolean()) bad(std::string("\"") + k + "\" must be true or false");
  }
  if (j.contains("causal")) in.options.causal = j["causal"].get<bool>();
  if (j.contains("scale")) in.options.scale = j["scale"].get<bool>();
  if (j.contains("temperature")) {
    if (!j["temperature"].is_number() || std::fabs(j["temperature"].get<double>()) > FLT_MAX)
      bad("\"temperature\" must be a number greater than 0 and at most 1000");
    in.options.temperature = static_cast<float>(j["temperature"].get<double>());
  }
  return in;
}

}  // namespace ap
