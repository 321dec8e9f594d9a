#include "scene_tree_model.hpp"

#include "document.hpp"
#include "edit_operations.hpp"

#include <QMimeData>

namespace articula::studio {

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString geometryName(const Geometry& g) {
  return qs(std::string(toString(g.type)));
}

QString jointTypeName(JointType type) {
  return qs(std::string(toString(type))) + QStringLiteral(" joint");
}

}  // namespace

SceneTreeModel::SceneTreeModel(Document* document, QObject* parent) : QAbstractItemModel(parent), m_document(document) {
  connect(document, &Document::designChanged, this, &SceneTreeModel::rebuild);
  connect(document, &Document::designReset, this, &SceneTreeModel::rebuild);
  // Pins show in the Type column; the tree's shape stays.
  connect(document, &Document::pinsChanged, this, [this] {
    emit layoutAboutToBeChanged();
    emit layoutChanged();
  });
  rebuild();
}

int SceneTreeModel::addNode(int parent, ObjectRef ref, QString label, QString type) {
  Node n;
  n.ref = std::move(ref);
  n.label = std::move(label);
  n.type = std::move(type);
  n.parent = parent;
  const int id = static_cast<int>(m_nodes.size());
  if (parent < 0) {
    n.row = static_cast<int>(m_top.size());
    m_top.push_back(id);
  } else {
    n.row = static_cast<int>(m_nodes[static_cast<std::size_t>(parent)].children.size());
    m_nodes[static_cast<std::size_t>(parent)].children.push_back(id);
  }
  m_nodes.push_back(std::move(n));
  return id;
}

void SceneTreeModel::addShapesOf(int parent, const Frame& owner) {
  const World& world = m_document->world();
  for (const Shape& s : world.getVisualShapes(owner)) {
    addNode(parent, refOf(s), qs(s.name()), geometryName(s.getGeometry()) + tr(" visual"));
  }
  for (const Shape& s : world.getCollisionShapes(owner)) {
    addNode(parent, refOf(s), qs(s.name()), geometryName(s.getGeometry()) + tr(" collision"));
  }
}

void SceneTreeModel::addFramesOf(int parent, const std::string& frameName) {
  const World& world = m_document->world();
  for (const Frame& f : world.getFrames()) {
    if (f.getParentFrame().name() != frameName) continue;
    const int id = addNode(parent, refOfFrame(f), qs(f.name()),
                           f.kind() == FrameKind::FreeFrame ? tr("free frame") : tr("fixed frame"));
    addFramesOf(id, f.name());
  }
}

void SceneTreeModel::addLinkSubtree(int parent, const Link& link) {
  const std::string name = link.name();
  const int id = addNode(parent, refOf(link), qs(splitPath(name).second), tr("link"));
  const Joint joint = link.getParentJoint();
  addNode(id, refOf(joint), qs(joint.name()), jointTypeName(joint.type()));
  addShapesOf(id, link);
  addFramesOf(id, name);
  for (const Link& child : link.getChildLinks()) addLinkSubtree(id, child);
}

