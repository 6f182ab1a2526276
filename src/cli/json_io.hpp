// json_io.hpp: traces to JSON and the `attend` JSON input from text, with nlohmann/json.
// Native only (the CLI and tests); the page gets typed arrays from src/wasm instead.
#pragma once
#include <nlohmann/json.hpp>
#include <string_view>

#include "attention.hpp"
#include "model.hpp"
#include "model_file.hpp"

namespace ap {

// A list of rows; -inf (masked) and any other non-finite entry become null.
nlohmann::json matrix_to_json(MatrixRef m);
nlohmann::json trace_to_json(const Trace& t);      // config, X, heads, concat, W_O, output
nlohmann::json trace_to_json(const TextTrace& t);  // adds tokens and settings
// A trace through a trained model: adds "model" (name, head notes, provenance) and "guesses" (the
// word the model reads at each token, with its probability); config.weights = name.
nlohmann::json trace_to_json(const TextTrace& t, const TrainedModel& m, const std::string& name);
nlohmann::json tokens_to_json(const std::vector<Token>& tokens);

struct AttendInput {
  Matrix X;
  Weights weights;
  AttentionOptions options;
};

// Parses {"X", "W_Q", "W_K", "W_V", "W_O"?, "heads"?, "causal"?, "scale"?, "temperature"?}.
// Throws ap::Error("bad_json") with one line naming the field and the fix. Nesting deeper than
// 8 levels and inputs over 64 MiB are refused before they can exhaust the stack or memory.
AttendInput parse_attend_input(std::string_view text);

}  // namespace ap
