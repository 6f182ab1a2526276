// test_session.cpp: each Session has its own custom model and its own random-weights cache.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>

#include "default_model.hpp"
#include "schema.hpp"
#include "session.hpp"
#include "test_util.hpp"

namespace {

// The default model with every weight scaled: a "custom" model that traces differently.
ap::TrainedModel scaled_default(float k) {
  ap::TrainedModel m = ap::default_model();
  for (ap::Layer& layer : m.net.layers) {
    layer.attn.W_Q *= k;
    layer.attn.W_K *= k;
  }
  return m;
}

ap::Matrix weights0(ap::Session& s, const std::string& model, const ap::Settings& st = {}) {
  const ap::TrainedModel* used = nullptr;
  return s.trace("小猫吃鱼，它很开心", st, model, &used).trace.head[0].weights;
}

}  // namespace

TEST_CASE("Session: models by name") {
  ap::Session s;
  const ap::TrainedModel* used = &ap::default_model();
  s.trace("我爱你", {}, "random", &used);
  CHECK(used == nullptr);
  s.trace("我爱你", {}, "default", &used);
  CHECK(used == &ap::default_model());
  CHECK(ap_test::code_of([&] { s.trace("我爱你", {}, "custom", &used); }) == "no_custom_model");
  CHECK(ap_test::code_of([&] { s.trace("我爱你", {}, "real", &used); }) == "no_real_model");
  CHECK(ap_test::code_of([&] { s.trace("我爱你", {}, "gpt", &used); }) == "bad_model");
  CHECK_FALSE(s.has_custom());
}

TEST_CASE("Session: two sessions keep their own custom models") {
  ap::Session a, b;
  a.set_custom(scaled_default(3.0f));
  CHECK(a.has_custom());
  CHECK_FALSE(b.has_custom());
  const ap::TrainedModel* used = nullptr;
  CHECK(ap_test::code_of([&] { b.trace("我爱你", {}, "custom", &used); }) == "no_custom_model");
  b.set_custom(scaled_default(0.25f));
  const ap::Matrix wa = weights0(a, "custom"), wb = weights0(b, "custom");
  CHECK_FALSE(wa.isApprox(wb));
  CHECK(weights0(a, "custom") == wa);  // b's model did not replace a's
  CHECK_FALSE(wa.isApprox(weights0(a, "default")));
}

TEST_CASE("Session: the random-weights cache follows the settings and is per session") {
  ap::Settings s5;
  s5.seed = 5;
  ap::Settings s6 = s5;
  s6.seed = 6;
  ap::Session a, b;
  const ap::Matrix first = weights0(a, "random", s5);
  CHECK(weights0(b, "random", s6) != first);
  CHECK(weights0(a, "random", s5) == first);  // b's settings did not change a's weights
  ap::Settings heads4 = s5;
  heads4.heads = 4;
  weights0(a, "random", heads4);
  CHECK(weights0(a, "random", s5) == first);  // redrawn for s5, as a fresh trace_text
  CHECK(weights0(a, "random", s5) ==
        ap::trace_text("小猫吃鱼，它很开心", s5).trace.head[0].weights);
}

TEST_CASE("Session: each model fixes exactly the settings kModels says, whatever is asked") {
  ap::Session s;
  s.set_custom(ap::default_model());
  ap::Settings a, b;  // two asks that differ in every setting a model may fix
  a.d_model = 12;
  a.heads = 3;
  a.d_k = 5;
  a.positions = false;
  b.d_model = 6;
  b.heads = 2;
  b.d_k = 3;
  b.positions = true;
  const auto values = [](ap::Settings st) {
    std::map<std::string, double> m;
    ap::schema::settings_fields(st, [&](const char* k, auto& v) { m[k] = static_cast<double>(v); });
    return m;
  };
  for (const ap::ModelKind& k : ap::kModels) {
    CAPTURE(k.name);
    // a real model is traced by the module that loaded it (HfTextModel), never by a Session
    if (std::string(k.name) == "real") continue;
    const ap::TrainedModel* used = nullptr;
    const auto ta = values(s.trace("我爱你", a, k.name, &used).settings);
    const auto tb = values(s.trace("我爱你", b, k.name, &used).settings);
    const auto wa = values(a), wb = values(b);
    std::set<std::string> fixes;
    for (const char* f : k.fixes)
      if (f) fixes.insert(f);
    for (const auto& kv : wa) {
      CAPTURE(kv.first);
      if (fixes.count(kv.first)) {
        CHECK(ta.at(kv.first) == tb.at(kv.first));  // the model's value, not the ask
      } else {
        CHECK(ta.at(kv.first) == kv.second);
        CHECK(tb.at(kv.first) == wb.at(kv.first));
      }
    }
  }
}
