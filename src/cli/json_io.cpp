// json_io.cpp: strict conversion between JSON and the core's types.
#include "json_io.hpp"

#include <cfloat>
#include <cmath>
#include <string>

#include "error.hpp"

namespace ap {

using nlohmann::json;

namespace {
constexpr std::size_t kMaxInputBytes = 64u << 20;
constexpr int kMaxDepth = 8;

[[noreturn]] void bad(const std::string& msg) { throw Error("bad_json", msg); }

Matrix matrix_from_json(const json& j, const char* name) {
  if (!j.is_array() || j.empty())
    bad(std::string(name) + " must be a non-empty list of rows, e.g. [[1, 2], [3, 4]]");
  const std::size_t rows = j.size();
  if (!j[0].is_array() || j[0].empty())
    bad(std::string(name) + "[0] must be a non-empty list of numbers");
  const std::size_t cols = j[0].size();
  if (rows > 4096 || cols > 4096) bad(std::string(name) + " is larger than 4096 x 4096");
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

json trace_to_json(const Trace& t) {
  json out;
  out["config"] = {{"n", t.n},
                   {"d_model", t.d_model},
                   {"heads", t.heads},
                   {"d_k", t.d_k},
                   {"causal", t.options.causal},
                   {"scale", t.options.scale},
                   {"scale_factor", t.scale_factor},
                   {"temperature", t.options.temperature}};
  out["X"] = matrix_to_json(t.X);
  json heads = json::array();
  for (const HeadTrace& h : t.head) {
    heads.push_back({{"W_Q", matrix_to_json(h.W_Q)},
                     {"W_K", matrix_to_json(h.W_K)},
                     {"W_V", matrix_to_json(h.W_V)},
                     {"Q", matrix_to_json(h.Q)},
                     {"K", matrix_to_json(h.K)},
                     {"V", matrix_to_json(h.V)},
                     {"scores", matrix_to_json(h.scores)},
                     {"scaled", matrix_to_json(h.scaled)},
                     {"masked", matrix_to_json(h.masked)},
                     {"weights", matrix_to_json(h.weights)},
                     {"output", matrix_to_json(h.output)}});
  }
  out["heads"] = std::move(heads);
  out["concat"] = matrix_to_json(t.concat);
  out["W_O"] = matrix_to_json(t.W_O);
  out["output"] = matrix_to_json(t.output);
  return out;
}

json tokens_to_json(const std::vector<Token>& tokens) {
  json list = json::array();
  json details = json::array();
  for (const Token& t : tokens) {
    list.push_back(t.text);
    details.push_back({{"text", t.text},
                       {"kind", to_string(t.kind)},
                       {"known", t.known},
                       {"byte_begin", t.byte_begin},
                       {"byte_end", t.byte_end}});
  }
  return {{"tokens", std::move(list)}, {"details", std::move(details)}};
}

json trace_to_json(const TextTrace& t) {
  json out = trace_to_json(t.trace);
  json tok = tokens_to_json(t.tokens);
  out["tokens"] = std::move(tok["tokens"]);
  out["token_details"] = std::move(tok["details"]);
  const Settings& s = t.settings;
  out["config"]["seed"] = s.seed;
  out["config"]["tie_qk"] = s.tie_qk;
  out["config"]["positions"] = s.positions;
  out["config"]["max_tokens"] = s.max_tokens;
  out["config"]["weights"] = "random";
  out["embeddings"] = matrix_to_json(t.embeddings);
  if (t.positions.size() != 0) out["positions"] = matrix_to_json(t.positions);
  return out;
}

json trace_to_json(const TextTrace& t, const TrainedModel& m, const std::string& name) {
  json out = trace_to_json(t);
  out["config"]["weights"] = name;
  json notes = json::array();
  for (const HeadNote& n : m.notes)
    notes.push_back({{"role", n.role},
                     {"note", n.note},
                     {"note_zh", n.note_zh},
                     {"pronoun_accuracy", n.pronoun_accuracy},
                     {"verb_accuracy", n.verb_accuracy}});
  json info = json::object();
  for (const auto& kv : m.info) info[kv.first] = kv.second;
  out["model"] = {{"name", name}, {"notes", std::move(notes)}, {"info", std::move(info)}};
  json guesses = json::array();
  for (const TokenGuess& g : guess_words(t.trace, m))
    guesses.push_back({{"word", m.vocab.word(g.word)}, {"probability", g.probability}});
  out["guesses"] = std::move(guesses);
  return out;
}

AttendInput parse_attend_input(std::string_view text) {
  if (text.size() > kMaxInputBytes) bad("the input is larger than 64 MiB");
  json j;
  try {
    j = json::parse(text.begin(), text.end(), [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxDepth)
        throw Error("bad_json", "the JSON is nested more than " + std::to_string(kMaxDepth) +
                                    " levels deep; matrices need only 2");
      return true;
    });
  } catch (const json::exception& e) {
    // parse_error for bad syntax; out_of_range for numbers like 1e99999 (found by fuzzing)
    std::string what = e.what();
    const std::size_t p = what.find("] ");
    bad("not valid JSON: " + (p == std::string::npos ? what : what.substr(p + 2)));
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
      bad("unknown key \"" + it.key() +
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
