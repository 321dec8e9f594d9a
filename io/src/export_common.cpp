// Shared pieces of the URDF, SDF and MJCF writers (export_common.hpp).
#include "export_common.hpp"

#include <Eigen/Geometry>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

namespace articula::io::detail {

std::string exportNumber(double x) {
  if (x == 0.0) return "0";  // also -0
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, result.ptr);
}

std::string exportNumbers(const Vector3d& v) {
  return exportNumber(v.x()) + " " + exportNumber(v.y()) + " " + exportNumber(v.z());
}

std::string exportNumbers(const VectorXd& v) {
  std::string out;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (i > 0) out += ' ';
    out += exportNumber(v[i]);
  }
  return out;
}

Vector3d rollPitchYaw(const Matrix3d& R) {
  // R = Rz(yaw)·Ry(pitch)·Rx(roll). The pitch from atan2 (not asin) keeps
  // full precision near ±π/2; the roll is read from what is left once yaw
  // and pitch are taken out.
  const double c = std::hypot(R(0, 0), R(1, 0));  // |cos pitch|
  const double pitch = std::atan2(-R(2, 0), c);
  const double yaw = c > 0.0 ? std::atan2(R(1, 0), R(0, 0)) : 0.0;
  const Matrix3d M = (Eigen::AngleAxisd(yaw, Vector3d::UnitZ()) * Eigen::AngleAxisd(pitch, Vector3d::UnitY()))
                         .toRotationMatrix()
                         .transpose() *
                     R;
  return {std::atan2(M(2, 1), M(1, 1)), pitch, yaw};
}

std::string meshReference(const Geometry& geometry, const ExportOptions& options) {
  namespace fs = std::filesystem;
  const fs::path file(geometry.meshFile);
  if (options.meshBase.empty()) {
    std::error_code ec;
    const fs::path abs = fs::absolute(file, ec);
    return (ec ? file : abs).generic_string();
  }
  std::error_code ec;
  const fs::path rel = fs::relative(file, options.meshBase, ec);
  return (ec || rel.empty() ? file : rel).generic_string();
}

Isometry3d exportedFromLink(const LinkSpec& link) {
  return link.joint.childOffset.inverse();
}

Isometry3d exportedJointOrigin(const MultibodySpec& multibody, const LinkSpec& link) {
  if (link.parent.empty()) return link.joint.parentOffset;
  for (const LinkSpec& p : multibody.links) {
    if (p.name == link.parent) return exportedFromLink(p) * link.joint.parentOffset;
  }
  return link.joint.parentOffset;
}

ExportedFrame resolveExportFrame(const WorldSpec& spec, const std::string& name) {
  ExportedFrame out;
  if (name.empty() || name == "world") {
    out.kind = ExportedFrame::Kind::World;
    out.bodyName = "world";
    return out;
  }
  const auto slash = name.find('/');
  if (slash != std::string::npos) {
    const std::string mb = name.substr(0, slash);
    const std::string link = name.substr(slash + 1);
    for (const MultibodySpec& m : spec.multibodies) {
      if (m.name != mb) continue;
      for (const LinkSpec& l : m.links) {
        if (l.name != link) continue;
        out.kind = ExportedFrame::Kind::Link;
        out.multibody = &m;
        out.link = &l;
        out.pose = exportedFromLink(l);
        out.bodyName = l.name;
        return out;
      }
    }
    return out;
  }
  for (const RigidBodySpec& r : spec.rigidBodies) {
    if (r.name == name) {
      out.kind = ExportedFrame::Kind::RigidBody;
      out.rigidBody = &r;
      out.bodyName = r.name;
      return out;
    }
  }
  for (const FrameSpec& f : spec.frames) {
    if (f.name != name) continue;
    if (f.isFree) return out;
    ExportedFrame parent = resolveExportFrame(spec, f.parent);
    if (parent.kind == ExportedFrame::Kind::None) return parent;
    parent.pose = parent.pose * f.pose;
    return parent;
  }
  return out;
}

std::pair<const MultibodySpec*, const LinkSpec*> findJointOwner(const WorldSpec& spec, const std::string& joint) {
  const auto slash = joint.find('/');
  if (slash == std::string::npos) return {nullptr, nullptr};
  const std::string mb = joint.substr(0, slash);
  const std::string name = joint.substr(slash + 1);
  for (const MultibodySpec& m : spec.multibodies) {
    if (m.name != mb) continue;
    for (const LinkSpec& l : m.links) {
      if (l.joint.name == name) return {&m, &l};
    }
  }
  return {nullptr, nullptr};
}

std::string inQuotes(const std::string& name) {
  return "'" + name + "'";
}

double perDof(const VectorXd& v, int i, double fallback) {
  return v.size() > i ? v[i] : fallback;
}

bool anyFinite(const VectorXd& v) {
  return v.size() > 0 && v.array().isFinite().any();
}

bool isIdentity(const Isometry3d& X) {
  return X.matrix() == Isometry3d::Identity().matrix();
}

VectorXd neutralPositions(JointType type) {
  VectorXd q = VectorXd::Zero(numPositions(type));
  if (type == JointType::Ball) q[3] = 1.0;
  if (type == JointType::Free) q[6] = 1.0;
  return q;
}

Isometry3d freeJointPose(const VectorXd& q) {
  Isometry3d X = Isometry3d::Identity();
  if (q.size() != 7) return X;
  X.linear() = Eigen::Quaterniond(q[6], q[3], q[4], q[5]).normalized().toRotationMatrix();
  X.translation() = q.head<3>();
  return X;
}

void notExported(ExportReport& report, std::string object, std::string message) {
  report.notExported.push_back(ExportEntry{std::move(object), std::move(message)});
}

void converted(ExportReport& report, std::string object, std::string message) {
  report.converted.push_back(ExportEntry{std::move(object), std::move(message)});
}

}  // namespace articula::io::detail
