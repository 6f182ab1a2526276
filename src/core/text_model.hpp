// text_model.hpp: the one interface every kind of model a text trace comes from implements:
// seeded random weights, the article's NumPy program, a trained network, a Hugging Face
// model. A caller picks the kind once and reads the same TextTrace whatever made it. Not the
// maths of any kind (model.hpp, numpy_example.hpp, inference.hpp, hf_model.hpp) and not the
// lookup of kinds by name (session.hpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"
#include "model_file.hpp"

namespace ap {

class TextModel {
 public:
  virtual ~TextModel() = default;

  // TextTrace::weights of its traces: "random", "numpy", "trained", or a Hugging Face model_type.
  virtual std::string kind() const = 0;
  // The trained network behind it (its card and read-out guesses), nullptr for other kinds.
  virtual const TrainedModel* trained() const { return nullptr; }

  // Step 1: the text's tokens. Checks the settings the model uses first, so that a bad setting
  // is reported whatever the text.
  virtual std::vector<Token> tokenize(std::string_view text, const Settings& s) const = 0;
  // Step 2: embed the tokens and run every layer. out.trace is layer `layer` with every head's
  // full detail (-1: the model's own choice, the last layer for a network); out.network, when the
  // model has layers, holds them all.
  virtual TextTrace forward(std::vector<Token> tokens, const Settings& s, int layer) const = 0;

  // tokenize, then forward
  TextTrace trace(std::string_view text, const Settings& s, int layer = -1) const {
    return forward(tokenize(text, s), s, layer);
  }
};

// Seeded random weights (model.hpp), drawn once per (d_model, heads, d_k, seed, tie_qk) and kept:
// a learner typing re-traces with the same settings, and at 64 tokens drawing them is a quarter of
// a trace.
class RandomTextModel : public TextModel {
 public:
  std::string kind() const override { return "random"; }
  std::vector<Token> tokenize(std::string_view text, const Settings& s) const override;
  TextTrace forward(std::vector<Token> tokens, const Settings& s, int layer) const override;

 private:
  mutable Weights drawn_;
  mutable Settings drawn_for_;
  mutable bool have_ = false;
};

// The article's NumPy program (numpy_example.hpp).
class NumpyTextModel : public TextModel {
 public:
  std::string kind() const override { return "numpy"; }
  std::vector<Token> tokenize(std::string_view text, const Settings& s) const override;
  TextTrace forward(std::vector<Token> tokens, const Settings& s, int layer) const override;
};

// A trained network (inference.hpp). Holds a reference: `m` must outlive it.
class TrainedTextModel : public TextModel {
 public:
  explicit TrainedTextModel(const TrainedModel& m) : m_(m) {}
  std::string kind() const override { return "trained"; }
  const TrainedModel* trained() const override { return &m_; }
  std::vector<Token> tokenize(std::string_view text, const Settings& s) const override;
  TextTrace forward(std::vector<Token> tokens, const Settings& s, int layer) const override;

 private:
  const TrainedModel& m_;
};

}  // namespace ap
