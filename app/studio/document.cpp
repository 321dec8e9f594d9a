#include "document.hpp"

#include "commands.hpp"

#include <articula/io/scene_file.hpp>

#include <QUndoStack>

#include <algorithm>
#include <exception>

namespace articula::studio {

Document::Document(QObject* parent) : QObject(parent), m_world(std::make_unique<World>()) {
  m_undo = new QUndoStack(this);
  connect(m_undo, &QUndoStack::cleanChanged, this, &Document::fileStateChanged);
  m_world->addGroundPlane();
}

Document::~Document() = default;

QString Document::displayName() const {
  if (!m_filePath.empty()) return QString::fromStdString(m_filePath.filename().string());
  if (!m_sourcePath.empty()) return QString::fromStdString(m_sourcePath.filename().string());
  return QStringLiteral("untitled");
}

bool Document::isModified() const {
  return !m_undo->isClean();
}

void Document::newDesign() {
  auto fresh = std::make_unique<World>();
  fresh->addGroundPlane();
  adopt(std::move(fresh), {}, std::nullopt);
  m_importOptions = {};
}

io::ImportReport Document::open(const std::filesystem::path& file, const io::ImportOptions& options) {
  // Import into a fresh world: on failure the open design is untouched.
  auto fresh = std::make_unique<World>();
  io::ImportReport report = io::importFile(*fresh, file, options);
  adopt(std::move(fresh), file, report);
  m_importOptions = options;
  return report;
}

void Document::adopt(std::unique_ptr<World> world, const std::filesystem::path& source,
                     const std::optional<io::ImportReport>& report) {
  m_world = std::move(world);
  m_sourcePath = source;
  m_filePath = source.extension() == ".articula" ? source : std::filesystem::path();
  m_report = report;
  m_recording = report ? report->recording : std::nullopt;
  m_dragStart.reset();
  m_undo->clear();
  m_undo->setClean();
  m_selection.clear();
  const bool hadPins = !m_pins.empty();
  m_pins.clear();
  emit designReset();
  if (hadPins) emit pinsChanged();
  emit selectionChanged();
  emit fileStateChanged();
}

void Document::save(const std::filesystem::path& file) {
  io::saveScene(*m_world, file, m_recording);
  m_filePath = file;
  m_sourcePath = file;
  m_undo->setClean();
  emit fileStateChanged();
}

void Document::markRecovered(const std::filesystem::path& original) {
  m_filePath = original.extension() == ".articula" ? original : std::filesystem::path();
  if (!original.empty()) m_sourcePath = original;
  m_undo->resetClean();
  emit fileStateChanged();
}

void Document::writeCopy(const std::filesystem::path& file) const {
  io::saveScene(*m_world, file, m_recording);
}

std::filesystem::path Document::baseDirectory() const {
  if (!m_sourcePath.empty()) return m_sourcePath.parent_path();
  return {};
}

std::string Document::sceneText() const {
  return io::sceneToString(*m_world, baseDirectory());
}

WorldSpec Document::designSpec() const {
  return m_world->getSpec();
}

void Document::restoreSpec(const WorldSpec& spec) {
  // Built aside: a spec that fails leaves the design as it is.
  auto fresh = std::make_unique<World>(spec);
  m_world = std::move(fresh);
  m_dragStart.reset();
  dropStaleSelection();
  emit designReset();
}

void Document::restoreText(const std::string& text) {
  World scratch;
  io::loadSceneFromString(scratch, text, "<design>");
  restoreSpec(scratch.getSpec());
}

void Document::report(const QString& text) {
  emit message(text);
}

bool Document::edit(const QString& label, const std::function<void(World&)>& op, QString* error,
                    const QString& mergeKey) {
  if (m_locked) {
    if (error) *error = tr("The design cannot be changed while the simulation runs.");
    return false;
  }
  // A gizmo drag still held is its own step, before this one.
  if (m_dragStart) endPositionsDrag(tr("Move"));
  WorldSpec before = designSpec();
  try {
    op(*m_world);
  } catch (const std::exception& e) {
    try {
      restoreSpec(before);
    } catch (const std::exception& again) {
      emit message(tr("The design could not be put back as it was: %1").arg(QString::fromUtf8(again.what())));
    }
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  WorldSpec after = designSpec();
  if (after == before) return true;
  m_undo->push(new DesignCommand(this, label, std::move(before), std::move(after), mergeKey));
  notifyDesignChanged();
  return true;
}

void Document::writePositions(const VectorXd& q, const std::vector<ObjectRef>& hold) {
  m_world->setPositions(q);
  if (m_world->numLoopClosures() == 0 && m_world->numJointCouplers() == 0) return;
  ClosureProjectionOptions options;
  for (const ObjectRef& ref : hold) {
    if (auto joint = findJoint(*m_world, ref)) options.lockedJoints.push_back(*joint);
    if (auto link = findLink(*m_world, ref)) options.lockedJoints.push_back(link->getParentJoint());
    if (auto body = findRigidBody(*m_world, ref)) options.lockedRigidBodies.push_back(*body);
  }
  options.projectVelocities = false;
  m_world->projectClosures(options);
}

void Document::beginPositionsDrag() {
  m_dragStart = m_world->getPositions();
}

void Document::setPositionsLive(const VectorXd& q, const std::vector<ObjectRef>& hold) {
  if (m_locked) return;
  writePositions(q, hold);
  emit positionsChanged();
}

void Document::endPositionsDrag(const QString& label) {
  if (!m_dragStart) return;
  const VectorXd before = *m_dragStart;
  m_dragStart.reset();
  const VectorXd after = m_world->getPositions();
  // Nothing to record, or a design whose coordinates are no longer those of
  // the drag's start.
  if (before.size() != after.size() || before == after) return;
  m_undo->push(new PositionsCommand(this, label, before, after, QString()));
}

void Document::setPositions(const QString& label, const VectorXd& q, const std::vector<ObjectRef>& hold,
                            const QString& mergeKey) {
  if (m_locked) return;
  const VectorXd before = m_world->getPositions();
  writePositions(q, hold);
  const VectorXd after = m_world->getPositions();
  if (before == after) return;
  m_undo->push(new PositionsCommand(this, label, before, after, mergeKey));
  emit positionsChanged();
}

double Document::maxClosureResidual() const {
  double largest = 0.0;
  for (const LoopClosure& c : m_world->getLoopClosures()) {
    if (c.isEnabled()) largest = std::max(largest, c.computeResidualNorm());
  }
  return largest;
}

void Document::setLocked(bool locked) {
  if (locked == m_locked) return;
  if (locked && m_dragStart) endPositionsDrag(tr("Move"));
  m_locked = locked;
  emit lockedChanged(locked);
}

void Document::setSelection(const std::vector<ObjectRef>& selection) {
  if (selection == m_selection) return;
  m_selection = selection;
  emit selectionChanged();
}

bool Document::isPinned(const ObjectRef& ref) const {
  return std::find(m_pins.begin(), m_pins.end(), ref) != m_pins.end();
}

void Document::setPinned(const ObjectRef& ref, bool pinned) {
  if (ref.kind != ObjectKind::Link && ref.kind != ObjectKind::RigidBody) return;
  if (pinned == isPinned(ref)) return;
  if (pinned) {
    m_pins.push_back(ref);
  } else {
    m_pins.erase(std::remove(m_pins.begin(), m_pins.end(), ref), m_pins.end());
  }
  emit pinsChanged();
}

void Document::dropStaleSelection() {
  const auto stale = [this](const ObjectRef& r) { return !exists(*m_world, r); };
  const auto before = m_pins.size();
  m_pins.erase(std::remove_if(m_pins.begin(), m_pins.end(), stale), m_pins.end());
  if (m_pins.size() != before) emit pinsChanged();
  if (std::none_of(m_selection.begin(), m_selection.end(), stale)) return;
  m_selection.erase(std::remove_if(m_selection.begin(), m_selection.end(), stale), m_selection.end());
  emit selectionChanged();
}

void Document::notifyDesignChanged() {
  dropStaleSelection();
  emit designChanged();
}

void Document::notifyPositionsChanged() {
  emit positionsChanged();
}

}  // namespace articula::studio
