#pragma once
/// @file
/// PlotPanel: the content of the Plots dock. Series over the recorded frames
/// of the running simulation, each a run-log column (FrameTable: the names
/// and numbers articula-run writes with --log all): any q, v, control,
/// actuator force, joint reaction, per-DoF joint force, contact wrench per
/// body (and the total contact force), sensor reading, energy, closure
/// residual or solve diagnostic. Series are added from the panel's Add menu
/// or from the scene tree (right-click > Plot). A vertical cursor marks the
/// shown frame's time; clicking a plot scrubs the timeline there. The wheel
/// zooms the time axis about the pointer, dragging pans, a double click
/// fits. Pause freezes the plotted data. The series go to CSV (as
/// articula-run's --csv columns) and the plot to PNG or SVG.

#include "object_ref.hpp"

#include <QColor>
#include <QStringList>
#include <QWidget>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QMenu;
class QPainter;
class QTimer;
class QToolButton;

namespace articula::studio {

class Document;
class FrameTable;
class Simulation;
struct SimulationStatus;

/// The drawing area: axes, grid, the series and the time cursor.
class PlotCanvas : public QWidget {
  Q_OBJECT

 public:
  struct Series {
    QString name;  ///< the column name
    int column = -1;
    QColor color;
  };

  explicit PlotCanvas(QWidget* parent = nullptr);

  void setData(const FrameTable* table, std::vector<Series> series);
  /// The time marked by the cursor (NaN: none).
  void setCursorTime(double t);
  double cursorTime() const { return m_cursor; }
  /// The time span shown; an empty span (t1 <= t0) shows every frame.
  void setTimeRange(double t0, double t1);
  /// Shows every frame again.
  void fit();
  /// The time span drawn now.
  std::pair<double, double> timeRange() const;
  /// The value span drawn now.
  std::pair<double, double> valueRange() const;
  /// The widget x of time `t`, and back (inside the plot area).
  double xOfTime(double t) const;
  double timeOfX(double x) const;
  /// Paints the plot into `rect` (the widget, PNG and SVG share it).
  void paint(QPainter& painter, const QRect& rect) const;

 signals:
  /// A click (not a drag) at simulated time `t`.
  void timeClicked(double t);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  QRect plotArea(const QRect& rect) const;
  std::pair<double, double> dataTimeRange() const;
  std::pair<double, double> valueRangeIn(double t0, double t1) const;

  const FrameTable* m_table = nullptr;
  std::vector<Series> m_series;
  double m_cursor = 0.0;
  bool m_hasCursor = false;
  bool m_zoomed = false;
  double m_t0 = 0.0, m_t1 = 0.0;
  bool m_pressed = false;
  bool m_dragged = false;
  QPoint m_pressPos;
  double m_pressT0 = 0.0, m_pressT1 = 0.0;
};

class PlotPanel : public QWidget {
  Q_OBJECT

 public:
  PlotPanel(Document* document, Simulation* simulation, QWidget* parent = nullptr);
  ~PlotPanel() override;

  /// Every column that can be plotted now (empty outside simulation mode).
  QStringList availableColumns() const;
  /// The columns that plot `ref` (a joint's q, v, reaction and per-DoF
  /// forces; a link's parent joint and contact wrench; a rigid body's
  /// coordinates and contact wrench; an actuator's control and force; a
  /// closure's residual; the world's energies, total contact force and
  /// diagnostics). Empty outside simulation mode.
  QStringList columnsFor(const ObjectRef& ref) const;
  /// Adds a series (a name of availableColumns()); false for an unknown
  /// name or one already plotted. Series persist across runs by name.
  bool addSeries(const QString& column);
  void removeSeries(const QString& column);
  void clearSeries();
  QStringList series() const;
  /// The plotted points (t, value) of a series, NaN values left out.
  std::vector<std::pair<double, double>> points(const QString& column) const;

  /// Freezes the plotted data (the cursor still follows the shown frame).
  void setPaused(bool paused);
  bool isPaused() const;
  /// Reads the recording now (unless paused).
  void refresh();

  /// Writes t and the plotted series, one row per recorded frame, with
  /// articula-run's CSV header names and number format. Atomic.
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  /// Writes the plot as PNG, or as SVG when the name ends in .svg. Atomic.
  bool exportImage(const QString& path, QString* error = nullptr) const;

  PlotCanvas* canvas() const { return m_canvas; }
  /// A menu of `columns` grouped by kind; choosing one adds it (for the
  /// scene tree's Plot submenu).
  void fillColumnMenu(QMenu* menu, const QStringList& columns);

 signals:
  /// A recorded frame to show (the plot was clicked).
  void frameRequested(std::size_t index);
  /// Something for the Messages dock.
  void message(const QString& text);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void onStatus(const SimulationStatus& status);
  void rebuildCanvas();
  void updateLabel();
  void exportCsvWithDialog();
  void exportImageWithDialog();

  Document* m_document;
  Simulation* m_simulation;
  std::unique_ptr<FrameTable> m_table;
  QStringList m_series;
  PlotCanvas* m_canvas = nullptr;
  QLabel* m_label = nullptr;
  QToolButton* m_pause = nullptr;
  QTimer* m_throttle = nullptr;
  std::uint64_t m_generation = 0;  ///< the simulation the table belongs to
  std::uint64_t m_history = 0;     ///< SimulationStatus::history the rows were read at
  std::size_t m_dropped = 0;
  std::size_t m_frames = 0;  ///< frames in the recording when last read
  bool m_stale = true;       ///< the recording changed since it was read
  bool m_active = false;
  double m_timeStep = 0.0;
  std::string m_solverMethod;
};

}  // namespace articula::studio
