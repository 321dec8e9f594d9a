#pragma once
/// @file
/// FrameTable: the run-log columns of a recording's frames — every group of
/// io::LogColumns, so the same names and numbers articula-run writes with
/// `--log all` — for the plot panel and File > Export Run to HDF5.
///
/// The frames are restored into a world of the design one by one. Forces,
/// reactions, contacts and diagnostics are outputs of the step that reached
/// a frame, not part of it: a frame that follows its predecessor by one
/// step is reached again by restoring that one and stepping (bit for bit,
/// as a resumed replay is); the state columns are the recorded frame's.
/// Frames that no single step reached (thinned recordings), or that the
/// step from the frame before does not reproduce (a drag pulled, or an
/// effort was sent between the two), get NaN in the output columns; frame 0
/// is the start, with no step yet: it gets what a world that never
/// stepped reports (as articula-run's first row).
///
/// After the run log's columns come `contact:total:{fx,fy,fz}`: the sum of
/// every body's contact force (world coordinates, N), i.e. the force the
/// static world pushes the simulated bodies with (contacts between two
/// bodies cancel in it). articula-run does not write them.

#include <articula/io/run_log.hpp>
#include <articula/recording.hpp>
#include <articula/world.hpp>
#include <articula/world_spec.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace articula::studio {

class FrameTable {
 public:
  /// Called after each computed frame with (frames done, frames to do);
  /// returning false cancels the update.
  using Progress = std::function<bool(std::size_t done, std::size_t total)>;

  /// A table over worlds of `design` (in simulation mode).
  /// @throws articula::Error when the design does not compile.
  explicit FrameTable(const WorldSpec& design);
  ~FrameTable();
  FrameTable(const FrameTable&) = delete;
  FrameTable& operator=(const FrameTable&) = delete;

  /// The column names (t first): articula-run's CSV header with --log all,
  /// then the total contact force.
  const std::vector<std::string>& names() const { return m_names; }
  const io::LogColumns& columns() const { return *m_columns; }
  /// The index of a column, or -1.
  int find(const std::string& name) const;
  /// The world the frames are restored into (its layout names the columns).
  const World& world() const { return *m_world; }

  /// The time step and solver method the frames were stepped with (the
  /// simulation may have changed the design's); applied before stepping.
  void setStepOptions(double timeStep, const std::string& solverMethod);

  /// Brings the rows in line with `recording`: the first `keep` rows are
  /// kept where they still name the same steps (the caller knows that
  /// nothing before them was replaced), the others are computed.
  /// @throws LayoutIncompatible when the recording belongs to another layout.
  /// @return false when `progress` cancelled (the rows computed so far stay).
  bool update(const Recording& recording, std::size_t keep = 0, const Progress& progress = {});
  /// Forgets every row.
  void clear();

  std::size_t rows() const { return m_steps.size(); }
  /// Row `i` (names().size() values).
  const double* row(std::size_t i) const { return m_values.data() + i * m_width; }
  double value(std::size_t i, int column) const { return row(i)[column]; }
  double time(std::size_t i) const { return row(i)[0]; }
  std::uint64_t step(std::size_t i) const { return m_steps[i]; }
  /// The row of the last frame at or before time `t` (the first row before
  /// it); nullopt without rows.
  std::optional<std::size_t> rowAtOrBefore(double t) const;

 private:
  std::unique_ptr<World> m_world;
  std::unique_ptr<io::LogColumns> m_columns;
  std::vector<std::string> m_names;
  std::vector<std::pair<int, int>> m_outputs;  ///< (offset, size) of the step-output blocks
  std::vector<int> m_contactForces;            ///< first column of each body's contact:BODY:fx
  int m_total = -1;                            ///< contact:total:fx, or -1 without contact bodies
  std::vector<double> m_startRow;              ///< the row of the world before any step
  std::vector<double> m_stepRow;               ///< scratch: the row after the step from the frame before
  std::size_t m_stateColumns = 0;              ///< t, q and v: the columns a step must reproduce
  std::size_t m_width = 0;                     ///< columns per row
  std::vector<double> m_values;                ///< rows × m_width
  std::vector<std::uint64_t> m_steps;          ///< per row, the frame's step index
};

}  // namespace articula::studio
