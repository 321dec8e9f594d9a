#pragma once
/// @file
/// Basic numeric types of the public API. Spatial vectors are ordered
/// [angular; linear] throughout (see docs/notation.md).

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace articula {

using Vector3d = Eigen::Vector3d;
using Vector4d = Eigen::Vector4d;
using Vector6d = Eigen::Matrix<double, 6, 1>;
using VectorXd = Eigen::VectorXd;
using Matrix3d = Eigen::Matrix3d;
using Matrix6d = Eigen::Matrix<double, 6, 6>;
using MatrixXd = Eigen::MatrixXd;
using Matrix6Xd = Eigen::Matrix<double, 6, Eigen::Dynamic>;
using Matrix3Xd = Eigen::Matrix<double, 3, Eigen::Dynamic>;
using Isometry3d = Eigen::Isometry3d;
using Quaterniond = Eigen::Quaterniond;

}  // namespace articula
