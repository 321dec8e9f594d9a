// The scene tree model (app/studio/scene_tree_model.*) under Qt's
// QAbstractItemModelTester through a sequence of design edits, undos and
// redos; after each step every object of the world appears exactly once,
// under the item of what it belongs to, and nothing else appears. Renaming
// through setData and moving a link by drag and drop only push document
// edits (one undo step each); refused ones change nothing.
#include "document.hpp"
#include "edit_operations.hpp"
#include "scene_tree_model.hpp"

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

#include <map>
#include <memory>
#include <set>
#include <string>

using namespace articula;
using namespace articula::studio;

namespace {

const std::filesystem::path kScenes = std::filesystem::path(ARTICULA_SOURCE_DIR) / "scenes";

/// Every object of the world as the tree should show it, with the object
/// its item must sit under (None for top-level items).
std::map<ObjectRef, ObjectRef> expectedItems(const World& w) {
  std::map<ObjectRef, ObjectRef> items;
  const ObjectRef world{ObjectKind::World, "world"};
  items[world] = {};
  const auto ownerRef = [&](const Frame& f) { return refOfFrame(f); };
  for (const RigidBody& b : w.getRigidBodies()) items[refOf(b)] = {};
  for (const Multibody& m : w.getMultibodies()) {
    items[refOf(m)] = {};
    for (const Link& l : m.getLinks()) {
      const std::optional<Link> parent = l.getParentLink();
      items[refOf(l)] = parent ? refOf(*parent) : refOf(m);
      items[refOf(l.getParentJoint())] = refOf(l);
    }
  }
  const auto addShapes = [&](const Frame& owner) {
    for (const Shape& s : w.getVisualShapes(owner)) items[refOf(s)] = ownerRef(owner);
    for (const Shape& s : w.getCollisionShapes(owner)) items[refOf(s)] = ownerRef(owner);
  };
  addShapes(Frame::World());
  for (const RigidBody& b : w.getRigidBodies()) addShapes(b);
  for (const Multibody& m : w.getMultibodies()) {
    for (const Link& l : m.getLinks()) addShapes(l);
  }
  for (const Frame& f : w.getFrames()) items[refOfFrame(f)] = refOfFrame(f.getParentFrame());
  for (const LoopClosure& c : w.getLoopClosures()) items[refOf(c)] = {ObjectKind::Group, "loop closures"};
  for (const JointCoupler& c : w.getJointCouplers()) items[refOf(c)] = {ObjectKind::Group, "couplers"};
  for (const Actuator& a : w.getActuators()) items[refOf(a)] = {ObjectKind::Group, "actuators"};
  for (const ScheduleSpec& s : w.getSchedules())
    items[{ObjectKind::Schedule, s.name}] = {ObjectKind::Group, "schedules"};
  items[{ObjectKind::Group, "loop closures"}] = {};
  items[{ObjectKind::Group, "couplers"}] = {};
  items[{ObjectKind::Group, "actuators"}] = {};
  items[{ObjectKind::Group, "schedules"}] = {};
  for (const KeyframeSpec& k : w.getKeyframes())
    items[{ObjectKind::Keyframe, k.name}] = {ObjectKind::Group, "keyframes"};
  items[{ObjectKind::Group, "keyframes"}] = {};
  return items;
}

/// Compares the tree with the world: empty when they agree, else what differs.
QString compareTree(const SceneTreeModel& model, const World& w) {
  std::map<ObjectRef, ObjectRef> shown;
  QString problems;
  std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
    for (int r = 0; r < model.rowCount(parent); ++r) {
      const QModelIndex i = model.index(r, 0, parent);
      const ObjectRef ref = model.refAt(i);
      ObjectRef parentRef = model.refAt(parent);
      // A root link sits under its multibody.
      if (shown.count(ref)) problems += QString("'%1' shown twice; ").arg(QString::fromStdString(ref.name));
      shown[ref] = parentRef;
      if (model.indexOf(ref) != i)
        problems += QString("indexOf('%1') is not its item; ").arg(QString::fromStdString(ref.name));
      walk(i);
    }
  };
  walk({});
  const std::map<ObjectRef, ObjectRef> expected = expectedItems(w);
  for (const auto& [ref, parent] : expected) {
    const auto it = shown.find(ref);
    if (it == shown.end()) {
      problems += QString("'%1' (%2) missing; ").arg(QString::fromStdString(ref.name), kindName(ref.kind));
    } else if (it->second != parent) {
      problems += QString("'%1' under '%2', expected under '%3'; ")
                      .arg(QString::fromStdString(ref.name), QString::fromStdString(it->second.name),
                           QString::fromStdString(parent.name));
    }
  }
  for (const auto& [ref, parent] : shown) {
    if (!expected.count(ref))
      problems += QString("'%1' shown but not in the world; ").arg(QString::fromStdString(ref.name));
  }
  return problems;
}

}  // namespace

