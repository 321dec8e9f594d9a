// Multibody, Link and Joint handles: topology, state access, dynamics
// queries and skeleton editing.
#include "joint_model.hpp"
#include "world_impl.hpp"

#include <articula/conventions.hpp>
#include <articula/multibody.hpp>

#include <algorithm>

namespace articula {

using detail::SE3;
using detail::WorldImpl;

namespace {

WorldImpl& implOf(const Multibody& mb) {
  if (mb.world() == nullptr) throw InvalidHandle("invalid Multibody handle (default-constructed)");
  auto& w = detail::implOf(mb.world());
  w.multibody(mb.index(), mb.generation());
  return w;
}

WorldImpl& implOfLink(const Frame& link) {
  if (link.kind() != FrameKind::Link || link.world() == nullptr) throw InvalidHandle("invalid Link handle");
  auto& w = detail::implOf(link.world());
  w.link(link.index(), link.generation());
  return w;
}

// Range of an owner in the compiled model.
struct OwnerRange {
  int b0, b1, qa, nq, va, nv;
};

OwnerRange rangeOf(WorldImpl& w, std::uint32_t mbSlot) {
  const int o = w.ownerOfMultibody(mbSlot);
  const auto oi = static_cast<std::size_t>(o);
  const auto& m = w.model;
  return {m.owner_bodyadr[oi], m.owner_bodyadr[oi] + m.owner_nbody[oi],
          m.owner_qadr[oi],    m.owner_nq[oi],
          m.owner_vadr[oi],    m.owner_nv[oi]};
}

void checkSize(const char* what, Eigen::Index got, int expected) {
  if (got != expected) {
    throw InvalidArgument(std::string(what) + ": expected " + std::to_string(expected) + " entries, got " +
                          std::to_string(got));
  }
}

// Point Jacobian rows [ω; v_point] from world spatial columns, rotated into C.
Matrix6Xd pointJacobian(const Matrix6Xd& Js, const Vector3d& p, const Matrix3d& R_WC) {
  Matrix6Xd J(6, Js.cols());
  J.topRows<3>() = R_WC.transpose() * Js.topRows<3>();
  J.bottomRows<3>() = R_WC.transpose() * (Js.bottomRows<3>() - detail::skew(p) * Js.topRows<3>());
  return J;
}

Matrix3d worldRotation(const Frame& f) {
  if (f.isWorld()) return Matrix3d::Identity();
  return f.getWorldTransform().linear();
}

std::string renameFor(const std::map<std::string, std::uint32_t>& taken, const std::string& name) {
  return WorldImpl::uniqueName(taken, name);
}

}  // namespace

// ===========================================================================
// Multibody

bool Multibody::isValid() const {
  if (m_world == nullptr) return false;
  const auto& w = detail::implOf(m_world);
  return m_index < w.multibodies.size() && w.multibodies[m_index].alive &&
         w.multibodies[m_index].generation == m_generation;
}

std::string Multibody::name() const {
  return implOf(*this).multibodies[m_index].name;
}

Link Multibody::addLink(const LinkOptions& options, const JointSpec& rootJoint) {
  auto& w = implOf(*this);
  w.requireDesignMode("add a link");
  if (w.multibodies[m_index].root >= 0) {
    throw TopologyError("multibody '" + w.multibodies[m_index].name +
                        "' already has a root link; pass a parent link to add a child");
  }
  const auto slot = w.createLink(m_index, -1, options, rootJoint);
  return Link(m_world, FrameKind::Link, slot, w.links[slot].generation);
}

Link Multibody::addLink(const LinkOptions& options, const Link& parent, const JointSpec& joint) {
  auto& w = implOf(*this);
  if (parent.world() != m_world) {
    throw TopologyError("parent link belongs to another World than multibody '" + name() + "'");
  }
  const auto& P = w.link(parent.index(), parent.generation());
  if (P.multibody != m_index) {
    throw TopologyError("parent link '" + P.name + "' belongs to multibody '" + w.multibodies[P.multibody].name +
                        "', not to '" + w.multibodies[m_index].name + "'");
  }
  w.requireDesignMode("add a link");
  const auto slot = w.createLink(m_index, static_cast<int>(parent.index()), options, joint);
  return Link(m_world, FrameKind::Link, slot, w.links[slot].generation);
}

std::size_t Multibody::numLinks() const {
  return implOf(*this).multibodies[m_index].linkByName.size();
}

int Multibody::numDofs() const {
  auto& w = implOf(*this);
  int n = 0;
  for (auto s : w.treeOrder(m_index)) n += articula::numDofs(w.links[s].joint.type);
  return n;
}

int Multibody::numPositions() const {
  auto& w = implOf(*this);
  int n = 0;
  for (auto s : w.treeOrder(m_index)) n += articula::numPositions(w.links[s].joint.type);
  return n;
}

std::optional<Link> Multibody::getRootLink() const {
  auto& w = implOf(*this);
  const int r = w.multibodies[m_index].root;
  if (r < 0) return std::nullopt;
  const auto s = static_cast<std::uint32_t>(r);
  return Link(m_world, FrameKind::Link, s, w.links[s].generation);
}

std::optional<Link> Multibody::getLink(const std::string& n) const {
  auto& w = implOf(*this);
  const auto& map = w.multibodies[m_index].linkByName;
  auto it = map.find(n);
  if (it == map.end()) return std::nullopt;
  return Link(m_world, FrameKind::Link, it->second, w.links[it->second].generation);
}

bool Multibody::hasLink(const std::string& n) const {
  return getLink(n).has_value();
}

std::optional<Joint> Multibody::getJoint(const std::string& n) const {
  auto& w = implOf(*this);
  const auto& map = w.multibodies[m_index].jointByName;
  auto it = map.find(n);
  if (it == map.end()) return std::nullopt;
  return Joint(m_world, it->second, w.links[it->second].generation);
}

bool Multibody::hasJoint(const std::string& n) const {
  return getJoint(n).has_value();
}

std::vector<Link> Multibody::getLinks() const {
  auto& w = implOf(*this);
  std::vector<Link> out;
  for (auto s : w.treeOrder(m_index)) out.push_back(Link(m_world, FrameKind::Link, s, w.links[s].generation));
  return out;
}

std::vector<Joint> Multibody::getJoints() const {
  auto& w = implOf(*this);
  std::vector<Joint> out;
  for (auto s : w.treeOrder(m_index)) out.push_back(Joint(m_world, s, w.links[s].generation));
  return out;
}

VectorXd Multibody::getPositions() const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  return w.state.q.segment(r.qa, r.nq);
}

