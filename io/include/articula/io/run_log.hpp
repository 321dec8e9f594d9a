#pragma once
/// @file
/// Run logs: the quantities of a run, one row per logged step, as CSV
/// (articula-run --csv) or HDF5 (--hdf5, Hdf5Logger).
///
/// LogColumns decides the columns once (from the world's layout and the
/// groups asked for) and then fills rows without allocating. Its column
/// names are the CSV header's: `t`, `q:NAME`, `v:NAME`, `residual:CLOSURE`,
/// `ctrl:ACTUATOR`, `force:ACTUATOR`, `sensor:NAME:VALUE`, and the optional
/// groups. Columns come in blocks; an HDF5 log stores each block as one
/// dataset (rows × columns, float64) whose `columns` attribute holds the
/// block's column names, so a log and the CSV of the same run hold the same
/// numbers under the same names.

#include <articula/world.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace articula::io {

/// Column groups after t, q and v (articula-run --log).
struct LogGroups {
  bool residuals = true;     ///< residual:CLOSURE (loop-closure residual norms, m or rad)
  bool controls = true;      ///< ctrl:ACTUATOR, force:ACTUATOR (controls and forces of the last step)
  bool sensors = true;       ///< sensor:NAME:VALUE
  bool reactions = false;    ///< reaction:MULTIBODY/JOINT:{fx,fy,fz,tx,ty,tz} (joint frame)
  bool jointForces = false;  ///< jointforce:DOF (Sᵀ·wrench, the generalized force through the joint)
  bool limits = false;       ///< limit:DOF
  bool friction = false;     ///< friction:DOF
  bool contacts = false;     ///< contact:BODY:{fx,fy,fz,tx,ty,tz} (world coordinates, about the body origin)
  /// energy:{kinetic,potential,total} (J), and the step's diagnostics:
  /// contacts (points), rows, iterations, solve residual, converged (1/0).
  /// In HDF5 logs only, by default; CSV writes them when asked for (--log energies,diagnostics).
  bool energies = false;
  bool diagnostics = false;
};

/// Parses a comma-separated list of groups (residuals, controls, sensors,
/// reactions, joint-forces, limits, friction, contacts, energies,
/// diagnostics, all); the groups listed replace the default ones.
/// @throws InvalidArgument naming an unknown group.
LogGroups parseLogGroups(const std::string& list);
/// The group names parseLogGroups takes, for usage texts.
const char* logGroupNames();

/// A run of consecutive columns stored together (one HDF5 dataset).
struct LogBlock {
  std::string dataset;  ///< "t", "q", "v", "residual", "ctrl", "force", "sensor", ...
  int offset = 0;       ///< first column in the row
  int size = 0;         ///< number of columns
};

/// The columns of a run log over one world, and rows of them.
class LogColumns {
 public:
  /// Columns for the world's current layout (the world must keep it: no
  /// design edits while rows are filled).
  LogColumns(const World& world, const LogGroups& groups);

  const std::vector<std::string>& names() const { return m_names; }
  const std::vector<LogBlock>& blocks() const { return m_blocks; }
  int size() const { return static_cast<int>(m_names.size()); }
  /// The index of a column name, or -1.
  int find(const std::string& name) const;
  /// Whether filling a row allocates nothing (reactions, joint-forces,
  /// limits and friction read the joints' reactions, which allocate; the
  /// contact wrenches are not checked for it).
  bool allocationFree() const;

  /// Fills `row` (size() values) from the world as it is now.
  void fill(const World& world, double* row);
  /// Fills `row` with t, q and v given (a state to report that the world no
  /// longer holds, e.g. the last good one after a divergence); the other
  /// columns come from the world.
  void fill(const World& world, double t, const VectorXd& q, const VectorXd& v, double* row);

 private:
  void fillRest(const World& world, double* row);
  void add(const std::string& dataset, std::vector<std::string> names);

  LogGroups m_groups;
  std::vector<std::string> m_names;
  std::vector<LogBlock> m_blocks;
  int m_nq = 0, m_nv = 0;
  std::vector<LoopClosure> m_closures;
  std::vector<Actuator> m_actuators;
  std::vector<Sensor> m_sensors;
  std::vector<int> m_sensorSizes;
  std::vector<Joint> m_joints;     ///< every tree joint, for reactions
  std::vector<Joint> m_dofJoints;  ///< joints with DoFs, in state order, for the per-DoF groups
  std::vector<Frame> m_contactBodies;
  VectorXd m_q, m_v, m_reading;
};

/// What an HDF5 log records about the run that made it (root attributes).
struct RunLogInfo {
  std::string scenePath;    ///< the scene file (absolute), or "builtin:NAME"
  std::string sceneSha256;  ///< SHA-256 of the scene file's bytes (hex); empty for a built-in scene
  std::string commandLine;  ///< how the run was started
  std::string options;      ///< the options that shaped the world, as JSON
};

