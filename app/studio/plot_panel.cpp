#include "plot_panel.hpp"

#include "document.hpp"
#include "frame_table.hpp"
#include "simulation.hpp"

#include <articula/io/run_log.hpp>
#include <articula/io/state_columns.hpp>

#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

namespace articula::studio {

namespace {

constexpr int kRefreshWhilePlayingMs = 1000;  // reading the recording while it grows: at most once a second
constexpr qint64 kReadBudgetMs = 30;          // frames read per turn of the event loop, so the window stays responsive
constexpr int kMaxTicks = 200;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Distinct, readable on white (Tableau's ten).
const QColor kPalette[] = {QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),   QColor(214, 39, 40),
                           QColor(148, 103, 189), QColor(140, 86, 75),  QColor(227, 119, 194), QColor(127, 127, 127),
                           QColor(188, 189, 34),  QColor(23, 190, 207)};

/// Tick step of about `span / target` rounded to 1, 2 or 5 × 10^k.
double niceStep(double span, int target) {
  const double raw = span / std::max(1, target);
  if (!(raw > 0.0) || !std::isfinite(raw)) return 0.0;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * p) return m * p;
  }
  return 10.0 * p;
}

QString tickText(double v, double step) {
  if (std::abs(v) < step * 1e-9) v = 0.0;
  const int decimals = std::clamp(static_cast<int>(-std::floor(std::log10(step))), 0, 9);
  if (std::abs(v) >= 1e5 || (std::abs(v) > 0 && std::abs(v) < 1e-4)) return QString::number(v, 'g', 3);
  return QString::number(v, 'f', decimals);
}

/// The group of a column name (its first field), for menus.
QString groupOf(const QString& column) {
  static const std::map<QString, QString> kTitles = {{"q", QObject::tr("Positions")},
                                                     {"v", QObject::tr("Velocities")},
                                                     {"ctrl", QObject::tr("Controls")},
                                                     {"force", QObject::tr("Actuator forces")},
                                                     {"residual", QObject::tr("Closure residuals")},
                                                     {"sensor", QObject::tr("Sensors")},
                                                     {"reaction", QObject::tr("Joint reactions")},
                                                     {"jointforce", QObject::tr("Joint forces")},
                                                     {"limit", QObject::tr("Limit forces")},
                                                     {"friction", QObject::tr("Joint friction")},
                                                     {"contact", QObject::tr("Contact wrenches")},
                                                     {"energy", QObject::tr("Energy")},
                                                     {"diagnostics", QObject::tr("Solver diagnostics")}};
  const QString key = column.section(':', 0, 0);
  const auto it = kTitles.find(key);
  return it == kTitles.end() ? key : it->second;
}

/// Empties a menu filled on demand, its submenus too (clear() keeps them).
void clearMenu(QMenu* menu) {
  qDeleteAll(menu->findChildren<QMenu*>(Qt::FindDirectChildrenOnly));
  menu->clear();
}

}  // namespace

// ---- PlotCanvas -------------------------------------------------------------------

PlotCanvas::PlotCanvas(QWidget* parent) : QWidget(parent) {
  setObjectName("plotCanvas");
  setMinimumSize(240, 140);
  setMouseTracking(false);
  setCursor(Qt::CrossCursor);
}

void PlotCanvas::setData(const FrameTable* table, std::vector<Series> series) {
  m_table = table;
  m_series = std::move(series);
  update();
}

void PlotCanvas::setCursorTime(double t) {
  const bool has = std::isfinite(t);
  if (has == m_hasCursor && (!has || t == m_cursor)) return;
  m_hasCursor = has;
  m_cursor = has ? t : 0.0;
  update();
}

void PlotCanvas::setTimeRange(double t0, double t1) {
  // Zoom in no further than a span the axis can still label.
  const double least = std::max(1e-9, 1e-9 * std::max(std::abs(t0), std::abs(t1)));
  if (t1 > t0 && t1 - t0 < least) {
    const double mid = 0.5 * (t0 + t1);
    t0 = mid - 0.5 * least;
    t1 = mid + 0.5 * least;
  }
  m_zoomed = t1 > t0;
  m_t0 = t0;
  m_t1 = t1;
  update();
}