void Multibody::setPositions(const VectorXd& q) {
  auto& w = implOf(*this);
  w.requireUnlocked("set positions");
  const auto r = rangeOf(w, m_index);
  checkSize("Multibody::setPositions", q.size(), r.nq);
  w.state.q.segment(r.qa, r.nq) = q;
  for (int i = r.b0; i < r.b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    detail::jointNormalize(w.model.jnt_type[b], w.state.q.data() + w.model.jnt_qadr[b]);
  }
  w.touchPositions();
}

namespace {

// The multibody's segment of one of the state's velocity-sized vectors.
VectorXd dofSegment(const Multibody& mb, VectorXd detail::State::*field) {
  auto& w = implOf(mb);
  const auto r = rangeOf(w, mb.index());
  return (w.state.*field).segment(r.va, r.nv);
}

void setDofSegment(const Multibody& mb, VectorXd detail::State::*field, const VectorXd& value, const char* what) {
  auto& w = implOf(mb);
  const auto r = rangeOf(w, mb.index());
  checkSize(what, value.size(), r.nv);
  (w.state.*field).segment(r.va, r.nv) = value;
}

}  // namespace

VectorXd Multibody::getVelocities() const {
  return dofSegment(*this, &detail::State::v);
}

void Multibody::setVelocities(const VectorXd& v) {
  if (m_world != nullptr) detail::implOf(m_world).requireUnlocked("set velocities");
  setDofSegment(*this, &detail::State::v, v, "Multibody::setVelocities");
  detail::implOf(m_world).touchVelocities();
}

VectorXd Multibody::getAccelerations() const {
  return dofSegment(*this, &detail::State::vdot);
}

void Multibody::setAccelerations(const VectorXd& vdot) {
  setDofSegment(*this, &detail::State::vdot, vdot, "Multibody::setAccelerations");
  detail::implOf(m_world).touchAccelerations();
}

VectorXd Multibody::getForces() const {
  return dofSegment(*this, &detail::State::tau);
}

void Multibody::setForces(const VectorXd& tau) {
  setDofSegment(*this, &detail::State::tau, tau, "Multibody::setForces");
}

MatrixXd Multibody::getMassMatrix() const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  w.ensurePositions();
  MatrixXd M = MatrixXd::Zero(r.nv, r.nv);
  if (r.nv > 0) detail::compositeRigidBodyAlgorithm(w.model, r.b0, r.b1, w.data, M);
  return M;
}

MatrixXd Multibody::getInverseMassMatrix() const {
  const MatrixXd M = getMassMatrix();
  return M.llt().solve(MatrixXd::Identity(M.rows(), M.cols()));
}

namespace {

VectorXd rnea(WorldImpl& w, const OwnerRange& r, const VectorXd* vdotSeg, bool withVelocity, bool withGravity,
              bool withExternal) {
  w.ensureVelocities();
  VectorXd vdot = VectorXd::Zero(w.model.nv);
  if (vdotSeg != nullptr) vdot.segment(r.va, r.nv) = *vdotSeg;
  VectorXd tau = VectorXd::Zero(w.model.nv);
  detail::recursiveNewtonEuler(w.model, w.state.v, vdot, withExternal ? &w.state.fext : nullptr, withVelocity,
                               withGravity, r.b0, r.b1, w.data, tau);
  return tau.segment(r.va, r.nv);
}

}  // namespace

VectorXd Multibody::getCoriolisForces() const {
  auto& w = implOf(*this);
  return rnea(w, rangeOf(w, m_index), nullptr, true, false, false);
}

