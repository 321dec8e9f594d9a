#include <articula/joint_spec.hpp>
#include <articula/options.hpp>

namespace articula {

namespace {
JointSpec ofType(JointType t) {
  JointSpec s;
  s.type = t;
  return s;
}
}  // namespace

JointSpec JointSpec::weld(const Isometry3d& parentOffset) {
  JointSpec s = ofType(JointType::Weld);
  s.parentOffset = parentOffset;
  return s;
}

JointSpec JointSpec::revolute(const Vector3d& axis) {
  JointSpec s = ofType(JointType::Revolute);
  s.axis = axis;
  return s;
}

JointSpec JointSpec::prismatic(const Vector3d& axis) {
  JointSpec s = ofType(JointType::Prismatic);
  s.axis = axis;
  return s;
}

JointSpec JointSpec::screw(const Vector3d& axis, double pitch) {
  JointSpec s = ofType(JointType::Screw);
  s.axis = axis;
  s.pitch = pitch;
  return s;
}

JointSpec JointSpec::universal(const Vector3d& axis1, const Vector3d& axis2) {
  JointSpec s = ofType(JointType::Universal);
  s.axis = axis1;
  s.axis2 = axis2;
  return s;
}

JointSpec JointSpec::ball() {
  return ofType(JointType::Ball);
}

JointSpec JointSpec::euler(EulerOrder order) {
  JointSpec s = ofType(JointType::Euler);
  s.eulerOrder = order;
  return s;
}

JointSpec JointSpec::planar(const Vector3d& axis1, const Vector3d& axis2) {
  JointSpec s = ofType(JointType::Planar);
  s.axis = axis1;
  s.axis2 = axis2;
  return s;
}

JointSpec JointSpec::translational() {
  return ofType(JointType::Translational);
}

JointSpec JointSpec::free() {
  return ofType(JointType::Free);
}

JointSpec JointSpec::withParentOffset(const Isometry3d& X) const {
  JointSpec s = *this;
  s.parentOffset = X;
  return s;
}

JointSpec JointSpec::withChildOffset(const Isometry3d& X) const {
  JointSpec s = *this;
  s.childOffset = X;
  return s;
}

JointSpec JointSpec::named(std::string n) const {
  JointSpec s = *this;
  s.name = std::move(n);
  return s;
}

}  // namespace articula