void PlotCanvas::fit() {
  setTimeRange(0.0, 0.0);
}

std::pair<double, double> PlotCanvas::dataTimeRange() const {
  if (!m_table || m_table->rows() == 0) return {0.0, 1.0};
  const double a = m_table->time(0), b = m_table->time(m_table->rows() - 1);
  return b > a ? std::make_pair(a, b) : std::make_pair(a, a + 1.0);
}

std::pair<double, double> PlotCanvas::timeRange() const {
  return m_zoomed ? std::make_pair(m_t0, m_t1) : dataTimeRange();
}

std::pair<double, double> PlotCanvas::valueRangeIn(double t0, double t1) const {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  if (m_table) {
    for (std::size_t i = 0; i < m_table->rows(); ++i) {
      const double t = m_table->time(i);
      if (t < t0 || t > t1) continue;
      for (const Series& s : m_series) {
        const double v = m_table->value(i, s.column);
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  }
  if (!(lo <= hi)) return {-1.0, 1.0};
  if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi))) {
    const double pad = std::max(std::abs(hi) * 0.05, 1e-9);
    return {lo - pad, hi + pad};
  }
  const double pad = 0.05 * (hi - lo);
  return {lo - pad, hi + pad};
}

std::pair<double, double> PlotCanvas::valueRange() const {
  const auto [t0, t1] = timeRange();
  return valueRangeIn(t0, t1);
}

QRect PlotCanvas::plotArea(const QRect& rect) const {
  return rect.adjusted(64, 10, -12, -30);
}

double PlotCanvas::xOfTime(double t) const {
  const QRect a = plotArea(rect());
  const auto [t0, t1] = timeRange();
  return a.left() + (t - t0) / (t1 - t0) * a.width();
}

double PlotCanvas::timeOfX(double x) const {
  const QRect a = plotArea(rect());
  const auto [t0, t1] = timeRange();
  return t0 + (x - a.left()) / std::max(1, a.width()) * (t1 - t0);
}