VectorXd Multibody::getGravityForces() const {
  auto& w = implOf(*this);
  return rnea(w, rangeOf(w, m_index), nullptr, false, true, false);
}

VectorXd Multibody::getCoriolisAndGravityForces() const {
  auto& w = implOf(*this);
  return rnea(w, rangeOf(w, m_index), nullptr, true, true, false);
}

VectorXd Multibody::computeInverseDynamics(const VectorXd& vdot) const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  checkSize("Multibody::computeInverseDynamics", vdot.size(), r.nv);
  return rnea(w, r, &vdot, true, true, true);
}

VectorXd Multibody::computeForwardDynamics(const VectorXd& tauSeg) const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  checkSize("Multibody::computeForwardDynamics", tauSeg.size(), r.nv);
  w.ensureVelocities();
  VectorXd tau = VectorXd::Zero(w.model.nv);
  tau.segment(r.va, r.nv) = tauSeg;
  VectorXd vdot = VectorXd::Zero(w.model.nv);
  detail::articulatedBodyAlgorithm(w.model, w.state.v, tau, w.state.fext, w.model.dof_armature, r.b0, r.b1, w.data,
                                   vdot);
  return vdot.segment(r.va, r.nv);
}

double Multibody::getMass() const {
  auto& w = implOf(*this);
  double m = 0.0;
  for (auto s : w.treeOrder(m_index)) m += w.links[s].inertia.mass;
  return m;
}

Vector3d Multibody::getCOM() const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  w.ensurePositions();
  Vector3d c = Vector3d::Zero();
  double mass = 0.0;
  for (int i = r.b0; i < r.b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    c += w.model.body_mass[b] * w.data.X_WB[b].transformPoint(w.model.body_com[b]);
    mass += w.model.body_mass[b];
  }
  return mass > 0.0 ? Vector3d(c / mass) : Vector3d::Zero();
}

Vector3d Multibody::getCOMLinearVelocity() const {
  const double mass = getMass();
  return mass > 0.0 ? Vector3d(getLinearMomentum() / mass) : Vector3d::Zero();
}

Matrix3Xd Multibody::getCOMJacobian() const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  w.ensurePositions();
  Matrix3Xd J = Matrix3Xd::Zero(3, r.nv);
  double mass = 0.0;
  Matrix6Xd Js(6, r.nv);
  for (int i = r.b0; i < r.b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const double m = w.model.body_mass[b];
    if (m == 0.0) continue;
    detail::spatialJacobianWorld(w.model, w.data, i, r.b0, r.b1, Js);
    const Vector3d c = w.data.X_WB[b].transformPoint(w.model.body_com[b]);
    J += m * (Js.bottomRows<3>() - detail::skew(c) * Js.topRows<3>());
    mass += m;
  }
  return mass > 0.0 ? Matrix3Xd(J / mass) : J;
}

double Multibody::computeKineticEnergy() const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  w.ensureVelocities();
  return detail::kineticEnergy(w.model, w.data, w.state.v, r.b0, r.b1);
}

double Multibody::computePotentialEnergy() const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  w.ensurePositions();
  return detail::potentialEnergy(w.model, w.data, w.state.q, r.b0, r.b1);
}

Vector3d Multibody::getLinearMomentum() const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  w.ensureVelocities();
  Vector3d p = Vector3d::Zero();
  for (int i = r.b0; i < r.b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const auto& X = w.data.X_WB[b];
    const auto& V = w.data.V[b];
    const Vector3d& c = w.model.body_com[b];
    p += w.model.body_mass[b] * (X.R * (V.tail<3>() + V.head<3>().cross(c)));
  }
  return p;
}

Vector3d Multibody::getAngularMomentum(const Vector3d& point) const {
  auto& w = implOf(*this);
  const auto r = rangeOf(w, m_index);
  w.ensureVelocities();
  Vector3d h = Vector3d::Zero();
  for (int i = r.b0; i < r.b1; ++i) {
    const auto b = static_cast<std::size_t>(i);
    const auto& X = w.data.X_WB[b];
    const auto& V = w.data.V[b];
    const Vector3d& c = w.model.body_com[b];
    const Vector3d vc = X.R * (V.tail<3>() + V.head<3>().cross(c));
    const Vector3d cw = X.transformPoint(c);
    h += X.R * (w.model.body_inertiaCom[b] * V.head<3>()) + (cw - point).cross(w.model.body_mass[b] * vc);
  }
  return h;
}

Matrix6Xd Multibody::getJacobian(const Link& link, const Vector3d& offset, const Frame& inCoordinatesOf) const {
  auto& w = implOf(*this);
  implOfLink(link);
  if (w.links[link.index()].multibody != m_index) {
    throw TopologyError("link '" + link.name() + "' does not belong to multibody '" + name() + "'");
  }
  w.checkFrame(inCoordinatesOf);
  const auto r = rangeOf(w, m_index);
  w.ensurePositions();
  const int body = w.linkBody[link.index()];
  Matrix6Xd Js(6, r.nv);
  detail::spatialJacobianWorld(w.model, w.data, body, r.b0, r.b1, Js);
  const Vector3d p = w.data.X_WB[static_cast<std::size_t>(body)].transformPoint(offset);
  return pointJacobian(Js, p, worldRotation(inCoordinatesOf));
}