void SceneTreeModel::rebuild() {
  beginResetModel();
  m_nodes.clear();
  m_top.clear();
  const World& world = m_document->world();
  const int worldNode = addNode(-1, {ObjectKind::World, "world"}, tr("World"), tr("world"));
  addShapesOf(worldNode, Frame::World());
  addFramesOf(worldNode, "world");
  for (const RigidBody& b : world.getRigidBodies()) {
    const int id = addNode(-1, refOf(b), qs(b.name()), tr("rigid body"));
    addShapesOf(id, b);
    addFramesOf(id, b.name());
  }
  for (const Multibody& m : world.getMultibodies()) {
    const int id = addNode(-1, refOf(m), qs(m.name()), tr("multibody"));
    if (const std::optional<Link> root = m.getRootLink()) addLinkSubtree(id, *root);
  }
  const int closures = addNode(-1, {ObjectKind::Group, "loop closures"}, tr("Loop closures"), QString());
  for (const LoopClosure& c : world.getLoopClosures()) {
    addNode(closures, refOf(c), qs(c.name()), qs(std::string(toString(c.family()))) + tr(" closure"));
  }
  const int couplers = addNode(-1, {ObjectKind::Group, "couplers"}, tr("Couplers"), QString());
  for (const JointCoupler& c : world.getJointCouplers()) addNode(couplers, refOf(c), qs(c.name()), tr("coupler"));
  const int actuators = addNode(-1, {ObjectKind::Group, "actuators"}, tr("Actuators"), QString());
  for (const Actuator& a : world.getActuators()) {
    const ActuatorSpec spec = a.getSpec();
    addNode(actuators, refOf(a), qs(a.name()), qs(std::string(toString(spec.type)) + " on " + spec.joint));
  }
  const int schedules = addNode(-1, {ObjectKind::Group, "schedules"}, tr("Schedules"), QString());
  for (const ScheduleSpec& s : world.getSchedules()) {
    addNode(schedules, {ObjectKind::Schedule, s.name}, qs(s.name), qs("drives " + s.actuator));
  }
  const int keyframes = addNode(-1, {ObjectKind::Group, "keyframes"}, tr("Keyframes"), QString());
  for (const KeyframeSpec& k : world.getKeyframes()) {
    addNode(keyframes, {ObjectKind::Keyframe, k.name}, qs(k.name), tr("pose at t = %1 s").arg(k.time));
  }
  endResetModel();
}

const SceneTreeModel::Node* SceneTreeModel::nodeOf(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this) return nullptr;
  const auto id = static_cast<std::size_t>(index.internalId());
  return id < m_nodes.size() ? &m_nodes[id] : nullptr;
}

QModelIndex SceneTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= 2) return {};
  if (!parent.isValid()) {
    if (row >= static_cast<int>(m_top.size())) return {};
    return createIndex(row, column, static_cast<quintptr>(m_top[static_cast<std::size_t>(row)]));
  }
  const Node* p = nodeOf(parent);
  if (!p || parent.column() != 0 || row >= static_cast<int>(p->children.size())) return {};
  return createIndex(row, column, static_cast<quintptr>(p->children[static_cast<std::size_t>(row)]));
}

QModelIndex SceneTreeModel::parent(const QModelIndex& child) const {
  const Node* n = nodeOf(child);
  if (!n || n->parent < 0) return {};
  const Node& p = m_nodes[static_cast<std::size_t>(n->parent)];
  return createIndex(p.row, 0, static_cast<quintptr>(n->parent));
}

int SceneTreeModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(m_top.size());
  if (parent.column() != 0) return 0;
  const Node* p = nodeOf(parent);
  return p ? static_cast<int>(p->children.size()) : 0;
}

int SceneTreeModel::columnCount(const QModelIndex&) const {
  return 2;
}

QVariant SceneTreeModel::data(const QModelIndex& index, int role) const {
  const Node* n = nodeOf(index);
  if (!n) return {};
  switch (role) {
    case Qt::DisplayRole:
      if (index.column() == 0) return n->label;
      return m_document->isPinned(n->ref) ? n->type + tr(" · pinned") : n->type;
    case Qt::EditRole:
      return index.column() == 0 ? n->label : QVariant();
    case Qt::ToolTipRole:
      return n->ref.kind == ObjectKind::Group ? QVariant() : qs(n->ref.name) + QStringLiteral(" (") + n->type + ')';
    case kKindRole:
      return static_cast<int>(n->ref.kind);
    case kNameRole:
      return qs(n->ref.name);
    default:
      return {};
  }
}

QVariant SceneTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == 0 ? tr("Name") : tr("Type");
}

Qt::ItemFlags SceneTreeModel::flags(const QModelIndex& index) const {
  const Node* n = nodeOf(index);
  if (!n) return Qt::ItemIsDropEnabled;
  Qt::ItemFlags f = Qt::ItemIsEnabled;
  if (n->ref.kind == ObjectKind::Group) return f;
  f |= Qt::ItemIsSelectable;
  const bool renamable = n->ref.kind != ObjectKind::World && !m_document->isLocked();
  if (index.column() == 0 && renamable) f |= Qt::ItemIsEditable;
  if (n->ref.kind == ObjectKind::Link) f |= Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
  return f;
}