void PlotCanvas::paint(QPainter& p, const QRect& rect) const {
  p.fillRect(rect, Qt::white);
  const QRect a = plotArea(rect);
  if (a.width() < 10 || a.height() < 10) return;
  const auto [t0, t1] = timeRange();
  const auto [v0, v1] = valueRangeIn(t0, t1);
  const auto X = [&](double t) { return a.left() + (t - t0) / (t1 - t0) * a.width(); };
  const auto Y = [&](double v) { return a.bottom() - (v - v0) / (v1 - v0) * a.height(); };

  // Grid and ticks.
  QFont font = p.font();
  font.setPointSizeF(8.0);
  p.setFont(font);
  const QPen gridPen(QColor(225, 225, 225), 1.0);
  const QPen textPen(QColor(60, 60, 60));
  const double ts = niceStep(t1 - t0, std::max(2, a.width() / 90));
  const auto ticks = [](double lo, double hi, double step) {
    std::vector<double> out;
    if (!(step > 0.0)) return out;
    const double first = std::ceil(lo / step);
    for (int k = 0; k < kMaxTicks; ++k) {
      const double v = (first + k) * step;
      if (v > hi + 1e-9 * step) break;
      out.push_back(v);
    }
    return out;
  };
  for (const double t : ticks(t0, t1, ts)) {
    p.setPen(gridPen);
    p.drawLine(QPointF(X(t), a.top()), QPointF(X(t), a.bottom()));
    p.setPen(textPen);
    p.drawText(QRectF(X(t) - 40, a.bottom() + 3, 80, 14), Qt::AlignHCenter | Qt::AlignTop, tickText(t, ts));
  }
  const double vs = niceStep(v1 - v0, std::max(2, a.height() / 40));
  for (const double v : ticks(v0, v1, vs)) {
    p.setPen(gridPen);
    p.drawLine(QPointF(a.left(), Y(v)), QPointF(a.right(), Y(v)));
    p.setPen(textPen);
    p.drawText(QRectF(rect.left(), Y(v) - 7, a.left() - rect.left() - 4, 14), Qt::AlignRight | Qt::AlignVCenter,
               tickText(v, vs));
  }
  p.setPen(textPen);
  p.drawText(QRectF(a.left(), a.bottom() + 15, a.width(), 14), Qt::AlignHCenter | Qt::AlignTop, tr("t (s)"));
  p.setPen(QPen(QColor(120, 120, 120), 1.0));
  p.drawRect(a);

  // Series: one point per frame, or the extremes of each pixel column when
  // frames are denser than pixels.
  p.save();
  p.setClipRect(a.adjusted(0, -1, 1, 1));
  p.setRenderHint(QPainter::Antialiasing, true);
  if (m_table) {
    const std::size_t n = m_table->rows();
    std::size_t first = 0, last = n;
    if (const auto i = m_table->rowAtOrBefore(t0)) first = *i;
    if (const auto i = m_table->rowAtOrBefore(t1)) last = std::min(n, *i + 2);
    for (const Series& s : m_series) {
      QPainterPath path;
      bool open = false;
      int column = std::numeric_limits<int>::min();
      double lo = 0.0, hi = 0.0, lastY = 0.0;
      const auto flush = [&] {
        if (column == std::numeric_limits<int>::min()) return;
        if (!open) {
          path.moveTo(column, Y(lo));
          open = true;
        } else {
          path.lineTo(column, Y(lo));
        }
        if (hi != lo) path.lineTo(column, Y(hi));
        path.lineTo(column, lastY);
      };
      for (std::size_t i = first; i < last; ++i) {
        const double v = m_table->value(i, s.column);
        if (!std::isfinite(v)) {
          flush();
          column = std::numeric_limits<int>::min();
          open = false;
          continue;
        }
        const double x = X(m_table->time(i));
        if (n <= static_cast<std::size_t>(a.width())) {
          if (!open) {
            path.moveTo(x, Y(v));
            open = true;
          } else {
            path.lineTo(x, Y(v));
          }
          continue;
        }
        const int c = static_cast<int>(std::floor(x));
        if (c != column) {
          flush();
          column = c;
          lo = hi = v;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        lastY = Y(v);
      }
      flush();
      p.setPen(QPen(s.color, 1.6));
      p.drawPath(path);
    }
  }
  p.restore();

  // The shown frame.
  if (m_hasCursor && m_cursor >= t0 && m_cursor <= t1) {
    p.setPen(QPen(QColor(200, 30, 30), 1.0, Qt::DashLine));
    p.drawLine(QPointF(X(m_cursor), a.top()), QPointF(X(m_cursor), a.bottom()));
  }

  // Legend.
  const QFontMetrics fm(font);
  int y = a.top() + 6;
  int width = 0;
  for (const Series& s : m_series) width = std::max(width, fm.horizontalAdvance(s.name));
  if (!m_series.empty()) {
    const QRect box(a.left() + 6, y - 3, width + 30, static_cast<int>(m_series.size()) * 15 + 4);
    p.fillRect(box, QColor(255, 255, 255, 220));
    p.setPen(QColor(200, 200, 200));
    p.drawRect(box);
  }
  for (const Series& s : m_series) {
    p.setPen(QPen(s.color, 2.0));
    p.drawLine(a.left() + 10, y + 6, a.left() + 28, y + 6);
    p.setPen(textPen);
    p.drawText(QPoint(a.left() + 32, y + 10), s.name);
    y += 15;
  }
  if (m_series.empty()) {
    p.setPen(textPen);
    p.drawText(a, Qt::AlignCenter, tr("Add a series (Add ▾, or right-click an object in the scene tree > Plot)"));
  }
}

void PlotCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, rect());
}

void PlotCanvas::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  m_pressed = true;
  m_dragged = false;
  m_pressPos = event->position().toPoint();
  std::tie(m_pressT0, m_pressT1) = timeRange();
}

