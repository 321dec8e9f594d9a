#pragma once
// Shared by the binding files of the articula Python module: the pybind11
// headers, the transform conversion, and the rule that keeps a World alive
// while any handle into it lives on the Python side.

#include <articula/articula.hpp>

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>
#include <pybind11/stl_bind.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

// The lists inside a WorldSpec are bound as reference types (articula.*List),
// so spec.multibodies[0].links[1].inertia.mass = 2 edits the spec itself.
PYBIND11_MAKE_OPAQUE(std::vector<articula::RigidBodySpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::MultibodySpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::LinkSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::FrameSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::ShapeSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::ClosureSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::CouplerSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::CollisionSettingSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::ActuatorSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::ScheduleSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::KeyframeSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<articula::SensorSpec>)

// Transforms (Eigen::Isometry3d) cross as 4×4 homogeneous NumPy arrays.
namespace pybind11::detail {
template <>
struct type_caster<Eigen::Isometry3d> {
  PYBIND11_TYPE_CASTER(Eigen::Isometry3d, const_name("numpy.ndarray[numpy.float64[4, 4]]"));

  bool load(handle src, bool convert) {
    if (!convert && !isinstance<array_t<double>>(src)) return false;
    const auto a = array_t<double, array::c_style | array::forcecast>::ensure(src);
    if (!a || a.ndim() != 2 || a.shape(0) != 4 || a.shape(1) != 4) return false;
    Eigen::Matrix4d m;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) m(i, j) = a.at(i, j);
    }
    if (m(3, 0) != 0.0 || m(3, 1) != 0.0 || m(3, 2) != 0.0 || m(3, 3) != 1.0) {
      throw value_error("a transform is a 4x4 homogeneous matrix whose last row is [0, 0, 0, 1]");
    }
    value.matrix() = m;
    return true;
  }

  static handle cast(const Eigen::Isometry3d& src, return_value_policy, handle) {
    Eigen::Matrix4d m = src.matrix();
    return type_caster<Eigen::Matrix4d>::cast(std::move(m), return_value_policy::move, handle());
  }
};
}  // namespace pybind11::detail

namespace articula::python {

// A handle returned to Python keeps `owner` (the World, or the handle or
// value it came from) alive, so no handle outlives its world.
template <class T>
py::object tied(T value, py::handle owner) {
  py::object o = py::cast(std::move(value));
  py::detail::keep_alive_impl(o, owner);
  return o;
}

template <class T>
py::object tied(std::optional<T> value, py::handle owner) {
  if (!value) return py::none();
  return tied(std::move(*value), owner);
}

template <class T>
py::list tiedList(const std::vector<T>& values, py::handle owner) {
  py::list out;
  for (const T& v : values) out.append(tied(v, owner));
  return out;
}

// The most specific handle class for a frame (Link, RigidBody, FreeFrame,
// FixedFrame, or Frame for the world frame), tied to `owner`.
py::object frameObject(const Frame& frame, py::handle owner);

// The Python object of a World the module knows (for callbacks that get a
// World*): the existing wrapper, never a new one.
py::object worldObject(const World* world);

// Binding sections (one translation unit each).
void bindTypes(py::module_& m);
void bindSpecs(py::module_& m);
void bindHandles(py::module_& m);
void bindWorld(py::module_& m);
void bindRecording(py::module_& m);
void bindIo(py::module_& m);
void bindRender(py::module_& m);

}  // namespace articula::python
