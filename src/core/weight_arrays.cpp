// weight_arrays.cpp: a trace's weights as named matrices (weight_arrays.hpp).
#include "weight_arrays.hpp"

#include "network.hpp"

namespace ap {

std::vector<NamedMatrix> weight_arrays(const TextTrace& t, const TrainedModel* m) {
  std::vector<NamedMatrix> out;
  if (m) {
    out.emplace_back("E", m->E);
    for (const auto& p : parameters(m->net)) out.emplace_back(p.first, *p.second);
    return out;
  }
  const Trace& tr = t.trace;
  const Eigen::Index hd = static_cast<Eigen::Index>(tr.heads) * tr.d_k;
  Matrix W_Q(tr.d_model, hd), W_K(tr.d_model, hd), W_V(tr.d_model, hd);
  for (int h = 0; h < tr.heads; ++h) {
    const HeadTrace& H = tr.head[static_cast<std::size_t>(h)];
    W_Q.middleCols(static_cast<Eigen::Index>(h) * tr.d_k, tr.d_k) = H.W_Q;
    W_K.middleCols(static_cast<Eigen::Index>(h) * tr.d_k, tr.d_k) = H.W_K;
    W_V.middleCols(static_cast<Eigen::Index>(h) * tr.d_k, tr.d_k) = H.W_V;
  }
  out.emplace_back("W_Q", std::move(W_Q));
  out.emplace_back("W_K", std::move(W_K));
  out.emplace_back("W_V", std::move(W_V));
  out.emplace_back("W_O", tr.W_O);  // the identity when the weights have none (attention.hpp)
  return out;
}

}  // namespace ap
