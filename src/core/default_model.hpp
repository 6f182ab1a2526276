// default_model.hpp: the trained model compiled into the library from src/data/models/default.apm,
// so the CLI, the tests and the WebAssembly module all have it with no file to find or fetch.
// Not the format (model_file.hpp) and not training (trainer.hpp).
#pragma once
#include <string_view>

#include "model_file.hpp"

namespace ap {

// The .apm bytes as committed.
std::string_view default_model_bytes();
// Parsed once, on first use.
const TrainedModel& default_model();

}  // namespace ap
