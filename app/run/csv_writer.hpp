#pragma once
// The trajectory CSV of articula-run (README.md, "CSV"): a header of state
// column names, then one row per frame.

#include "state_columns.hpp"

#include <articula/loop_closure.hpp>
#include <articula/world.hpp>

#include <articula/file_io.hpp>

#include <memory>
#include <string>
#include <vector>

namespace articula::run {

/// `s` as a CSV field: quoted (with doubled quotes) when it holds a comma,
/// a quote or a line break.
std::string csvField(const std::string& s);

/// The column groups after t, q:... and v:... (--log).
struct CsvLog {
  bool residuals = true;     ///< residual:CLOSURE
  bool controls = true;      ///< ctrl:ACTUATOR, force:ACTUATOR
  bool sensors = true;       ///< sensor:NAME:VALUE
  bool reactions = false;    ///< reaction:MULTIBODY/JOINT:{fx,fy,fz,tx,ty,tz} (joint frame)
  bool jointForces = false;  ///< jointforce:DOF (Sᵀ·wrench, the generalized force through the joint)
  bool limits = false;       ///< limit:DOF
  bool friction = false;     ///< friction:DOF
  bool contacts = false;     ///< contact:BODY:{fx,fy,fz,tx,ty,tz} (world coordinates, about the body origin)
};

/// Parses --log's comma-separated groups (residuals, controls, sensors,
/// reactions, joint-forces, limits, friction, contacts, all); the groups
/// listed replace the default ones. @throws CliError for an unknown group.
CsvLog parseCsvLog(const std::string& list);
/// The names --log takes, for usage texts.
const char* csvLogGroups();

/// Writes t, q:..., v:..., residual:... rows; does nothing for an empty path.
/// The rows go to a temporary file next to `path` that replaces it only at
/// close(): a failed or interrupted run leaves the previous file as it was,
/// and two runs writing one file never interleave (the last to finish wins).
class CsvWriter {
 public:
  /// Starts the file and writes the header. @throws CliError when it cannot be written.
  /// Actuators add ctrl:NAME and force:NAME columns (the controls and forces of the last step).
  CsvWriter(const std::string& path, const World& world, const StateColumns& columns,
            const std::vector<LoopClosure>& closures, const CsvLog& log = {});
  bool enabled() const { return m_enabled; }
  /// One row; the residuals are the closures' current ones. @throws CliError when writing failed.
  void row(double t, const VectorXd& q, const VectorXd& v);
  /// Syncs the file and puts it in place. @throws CliError naming `path` when writing failed.
  void close(const std::string& path);

 private:
  void write(const std::string& text);

  std::unique_ptr<AtomicFile> m_out;  ///< until close()
  bool m_enabled = false;
  std::vector<LoopClosure> m_closures;
  const World* m_world = nullptr;
  std::string m_line;
  CsvLog m_log;
  std::vector<Sensor> m_sensors;
  VectorXd m_reading;
  std::vector<Joint> m_joints;     ///< every tree joint, for reactions
  std::vector<Joint> m_dofJoints;  ///< joints with DoFs, in state order, for the per-DoF groups
  std::vector<Frame> m_contactBodies;
};

}  // namespace articula::run
