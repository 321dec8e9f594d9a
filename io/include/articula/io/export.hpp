#pragma once
/// @file
/// Writing a world in the formats robots come in: URDF, SDF 1.9, MJCF
/// (MuJoCo XML) and the native `.articula` format. Every export returns an
/// ExportReport that lists what the format cannot hold (and was left out)
/// and what was written in another form; nothing is dropped silently.
/// docs/export.md has the element tables.
///
/// Link frames: URDF and MJCF place a link's frame where its parent joint
/// is (URDF: always; MJCF: so that ball and free joint coordinates read the
/// same). An exported link's frame is therefore the joint frame of the
/// Articula link; inertials, shapes, sensors and closure frames are
/// re-expressed in it, so positions, masses and dynamics are unchanged.

#include <articula/world_spec.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace articula {
class World;
}

namespace articula::io {

enum class ExportFormat {
  Articula,  ///< `.articula`
  Urdf,      ///< `.urdf`
  Sdf,       ///< `.sdf`, `.world` (SDFormat 1.9)
  Mjcf,      ///< `.xml`, `.mjcf` (MuJoCo)
};

/// "articula", "urdf", "sdf", "mjcf".
const char* toString(ExportFormat format);

/// The format an output file name asks for, by extension (case-insensitive),
/// or nothing for an extension no writer has.
std::optional<ExportFormat> exportFormatForPath(const std::filesystem::path& file);

/// One thing the written file does not hold as the world does.
struct ExportEntry {
  std::string object;   ///< what it concerns ("closure 'loop'", "shape 'ground'", "schedule 'wave'")
  std::string message;  ///< what happened to it and why
};

struct ExportReport {
  std::string file;    ///< the file written (empty for a string)
  std::string format;  ///< toString(ExportFormat)
  /// Objects the format cannot hold: not written.
  std::vector<ExportEntry> notExported;
  /// Objects written in another form than the world's (a Distance closure
  /// as ..., a convex mesh as the mesh file it came from, ...).
  std::vector<ExportEntry> converted;

  bool complete() const { return notExported.empty(); }
  /// Human-readable, one entry per line (what `articula-run export` prints).
  std::string toText() const;
  /// One line: "N objects not exported, M converted", no trailing newline.
  std::string summary() const;
  std::string toJson() const;
};

/// Options shared by the writers.
struct ExportOptions {
  /// Mesh files are referred to relative to this folder when given (the
  /// output file's folder), by absolute path otherwise.
  std::filesystem::path meshBase;
  /// URDF and MJCF: the model name (`<robot name>`, `<mujoco model>`);
  /// empty: the first multibody's name (URDF) or "articula" (MJCF).
  std::string modelName;
};

/// URDF: one robot, the first multibody (the others and the free rigid
/// bodies are reported); closures as `<loop_joint>`, couplers as `<mimic>`,
/// actuators as `<transmission>`.
std::string toUrdf(const WorldSpec& spec, ExportReport& report, const ExportOptions& options = {});
/// SDF 1.9: a `<world>` with every multibody and rigid body as a `<model>`,
/// world shapes in a static model; closing joints as SDF joints.
std::string toSdf(const WorldSpec& spec, ExportReport& report, const ExportOptions& options = {});
/// MJCF: one `<worldbody>` holding every tree, closures and couplers as
/// `<equality>`, actuators, keyframes and sensors.
std::string toMjcf(const WorldSpec& spec, ExportReport& report, const ExportOptions& options = {});

/// Writes `world` to `file` in the format its extension names, atomically
/// (a failure leaves an existing file untouched); mesh references are
/// relative to the file's folder.
/// @throws ImportError (file, problem) for an unknown extension or a write failure.
ExportReport exportFile(const World& world, const std::filesystem::path& file);
ExportReport exportFile(const World& world, const std::filesystem::path& file, ExportFormat format);

}  // namespace articula::io