Matrix6Xd Multibody::getJacobianTimeDerivative(const Link& link, const Vector3d& offset,
                                               const Frame& inCoordinatesOf) const {
  auto& w = implOf(*this);
  implOfLink(link);
  if (w.links[link.index()].multibody != m_index) {
    throw TopologyError("link '" + link.name() + "' does not belong to multibody '" + name() + "'");
  }
  w.checkFrame(inCoordinatesOf);
  const auto r = rangeOf(w, m_index);
  w.ensureVelocities();
  const int body = w.linkBody[link.index()];
  const auto b = static_cast<std::size_t>(body);
  Matrix6Xd Js(6, r.nv);
  Matrix6Xd Jsd(6, r.nv);
  detail::spatialJacobianWorld(w.model, w.data, body, r.b0, r.b1, Js);
  detail::spatialJacobianWorldDot(w.model, w.data, body, r.b0, r.b1, Jsd);
  const auto& X = w.data.X_WB[b];
  const Vector3d p = X.transformPoint(offset);
  const Vector3d pdot = X.R * (w.data.V[b].tail<3>() + w.data.V[b].head<3>().cross(offset));
  // World-coordinate derivative of the point Jacobian.
  Matrix6Xd Jd(6, r.nv);
  Jd.topRows<3>() = Jsd.topRows<3>();
  Jd.bottomRows<3>() = Jsd.bottomRows<3>() - detail::skew(p) * Jsd.topRows<3>() - detail::skew(pdot) * Js.topRows<3>();
  if (inCoordinatesOf.isWorld()) return Jd;
  // d/dt (R_CW J) = R_CW (J̇ − [ω_C]× J).
  Matrix6Xd J = pointJacobian(Js, p, Matrix3d::Identity());
  const Matrix3d R_WC = worldRotation(inCoordinatesOf);
  const Vector3d wC = inCoordinatesOf.getAngularVelocity();
  const Matrix3d Wc = detail::skew(wC);
  Matrix6Xd out(6, r.nv);
  out.topRows<3>() = R_WC.transpose() * (Jd.topRows<3>() - Wc * J.topRows<3>());
  out.bottomRows<3>() = R_WC.transpose() * (Jd.bottomRows<3>() - Wc * J.bottomRows<3>());
  return out;
}

// ===========================================================================
// Link

Multibody Link::getMultibody() const {
  auto& w = implOfLink(*this);
  const auto mb = w.links[m_index].multibody;
  return Multibody(m_world, mb, w.multibodies[mb].generation);
}

Joint Link::getParentJoint() const {
  implOfLink(*this);
  return Joint(m_world, m_index, m_generation);
}

std::optional<Link> Link::getParentLink() const {
  auto& w = implOfLink(*this);
  const int p = w.links[m_index].parent;
  if (p < 0) return std::nullopt;
  const auto s = static_cast<std::uint32_t>(p);
  return Link(m_world, FrameKind::Link, s, w.links[s].generation);
}

std::vector<Link> Link::getChildLinks() const {
  auto& w = implOfLink(*this);
  std::vector<Link> out;
  for (auto c : w.links[m_index].children) out.push_back(Link(m_world, FrameKind::Link, c, w.links[c].generation));
  return out;
}

Inertia Link::getInertia() const {
  return implOfLink(*this).links[m_index].inertia;
}

void Link::setInertia(const Inertia& inertia) {
  auto& w = implOfLink(*this);
  detail::validateInertia(inertia, "link '" + name() + "'", false);
  w.links[m_index].inertia = inertia;
  if (!w.modelValid) return;
  const auto b = static_cast<std::size_t>(w.linkBody[m_index]);
  auto& m = w.model;
  m.body_mass[b] = inertia.mass;
  m.body_com[b] = inertia.com;
  m.body_inertiaCom[b] = detail::conditionedRotationalInertia(inertia.rotational);
  m.body_inertia[b] = detail::spatialInertia(inertia.mass, inertia.com, m.body_inertiaCom[b]);
  detail::computeWeldGroupInertias(m);
  w.touchAccelerations();
}

Vector3d Link::getCOM() const {
  return getWorldTransform() * implOfLink(*this).links[m_index].inertia.com;
}

void Link::addExternalForce(const Vector3d& force, const Vector3d& offset, bool forceInWorld, bool offsetInWorld) {
  auto& w = implOfLink(*this);
  const auto b = static_cast<std::size_t>(w.bodyOfLink(m_index));
  w.ensurePositions();
  const auto& X = w.data.X_WB[b];
  const Vector3d f = forceInWorld ? Vector3d(X.R.transpose() * force) : force;
  const Vector3d r = offsetInWorld ? Vector3d(X.R.transpose() * (offset - X.p)) : offset;
  w.state.fext[b].head<3>() += r.cross(f);
  w.state.fext[b].tail<3>() += f;
}

