// weight_arrays.hpp: the weights a text trace was computed with, as named matrices, for taking
// them out of the page (the .npz export). Not a file format (the page writes the .npz) and not
// the maths (a trace's numbers come from inference.hpp and model.hpp).
//
// Shapes: n tokens, d_model, h heads, d_k per head, d_ff, L layers, V vocabulary rows.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "matrix.hpp"
#include "model.hpp"
#include "model_file.hpp"

namespace ap {

using NamedMatrix = std::pair<std::string, Matrix>;

// The arrays of `t`'s weights, in a fixed order:
//   through a trained model `m`: "E" (V x d_model) then parameters(m->net) by their names
//     (network.hpp: "layer1.W_Q", ..., "out.gain"), as stored (tie_qk is the learner's
//     what-if, applied when tracing, not here);
//   with random or numpy weights (m == nullptr): "W_Q", "W_K", "W_V" (d_model x h*d_k, the
//     heads' columns side by side, W_K already equal to W_Q when tie_qk) and "W_O"
//     ((h*d_k) x d_model; the identity when the weights have no output projection).
std::vector<NamedMatrix> weight_arrays(const TextTrace& t, const TrainedModel* m);

}  // namespace ap
