// session.cpp: model lookup by name, each name's kind of model (text_model.hpp).
#include "session.hpp"

#include "default_model.hpp"
#include "error.hpp"
#include "inference.hpp"

namespace ap {

const TrainedModel* Session::model(const std::string& name) const {
  if (name == "random" || name == "numpy") return nullptr;
  if (name == "default") return &default_model();
  if (name == "custom") {
    if (!custom_) throw Error("no_custom_model", "no trained model yet: press Train first");
    return custom_.get();
  }
  if (name == "real")
    throw Error(
        "no_real_model",
        "no real model is loaded here: a real model is traced by the module that loaded it");
  std::string names;
  for (const ModelKind& k : kModels) names += std::string(names.empty() ? "" : ", ") + k.name;
  throw Error("bad_model", "model must be one of " + names + ", got " + name);
}

const TextModel& Session::kind(const std::string& name) {
  const TrainedModel* m = model(name);
  if (name == "numpy") return numpy_;
  if (!m) return random_;
  if (m == custom_.get()) return *custom_kind_;
  if (!shipped_kind_) shipped_kind_ = std::make_unique<TrainedTextModel>(*m);
  return *shipped_kind_;
}

TextTrace Session::trace(std::string_view text, const Settings& s, const std::string& name,
                         const TrainedModel** used) {
  *used = model(name);
  return kind(name).trace(text, s);
}

const TrainedModel& Session::set_custom(TrainedModel m) {
  custom_kind_.reset();
  custom_ = std::make_unique<TrainedModel>(std::move(m));
  custom_kind_ = std::make_unique<TrainedTextModel>(*custom_);
  return *custom_;
}

}  // namespace ap