void PlotCanvas::mouseMoveEvent(QMouseEvent* event) {
  if (!m_pressed) return;
  const QPoint d = event->position().toPoint() - m_pressPos;
  if (!m_dragged && d.manhattanLength() < 4) return;
  m_dragged = true;
  const double dt = -d.x() / std::max(1.0, double(plotArea(rect()).width())) * (m_pressT1 - m_pressT0);
  setTimeRange(m_pressT0 + dt, m_pressT1 + dt);
}

void PlotCanvas::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_pressed) return;
  m_pressed = false;
  if (!m_dragged && plotArea(rect()).contains(event->position().toPoint())) {
    emit timeClicked(timeOfX(event->position().x()));
  }
}

void PlotCanvas::mouseDoubleClickEvent(QMouseEvent*) {
  fit();
}

void PlotCanvas::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0.0) return;
  const auto [t0, t1] = timeRange();
  const double at = timeOfX(event->position().x());
  const double factor = std::pow(0.8, steps);  // up: zoom in
  setTimeRange(at - (at - t0) * factor, at + (t1 - at) * factor);
  event->accept();
}

// ---- PlotPanel ---------------------------------------------------------------------

PlotPanel::PlotPanel(Document* document, Simulation* simulation, QWidget* parent)
    : QWidget(parent), m_document(document), m_simulation(simulation) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  bar->setSpacing(2);
  const auto button = [&](const QString& text, const char* name, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setObjectName(name);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    bar->addWidget(b);
    return b;
  };
  QToolButton* add = button(tr("Add"), "plotAdd", tr("Plot another quantity of the run"));
  auto* addMenu = new QMenu(add);
  addMenu->setObjectName("plotAddMenu");
  add->setMenu(addMenu);
  add->setPopupMode(QToolButton::InstantPopup);
  connect(addMenu, &QMenu::aboutToShow, this, [this, addMenu] {
    clearMenu(addMenu);
    const QStringList columns = availableColumns();
    if (columns.isEmpty()) {
      addMenu->addAction(tr("Simulate to plot the run"))->setEnabled(false);
      return;
    }
    QStringList rest;
    for (const QString& c : columns) {
      if (c != "t" && !m_series.contains(c)) rest << c;
    }
    fillColumnMenu(addMenu, rest);
  });
  QToolButton* remove = button(tr("Remove"), "plotRemove", tr("Stop plotting a series"));
  auto* removeMenu = new QMenu(remove);
  removeMenu->setObjectName("plotRemoveMenu");
  remove->setMenu(removeMenu);
  remove->setPopupMode(QToolButton::InstantPopup);
  connect(removeMenu, &QMenu::aboutToShow, this, [this, removeMenu] {
    clearMenu(removeMenu);
    for (const QString& s : m_series) {
      connect(removeMenu->addAction(s), &QAction::triggered, this, [this, s] { removeSeries(s); });
    }
    if (m_series.isEmpty()) removeMenu->addAction(tr("Nothing is plotted"))->setEnabled(false);
  });
  connect(button(tr("Clear"), "plotClear", tr("Remove every series")), &QToolButton::clicked, this,
          &PlotPanel::clearSeries);
  m_pause = button(tr("Pause"), "plotPause", tr("Freeze the plotted data (the cursor still follows the timeline)"));
  m_pause->setCheckable(true);
  connect(m_pause, &QToolButton::toggled, this, &PlotPanel::setPaused);
  connect(button(tr("Fit"), "plotFit", tr("Show every frame (or double-click the plot)")), &QToolButton::clicked, this,
          [this] { m_canvas->fit(); });
  bar->addSpacing(8);
  connect(button(tr("CSV…"), "plotExportCsv", tr("Write the plotted series to a CSV file")), &QToolButton::clicked,
          this, &PlotPanel::exportCsvWithDialog);
  connect(button(tr("Image…"), "plotExportImage", tr("Write the plot as PNG or SVG")), &QToolButton::clicked, this,
          &PlotPanel::exportImageWithDialog);
  bar->addStretch(1);
  m_label = new QLabel(this);
  m_label->setObjectName("plotStatus");
  bar->addWidget(m_label);
  layout->addLayout(bar);
  m_canvas = new PlotCanvas(this);
  layout->addWidget(m_canvas, 1);

  connect(m_canvas, &PlotCanvas::timeClicked, this, [this](double t) {
    if (!m_table) return;
    // Rows are the recorded frames only while none was replaced since they were read.
    const SimulationStatus& status = m_simulation->status();
    if (status.history != m_history || status.droppedFrames != m_dropped) {
      if (isPaused()) {
        emit message(tr("Plots: the plotted frames were replaced since the plot was paused; resume it to scrub"));
        return;
      }
      refresh();
    }
    // The frame shown at t: the last one at or before it, or the nearer
    // neighbour when the click falls between two.
    const auto i = m_table->rowAtOrBefore(t);
    if (!i) return;
    std::size_t k = *i;
    if (k + 1 < m_table->rows() && std::abs(m_table->time(k + 1) - t) < std::abs(t - m_table->time(k))) ++k;
    emit frameRequested(k);
  });

  m_throttle = new QTimer(this);
  m_throttle->setSingleShot(true);
  connect(m_throttle, &QTimer::timeout, this, &PlotPanel::refresh);
  connect(m_simulation, &Simulation::statusChanged, this, &PlotPanel::onStatus);
  updateLabel();
}

