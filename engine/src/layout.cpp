// The layout fingerprint: one "key: value" line per element of the model
// that recorded runtime state depends on.
#include <articula/layout.hpp>

#include <articula/loop_closure.hpp>
#include <articula/multibody.hpp>
#include <articula/rigid_body.hpp>
#include <articula/shape.hpp>
#include <articula/state_space.hpp>
#include <articula/world.hpp>

#include "hash.hpp"

#include <map>
#include <sstream>

namespace articula {

namespace {

std::string range(int offset, int count) {
  return "[" + std::to_string(offset) + ", " + std::to_string(offset + count) + ")";
}

void addShapes(std::vector<std::string>& out, const std::vector<Shape>& shapes, const std::string& owner) {
  for (const Shape& s : shapes) {
    out.push_back("collision shape '" + s.name() + "': " + std::string(toString(s.getGeometry().type)) + " on '" +
                  owner + "'");
  }
}

}  // namespace

std::uint64_t layoutFingerprintHash(const std::vector<std::string>& entries) {
  std::uint64_t h = detail::kFnv1aOffset;
  for (const std::string& e : entries) {
    h = detail::fnv1a(e.data(), e.size(), h);
    h = detail::fnv1a("\n", 1, h);  // entry separator
  }
  return h;
}

LayoutFingerprint computeLayoutFingerprint(const World& world) {
  LayoutFingerprint f;
  std::vector<std::string>& e = f.entries;
  const StateSpace space = world.getStateSpace();
  const WorldOptions& options = world.getOptions();
  e.push_back("state: " + std::to_string(space.numPositions()) + " positions, " +
              std::to_string(space.numVelocities()) + " velocities");
  e.push_back("solver: " + options.solver.method + ", " + std::to_string(options.solver.frictionDirections) +
              " friction directions");
  for (const StateSegment& s : space.segments()) {
    const std::string key =
        s.joint.empty() ? "rigid body '" + s.owner + "'" : "joint '" + s.owner + "/" + s.joint + "'";
    e.push_back(key + ": " + std::string(toString(s.type)) + ", q" + range(s.positionOffset, s.numPositions) + ", v" +
                range(s.velocityOffset, s.numDofs));
  }
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) {
      const std::optional<Link> parent = link.getParentLink();
      e.push_back("link '" + link.name() + "': child of " + (parent ? "'" + parent->name() + "'" : "the world") +
                  " through '" + mb.name() + "/" + link.getParentJoint().name() + "'");
    }
    e.push_back("multibody '" + mb.name() + "': " + std::to_string(mb.numLinks()) + " links, self-collision " +
                (mb.getSelfCollision() ? "on" : "off"));
  }
  for (const LoopClosure& c : world.getLoopClosures()) {
    const LoopClosureSpec spec = c.getSpec();
    e.push_back("loop closure '" + c.name() + "': " + std::string(toString(spec.family)) + " between '" +
                spec.frameA.name() + "' and '" + spec.frameB.name() + "'");
  }
  for (const JointCoupler& c : world.getJointCouplers()) {
    const JointCouplerSpec spec = c.getSpec();
    e.push_back("joint coupler '" + c.name() + "': '" + spec.follower.name() + "' follows '" + spec.leader.name() +
                "'");
  }
  for (const Actuator& a : world.getActuators()) {
    const ActuatorSpec spec = a.getSpec();
    e.push_back("actuator '" + a.name() + "': " + toString(spec.type) + " on '" + spec.joint + "' coordinate " +
                std::to_string(spec.coordinate));
  }
  for (const Frame& frame : world.getFrames()) {
    if (frame.kind() == FrameKind::FreeFrame) {
      e.push_back("free frame '" + frame.name() + "': child of '" + frame.getParentFrame().name() + "'");
    }
  }
  addShapes(e, world.getCollisionShapes(Frame::World()), "world");
  for (const RigidBody& b : world.getRigidBodies()) addShapes(e, b.getCollisionShapes(), b.name());
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) addShapes(e, link.getCollisionShapes(), link.name());
  }
  for (const Frame& frame : world.getFrames()) addShapes(e, world.getCollisionShapes(frame), frame.name());
  f.hash = layoutFingerprintHash(e);
  return f;
}

std::string describeLayoutDifference(const LayoutFingerprint& recorded, const LayoutFingerprint& current,
                                     std::size_t maxItems) {
  if (recorded == current) return {};
  const auto split = [](const LayoutFingerprint& f) {
    std::map<std::string, std::string> m;
    for (const std::string& entry : f.entries) {
      const std::size_t colon = entry.find(": ");
      m.emplace(entry.substr(0, colon), colon == std::string::npos ? std::string() : entry.substr(colon + 2));
    }
    return m;
  };
  const std::map<std::string, std::string> a = split(recorded);
  const std::map<std::string, std::string> b = split(current);
  std::vector<std::string> items;
  // In the recorded order first (removed or changed), then what is new.
  for (const std::string& entry : recorded.entries) {
    const std::string key = entry.substr(0, entry.find(": "));
    const auto it = b.find(key);
    if (it == b.end()) {
      items.push_back(key + " removed");
    } else if (it->second != a.at(key)) {
      items.push_back(key + ": " + a.at(key) + " → " + it->second);
    }
  }
  for (const std::string& entry : current.entries) {
    const std::string key = entry.substr(0, entry.find(": "));
    if (a.count(key) == 0) items.push_back(key + " added (" + b.at(key) + ")");
  }
  if (items.empty()) items.push_back("the same elements in a different order");
  std::ostringstream os;
  for (std::size_t i = 0; i < items.size() && i < maxItems; ++i) os << (i ? "; " : "") << items[i];
  if (items.size() > maxItems) os << "; and " << items.size() - maxItems << " more";
  return os.str();
}

}  // namespace articula
