// matrix.hpp: the matrix types of the core. Row-major so that row i of a matrix is contiguous,
// which is how the page and JSON read them ("row = query i").
#pragma once
#include <Eigen/Core>

namespace ap {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::Matrix<float, Eigen::Dynamic, 1>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;
using MatrixRef = Eigen::Ref<const Matrix>;

}  // namespace ap