PlotPanel::~PlotPanel() = default;

QStringList PlotPanel::availableColumns() const {
  QStringList out;
  if (!m_table) return out;
  for (const std::string& n : m_table->names()) out << QString::fromStdString(n);
  return out;
}

QStringList PlotPanel::columnsFor(const ObjectRef& ref) const {
  QStringList out;
  if (!m_table) return out;
  const World& world = m_table->world();
  const QStringList all = availableColumns();
  const auto withPrefix = [&](const QString& prefix) {
    for (const QString& c : all) {
      if (c.startsWith(prefix)) out << c;
    }
  };
  const io::StateColumns state(world);
  // A joint's (or rigid body's) coordinates, and its per-DoF groups.
  const auto coordinates = [&](const std::string& multibody, const std::string& joint, const std::string& body) {
    for (const io::StateOwner& o : state.owners()) {
      if (multibody.empty() ? o.multibody.empty() && o.name == body : o.multibody == multibody && o.joint == joint) {
        for (int k = 0; k < o.numPositions; ++k) {
          out << "q:" + QString::fromStdString(state.positionNames()[static_cast<std::size_t>(o.positionOffset + k)]);
        }
        for (const char* group : {"v:", "jointforce:", "limit:", "friction:"}) {
          for (int k = 0; k < o.numDofs; ++k) {
            const QString c =
                group + QString::fromStdString(state.velocityNames()[static_cast<std::size_t>(o.velocityOffset + k)]);
            if (all.contains(c)) out << c;
          }
        }
      }
    }
  };
  switch (ref.kind) {
    case ObjectKind::World:
      withPrefix("energy:");
      withPrefix("contact:total:");
      withPrefix("diagnostics:");
      break;
    case ObjectKind::RigidBody:
      coordinates({}, {}, ref.name);
      withPrefix(QString::fromStdString("contact:" + ref.name + ":"));
      break;
    case ObjectKind::Joint: {
      const auto [mb, joint] = splitPath(ref.name);
      coordinates(mb, joint, {});
      withPrefix(QString::fromStdString("reaction:" + ref.name + ":"));
      break;
    }
    case ObjectKind::Link: {
      if (const auto link = findLink(world, ref)) {
        const auto [mb, name] = splitPath(ref.name);
        const Joint j = link->getParentJoint();
        coordinates(mb, j.name(), {});
        withPrefix(QString::fromStdString("reaction:" + mb + "/" + j.name() + ":"));
      }
      withPrefix(QString::fromStdString("contact:" + ref.name + ":"));
      break;
    }
    case ObjectKind::Actuator:
      for (const char* g : {"ctrl:", "force:"}) {
        const QString c = g + QString::fromStdString(ref.name);
        if (all.contains(c)) out << c;
      }
      break;
    case ObjectKind::LoopClosure: {
      const QString c = "residual:" + QString::fromStdString(ref.name);
      if (all.contains(c)) out << c;
      break;
    }
    default:
      break;
  }
  out.removeDuplicates();
  return out;
}