void Link::addExternalTorque(const Vector3d& torque, bool inWorld) {
  auto& w = implOfLink(*this);
  const auto b = static_cast<std::size_t>(w.bodyOfLink(m_index));
  w.ensurePositions();
  w.state.fext[b].head<3>() += inWorld ? Vector3d(w.data.X_WB[b].R.transpose() * torque) : torque;
}

void Link::clearExternalForces() {
  auto& w = implOfLink(*this);
  w.state.fext[static_cast<std::size_t>(w.bodyOfLink(m_index))].setZero();
}

Vector6d Link::getExternalWrench() const {
  auto& w = implOfLink(*this);
  return w.state.fext[static_cast<std::size_t>(w.bodyOfLink(m_index))];
}

std::vector<int> Link::getDependentDofs() const {
  auto& w = implOfLink(*this);
  const auto r = rangeOf(w, w.links[m_index].multibody);
  std::vector<int> out;
  for (int k = w.linkBody[m_index]; k >= 0; k = w.model.body_parent[static_cast<std::size_t>(k)]) {
    const auto b = static_cast<std::size_t>(k);
    for (int d = w.model.jnt_nv[b] - 1; d >= 0; --d) out.push_back(w.model.jnt_vadr[b] + d - r.va);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

Matrix6Xd Link::getJacobian(const Vector3d& offset, const Frame& inCoordinatesOf) const {
  return getMultibody().getJacobian(*this, offset, inCoordinatesOf);
}

Matrix6Xd Link::getChainJacobian(const Vector3d& offset, const Frame& inCoordinatesOf) const {
  const Matrix6Xd J = getJacobian(offset, inCoordinatesOf);
  const auto dofs = getDependentDofs();
  Matrix6Xd out(6, static_cast<Eigen::Index>(dofs.size()));
  for (std::size_t i = 0; i < dofs.size(); ++i) out.col(static_cast<Eigen::Index>(i)) = J.col(dofs[i]);
  return out;
}

Matrix6Xd Link::getJacobianTimeDerivative(const Vector3d& offset, const Frame& inCoordinatesOf) const {
  return getMultibody().getJacobianTimeDerivative(*this, offset, inCoordinatesOf);
}

Matrix3Xd Link::getAngularJacobian(const Frame& inCoordinatesOf) const {
  return getJacobian(Vector3d::Zero(), inCoordinatesOf).topRows<3>();
}

Matrix3Xd Link::getLinearJacobian(const Vector3d& offset, const Frame& inCoordinatesOf) const {
  return getJacobian(offset, inCoordinatesOf).bottomRows<3>();
}

// ---- skeleton editing -------------------------------------------------------

namespace {

// Detaches `slot` from its parent (or from its multibody's root).
void detach(WorldImpl& w, std::uint32_t slot) {
  auto& L = w.links[slot];
  if (L.parent >= 0) {
    auto& ch = w.links[static_cast<std::size_t>(L.parent)].children;
    ch.erase(std::remove(ch.begin(), ch.end(), slot), ch.end());
  } else {
    w.multibodies[L.multibody].root = -1;
  }
  L.parent = -1;
}

// Re-homes the subtree's links into multibody `target`, renaming on clashes.
void rehome(WorldImpl& w, const std::vector<std::uint32_t>& slots, std::uint32_t target) {
  for (auto s : slots) {
    auto& L = w.links[s];
    if (L.multibody == target) continue;
    auto& from = w.multibodies[L.multibody];
    from.linkByName.erase(L.name);
    from.jointByName.erase(L.joint.name);
    auto& to = w.multibodies[target];
    L.name = renameFor(to.linkByName, L.name);
    L.joint.name = renameFor(to.jointByName, L.joint.name);
    to.linkByName[L.name] = s;
    to.jointByName[L.joint.name] = s;
    L.multibody = target;
  }
}

void setJoint(WorldImpl& w, std::uint32_t slot, const JointSpec& spec) {
  auto& L = w.links[slot];
  auto& mb = w.multibodies[L.multibody];
  std::string jname = spec.name.empty() ? L.joint.name : spec.name;
  if (jname != L.joint.name && mb.jointByName.count(jname) != 0) {
    throw TopologyError("multibody '" + mb.name + "': a joint named '" + jname + "' already exists");
  }
  JointSpec js = detail::normalizedJointSpec(spec, "multibody '" + mb.name + "', joint '" + jname + "'");
  js.name = jname;
  mb.jointByName.erase(L.joint.name);
  mb.jointByName[jname] = slot;
  if (js.type != L.joint.type) {
    L.q.resize(0);
    L.v.resize(0);
    L.tau.resize(0);
  }
  L.joint = js;
}

// Sets a Free root joint's coordinates so that the link keeps pose X_WL and body twist V_L.
void placeFreeRoot(WorldImpl& w, std::uint32_t slot, const SE3& X_WL, const Vector6d& V_L) {
  auto& L = w.links[slot];
  const SE3 XPJ = SE3::fromIsometry(L.joint.parentOffset);
  const SE3 XCJ = SE3::fromIsometry(L.joint.childOffset);
  const SE3 XJ = XPJ.inverse() * X_WL * XCJ;
  L.q = freeJointPositions(XJ.toIsometry());
  L.v = XCJ.invActMotion(V_L);
  L.tau = VectorXd::Zero(6);
}

std::uint32_t copySubtree(WorldImpl& w, std::uint32_t src, std::uint32_t targetMb, int targetParent) {
  const auto slots = w.subtreeSlots(src);
  std::map<std::uint32_t, std::uint32_t> remap;
  for (auto s : slots) {
    detail::LinkRecord rec = w.links[s];
    rec.generation = w.newGeneration();
    rec.children.clear();
    rec.multibody = targetMb;
    auto& mb = w.multibodies[targetMb];
    rec.name = renameFor(mb.linkByName, rec.name);
    rec.joint.name = renameFor(mb.jointByName, rec.joint.name);
    const auto slot = static_cast<std::uint32_t>(w.links.size());
    rec.parent = s == src ? targetParent : static_cast<int>(remap.at(static_cast<std::uint32_t>(w.links[s].parent)));
    mb.linkByName[rec.name] = slot;
    mb.jointByName[rec.joint.name] = slot;
    const int parent = rec.parent;
    w.links.push_back(std::move(rec));
    if (parent >= 0) {
      w.links[static_cast<std::size_t>(parent)].children.push_back(slot);
    } else {
      w.multibodies[targetMb].root = static_cast<int>(slot);
    }
    remap[s] = slot;
  }
  // Shapes follow their links.
  const auto nshapes = w.shapes.size();
  for (std::size_t k = 0; k < nshapes; ++k) {
    if (!w.shapes[k].alive || w.shapes[k].owner.kind != FrameKind::Link) continue;
    const auto it = remap.find(w.shapes[k].owner.index);
    if (it == remap.end() || w.shapes[k].owner.generation != w.links[it->first].generation) continue;
    detail::ShapeRecord copy = w.shapes[k];
    copy.generation = w.newGeneration();
    copy.owner = {FrameKind::Link, it->second, w.links[it->second].generation};
    copy.name = detail::WorldImpl::uniqueName(w.shapeNames, copy.name);
    w.shapeNames[copy.name] = static_cast<std::uint32_t>(w.shapes.size());
    w.shapes.push_back(std::move(copy));
  }
  return remap.at(src);
}

std::uint32_t newMultibody(World* world, const std::string& name) {
  const Multibody mb = world->addMultibody(name);
  return mb.index();
}

}  // namespace

void Link::remove() {
  auto& w = implOfLink(*this);
  w.requireDesignMode("remove a link");
  w.topologyChanged();
  w.destroyLinkSubtree(m_index);
}

void Link::moveTo(const Link& newParent) {
  auto& w = implOfLink(*this);
  moveTo(newParent, w.links[m_index].joint);
}

void Link::moveTo(const Link& newParent, const JointSpec& joint) {
  auto& w = implOfLink(*this);
  if (newParent.world() != m_world)
    throw TopologyError("cannot move link '" + name() + "' under a link of another World");
  implOfLink(newParent);
  w.requireDesignMode("move a link");
  const auto slots = w.subtreeSlots(m_index);
  if (std::find(slots.begin(), slots.end(), newParent.index()) != slots.end()) {
    throw TopologyError("cannot move link '" + name() + "' under '" + newParent.name() +
                        "', which is in its own subtree (that would create a cycle)");
  }
  w.topologyChanged();
  detach(w, m_index);
  rehome(w, slots, w.links[newParent.index()].multibody);
  w.links[m_index].parent = static_cast<int>(newParent.index());
  w.links[newParent.index()].children.push_back(m_index);
  setJoint(w, m_index, joint);
}

Multibody Link::split(const std::string& newName, const JointSpec& rootJoint) {
  auto& w = implOfLink(*this);
  w.requireDesignMode("split a multibody");
  w.ensureVelocities();
  const auto b = static_cast<std::size_t>(w.linkBody[m_index]);
  const SE3 X_WL = w.data.X_WB[b];
  const Vector6d V_L = w.data.V[b];
  const auto slots = w.subtreeSlots(m_index);
  const std::uint32_t mbSlot = newMultibody(m_world, newName);
  w.topologyChanged();
  detach(w, m_index);
  rehome(w, slots, mbSlot);
  w.multibodies[mbSlot].root = static_cast<int>(m_index);
  setJoint(w, m_index, rootJoint);
  if (w.links[m_index].joint.type == JointType::Free) placeFreeRoot(w, m_index, X_WL, V_L);
  return Multibody(m_world, mbSlot, w.multibodies[mbSlot].generation);
}

Link Link::copyTo(const Link& newParent) const {
  auto& w = implOfLink(*this);
  if (newParent.world() != m_world)
    throw TopologyError("cannot copy link '" + name() + "' under a link of another World");
  implOfLink(newParent);
  w.requireDesignMode("copy a link");
  w.topologyChanged();
  const auto slot = copySubtree(w, m_index, w.links[newParent.index()].multibody, static_cast<int>(newParent.index()));
  return Link(m_world, FrameKind::Link, slot, w.links[slot].generation);
}

Multibody Link::copyAsMultibody(const std::string& newName, const JointSpec& rootJoint) const {
  auto& w = implOfLink(*this);
  w.requireDesignMode("copy a link");
  w.ensureVelocities();
  const auto b = static_cast<std::size_t>(w.linkBody[m_index]);
  const SE3 X_WL = w.data.X_WB[b];
  const Vector6d V_L = w.data.V[b];
  const std::uint32_t mbSlot = newMultibody(m_world, newName);
  w.topologyChanged();
  const auto slot = copySubtree(w, m_index, mbSlot, -1);
  setJoint(w, slot, rootJoint);
  if (w.links[slot].joint.type == JointType::Free) placeFreeRoot(w, slot, X_WL, V_L);
  return Multibody(m_world, mbSlot, w.multibodies[mbSlot].generation);
}

// ===========================================================================
// Joint

namespace {

struct JointAccess {
  WorldImpl& w;
  std::size_t body;
  int qa, nq, va, nv;
};

JointAccess jointAccess(World* world, std::uint32_t index, std::uint32_t gen) {
  if (world == nullptr) throw InvalidHandle("invalid Joint handle (default-constructed)");
  auto& w = detail::implOf(world);
  w.link(index, gen);
  const auto b = static_cast<std::size_t>(w.bodyOfLink(index));
  const auto& m = w.model;
  return {w, b, m.jnt_qadr[b], m.jnt_nq[b], m.jnt_vadr[b], m.jnt_nv[b]};
}

void checkDof(int dof, int nv, const std::string& joint) {
  if (dof < 0 || dof >= nv) {
    throw InvalidArgument("joint '" + joint + "': DoF index " + std::to_string(dof) + " out of range [0, " +
                          std::to_string(nv) + ")");
  }
}

// Writes to the coordinates of a joint while the model is stale (design
// mode, after a topology edit) go to its record, which the next compile
// reads: building a world joint by joint then compiles once, not per edit.
// Returns the record's vector (sized, neutral or zero where unset), or
// nullptr when the model is current.
VectorXd* staleCoordinates(World* world, std::uint32_t index, std::uint32_t gen, int which) {
  if (world == nullptr) throw InvalidHandle("invalid Joint handle (default-constructed)");
  auto& w = detail::implOf(world);
  auto& L = w.link(index, gen);
  if (w.modelValid) return nullptr;
  const int n = which == 0 ? numPositions(L.joint.type) : numDofs(L.joint.type);
  VectorXd& x = which == 0 ? L.q : which == 1 ? L.v : L.tau;
  if (x.size() != n) {
    x = VectorXd::Zero(n);
    if (which == 0) detail::jointNeutral(L.joint.type, x.data());
  }
  return &x;
}

}  // namespace

bool Joint::isValid() const {
  if (m_world == nullptr) return false;
  const auto& w = detail::implOf(m_world);
  return m_index < w.links.size() && w.links[m_index].alive && w.links[m_index].generation == m_generation;
}

std::string Joint::name() const {
  if (m_world == nullptr) throw InvalidHandle("invalid Joint handle (default-constructed)");
  return detail::implOf(m_world).link(m_index, m_generation).joint.name;
}

JointType Joint::type() const {
  if (m_world == nullptr) throw InvalidHandle("invalid Joint handle (default-constructed)");
  return detail::implOf(m_world).link(m_index, m_generation).joint.type;
}

int Joint::numDofs() const {
  return articula::numDofs(type());
}
int Joint::numPositions() const {
  return articula::numPositions(type());
}

JointSpec Joint::getSpec() const {
  if (m_world == nullptr) throw InvalidHandle("invalid Joint handle (default-constructed)");
  return detail::implOf(m_world).link(m_index, m_generation).joint;
}

void Joint::setSpec(const JointSpec& spec) {
  if (m_world == nullptr) throw InvalidHandle("invalid Joint handle (default-constructed)");
  auto& w = detail::implOf(m_world);
  w.link(m_index, m_generation);
  w.requireDesignMode("change a joint");
  w.topologyChanged();
  setJoint(w, m_index, spec);
}

Link Joint::getChildLink() const {
  if (m_world == nullptr) throw InvalidHandle("invalid Joint handle (default-constructed)");
  detail::implOf(m_world).link(m_index, m_generation);
  return Link(m_world, FrameKind::Link, m_index, m_generation);
}

std::optional<Link> Joint::getParentLink() const {
  return getChildLink().getParentLink();
}

Multibody Joint::getMultibody() const {
  return getChildLink().getMultibody();
}

int Joint::positionOffset() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  return a.qa - rangeOf(a.w, a.w.links[m_index].multibody).qa;
}

int Joint::velocityOffset() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  return a.va - rangeOf(a.w, a.w.links[m_index].multibody).va;
}

