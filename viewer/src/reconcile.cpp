#include <articula/viewer/reconcile.hpp>

#include <articula/error.hpp>

#include <unordered_map>

namespace articula::viewer {

DrawnShape drawnShapeOf(const SceneDescription& description, std::size_t shapeIndex) {
  const ShapeDescription& s = description.shapes[shapeIndex];
  DrawnShape d;
  d.id = s.id;
  d.contentHash = s.contentHash;
  d.body = s.body < description.bodies.size() ? description.bodies[s.body].id : kWorldBodyId;
  d.localPose = s.localPose;
  d.collision = s.collision;
  return d;
}

ReconcilePlan reconcile(const std::vector<DrawnShape>& drawn, const SceneDescription& desired) {
  // Mark: every drawn shape starts unreached; each description shape
  // reaches its drawn counterpart (if any) and is classified.
  std::unordered_map<ObjectId, std::size_t> drawnIndex;
  drawnIndex.reserve(drawn.size());
  for (std::size_t i = 0; i < drawn.size(); ++i) drawnIndex.emplace(drawn[i].id, i);
  std::vector<bool> reached(drawn.size(), false);
  std::unordered_map<ObjectId, std::size_t> seen;
  seen.reserve(desired.shapes.size());

  ReconcilePlan plan;
  for (std::size_t i = 0; i < desired.shapes.size(); ++i) {
    const DrawnShape want = drawnShapeOf(desired, i);
    if (const auto [it, inserted] = seen.emplace(want.id, i); !inserted) {
      throw InvalidArgument("scene description: shapes '" + desired.shapes[it->second].name + "' and '" +
                            desired.shapes[i].name + "' have the same id " + std::to_string(want.id));
    }
    const auto found = drawnIndex.find(want.id);
    if (found == drawnIndex.end()) {
      plan.added.push_back(i);
      continue;
    }
    reached[found->second] = true;
    const DrawnShape& have = drawn[found->second];
    if (have.contentHash != want.contentHash || have.collision != want.collision) {
      plan.rebuilt.push_back(i);
    } else if (have.body != want.body || have.localPose.matrix() != want.localPose.matrix()) {
      plan.moved.push_back(i);
    } else {
      plan.unchanged.push_back(i);
    }
  }
  // Sweep: whatever was not reached is gone.
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    if (!reached[i]) plan.removed.push_back(drawn[i].id);
  }
  return plan;
}

}  // namespace articula::viewer
