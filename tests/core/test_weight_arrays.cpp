// test_weight_arrays.cpp: a trace's weights by name: a trained model's E and parameters() in
// order and unchanged; random and numpy weights as full d_model x (h*d_k) matrices whose column
// blocks are the heads' own, and W_O (the identity for the numpy model).
#include <doctest/doctest.h>

#include <string>

#include "default_model.hpp"
#include "inference.hpp"
#include "model.hpp"
#include "network.hpp"
#include "numpy_example.hpp"
#include "weight_arrays.hpp"

TEST_CASE("weight_arrays: a trained model gives E and parameters(net), by name, in order") {
  const ap::TrainedModel& m = ap::default_model();
  const ap::TextTrace t = ap::trace_text_with_model("小猫吃鱼，它很开心", {}, m);
  const auto arrays = ap::weight_arrays(t, &m);
  const auto params = ap::parameters(m.net);
  REQUIRE(arrays.size() == params.size() + 1);
  CHECK(arrays[0].first == "E");
  CHECK(arrays[0].second == m.E);
  for (std::size_t i = 0; i < params.size(); ++i) {
    CHECK(arrays[i + 1].first == params[i].first);
    CHECK(arrays[i + 1].second == *params[i].second);
  }
}

TEST_CASE("weight_arrays: random weights are the heads' columns side by side") {
  ap::Settings s;
  s.d_model = 12;
  s.heads = 3;
  s.d_k = 5;
  s.tie_qk = true;
  const ap::TextTrace t = ap::trace_text("The cat sat on the mat.", s);
  const auto arrays = ap::weight_arrays(t, nullptr);
  REQUIRE(arrays.size() == 4);
  CHECK(arrays[0].first == "W_Q");
  CHECK(arrays[1].first == "W_K");
  CHECK(arrays[2].first == "W_V");
  CHECK(arrays[3].first == "W_O");
  CHECK(arrays[0].second.rows() == 12);
  CHECK(arrays[0].second.cols() == 15);
  CHECK(arrays[1].second == arrays[0].second);  // tied
  for (int h = 0; h < 3; ++h) {
    CHECK(arrays[0].second.middleCols(h * 5, 5) == t.trace.head[static_cast<std::size_t>(h)].W_Q);
    CHECK(arrays[2].second.middleCols(h * 5, 5) == t.trace.head[static_cast<std::size_t>(h)].W_V);
  }
  CHECK(arrays[3].second == t.trace.W_O);
  CHECK(arrays[3].second.rows() == 15);
}

TEST_CASE("weight_arrays: the numpy model has no output projection: W_O is the identity") {
  const ap::TextTrace t = ap::trace_text_numpy("小猫爱吃鱼", {});
  const auto arrays = ap::weight_arrays(t, nullptr);
  REQUIRE(arrays.size() == 4);
  const ap::Matrix& W_O = arrays[3].second;
  CHECK(W_O.rows() == W_O.cols());
  CHECK(W_O.isIdentity());
  CHECK(arrays[0].second == t.trace.head[0].W_Q);
}