VectorXd Joint::getPositions() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  return a.w.state.q.segment(a.qa, a.nq);
}

void Joint::setPositions(const VectorXd& q) {
  if (m_world != nullptr) detail::implOf(m_world).requireUnlocked("set joint positions");
  if (VectorXd* x = staleCoordinates(m_world, m_index, m_generation, 0)) {
    checkSize(("Joint::setPositions ('" + name() + "')").c_str(), q.size(), static_cast<int>(x->size()));
    *x = q;
    detail::jointNormalize(type(), x->data());
    return;
  }
  auto a = jointAccess(m_world, m_index, m_generation);
  checkSize(("Joint::setPositions ('" + name() + "')").c_str(), q.size(), a.nq);
  a.w.state.q.segment(a.qa, a.nq) = q;
  detail::jointNormalize(a.w.model.jnt_type[a.body], a.w.state.q.data() + a.qa);
  a.w.touchPositions();
}

double Joint::getPosition(int dof) const {
  auto a = jointAccess(m_world, m_index, m_generation);
  checkDof(dof, a.nq, name());
  return a.w.state.q[a.qa + dof];
}

void Joint::setPosition(int dof, double value) {
  if (m_world != nullptr) detail::implOf(m_world).requireUnlocked("set a joint position");
  if (VectorXd* x = staleCoordinates(m_world, m_index, m_generation, 0)) {
    if (x->size() != numDofs()) {
      throw InvalidArgument("joint '" + name() +
                            "': setPosition(dof, value) needs a vector joint; use setPositions for " +
                            std::string(toString(type())) + " joints");
    }
    checkDof(dof, static_cast<int>(x->size()), name());
    (*x)[dof] = value;
    return;
  }
  auto a = jointAccess(m_world, m_index, m_generation);
  if (a.nq != a.nv) {
    throw InvalidArgument("joint '" + name() +
                          "': setPosition(dof, value) needs a vector joint; use setPositions for " +
                          std::string(toString(type())) + " joints");
  }
  checkDof(dof, a.nq, a.w.links[m_index].joint.name);
  a.w.state.q[a.qa + dof] = value;
  a.w.touchPositions();
}