void PlotPanel::fillColumnMenu(QMenu* menu, const QStringList& columns) {
  std::map<QString, QMenu*> groups;
  // Short lists stay flat; longer ones are grouped by kind.
  const bool flat = columns.size() <= 12;
  for (const QString& c : columns) {
    QMenu* target = menu;
    if (!flat) {
      const QString g = groupOf(c);
      auto it = groups.find(g);
      if (it == groups.end()) it = groups.emplace(g, menu->addMenu(g)).first;
      target = it->second;
    }
    QAction* a = target->addAction(c);
    a->setEnabled(!m_series.contains(c));
    connect(a, &QAction::triggered, this, [this, c] { addSeries(c); });
  }
}

bool PlotPanel::addSeries(const QString& column) {
  if (m_series.contains(column)) return false;
  if (!m_table || m_table->find(column.toStdString()) < 0) return false;
  m_series << column;
  if (m_stale) refresh();
  rebuildCanvas();
  return true;
}

void PlotPanel::removeSeries(const QString& column) {
  m_series.removeAll(column);
  rebuildCanvas();
}

void PlotPanel::clearSeries() {
  m_series.clear();
  rebuildCanvas();
}

QStringList PlotPanel::series() const {
  return m_series;
}

std::vector<std::pair<double, double>> PlotPanel::points(const QString& column) const {
  std::vector<std::pair<double, double>> out;
  if (!m_table) return out;
  const int c = m_table->find(column.toStdString());
  if (c < 0) return out;
  for (std::size_t i = 0; i < m_table->rows(); ++i) {
    const double v = m_table->value(i, c);
    if (!std::isnan(v)) out.emplace_back(m_table->time(i), v);
  }
  return out;
}

void PlotPanel::setPaused(bool paused) {
  if (m_pause->isChecked() != paused) m_pause->setChecked(paused);  // toggled() comes back here
  if (!paused && m_stale) refresh();
  updateLabel();
}

bool PlotPanel::isPaused() const {
  return m_pause->isChecked();
}

void PlotPanel::onStatus(const SimulationStatus& status) {
  if (!status.active) {
    if (m_active) {
      m_active = false;
      m_table.reset();
      m_generation = 0;
      rebuildCanvas();
      m_canvas->setCursorTime(kNaN);
    }
    return;
  }
  m_active = true;
  if (status.generation != m_generation) {
    m_generation = status.generation;
    m_table.reset();
    try {
      m_table = std::make_unique<FrameTable>(m_document->designSpec());
    } catch (const std::exception& e) {
      emit message(tr("Plots: %1").arg(QString::fromUtf8(e.what())));
    }
    m_history = status.history;
    m_dropped = status.droppedFrames;
    m_frames = 0;
    m_stale = true;
    // Series of the last run that this one has too stay plotted.
    QStringList kept;
    for (const QString& s : m_series) {
      if (m_table && m_table->find(s.toStdString()) >= 0) kept << s;
    }
    m_series = kept;
    m_canvas->fit();
  }
  if (status.history != m_history || status.droppedFrames != m_dropped || status.frames != m_frames ||
      status.timeStep != m_timeStep || status.solverMethod != m_solverMethod) {
    m_stale = true;
  }
  m_timeStep = status.timeStep;
  m_solverMethod = status.solverMethod;
  m_canvas->setCursorTime(status.time);
  if (!m_stale || isPaused() || !isVisible()) {
    updateLabel();
    return;
  }
  if (status.playing) {
    if (!m_throttle->isActive()) m_throttle->start(kRefreshWhilePlayingMs);
  } else {
    m_throttle->stop();
    refresh();
  }
}

void PlotPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (m_stale && !isPaused()) refresh();
}