class SceneTreeTest : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    doc_ = std::make_unique<Document>();
    doc_->open(kScenes / "four_bar.articula");
    model_ = std::make_unique<SceneTreeModel>(doc_.get());
    tester_ = std::make_unique<QAbstractItemModelTester>(model_.get(),
                                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
  }
  void cleanup() {
    tester_.reset();
    model_.reset();
    doc_.reset();
  }

  void showsTheFourBar() {
    QCOMPARE(compareTree(*model_, doc_->world()), QString());
    // Top level: the world, the multibody and the five headings.
    QCOMPARE(model_->rowCount(), 7);
    const QModelIndex mb = model_->indexOf({ObjectKind::Multibody, "four_bar"});
    QVERIFY(mb.isValid());
    QCOMPARE(model_->data(mb).toString(), QString("four_bar"));
    const QModelIndex crank = model_->indexOf({ObjectKind::Link, "four_bar/crank"});
    QCOMPARE(crank.parent(), mb);
    QCOMPARE(model_->data(crank).toString(), QString("crank"));
    QCOMPARE(model_->data(crank.siblingAtColumn(1)).toString(), QString("link"));
    const QModelIndex joint = model_->indexOf({ObjectKind::Joint, "four_bar/crank_joint"});
    QCOMPARE(joint.parent(), crank);
    QCOMPARE(model_->data(joint.siblingAtColumn(1)).toString(), QString("revolute joint"));
    const QModelIndex rocker = model_->indexOf({ObjectKind::Link, "four_bar/rocker"});
    QCOMPARE(rocker.parent().parent(), crank);
    const QModelIndex pin = model_->indexOf({ObjectKind::LoopClosure, "four_bar_pin"});
    QVERIFY(pin.isValid());
    QCOMPARE(model_->data(pin.siblingAtColumn(1)).toString(), QString("hinge closure"));
    QVERIFY(!(model_->flags(pin.parent()) & Qt::ItemIsSelectable));  // a heading
  }

  // A pinned link says so in the Type column; the tree keeps its shape.
  void showsPins() {
    const ObjectRef crankRef{ObjectKind::Link, "four_bar/crank"};
    const QModelIndex crank = model_->indexOf(crankRef);
    const int rows = model_->rowCount(crank);
    doc_->setPinned(crankRef, true);
    QCOMPARE(model_->data(crank.siblingAtColumn(1)).toString(), QString("link · pinned"));
    QCOMPARE(model_->rowCount(model_->indexOf(crankRef)), rows);
    doc_->setPinned(crankRef, false);
    QCOMPARE(model_->data(model_->indexOf(crankRef).siblingAtColumn(1)).toString(), QString("link"));
    // Only links and rigid bodies can be pinned.
    doc_->setPinned({ObjectKind::Joint, "four_bar/crank_joint"}, true);
    QVERIFY(doc_->pins().empty());
  }

  // Edits of every kind, then undo all of them and redo all of them; the
  // tester checks every signal, compareTree the content after each step.
  void followsEditsUndoAndRedo() {
    QUndoStack* undo = doc_->undoStack();
    const auto edit = [&](const char* label, const std::function<void(World&)>& op) {
      QString error;
      QVERIFY2(doc_->edit(label, op, &error), qPrintable(QString("%1: %2").arg(label, error)));
      QVERIFY2(compareTree(*model_, doc_->world()).isEmpty(),
               qPrintable(QString("after %1: %2").arg(label, compareTree(*model_, doc_->world()))));
    };
    ops::BodyShape shape;
    ObjectRef box;
    edit("create body", [&](World& w) { box = ops::createRigidBody(w, "box", shape, Isometry3d::Identity()); });
    edit("create frame", [&](World& w) { ops::addUserFrame(w, "marker", box, Isometry3d::Identity(), false); });
    ObjectRef extra;
    edit("add link", [&](World& w) {
      extra = ops::addLink(w, {ObjectKind::Link, "four_bar/coupler"}, "extra", JointType::Prismatic,
                           Isometry3d::Identity(), shape);
    });
    edit("rename link", [&](World& w) { extra = ops::rename(w, extra, "slider"); });
    edit("duplicate body", [&](World& w) { ops::duplicate(w, box); });
    edit("reparent", [&](World& w) { ops::reparent(w, extra, {ObjectKind::Link, "four_bar/crank"}); });
    edit("closure", [&](World& w) {
      ops::addLoopClosure(w, "tie", box, {ObjectKind::Link, "four_bar/crank"}, LoopClosureFamily::Distance);
    });
    edit("change joint type", [&](World& w) {
      ops::changeJointType(w, {ObjectKind::Joint, "four_bar/crank_joint"}, JointType::Universal);
    });
    edit("delete coupler link", [&](World& w) { ops::remove(w, {ObjectKind::Link, "four_bar/rocker"}); });
    const int steps = undo->count();
    QCOMPARE(steps, 9);
    for (int i = 0; i < steps; ++i) {
      undo->undo();
      QVERIFY2(compareTree(*model_, doc_->world()).isEmpty(),
               qPrintable(QString("after undo %1: %2").arg(i).arg(compareTree(*model_, doc_->world()))));
    }
    for (int i = 0; i < steps; ++i) {
      undo->redo();
      QVERIFY2(compareTree(*model_, doc_->world()).isEmpty(),
               qPrintable(QString("after redo %1: %2").arg(i).arg(compareTree(*model_, doc_->world()))));
    }
  }

  void renameThroughSetData() {
    const QModelIndex crank = model_->indexOf({ObjectKind::Link, "four_bar/crank"});
    QVERIFY(model_->flags(crank) & Qt::ItemIsEditable);
    QVERIFY(model_->setData(crank, "input"));
    QCOMPARE(doc_->undoStack()->count(), 1);
    QVERIFY(doc_->world().getFrame("four_bar/input").has_value());
    QVERIFY(!doc_->world().getFrame("four_bar/crank").has_value());
    QVERIFY(model_->indexOf({ObjectKind::Link, "four_bar/input"}).isValid());
    QCOMPARE(compareTree(*model_, doc_->world()), QString());
    // A taken name is refused: nothing changes and the reason is given.
    const std::string before = doc_->sceneText();
    QSignalSpy refused(model_.get(), &SceneTreeModel::editRefused);
    const QModelIndex rocker = model_->indexOf({ObjectKind::Link, "four_bar/rocker"});
    QVERIFY(!model_->setData(rocker, "coupler"));
    QCOMPARE(refused.count(), 1);
    QVERIFY(!model_->lastError().isEmpty());
    QCOMPARE(doc_->sceneText(), before);
    QCOMPARE(doc_->undoStack()->count(), 1);
  }

  void dragAndDropReparents() {
    const ObjectRef rocker{ObjectKind::Link, "four_bar/rocker"};
    const ObjectRef crank{ObjectKind::Link, "four_bar/crank"};
    const std::unique_ptr<QMimeData> mime(model_->mimeData({model_->indexOf(rocker)}));
    // Not onto itself, not into its own subtree, not onto a non-link.
    QVERIFY(!model_->canDropMimeData(mime.get(), Qt::MoveAction, -1, -1, model_->indexOf(rocker)));
    QVERIFY(!model_->canDropMimeData(mime.get(), Qt::MoveAction, -1, -1,
                                     model_->indexOf({ObjectKind::LoopClosure, "four_bar_pin"})));
    QVERIFY(model_->canDropMimeData(mime.get(), Qt::MoveAction, -1, -1, model_->indexOf(crank)));
    const std::unique_ptr<QMimeData> coupler(
        model_->mimeData({model_->indexOf({ObjectKind::Link, "four_bar/coupler"})}));
    QVERIFY(!model_->canDropMimeData(coupler.get(), Qt::MoveAction, -1, -1, model_->indexOf(rocker)));

    QVERIFY(model_->dropMimeData(mime.get(), Qt::MoveAction, -1, -1, model_->indexOf(crank)));
    const std::optional<Link> moved = findLink(doc_->world(), rocker);
    QVERIFY(moved.has_value());
    QCOMPARE(moved->getParentLink()->name(), std::string("four_bar/crank"));
    QCOMPARE(model_->indexOf(rocker).parent(), model_->indexOf(crank));
    QCOMPARE(compareTree(*model_, doc_->world()), QString());
    QCOMPARE(doc_->undoStack()->count(), 1);
    doc_->undoStack()->undo();
    QCOMPARE(findLink(doc_->world(), rocker)->getParentLink()->name(), std::string("four_bar/coupler"));
  }

 private:
  std::unique_ptr<Document> doc_;
  std::unique_ptr<SceneTreeModel> model_;
  std::unique_ptr<QAbstractItemModelTester> tester_;
};

QTEST_MAIN(SceneTreeTest)
#include "test_scene_tree.moc"
