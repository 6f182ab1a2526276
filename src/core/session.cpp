// session.cpp: model lookup by name and the per-session random-weights cache.
#include "session.hpp"

#include "default_model.hpp"
#include "error.hpp"
#include "inference.hpp"
#include "numpy_example.hpp"

namespace ap {

const TrainedModel* Session::model(const std::string& name) const {
  if (name == "random" || name == "numpy") return nullptr;
  if (name == "default") return &default_model();
  if (name == "custom") {
    if (!custom_) throw Error("no_custom_model", "no trained model yet: press Train first");
    return custom_.get();
  }
  std::string names;
  for (const ModelKind& k : kModels) names += std::string(names.empty() ? "" : ", ") + k.name;
  throw Error("bad_model", "model must be one of " + names + ", got " + name);
}

TextTrace Session::trace(std::string_view text, const Settings& s, const std::string& name,
                         const TrainedModel** used) {
  const TrainedModel* m = model(name);
  *used = m;
  if (m) return trace_text_with_model(text, s, *m);
  if (name == "numpy") return trace_text_numpy(text, s);
  const int d_k = validate(s);
  if (!drawn_ || random_for_.d_model != s.d_model || random_for_.heads != s.heads ||
      random_for_.d_k != s.d_k || random_for_.seed != s.seed || random_for_.tie_qk != s.tie_qk) {
    tokenize(text, default_lexicon(), s.max_tokens);  // a bad text costs no weights
    drawn_ = false;  // stays false if drawing throws (out of memory)
    random_ = random_weights(s.d_model, s.heads, d_k, s.seed, s.tie_qk);
    random_for_ = s;
    drawn_ = true;
  }
  return trace_text(text, s, random_);
}

const TrainedModel& Session::set_custom(TrainedModel m) {
  custom_ = std::make_unique<TrainedModel>(std::move(m));
  return *custom_;
}

}  // namespace ap
