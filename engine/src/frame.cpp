// Frame semantics: relative transforms, velocities and accelerations
// between arbitrary frames (docs/notation.md, "relative motion").
#include "world_impl.hpp"

namespace articula {

using detail::FrameMotion;
using detail::SE3;

namespace {

detail::WorldImpl& implChecked(const Frame& f) {
  if (f.kind() == FrameKind::None) throw InvalidHandle("invalid Frame handle (default-constructed)");
  auto& w = detail::implOf(f.world());
  w.checkFrame(f);
  return w;
}

// Classical world-frame motion of a point fixed in a frame.
struct PointMotion {
  Vector3d p;      // world position
  Matrix3d R;      // frame orientation R_WF
  Vector3d w;      // angular velocity, world
  Vector3d v;      // point velocity, world
  Vector3d alpha;  // angular acceleration, world
  Vector3d a;      // point acceleration, world
};

PointMotion pointMotion(const Frame& f, const Vector3d& offset, bool vel, bool acc) {
  PointMotion pm{};
  if (f.isWorld()) {
    pm.p = offset;
    pm.R = Matrix3d::Identity();
    pm.w = pm.v = pm.alpha = pm.a = Vector3d::Zero();
    return pm;
  }
  auto& w = implChecked(f);
  const FrameMotion fm = w.frameMotion(w.refOf(f), vel, acc);
  const Matrix3d& R = fm.X_WF.R;
  pm.R = R;
  const Vector3d r = R * offset;
  pm.p = fm.X_WF.p + r;
  const Vector3d wb = fm.V.head<3>();
  const Vector3d vb = fm.V.tail<3>();
  pm.w = R * wb;
  pm.v = R * (vb + wb.cross(offset));
  // Classical acceleration of a body-fixed point: R (v̇ + ω̇ × o + ω × (v + ω × o)).
  pm.alpha = R * fm.A.head<3>();
  pm.a = R * (fm.A.tail<3>() + fm.A.head<3>().cross(offset) + wb.cross(vb + wb.cross(offset)));
  return pm;
}

Matrix3d rotationOf(const Frame& f) {
  if (f.isWorld()) return Matrix3d::Identity();
  auto& w = implChecked(f);
  return w.frameMotion(w.refOf(f), false, false).X_WF.R;
}

SE3 worldPose(const Frame& f) {
  if (f.isWorld()) return SE3::identity();
  auto& w = implChecked(f);
  return w.frameMotion(w.refOf(f), false, false).X_WF;
}

void checkPair(const Frame& a, const Frame& b) {
  if (!a.isWorld() && !b.isWorld() && a.world() != b.world()) {
    throw TopologyError("frames '" + a.name() + "' and '" + b.name() + "' belong to different worlds");
  }
  if (a.kind() == FrameKind::None || b.kind() == FrameKind::None) {
    throw InvalidHandle("invalid Frame handle (default-constructed)");
  }
}

}  // namespace

Frame Frame::World() {
  return Frame(nullptr, FrameKind::World, 0, 0);
}

bool Frame::isValid() const {
  if (m_kind == FrameKind::World) return true;
  if (m_kind == FrameKind::None || m_world == nullptr) return false;
  return detail::implOf(m_world).frameAlive({m_kind, m_index, m_generation});
}

std::string Frame::name() const {
  if (isWorld()) return "world";
  auto& w = implChecked(*this);
  return w.frameName(w.refOf(*this));
}

Frame Frame::getParentFrame() const {
  if (isWorld()) return Frame();
  auto& w = implChecked(*this);
  switch (m_kind) {
    case FrameKind::Link: {
      const int p = w.links[m_index].parent;
      if (p < 0) return Frame::World();
      const auto ps = static_cast<std::uint32_t>(p);
      return Frame(m_world, FrameKind::Link, ps, w.links[ps].generation);
    }
    case FrameKind::FreeFrame:
    case FrameKind::FixedFrame: {
      const auto& r = w.frames[m_index].parent;
      if (r.kind == FrameKind::World) return Frame::World();
      return Frame(m_world, r.kind, r.index, r.generation);
    }
    default:
      return Frame::World();
  }
}

Isometry3d Frame::getTransform(const Frame& relativeTo) const {
  checkPair(*this, relativeTo);
  const SE3 X_WF = worldPose(*this);
  const SE3 X_WR = worldPose(relativeTo);
  return (X_WR.inverse() * X_WF).toIsometry();
}

Isometry3d Frame::getTransform(const Frame& relativeTo, const Frame& inCoordinatesOf) const {
  checkPair(*this, relativeTo);
  checkPair(*this, inCoordinatesOf);
  Isometry3d X = getTransform(relativeTo);
  if (inCoordinatesOf == relativeTo) return X;
  // Re-express rotation and translation: R_CR · (R_RF, p_RF).
  const Matrix3d R_CR = rotationOf(inCoordinatesOf).transpose() * rotationOf(relativeTo);
  Isometry3d out = Isometry3d::Identity();
  out.linear() = R_CR * X.linear();
  out.translation() = R_CR * X.translation();
  return out;
}

Vector6d Frame::getSpatialVelocity() const {
  if (isWorld()) return Vector6d::Zero();
  auto& w = implChecked(*this);
  return w.frameMotion(w.refOf(*this), true, false).V;
}

Vector6d Frame::getSpatialVelocity(const Frame& relativeTo, const Frame& inCoordinatesOf) const {
  Vector6d r;
  r.head<3>() = getAngularVelocity(relativeTo, inCoordinatesOf);
  r.tail<3>() = getLinearVelocity(relativeTo, inCoordinatesOf);
  return r;
}

Vector3d Frame::getLinearVelocity(const Frame& relativeTo, const Frame& inCoordinatesOf) const {
  return getLinearVelocity(Vector3d::Zero(), relativeTo, inCoordinatesOf);
}

Vector3d Frame::getLinearVelocity(const Vector3d& offset, const Frame& relativeTo, const Frame& inCoordinatesOf) const {
  checkPair(*this, relativeTo);
  checkPair(*this, inCoordinatesOf);
  const PointMotion B = pointMotion(*this, offset, true, false);
  const PointMotion A = pointMotion(relativeTo, Vector3d::Zero(), true, false);
  // v_BA = v_B − v_A − ω_A × p_BA (velocity observed from the moving frame A).
  const Vector3d pBA = B.p - A.p;
  const Vector3d vRel = B.v - A.v - A.w.cross(pBA);
  return rotationOf(inCoordinatesOf).transpose() * vRel;
}

Vector3d Frame::getAngularVelocity(const Frame& relativeTo, const Frame& inCoordinatesOf) const {
  checkPair(*this, relativeTo);
  checkPair(*this, inCoordinatesOf);
  const PointMotion B = pointMotion(*this, Vector3d::Zero(), true, false);
  const PointMotion A = pointMotion(relativeTo, Vector3d::Zero(), true, false);
  return rotationOf(inCoordinatesOf).transpose() * (B.w - A.w);
}

Vector6d Frame::getSpatialAcceleration() const {
  if (isWorld()) return Vector6d::Zero();
  auto& w = implChecked(*this);
  return w.frameMotion(w.refOf(*this), true, true).A;
}

Vector3d Frame::getLinearAcceleration(const Frame& relativeTo, const Frame& inCoordinatesOf) const {
  return getLinearAcceleration(Vector3d::Zero(), relativeTo, inCoordinatesOf);
}

Vector3d Frame::getLinearAcceleration(const Vector3d& offset, const Frame& relativeTo,
                                      const Frame& inCoordinatesOf) const {
  checkPair(*this, relativeTo);
  checkPair(*this, inCoordinatesOf);
  const PointMotion B = pointMotion(*this, offset, true, true);
  const PointMotion A = pointMotion(relativeTo, Vector3d::Zero(), true, true);
  // a_BA = a_B − a_A − α_A × p_BA − 2 ω_A × v_BA − ω_A × (ω_A × p_BA).
  const Vector3d pBA = B.p - A.p;
  const Vector3d vBA = B.v - A.v - A.w.cross(pBA);
  const Vector3d aRel = B.a - A.a - A.alpha.cross(pBA) - 2.0 * A.w.cross(vBA) - A.w.cross(A.w.cross(pBA));
  return rotationOf(inCoordinatesOf).transpose() * aRel;
}

Vector3d Frame::getAngularAcceleration(const Frame& relativeTo, const Frame& inCoordinatesOf) const {
  checkPair(*this, relativeTo);
  checkPair(*this, inCoordinatesOf);
  const PointMotion B = pointMotion(*this, Vector3d::Zero(), true, true);
  const PointMotion A = pointMotion(relativeTo, Vector3d::Zero(), true, true);
  // Derivative of ω_B − ω_A as observed from A.
  return rotationOf(inCoordinatesOf).transpose() * (B.alpha - A.alpha - A.w.cross(B.w));
}

// ---- FreeFrame / FixedFrame --------------------------------------------------

Isometry3d FreeFrame::getRelativeTransform() const {
  auto& w = implChecked(*this);
  return w.userFrame(m_index, m_generation).X_PF.toIsometry();
}

void FreeFrame::setRelativeTransform(const Isometry3d& X_PF) {
  auto& w = implChecked(*this);
  w.requireUnlocked("move a frame");
  const Matrix3d R = X_PF.linear();
  if (!X_PF.matrix().allFinite() || (R.transpose() * R - Matrix3d::Identity()).norm() > 1e-6) {
    throw InvalidArgument("FreeFrame::setRelativeTransform: not a rigid transform");
  }
  w.userFrame(m_index, m_generation).X_PF = SE3::fromIsometry(X_PF);
}

void FreeFrame::setTransform(const Isometry3d& X_RF, const Frame& relativeTo) {
  implChecked(*this);
  checkPair(*this, relativeTo);
  const Frame parent = getParentFrame();
  // X_PF = X_PW · X_WR · X_RF.
  const SE3 X_WP = worldPose(parent);
  const SE3 X_WR = worldPose(relativeTo);
  setRelativeTransform((X_WP.inverse() * X_WR).toIsometry() * X_RF);
}

void FreeFrame::setRelativeSpatialVelocity(const Vector6d& V) {
  auto& w = implChecked(*this);
  if (!V.allFinite()) throw InvalidArgument("FreeFrame::setRelativeSpatialVelocity: non-finite value");
  w.userFrame(m_index, m_generation).V_rel = V;
}

Vector6d FreeFrame::getRelativeSpatialVelocity() const {
  auto& w = implChecked(*this);
  return w.userFrame(m_index, m_generation).V_rel;
}

void FreeFrame::setRelativeSpatialAcceleration(const Vector6d& A) {
  auto& w = implChecked(*this);
  if (!A.allFinite()) throw InvalidArgument("FreeFrame::setRelativeSpatialAcceleration: non-finite value");
  w.userFrame(m_index, m_generation).A_rel = A;
}

Vector6d FreeFrame::getRelativeSpatialAcceleration() const {
  auto& w = implChecked(*this);
  return w.userFrame(m_index, m_generation).A_rel;
}

Isometry3d FixedFrame::getRelativeTransform() const {
  auto& w = implChecked(*this);
  return w.userFrame(m_index, m_generation).X_PF.toIsometry();
}

}  // namespace articula
