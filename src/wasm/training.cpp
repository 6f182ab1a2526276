// training.cpp: training step by step (Embind), in attention-train (the hosted page's training
// Web Worker) and attention-full (the single file's and the element's inline module: their worker
// runs it, and so does the page itself, a step at a time, where no worker can start). The corpus
// is the TSV of model/generate.py; training starts from seeded random weights with the shipped
// model's vocabulary.
#include <emscripten/bind.h>

#include <memory>
#include <string>
#include <vector>

#include "ap_version.hpp"
#include "convert.hpp"
#include "default_model.hpp"
#include "guards.hpp"
#include "model_file.hpp"
#include "tokenizer.hpp"
#include "trainer.hpp"

namespace ap::wasm {
namespace {

// One training run, held by JS as module.Trainer (.delete() when done): start() makes the
// trainer, step() runs it, modelBytes() saves its current model.
class JsTrainer {
 public:
  val start(const val& corpus, const val& options);
  val step(int k);
  val model_bytes() const;

 private:
  std::unique_ptr<Trainer> trainer_;
};

val JsTrainer::start(const val& corpus_v, const val& options) {
  return guarded([&] {
    const std::string corpus_tsv =
        string_arg(corpus_v, "corpus", kMaxCorpusBytes, "corpus_too_large");
    if (absent(options)) bad_setting("options must be an object {seed, steps, batch}");
    require_object(options, "options");
    TrainConfig cfg;
    // seed: a whole JS number that is exact (below 2^53)
    cfg.seed = static_cast<std::uint64_t>(
        int_field(options, "seed", 0, (1LL << 53) - 1, static_cast<long long>(cfg.seed)));
    cfg.steps = static_cast<int>(int_field(options, "steps", 0, 10000000, cfg.steps));
    cfg.batch = static_cast<int>(int_field(options, "batch", 1, 100000, cfg.batch));
    validate(cfg);
    Vocabulary vocab = default_model().vocab;
    std::vector<Example> train =
        prepare_examples(parse_corpus(corpus_tsv), vocab, default_lexicon());
    if (train.empty()) throw Error("empty_corpus", "the training corpus has no sentences");
    const std::size_t n = train.size();
    trainer_ = std::make_unique<Trainer>(cfg, std::move(vocab), std::move(train));
    val o = ok();
    o.set(js_name("examples"), static_cast<double>(n));
    o.set(js_name("steps"), cfg.steps);
    return o;
  });
}

// Runs k steps; returns the mean loss of those steps.
val JsTrainer::step(int k) {
  return guarded([&] {
    if (!trainer_) throw Error("no_trainer", "call start first");
    if (k < 1 || k > 10000) throw Error("bad_steps", "steps per call must be 1 to 10000");
    double sum = 0;
    for (int i = 0; i < k; ++i) sum += trainer_->step();
    val o = ok();
    o.set(js_name("step"), trainer_->steps_done());
    o.set(js_name("loss"), sum / k);
    o.set(js_name("learning_rate"), trainer_->learning_rate_at(trainer_->steps_done() - 1));
    return o;
  });
}

// The trainer's current model as .apm bytes (for setCustomModel on the page).
val JsTrainer::model_bytes() const {
  return guarded([&] {
    if (!trainer_) throw Error("no_trainer", "call start first");
    TrainedModel m = trainer_->model();
    const std::string steps = std::to_string(trainer_->steps_done());
    // not measured yet: the page words role "training" with the number of steps
    m.notes.assign(static_cast<std::size_t>(m.net.depth() * m.net.heads),
                   HeadNote{"training", {{"steps", static_cast<float>(trainer_->steps_done())}}});
    m.info = {{"trainer", "the page's training worker"},
              {kInfoProjectVersion, kVersion},
              {"steps", steps}};
    val o = ok();
    o.set(js_name("bytes"), bytes_js(save_model(m)));
    return o;
  });
}

}  // namespace
}  // namespace ap::wasm

EMSCRIPTEN_BINDINGS(training) {
  using namespace ap::wasm;
  emscripten::class_<JsTrainer>("Trainer")
      .constructor<>()
      .function("start", &JsTrainer::start)
      .function("step", &JsTrainer::step)
      .function("modelBytes", &JsTrainer::model_bytes);
}