void PlotPanel::refresh() {
  if (!m_table || !m_simulation->isActive() || isPaused()) return;
  const SimulationStatus& status = m_simulation->status();
  try {
    const Recording recording = m_simulation->recordingCopy();
    // Rows read before stay valid unless frames were replaced (a reset, a
    // new branch, a change of solver) or the oldest were thinned.
    const bool same = status.history == m_history && status.droppedFrames == m_dropped;
    m_table->setStepOptions(status.timeStep, status.solverMethod);
    // A long recording is read a slice at a time; the rest on the next turn.
    QElapsedTimer clock;
    clock.start();
    const bool done = m_table->update(recording, same ? m_table->rows() : 0,
                                      [&clock](std::size_t, std::size_t) { return clock.elapsed() < kReadBudgetMs; });
    m_history = status.history;
    m_dropped = status.droppedFrames;
    m_frames = done ? recording.size() : 0;
    m_stale = !done || m_frames != status.frames;
    if (!done) m_throttle->start(0);
  } catch (const std::exception& e) {
    m_table->clear();
    emit message(tr("Plots: the recorded frames could not be read: %1").arg(QString::fromUtf8(e.what())));
    m_stale = false;
  }
  rebuildCanvas();
}

void PlotPanel::rebuildCanvas() {
  std::vector<PlotCanvas::Series> series;
  for (int i = 0; i < m_series.size(); ++i) {
    const int c = m_table ? m_table->find(m_series[i].toStdString()) : -1;
    if (c < 0) continue;
    series.push_back({m_series[i], c, kPalette[i % std::size(kPalette)]});
  }
  m_canvas->setData(m_table.get(), std::move(series));
  updateLabel();
}

void PlotPanel::updateLabel() {
  if (!m_table) {
    m_label->setText(tr("Simulate to plot the run"));
    return;
  }
  QString text = tr("%n frame(s)", nullptr, static_cast<int>(m_table->rows()));
  if (isPaused()) text += tr(" · paused");
  m_label->setText(text);
}

bool PlotPanel::exportCsv(const QString& path, QString* error) const {
  const auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!m_table) return fail(tr("nothing is simulated"));
  std::vector<int> columns = {0};
  std::string text = "t";
  for (const QString& s : m_series) {
    const int c = m_table->find(s.toStdString());
    if (c < 0) continue;
    columns.push_back(c);
    text += ',' + io::csvField(s.toStdString());
  }
  text += '\n';
  for (std::size_t i = 0; i < m_table->rows(); ++i) {
    for (std::size_t k = 0; k < columns.size(); ++k) {
      if (k) text += ',';
      text += io::csvNumber(m_table->value(i, columns[k]));
    }
    text += '\n';
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return fail(file.errorString());
  file.write(text.data(), static_cast<qint64>(text.size()));
  if (!file.commit()) return fail(file.errorString());
  return true;
}

bool PlotPanel::exportImage(const QString& path, QString* error) const {
  const auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  const QSize size = m_canvas->size().expandedTo(QSize(640, 360));
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return fail(file.errorString());
  if (path.endsWith(".svg", Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(tr("Articula plot"));
    svg.setDescription(m_series.join(", "));
    QPainter p(&svg);
    m_canvas->paint(p, QRect(QPoint(0, 0), size));
    p.end();
  } else {
    QImage image(size, QImage::Format_RGB32);
    QPainter p(&image);
    m_canvas->paint(p, image.rect());
    p.end();
    if (!image.save(&file, "PNG")) return fail(tr("the image could not be encoded"));
  }
  if (!file.commit()) return fail(file.errorString());
  return true;
}

void PlotPanel::exportCsvWithDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Plotted Series"), "plot.csv", tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  if (exportCsv(path, &error)) {
    emit message(tr("Wrote %1 series to %2").arg(m_series.size()).arg(path));
  } else {
    emit message(tr("Could not write %1: %2").arg(path, error));
  }
}

void PlotPanel::exportImageWithDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export Plot"), "plot.png", tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  if (exportImage(path, &error)) {
    emit message(tr("Wrote the plot to %1").arg(path));
  } else {
    emit message(tr("Could not write %1: %2").arg(path, error));
  }
}

}  // namespace articula::studio
