// articula.io: URDF, SDF and Articula scene files.
#include "common.hpp"

#include <articula/io/import.hpp>
#include <articula/io/run_log.hpp>
#include <articula/io/scene_file.hpp>

#include <memory>

namespace articula::python {

namespace {

io::ImportOptions importOptions(io::RootAttachment root, const std::vector<std::filesystem::path>& packagePaths,
                                bool addGroundPlane, double groundHeight, bool assemble, bool loadMeshes,
                                bool placeOnGround, bool useEnvironmentPaths) {
  io::ImportOptions o;
  o.root = root;
  o.packagePath = packagePaths;
  o.addGroundPlane = addGroundPlane;
  o.groundHeight = groundHeight;
  o.assemble = assemble;
  o.loadMeshes = loadMeshes;
  o.placeOnGround = placeOnGround;
  o.useEnvironmentPaths = useEnvironmentPaths;
  return o;
}

#define ARTICULA_IMPORT_ARGS                                                                                      \
  py::arg("root") = io::RootAttachment::Default, py::arg("package_paths") = std::vector<std::filesystem::path>{}, \
  py::arg("add_ground_plane") = false, py::arg("ground_height") = 0.0, py::arg("assemble") = true,                \
  py::arg("load_meshes") = true, py::arg("place_on_ground") = true, py::arg("use_environment_paths") = true

}  // namespace

void bindIo(py::module_& m) {
  py::enum_<io::RootAttachment>(m, "RootAttachment", "How a robot's root link is attached to the world.")
      .value("DEFAULT", io::RootAttachment::Default)
      .value("FIXED", io::RootAttachment::Fixed)
      .value("FLOATING", io::RootAttachment::Floating);

  py::class_<io::ReportEntry>(m, "ReportEntry")
      .def_readonly("file", &io::ReportEntry::file)
      .def_readonly("line", &io::ReportEntry::line)
      .def_readonly("message", &io::ReportEntry::message)
      .def("__repr__",
           [](const io::ReportEntry& e) { return e.file + ":" + std::to_string(e.line) + ": " + e.message; });
  py::class_<io::LoopCut>(m, "LoopCut", "A joint of the file made a loop closure, and why.")
      .def_readonly("joint", &io::LoopCut::joint)
      .def_readonly("closure", &io::LoopCut::closure)
      .def_readonly("family", &io::LoopCut::family)
      .def_readonly("reason", &io::LoopCut::reason)
      .def_readonly("file", &io::LoopCut::file)
      .def_readonly("line", &io::LoopCut::line);
  py::class_<io::CouplerMade>(m, "CouplerMade")
      .def_readonly("coupler", &io::CouplerMade::coupler)
      .def_readonly("leader", &io::CouplerMade::leader)
      .def_readonly("follower", &io::CouplerMade::follower)
      .def_readonly("ratio", &io::CouplerMade::ratio)
      .def_readonly("offset", &io::CouplerMade::offset);
  py::class_<io::ActuatorMade>(m, "ActuatorMade")
      .def_readonly("actuator", &io::ActuatorMade::actuator)
      .def_readonly("joint", &io::ActuatorMade::joint)
      .def_readonly("type", &io::ActuatorMade::type)
      .def_readonly("interface", &io::ActuatorMade::interface);
  py::class_<io::SensorMade>(m, "SensorMade")
      .def_readonly("sensor", &io::SensorMade::sensor)
      .def_readonly("type", &io::SensorMade::type)
      .def_readonly("attached_to", &io::SensorMade::attachedTo);
  py::class_<io::ImportReport>(m, "ImportReport", "What an import made, cut, ignored and warned about.")
      .def_readonly("file", &io::ImportReport::file)
      .def_readonly("format", &io::ImportReport::format)
      .def_readonly("cuts", &io::ImportReport::cuts)
      .def_readonly("couplers", &io::ImportReport::couplers)
      .def_readonly("actuators", &io::ImportReport::actuators)
      .def_readonly("sensors", &io::ImportReport::sensors)
      .def_readonly("ignored", &io::ImportReport::ignored)
      .def_readonly("warnings", &io::ImportReport::warnings)
      .def_readonly("num_meshes_loaded", &io::ImportReport::numMeshesLoaded)
      .def("to_text", &io::ImportReport::toText)
      .def("summary", &io::ImportReport::summary)
      .def("to_json", &io::ImportReport::toJson)
      .def("__str__", &io::ImportReport::summary);

  m.def(
      "load_with_report",
      [](const std::filesystem::path& file, io::RootAttachment root, const std::vector<std::filesystem::path>& packages,
         bool ground, double groundHeight, bool assemble, bool meshes, bool placeOnGround, bool environment) {
        auto world = std::make_unique<World>();
        io::ImportReport report = io::importFile(
            *world, file,
            importOptions(root, packages, ground, groundHeight, assemble, meshes, placeOnGround, environment));
        return py::make_tuple(std::move(world), std::move(report));
      },
      py::arg("path"), ARTICULA_IMPORT_ARGS, "As load(), and the ImportReport: (world, report).");
  m.def(
      "load",
      [](const std::filesystem::path& file, io::RootAttachment root, const std::vector<std::filesystem::path>& packages,
         bool ground, double groundHeight, bool assemble, bool meshes, bool placeOnGround, bool environment) {
        auto world = std::make_unique<World>();
        io::importFile(
            *world, file,
            importOptions(root, packages, ground, groundHeight, assemble, meshes, placeOnGround, environment));
        return world;
      },
      py::arg("path"), ARTICULA_IMPORT_ARGS,
      "A new World from a .urdf, .sdf, .world or .articula file (as articula-run reads it).\n"
      "package_paths: folders holding ROS packages (package://NAME/...). Raises articula.io.ImportError "
      "naming the file, the line and the problem.");
  m.def(
      "import_file",
      [](World& world, const std::filesystem::path& file, io::RootAttachment root,
         const std::vector<std::filesystem::path>& packages, bool ground, double groundHeight, bool assemble,
         bool meshes, bool placeOnGround, bool environment) {
        return io::importFile(
            world, file,
            importOptions(root, packages, ground, groundHeight, assemble, meshes, placeOnGround, environment));
      },
      py::arg("world"), py::arg("path"), ARTICULA_IMPORT_ARGS, "Adds a file's robots or scene to a world.");
  m.def(
      "load_scene_string",
      [](const std::string& text, const std::string& sourceName, const std::filesystem::path& base) {
        auto world = std::make_unique<World>();
        io::loadSceneFromString(*world, text, sourceName, base);
        return world;
      },
      py::arg("text"), py::arg("source_name") = std::string("<string>"),
      py::arg("base_directory") = std::filesystem::path(), "A new World from Articula scene text.");
  m.def(
      "load_urdf_string",
      [](const std::string& text, const std::string& sourceName, const std::filesystem::path& base,
         io::RootAttachment root) {
        auto world = std::make_unique<World>();
        io::ImportOptions o;
        o.root = root;
        io::importUrdfFromString(*world, text, sourceName, base, o);
        return world;
      },
      py::arg("text"), py::arg("source_name") = std::string("<string>"),
      py::arg("base_directory") = std::filesystem::path(), py::arg("root") = io::RootAttachment::Default,
      "A new World from URDF text.");
  m.def(
      "save_scene", [](const World& world, const std::filesystem::path& file) { io::saveScene(world, file); },
      py::arg("world"), py::arg("path"), "Writes an Articula scene file (atomically).");
  m.def(
      "scene_to_string", [](const World& world) { return io::sceneToString(world); }, py::arg("world"),
      "The world as Articula scene text.");
  m.def("add_holding_servos", &io::addHoldingServos, py::arg("world"),
        "A gravity-compensated position servo on every 1-DoF joint without an actuator, holding the current "
        "pose (as articula-run --hold); returns how many were added.");
  py::class_<io::Hdf5Logger>(m, "Hdf5Logger",
                             "Logs a world to an HDF5 run log as it steps (the format of articula-run --hdf5):\n"
                             "one row when attached, then one every `every` steps. The file appears at close();\n"
                             "until then it is a temporary file beside it, removed if the logger is discarded.\n\n"
                             "    with articula.io.Hdf5Logger(world, \"run.h5\", every=10) as log:\n"
                             "        world.step(1000)")
      .def(py::init([](World& world, const std::filesystem::path& path, int every, const std::string& groups,
                       int chunkRows, const std::string& scenePath, const std::string& commandLine) {
             io::Hdf5Logger::Options o;
             if (!groups.empty()) o.groups = io::parseLogGroups(groups);
             if (every < 1) throw InvalidArgument("every must be >= 1");
             o.every = every;
             o.chunkRows = chunkRows;
             o.info.scenePath = scenePath;
             o.info.commandLine = commandLine;
             o.info.options = io::optionsJson(world.getOptions());
             return std::make_unique<io::Hdf5Logger>(world, path, o);
           }),
           py::arg("world"), py::arg("path"), py::arg("every") = 1,
           py::arg("groups") = std::string("residuals,controls,sensors,energies,diagnostics"),
           py::arg("chunk_rows") = 1024, py::arg("scene_path") = std::string(), py::arg("command_line") = std::string(),
           py::keep_alive<1, 2>(),
           "groups: the column groups after t, q and v, comma-separated (residuals, controls, sensors, reactions, "
           "joint-forces, limits, friction, contacts, energies, diagnostics, all).")
      .def("close", &io::Hdf5Logger::close, "Stops logging and puts the file in place.")
      .def("detach", &io::Hdf5Logger::detach, "Stops logging steps; the file stays open until close().")
      .def_property_readonly(
          "columns", [](const io::Hdf5Logger& l) { return l.columns().names(); },
          "The column names (those of articula-run --csv).")
      .def_property_readonly("rows", &io::Hdf5Logger::rows, "Rows logged so far.")
      .def(
          "__enter__", [](io::Hdf5Logger& l) -> io::Hdf5Logger& { return l; }, py::return_value_policy::reference)
      .def("__exit__", [](io::Hdf5Logger& l, const py::object& type, const py::object&, const py::object&) {
        if (type.is_none()) {
          l.close();
        } else {
          l.detach();  // the temporary file goes with the logger
        }
      });
  m.attr("SCENE_FORMAT_VERSION") = io::kSceneFormatVersion;
}

}  // namespace articula::python