VectorXd Joint::getVelocities() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  return a.w.state.v.segment(a.va, a.nv);
}

void Joint::setVelocities(const VectorXd& v) {
  if (m_world != nullptr) detail::implOf(m_world).requireUnlocked("set joint velocities");
  if (VectorXd* x = staleCoordinates(m_world, m_index, m_generation, 1)) {
    checkSize(("Joint::setVelocities ('" + name() + "')").c_str(), v.size(), static_cast<int>(x->size()));
    *x = v;
    return;
  }
  auto a = jointAccess(m_world, m_index, m_generation);
  checkSize(("Joint::setVelocities ('" + name() + "')").c_str(), v.size(), a.nv);
  a.w.state.v.segment(a.va, a.nv) = v;
  a.w.touchVelocities();
}

double Joint::getVelocity(int dof) const {
  auto a = jointAccess(m_world, m_index, m_generation);
  checkDof(dof, a.nv, name());
  return a.w.state.v[a.va + dof];
}

void Joint::setVelocity(int dof, double value) {
  if (m_world != nullptr) detail::implOf(m_world).requireUnlocked("set a joint velocity");
  if (VectorXd* x = staleCoordinates(m_world, m_index, m_generation, 1)) {
    checkDof(dof, static_cast<int>(x->size()), name());
    (*x)[dof] = value;
    return;
  }
  auto a = jointAccess(m_world, m_index, m_generation);
  checkDof(dof, a.nv, a.w.links[m_index].joint.name);
  a.w.state.v[a.va + dof] = value;
  a.w.touchVelocities();
}

