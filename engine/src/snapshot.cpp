// Runtime snapshots: the state plus what the solver carries between steps.
//
// solverData layout (native byte order, same build):
//   u32 manifolds, then per manifold: i32 shape0, i32 shape1, i32 points, raw points
//   u32 closures, then per closure: u32 rows, rows × f64 row impulses
//   u32 couplers, then per coupler: f64 row impulse
#include <articula/world.hpp>

#include "collision.hpp"
#include "world_impl.hpp"

#include <cstdint>
#include <cstring>

namespace articula {

namespace {

class Writer {
 public:
  explicit Writer(std::vector<unsigned char>& out) : m_out(out) {}
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    m_out.insert(m_out.end(), p, p + sizeof(T));
  }
  void bytes(const std::vector<unsigned char>& b) { m_out.insert(m_out.end(), b.begin(), b.end()); }

 private:
  std::vector<unsigned char>& m_out;
};

class Reader {
 public:
  explicit Reader(const std::vector<unsigned char>& in) : m_in(in) {}
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, m_in.data() + m_at, sizeof(T));
    m_at += sizeof(T);
    return v;
  }
  std::vector<unsigned char> bytes(std::size_t n) {
    need(n);
    std::vector<unsigned char> b(m_in.begin() + static_cast<std::ptrdiff_t>(m_at),
                                 m_in.begin() + static_cast<std::ptrdiff_t>(m_at + n));
    m_at += n;
    return b;
  }
  bool atEnd() const { return m_at == m_in.size(); }

 private:
  void need(std::size_t n) const {
    if (m_in.size() - m_at < n) throw InvalidArgument("restoreRuntimeState: the snapshot's solver data is truncated");
  }
  const std::vector<unsigned char>& m_in;
  std::size_t m_at = 0;
};

}  // namespace

RuntimeSnapshot World::captureRuntimeState() const {
  auto& w = *m_impl;
  RuntimeSnapshot s;
  s.state = getState();
  s.simulationMode = w.simulation;
  for (const LoopClosure& c : getLoopClosures()) s.closurePolicies.push_back(c.getRuntimePolicy());
  for (const JointCoupler& c : getJointCouplers()) s.couplerPolicies.push_back(c.getRuntimePolicy());
  Writer out(s.solverData);
  std::vector<detail::ManifoldState> manifolds;
  if (w.simulation && w.collisionValid && w.collision) w.collision->capture(manifolds);
  out.put(static_cast<std::uint32_t>(manifolds.size()));
  for (const detail::ManifoldState& m : manifolds) {
    out.put(static_cast<std::int32_t>(m.shape0));
    out.put(static_cast<std::int32_t>(m.shape1));
    out.put(static_cast<std::int32_t>(m.numPoints));
    out.bytes(m.points);
  }
  out.put(static_cast<std::uint32_t>(s.closurePolicies.size()));
  for (const auto& rec : w.closures) {
    if (!rec.alive) continue;
    out.put(static_cast<std::uint32_t>(rec.lambda.size()));
    for (const double l : rec.lambda) out.put(l);
  }
  out.put(static_cast<std::uint32_t>(s.couplerPolicies.size()));
  for (const auto& rec : w.couplers) {
    if (rec.alive) out.put(rec.lambda);
  }
  return s;
}

void World::restoreRuntimeState(const RuntimeSnapshot& s) {
  auto& w = *m_impl;
  const std::vector<LoopClosure> closures = getLoopClosures();
  const std::vector<JointCoupler> couplers = getJointCouplers();
  if (s.closurePolicies.size() != closures.size() || s.couplerPolicies.size() != couplers.size()) {
    throw InvalidArgument("restoreRuntimeState: the snapshot has " + std::to_string(s.closurePolicies.size()) +
                          " loop closures and " + std::to_string(s.couplerPolicies.size()) + " couplers, the world " +
                          std::to_string(closures.size()) + " and " + std::to_string(couplers.size()));
  }
  // Parse everything before changing anything.
  Reader in(s.solverData);
  std::vector<detail::ManifoldState> manifolds(in.get<std::uint32_t>());
  for (detail::ManifoldState& m : manifolds) {
    m.shape0 = in.get<std::int32_t>();
    m.shape1 = in.get<std::int32_t>();
    m.numPoints = in.get<std::int32_t>();
    if (m.numPoints < 0 || m.numPoints > 4)
      throw InvalidArgument("restoreRuntimeState: a manifold holds 0 to 4 points");
    m.points = in.bytes(static_cast<std::size_t>(m.numPoints) * detail::manifoldPointSize());
  }
  std::vector<std::vector<double>> closureLambda(in.get<std::uint32_t>());
  if (closureLambda.size() != closures.size()) throw InvalidArgument("restoreRuntimeState: closure rows do not match");
  for (auto& l : closureLambda) {
    l.resize(in.get<std::uint32_t>());
    for (double& x : l) x = in.get<double>();
  }
  std::vector<double> couplerLambda(in.get<std::uint32_t>());
  if (couplerLambda.size() != couplers.size()) throw InvalidArgument("restoreRuntimeState: coupler rows do not match");
  for (double& x : couplerLambda) x = in.get<double>();
  if (!in.atEnd()) throw InvalidArgument("restoreRuntimeState: the snapshot's solver data has trailing bytes");
  w.ensureModel();
  const int nq = w.model.nq;
  const int nv = w.model.nv;
  if (s.state.positions.size() != nq || s.state.velocities.size() != nv || s.state.accelerations.size() != nv ||
      s.state.forces.size() != nv || s.state.externalWrenches.cols() != w.model.nbody) {
    throw InvalidArgument("restoreRuntimeState: the snapshot's state sizes do not match the world's");
  }
  for (const auto& m : manifolds) {
    if (m.shape0 < 0 || m.shape1 < 0 || m.shape0 >= w.model.nshape || m.shape1 >= w.model.nshape) {
      throw InvalidArgument("restoreRuntimeState: a manifold names a shape the world does not have");
    }
  }

  if (s.simulationMode && !w.simulation) enterSimulationMode();
  setState(s.state);
  for (std::size_t i = 0; i < closures.size(); ++i) {
    LoopClosure c = closures[i];
    c.setRuntimePolicy(s.closurePolicies[i]);
  }
  for (std::size_t i = 0; i < couplers.size(); ++i) {
    JointCoupler c = couplers[i];
    c.setRuntimePolicy(s.couplerPolicies[i]);
  }
  std::size_t k = 0;
  for (auto& rec : w.closures) {
    if (rec.alive) rec.lambda = closureLambda[k++];
  }
  k = 0;
  for (auto& rec : w.couplers) {
    if (rec.alive) rec.lambda = couplerLambda[k++];
  }
  if (w.simulation && w.model.nshape > 0) {
    w.ensureCollision();
    if (w.collision) {
      w.ensurePositions();
      w.collision->update(w.data.X_WB);
      w.collision->restore(manifolds);
    }
  }
}

}  // namespace articula
