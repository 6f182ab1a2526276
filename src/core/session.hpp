// session.hpp: one playground's models and caches. A page may hold several playgrounds over one
// WebAssembly module; each owns a Session, so a model trained in one never shows in another. Not
// the maths (attention.hpp, model.hpp) and not the wire format (schema.hpp).
#pragma once
#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "model.hpp"
#include "model_file.hpp"
#include "text_model.hpp"

namespace ap {

// The weights a text trace can use, by name, and the settings each one fixes (by their names in
// schema::settings_fields; the trace's config says the values used): the trained model shipped in
// the library and the session's own trained model fix their shape; seeded random weights take the
// shape from the settings; the article's NumPy program (numpy_example.hpp) has one head and
// adds no positions; a real model (GPT-2 or BERT from Hugging Face files, hf_model.hpp) fixes
// every setting and is held outside the session (the page loads it into a second module, which
// traces it; this session only knows its name). The page builds its model switch and its disabled
// controls from this list.
struct ModelKind {
  const char* name;
  std::array<const char*, 3> fixes;  // setting names, then nullptr
};
inline constexpr ModelKind kModels[] = {
    {"default", {"d_model", "heads", "d_k"}},   {"random", {nullptr, nullptr, nullptr}},
    {"numpy", {"heads", "positions", nullptr}}, {"custom", {"d_model", "heads", "d_k"}},
    {"real", {"d_model", "heads", "d_k"}},
};

class Session {
 public:
  // The model called `name` (one of kModels); nullptr for "random" and "numpy". Throws
  // bad_model for another name, no_custom_model when "custom" is asked before set_custom(), and
  // no_real_model for "real" (a real model is traced where it was loaded, not here).
  const TrainedModel* model(const std::string& name) const;

  // The kind of model called `name` (text_model.hpp), picked once per trace; its errors are
  // model()'s. The random kind keeps the weights it drew (RandomTextModel).
  const TextModel& kind(const std::string& name);

  // kind(name).trace(text, s); `*used` = model(name).
  TextTrace trace(std::string_view text, const Settings& s, const std::string& name,
                  const TrainedModel** used);

  // Makes `m` this session's "custom" model (a model trained in the page, or a loaded file).
  const TrainedModel& set_custom(TrainedModel m);
  bool has_custom() const { return custom_ != nullptr; }

 private:
  std::unique_ptr<TrainedModel> custom_;
  std::unique_ptr<TrainedTextModel> custom_kind_;
  std::unique_ptr<TrainedTextModel> shipped_kind_;  // made on first use
  RandomTextModel random_;
  NumpyTextModel numpy_;
};

}  // namespace ap