VectorXd Joint::getAccelerations() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  return a.w.state.vdot.segment(a.va, a.nv);
}

VectorXd Joint::getForces() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  return a.w.state.tau.segment(a.va, a.nv);
}

void Joint::setForces(const VectorXd& tau) {
  if (VectorXd* x = staleCoordinates(m_world, m_index, m_generation, 2)) {
    checkSize(("Joint::setForces ('" + name() + "')").c_str(), tau.size(), static_cast<int>(x->size()));
    *x = tau;
    return;
  }
  auto a = jointAccess(m_world, m_index, m_generation);
  checkSize(("Joint::setForces ('" + name() + "')").c_str(), tau.size(), a.nv);
  a.w.state.tau.segment(a.va, a.nv) = tau;
}

Isometry3d Joint::getRelativeTransform() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  a.w.ensurePositions();
  return a.w.data.X_PB[a.body].toIsometry();
}

}  // namespace articula

namespace articula {

JointReaction Joint::getReaction() const {
  auto a = jointAccess(m_world, m_index, m_generation);
  return a.w.jointReaction(m_index, std::nullopt);
}

Vector6d Joint::getReactionWrench(const Frame& coordinates) const {
  auto a = jointAccess(m_world, m_index, m_generation);
  a.w.checkFrame(coordinates);
  return a.w.reactionWrenches(m_index, &coordinates, false).wrench;
}

JointReaction Joint::getReaction(const Frame& coordinates) const {
  auto a = jointAccess(m_world, m_index, m_generation);
  a.w.checkFrame(coordinates);
  return a.w.jointReaction(m_index, coordinates);
}

}  // namespace articula