bool SceneTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  const Node* n = nodeOf(index);
  if (!n || role != Qt::EditRole || index.column() != 0) return false;
  const std::string newName = value.toString().trimmed().toStdString();
  if (qs(newName) == n->label) return false;
  const ObjectRef ref = n->ref;
  QString error;
  const bool ok = m_document->edit(
      tr("Rename %1 to %2").arg(qs(ref.name), qs(newName)),
      [ref, newName](World& world) { ops::rename(world, ref, newName); }, &error);
  if (!ok) {
    m_lastError = error;
    emit editRefused(error);
  }
  return ok;
}

Qt::DropActions SceneTreeModel::supportedDropActions() const {
  return Qt::MoveAction;
}

QStringList SceneTreeModel::mimeTypes() const {
  return {QString::fromLatin1(kMimeType)};
}

QMimeData* SceneTreeModel::mimeData(const QModelIndexList& indexes) const {
  QByteArray bytes;
  for (const QModelIndex& i : indexes) {
    const Node* n = nodeOf(i);
    if (!n || i.column() != 0) continue;
    bytes += QByteArray::number(static_cast<int>(n->ref.kind)) + '\n' + QByteArray::fromStdString(n->ref.name) + '\n';
  }
  auto* data = new QMimeData;
  data->setData(QString::fromLatin1(kMimeType), bytes);
  return data;
}

namespace {

std::vector<ObjectRef> refsFromMime(const QMimeData* data) {
  std::vector<ObjectRef> refs;
  if (!data) return refs;
  const QList<QByteArray> lines = data->data(QString::fromLatin1(SceneTreeModel::kMimeType)).split('\n');
  for (qsizetype i = 0; i + 1 < lines.size(); i += 2) {
    refs.push_back({static_cast<ObjectKind>(lines[i].toInt()), lines[i + 1].toStdString()});
  }
  return refs;
}

}  // namespace

bool SceneTreeModel::canDropMimeData(const QMimeData* data, Qt::DropAction action, int, int,
                                     const QModelIndex& parent) const {
  if (action != Qt::MoveAction || m_document->isLocked()) return false;
  const Node* target = nodeOf(parent);
  if (!target || target->ref.kind != ObjectKind::Link) return false;
  const std::vector<ObjectRef> refs = refsFromMime(data);
  if (refs.size() != 1 || refs.front().kind != ObjectKind::Link || refs.front() == target->ref) return false;
  // Not into its own subtree.
  for (int p = static_cast<int>(parent.internalId()); p >= 0; p = m_nodes[static_cast<std::size_t>(p)].parent) {
    if (m_nodes[static_cast<std::size_t>(p)].ref == refs.front()) return false;
  }
  return true;
}

bool SceneTreeModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                  const QModelIndex& parent) {
  if (!canDropMimeData(data, action, row, column, parent)) return false;
  const ObjectRef link = refsFromMime(data).front();
  const ObjectRef target = nodeOf(parent)->ref;
  QString error;
  const bool ok = m_document->edit(
      tr("Move %1 under %2").arg(qs(link.name), qs(target.name)),
      [link, target](World& world) { ops::reparent(world, link, target); }, &error);
  if (!ok) {
    m_lastError = error;
    emit editRefused(error);
  }
  // The tree was rebuilt from the design; removeRows() is not implemented,
  // so the view removes nothing itself after the move.
  return ok;
}

ObjectRef SceneTreeModel::refAt(const QModelIndex& index) const {
  const Node* n = nodeOf(index);
  return n ? n->ref : ObjectRef{};
}

QModelIndex SceneTreeModel::indexOf(const ObjectRef& ref) const {
  for (std::size_t i = 0; i < m_nodes.size(); ++i) {
    if (m_nodes[i].ref == ref) return createIndex(m_nodes[i].row, 0, static_cast<quintptr>(i));
  }
  return {};
}

}  // namespace articula::studio
