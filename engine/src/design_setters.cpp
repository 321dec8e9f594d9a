// In-place design edits: renaming every kind of object, a shape's geometry,
// and the specs of loop closures and couplers. All are design-mode edits;
// each leaves the object's handle valid.
#include <articula/error.hpp>
#include <articula/world.hpp>

#include "world_impl.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace articula {

using detail::WorldImpl;

namespace {

void checkNewName(const std::string& name, const std::string& what) {
  if (name.empty()) throw InvalidArgument(what + ": a name must not be empty");
  if (name.find('/') != std::string::npos) throw InvalidArgument(what + ": the name '" + name + "' contains '/'");
}

// Moves `from` to `to` in a name map. @throws TopologyError if `to` is taken.
template <class Value>
void renameKey(std::map<std::string, Value>& names, const std::string& from, const std::string& to,
               const std::string& what) {
  if (from == to) return;
  if (names.count(to) != 0) throw TopologyError(what + ": the name '" + to + "' is taken");
  auto node = names.extract(from);
  node.key() = to;
  names.insert(std::move(node));
}

// Names take part in the layout (state names, the layout fingerprint): a
// rename recompiles like a topology edit.
WorldImpl& designWorld(World* world, const char* what) {
  if (world == nullptr) throw InvalidHandle(std::string("cannot ") + what + ": invalid handle (default-constructed)");
  WorldImpl& w = detail::implOf(world);
  w.requireDesignMode(what);
  return w;
}

}  // namespace

void Frame::setName(const std::string& name) {
  if (isWorld()) throw InvalidArgument("the world frame cannot be renamed");
  WorldImpl& w = designWorld(m_world, "rename a frame");
  if (!isValid()) throw InvalidHandle("cannot rename a frame: the handle is stale");
  switch (m_kind) {
    case FrameKind::Link: {
      auto& L = w.links[m_index];
      auto& mb = w.multibodies[L.multibody];
      const std::string what = "link '" + mb.name + "/" + L.name + "'";
      checkNewName(name, what);
      renameKey(mb.linkByName, L.name, name, what);
      L.name = name;
      break;
    }
    case FrameKind::RigidBody: {
      auto& B = w.rigidBodies[m_index];
      const std::string what = "rigid body '" + B.name + "'";
      checkNewName(name, what);
      renameKey(w.worldNames, B.name, name, what);
      B.name = name;
      break;
    }
    case FrameKind::FreeFrame:
    case FrameKind::FixedFrame: {
      auto& F = w.frames[m_index];
      const std::string what = "frame '" + F.name + "'";
      checkNewName(name, what);
      renameKey(w.worldNames, F.name, name, what);
      F.name = name;
      break;
    }
    default:
      throw InvalidHandle("cannot rename a frame: the handle is invalid");
  }
  w.topologyChanged();
}

void Multibody::setName(const std::string& name) {
  WorldImpl& w = designWorld(m_world, "rename a multibody");
  auto& M = w.multibody(m_index, m_generation);
  const std::string what = "multibody '" + M.name + "'";
  checkNewName(name, what);
  renameKey(w.worldNames, M.name, name, what);
  M.name = name;
  w.topologyChanged();
}

void Joint::setName(const std::string& name) {
  WorldImpl& w = designWorld(m_world, "rename a joint");
  auto& L = w.link(m_index, m_generation);
  auto& mb = w.multibodies[L.multibody];
  const std::string what = "joint '" + mb.name + "/" + L.joint.name + "'";
  checkNewName(name, what);
  renameKey(mb.jointByName, L.joint.name, name, what);
  L.joint.name = name;
  w.topologyChanged();
}

void Shape::setName(const std::string& name) {
  WorldImpl& w = designWorld(m_world, "rename a shape");
  auto& S = w.shape(m_index, m_generation);
  const std::string what = "shape '" + S.name + "'";
  checkNewName(name, what);
  renameKey(w.shapeNames, S.name, name, what);
  S.name = name;
}

void Shape::setGeometry(const Geometry& geometry) {
  WorldImpl& w = designWorld(m_world, "change a shape's geometry");
  auto& S = w.shape(m_index, m_generation);
  // Checked by the same rules as a new shape: a scratch world receives a
  // copy on an owner of the same kind.
  World scratch;
  Frame owner = Frame::World();
  if (S.owner.kind == FrameKind::Link) {
    owner = scratch.addMultibody("m").addLink({"l", Inertia()}, JointSpec::free());
  } else if (S.owner.kind == FrameKind::RigidBody) {
    owner = scratch.addRigidBody("b");
  }
  if (S.collision) {
    scratch.addCollisionShape(owner, CollisionShapeOptions{S.name, geometry, S.pose, S.material, S.collidable});
  } else {
    scratch.addVisualShape(owner, VisualShapeOptions{S.name, geometry, S.pose, S.color});
  }
  S.geometry = geometry;
  w.topologyChanged();
}

void LoopClosure::setName(const std::string& name) {
  WorldImpl& w = designWorld(m_world, "rename a loop closure");
  auto& C = w.closure(m_index, m_generation);
  const std::string what = "loop closure '" + C.name + "'";
  checkNewName(name, what);
  renameKey(w.closureNames, C.name, name, what);
  C.name = name;
}

void JointCoupler::setName(const std::string& name) {
  WorldImpl& w = designWorld(m_world, "rename a joint coupler");
  auto& C = w.coupler(m_index, m_generation);
  const std::string what = "joint coupler '" + C.name + "'";
  checkNewName(name, what);
  renameKey(w.couplerNames, C.name, name, what);
  C.name = name;
}

namespace {

// setSpec: the record is taken out of the world, the new spec is added as a
// new object by `add` (World::add*, so every check applies against the rest
// of the world), and the result is moved back into the old slot with the old
// generation, name and policy; on failure the old record is put back.
template <class Record, class Add>
void replaceRecord(std::vector<Record>& records, std::map<std::string, std::uint32_t>& names, std::uint32_t slot,
                   Add add) {
  Record old = records[slot];
  records[slot].alive = false;
  names.erase(old.name);
  try {
    const std::uint32_t added = add(old.name);
    Record rec = std::move(records[added]);
    records.pop_back();
    rec.generation = old.generation;
    rec.policy = old.policy;
    records[slot] = std::move(rec);
    names[old.name] = slot;
  } catch (...) {
    if (records.size() > slot + 1 && records.back().name == old.name) records.pop_back();
    records[slot] = std::move(old);
    names[records[slot].name] = slot;
    throw;
  }
}

}  // namespace

void LoopClosure::setSpec(const LoopClosureSpec& spec) {
  WorldImpl& w = designWorld(m_world, "change a loop closure");
  w.closure(m_index, m_generation);
  try {
    replaceRecord(w.closures, w.closureNames, m_index,
                  [&](const std::string& name) { return m_world->addLoopClosure(name, spec).index(); });
  } catch (...) {
    w.rebuildClosureFilters();
    throw;
  }
  w.rebuildClosureFilters();
}

void JointCoupler::setSpec(const JointCouplerSpec& spec) {
  WorldImpl& w = designWorld(m_world, "change a joint coupler");
  w.coupler(m_index, m_generation);
  replaceRecord(w.couplers, w.couplerNames, m_index,
                [&](const std::string& name) { return m_world->addJointCoupler(name, spec).index(); });
}

}  // namespace articula
