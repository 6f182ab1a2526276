// hf_convert.hpp: `qkv convert DIR OUT.apm [--dtype f32|f16|int8] [--text TEXT]`: a Hugging Face
// model folder packed into one .apm file (real_model_file.hpp), checked by reading it back and
// tracing a sentence through both. Not the format (core/real_model_file.hpp).
#pragma once
#include <string>
#include <vector>

namespace ap::cli {

// The sentence convert traces when no --text is given: the one every attention visualiser shows.
inline constexpr const char* kConvertSentence =
    "The animal didn't cross the street because it was too tired.";

// args are those after "convert". Writes OUT only once the file read back traces the sentence;
// prints one JSON object: {file, bytes, dtype, source_dtype, source_bytes, parameters, sentence,
// tokens, ids (the sentence's, cut to the model's positions), max_weight_change, at: {layer, head,
// query, key}, seconds}. Throws ap::Error on bad input (bad_setting for the arguments).
void convert_hf(const std::vector<std::string>& args);

}  // namespace ap::cli