/// A number as run-log CSV text: the shortest text that reads back as the
/// same double; `nan`, `inf`, `-inf`.
std::string csvNumber(double value);
/// `s` as a CSV field: quoted (with doubled quotes) when it holds a comma,
/// a quote or a line break.
std::string csvField(const std::string& s);

/// SHA-256 of `bytes`, as 64 lowercase hex digits.
std::string sha256Hex(std::string_view bytes);
/// The world's options (time step, integrator, solver, gravity) as JSON.
std::string optionsJson(const WorldOptions& options);

/// An HDF5 log file being written. Rows are buffered in memory and written
/// a chunk at a time (chunked datasets, shuffle + deflate), to a temporary
/// file next to the target that replaces it only at commit(): a failed or
/// interrupted run leaves the previous file untouched.
class Hdf5Log {
 public:
  /// Creates the temporary file and the datasets (one per block of
  /// `columns`, plus `t`). `chunkRows` rows are buffered before a write.
  /// @throws FileAccessError when the target cannot be written.
  Hdf5Log(const std::filesystem::path& target, const LogColumns& columns, const RunLogInfo& info, int chunkRows = 1024);
  ~Hdf5Log();
  Hdf5Log(const Hdf5Log&) = delete;
  Hdf5Log& operator=(const Hdf5Log&) = delete;

  /// A row buffer to fill (LogColumns::fill) and then append(); no allocation.
  double* nextRow();
  /// Takes the row filled at nextRow(); writes a chunk when the buffer is
  /// full. @throws FileAccessError when writing fails.
  void append();
  /// Appends a copy of `row` (size() values).
  void append(const double* row);
  /// Writes the buffered rows and an attribute, then puts the file in place.
  /// @throws FileAccessError; the target is then unchanged.
  void commit();
  /// Sets a root attribute (text) before commit(), e.g. how a run ended.
  void setAttribute(const std::string& name, const std::string& value);
  std::int64_t rows() const;
  const std::filesystem::path& target() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The results of a parameter sweep, one row per run (articula-run sweep).
struct SweepTable {
  std::vector<std::string> parameterNames;
  std::vector<std::string> metricNames;
  std::vector<std::int64_t> run;
  std::vector<std::string> status;  ///< "ok", "diverged" or "failed"
  std::vector<std::int64_t> exitCode;
  std::vector<std::vector<std::string>> parameters;             ///< per run, the values as given
  std::vector<std::vector<double>> metrics;                     ///< per run (NaN where undefined)
  std::vector<std::string> message;                             ///< per run: why it failed or diverged
  std::vector<std::pair<std::string, std::string>> attributes;  ///< root attributes
};

/// Writes `table` as HDF5, atomically: datasets run, status, exit_code,
/// message, parameter_values (text, runs × parameters), parameters (the
/// same as numbers; NaN for text) and metrics (runs × metrics), with
/// `columns` attributes. The same table gives the same bytes.
/// @throws FileAccessError.
void writeSweepTable(const std::filesystem::path& target, const SweepTable& table);

/// A step observer that logs a world to HDF5: every `every`-th step (and
/// the state when attached) becomes a row. Allocation-free per step when
/// LogColumns::allocationFree() (the default groups). A failed write (a
/// full disk) throws out of the step that met it; the logger then logs
/// nothing more and close() throws.
class Hdf5Logger {
 public:
  struct Options {
    LogGroups groups{true, true, true, false, false, false, false, false, true, true};
    int every = 1;         ///< log every K-th step
    int chunkRows = 1024;  ///< rows per HDF5 chunk (and per write)
    RunLogInfo info;
  };
  /// Opens the log and writes the first row (the world's current state);
  /// attaches to `world` as a step observer. The world must stay alive and
  /// keep its layout until close() or destruction.
  Hdf5Logger(World& world, const std::filesystem::path& target, const Options& options);
  Hdf5Logger(World& world, const std::filesystem::path& target);
  /// Detaches; without close(), the temporary file is removed.
  ~Hdf5Logger();
  Hdf5Logger(const Hdf5Logger&) = delete;
  Hdf5Logger& operator=(const Hdf5Logger&) = delete;

  /// Detaches and puts the file in place. @throws FileAccessError.
  void close();
  /// Stops logging steps (the file stays open until close()).
  void detach();
  const LogColumns& columns() const { return m_columns; }
  std::int64_t rows() const;
  /// The underlying file, e.g. to append a last row by hand or set attributes.
  Hdf5Log& log() { return *m_log; }

 private:
  void onStep(const World& world);

  World* m_world = nullptr;
  LogColumns m_columns;
  std::unique_ptr<Hdf5Log> m_log;
  std::uint64_t m_observer = 0;
  bool m_attached = false;
  int m_every = 1;
  std::uint64_t m_steps = 0;
  bool m_failed = false;  ///< a write failed: the step that met it threw; later steps are not logged
};

}  // namespace articula::io
