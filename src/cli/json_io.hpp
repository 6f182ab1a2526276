// json_io.hpp: traces to JSON and the `attend` JSON input from text, with nlohmann/json.
// Native only (the CLI and tests); the page gets typed arrays from src/wasm instead.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

#include "attention.hpp"
#include "hf_model.hpp"
#include "inference.hpp"
#include "model.hpp"
#include "model_file.hpp"

namespace ap {

// A list of rows; -inf (masked) and any other non-finite entry become null.
nlohmann::json matrix_to_json(MatrixRef m);
// The fields and their names are schema.hpp's (shared with the page's module).
nlohmann::json trace_to_json(const Trace& t);      // config, X, heads, concat, W_O, output
nlohmann::json trace_to_json(const TextTrace& t);  // adds tokens and settings
// A trace through a trained model: adds "model" (name, head notes, provenance) and "guesses" (the
// word the model reads at each token, with its probability); config.weights = name.
nlohmann::json trace_to_json(const TextTrace& t, const TrainedModel& m, const std::string& name);
// A trace through a Hugging Face model (hf_model.hpp): adds "ids", "model" (its card), every
// layer's weights and hidden states.
nlohmann::json trace_to_json(const TextTrace& t, const HfModel& m);
nlohmann::json tokens_to_json(const std::vector<Token>& tokens);  // tokens, token_details

// The `attend` input is at most this many bytes (the CLI stops reading there) and holds at most
// kMaxAttendJsonValues JSON values: X (kMaxSequence x kMaxDModel) and the four weight matrices
// (kMaxDModel x kMaxHeadWidth each) with their rows, and a few options. Counting values while
// parsing stops a file of a million tiny numbers before it becomes a gigabyte of JSON nodes.
constexpr std::size_t kMaxAttendJsonBytes = std::size_t{64} << 20;
constexpr std::size_t kMaxAttendJsonValues = std::size_t{kMaxSequence} * (kMaxDModel + 1) +
                                             std::size_t{4} * kMaxDModel * (kMaxHeadWidth + 1) + 64;

struct AttendInput {
  Matrix X;
  Weights weights;
  AttentionOptions options;
};

// Parses {"X", "W_Q", "W_K", "W_V", "W_O"?, "heads"?, "causal"?, "scale"?, "temperature"?}.
// Throws ap::Error("bad_json") with one line naming the field and the fix. Nesting deeper than
// 8 levels, more than kMaxAttendJsonValues values, inputs over kMaxAttendJsonBytes and a key given
// twice in one object (JSON leaves that undefined; the last one would silently win) are refused.
AttendInput parse_attend_input(std::string_view text);

}  // namespace ap
