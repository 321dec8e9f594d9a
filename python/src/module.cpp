// The articula._articula extension module: exceptions, the shared helpers,
// and the binding sections.
#include "common.hpp"

#include <articula/file_io.hpp>
#include <articula/io/scene_file.hpp>

#include <chrono>

namespace articula::python {

py::object worldObject(const World* world) {
  if (world == nullptr) return py::none();
  // A pointer cast finds the wrapper pybind11 already registered for it.
  return py::cast(world, py::return_value_policy::reference);
}

py::object frameObject(const Frame& frame, py::handle owner) {
  World* world = frame.world();
  if (world != nullptr && frame.isValid()) {
    const std::string name = frame.name();
    switch (frame.kind()) {
      case FrameKind::RigidBody:
        if (auto b = world->getRigidBody(name)) return tied(*b, owner);
        break;
      case FrameKind::FreeFrame:
        if (auto f = world->getFreeFrame(name)) return tied(*f, owner);
        break;
      case FrameKind::FixedFrame:
        if (auto f = world->getFixedFrame(name)) return tied(*f, owner);
        break;
      case FrameKind::Link:
        for (const Multibody& mb : world->getMultibodies()) {
          for (const Link& l : mb.getLinks()) {
            if (static_cast<const Frame&>(l) == frame) return tied(l, owner);
          }
        }
        break;
      default:
        break;
    }
  }
  return tied(frame, owner);
}

}  // namespace articula::python

using namespace articula;
using namespace articula::python;

PYBIND11_MODULE(_articula, m) {
  m.doc() =
      "Articula: articulated rigid-body dynamics with first-class loop closures.\n\n"
      "The C++ facade in snake_case: World, its handles (RigidBody, Multibody, Link,\n"
      "Joint, Frame, Shape, LoopClosure, JointCoupler, Actuator, Sensor), WorldSpec,\n"
      "recording and replay, inverse kinematics; articula.io reads and writes files.";
  m.attr("__version__") = "0.1.0";

  // Errors: the C++ exception classes under the same names; every one
  // derives from articula.Error (a RuntimeError), InvalidArgument also from
  // ValueError, InvalidHandle also from LookupError.
  py::object error = py::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  py::register_exception<InvalidHandle>(m, "InvalidHandle", py::make_tuple(error, py::handle(PyExc_LookupError)));
  py::register_exception<TopologyError>(m, "TopologyError", error);
  py::register_exception<LifecycleError>(m, "LifecycleError", error);
  py::register_exception<InvalidArgument>(m, "InvalidArgument", py::make_tuple(error, py::handle(PyExc_ValueError)));
  py::register_exception<LayoutIncompatible>(m, "LayoutIncompatible", error);
  py::register_exception<ReplayFileError>(m, "ReplayFileError", error);
  py::register_exception<FileAccessError>(m, "FileAccessError", py::make_tuple(error, py::handle(PyExc_OSError)));

  bindTypes(m);
  bindSpecs(m);
  bindHandles(m);
  bindWorld(m);
  bindRecording(m);
  py::module_ io = m.def_submodule("io", "Reading and writing files: URDF, SDF and Articula scenes.");
  py::register_exception<io::ImportError>(io, "ImportError", error);
  bindIo(io);
#ifdef ARTICULA_PYTHON_HAS_VIEWER
  bindRender(m);
#endif

  // The same loops timed in C++, for the overhead figures of
  // tests/benchmarks/bench_python.py (seconds for n calls).
  m.def(
      "_time_steps",
      [](World& world, std::size_t n) {
        py::gil_scoped_release release;
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t k = 0; k < n; ++k) world.step();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      },
      py::arg("world"), py::arg("n"));
  m.def(
      "_time_get_positions",
      [](const World& world, std::size_t n) {
        const auto t0 = std::chrono::steady_clock::now();
        double sink = 0.0;
        for (std::size_t k = 0; k < n; ++k) sink += world.getPositions()[0];
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return py::make_tuple(s, sink);
      },
      py::arg("world"), py::arg("n"));
}
