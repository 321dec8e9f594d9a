// Writes the native scene format (see scene_file.hpp, docs/scene-format.md)
// from the world's spec (World::getSpec).
#include "import_common.hpp"
#include "scene_common.hpp"

#include <articula/file_io.hpp>
#include <articula/io/scene_file.hpp>

#include <tinyxml2.h>

#include <algorithm>

#include <fstream>
#include <limits>

namespace articula::io {

namespace {

using tinyxml2::XMLElement;

class Writer {
 public:
  Writer(const World& world, std::filesystem::path meshBase, const std::optional<SceneRecording>& recording)
      : m_world(world), m_meshBase(std::move(meshBase)), m_recording(recording) {}

  std::string run() {
    doc.InsertEndChild(doc.NewDeclaration());
    XMLElement* root = doc.NewElement("articula");
    doc.InsertEndChild(root);
    const WorldSpec spec = m_world.getSpec();
    // Version 2 added actuators, schedules and keyframes; without them a
    // file stays readable by builds that read version 1.
    // Version 3 added sensors, version 4 viewpoints, version 5 coloured
    // mesh parts (set below once a shape writes them).
    root->SetAttribute("version", !spec.viewpoints.empty()                                                     ? 4
                                  : !spec.sensors.empty()                                                      ? 3
                                  : spec.actuators.empty() && spec.schedules.empty() && spec.keyframes.empty() ? 1
                                                                                                               : 2);
    writeOptions(root, spec.options);
    // Rigid bodies and multibodies in the order of their state coordinates.
    std::vector<bool> rigidDone(spec.rigidBodies.size(), false);
    std::vector<bool> multibodyDone(spec.multibodies.size(), false);
    for (const std::string& name : spec.ownerOrder) {
      for (std::size_t i = 0; i < spec.rigidBodies.size(); ++i) {
        if (!rigidDone[i] && spec.rigidBodies[i].name == name) {
          writeRigidBody(root, spec.rigidBodies[i]);
          rigidDone[i] = true;
        }
      }
      for (std::size_t i = 0; i < spec.multibodies.size(); ++i) {
        if (!multibodyDone[i] && spec.multibodies[i].name == name) {
          writeMultibody(root, spec.multibodies[i]);
          multibodyDone[i] = true;
        }
      }
    }
    for (std::size_t i = 0; i < spec.rigidBodies.size(); ++i) {
      if (!rigidDone[i]) writeRigidBody(root, spec.rigidBodies[i]);
    }
    for (std::size_t i = 0; i < spec.multibodies.size(); ++i) {
      if (!multibodyDone[i]) writeMultibody(root, spec.multibodies[i]);
    }
    for (const FrameSpec& f : spec.frames) writeFrame(root, f);
    for (const ShapeSpec& sh : spec.shapes) writeShape(root, sh);
    for (const CollisionSettingSpec& c : spec.collisionSettings) {
      XMLElement* e = child(root, "collision_setting");
      e->SetAttribute("a", c.a.c_str());
      e->SetAttribute("b", c.b.c_str());
      e->SetAttribute("enabled", c.enabled);
    }
    for (const ClosureSpec& c : spec.loopClosures) writeClosure(root, c);
    for (const CouplerSpec& c : spec.jointCouplers) writeCoupler(root, c);
    for (const ActuatorSpec& a : spec.actuators) writeActuator(root, a);
    for (const ScheduleSpec& s : spec.schedules) writeSchedule(root, s);
    for (const KeyframeSpec& k : spec.keyframes) writeKeyframe(root, k);
    for (const SensorSpec& x : spec.sensors) writeSensor(root, x);
    for (const ViewpointSpec& v : spec.viewpoints) writeViewpoint(root, v);
    if (m_recording) writeRecording(root, *m_recording);
    if (m_wroteParts) root->SetAttribute("version", 5);  // coloured mesh parts
    tinyxml2::XMLPrinter printer;
    doc.Print(&printer);
    return printer.CStr();
  }

 private:
  XMLElement* child(XMLElement* parent, const char* name) {
    XMLElement* e = doc.NewElement(name);
    parent->InsertEndChild(e);
    return e;
  }

  void writeOptions(XMLElement* root, const WorldOptions& o) {
    XMLElement* e = child(root, "options");
    e->SetAttribute("gravity", formatNumbers(o.gravity).c_str());
    e->SetAttribute("time_step", formatNumber(o.timeStep).c_str());
    e->SetAttribute("integrator", integratorName(o.integrator));
    const ConstraintSolverOptions& s = o.solver;
    XMLElement* solver = child(e, "solver");
    solver->SetAttribute("method", s.method.c_str());
    solver->SetAttribute("max_iterations", s.maxIterations);
    solver->SetAttribute("tolerance", formatNumber(s.tolerance).c_str());
    solver->SetAttribute("warm_start", s.warmStart);
    solver->SetAttribute("friction_directions", s.frictionDirections);
    solver->SetAttribute("restitution_threshold", formatNumber(s.restitutionThreshold).c_str());
    solver->SetAttribute("error_correction", errorCorrectionName(s.errorCorrection));
    solver->SetAttribute("error_reduction", formatNumber(s.errorReduction).c_str());
    solver->SetAttribute("allowed_penetration", formatNumber(s.allowedPenetration).c_str());
    solver->SetAttribute("max_correction_velocity", formatNumber(s.maxCorrectionVelocity).c_str());
    solver->SetAttribute("constraint_force_mixing", formatNumber(s.constraintForceMixing).c_str());
    solver->SetAttribute("limit_error_reduction", formatNumber(s.limitErrorReduction).c_str());
    solver->SetAttribute("convergence_tolerance", formatNumber(s.convergenceTolerance).c_str());
    solver->SetAttribute("krylov_iterations", s.krylovIterations);
    solver->SetAttribute("convex_regularization", formatNumber(s.convexRegularization).c_str());
  }

  void writePose(XMLElement* parent, const char* name, const Isometry3d& X) {
    XMLElement* e = child(parent, name);
    e->SetAttribute("translation", formatNumbers(X.translation()).c_str());
    e->SetAttribute("rotation", formatRotation(X.linear()).c_str());
  }

  void writeInertia(XMLElement* parent, const Inertia& in) {
    XMLElement* e = child(parent, "inertia");
    e->SetAttribute("mass", formatNumber(in.mass).c_str());
    e->SetAttribute("com", formatNumbers(in.com).c_str());
    e->SetAttribute("rotational", formatRotation(in.rotational).c_str());
  }

  void writeState(XMLElement* parent, const VectorXd& q, const VectorXd& v, const VectorXd& tau) {
    if (q.size() == 0 && v.size() == 0) return;
    XMLElement* e = child(parent, "state");
    e->SetAttribute("q", formatNumbers(q).c_str());
    e->SetAttribute("v", formatNumbers(v).c_str());
    e->SetAttribute("tau", formatNumbers(tau).c_str());
  }

  void writeRigidBody(XMLElement* root, const RigidBodySpec& body) {
    XMLElement* e = child(root, "rigid_body");
    e->SetAttribute("name", body.name.c_str());
    writeInertia(e, body.inertia);
    VectorXd q(7);
    q << body.position, body.orientation.coeffs();
    writeState(e, q, body.velocity, body.force);
  }

  void writeMultibody(XMLElement* root, const MultibodySpec& mb) {
    XMLElement* e = child(root, "multibody");
    e->SetAttribute("name", mb.name.c_str());
    e->SetAttribute("self_collision", mb.selfCollision);
    for (const LinkSpec& link : mb.links) {
      XMLElement* l = child(e, "link");
      l->SetAttribute("name", link.name.c_str());
      if (!link.parent.empty()) l->SetAttribute("parent", link.parent.c_str());
      writeInertia(l, link.inertia);
      writeJoint(l, link.joint);
      writeState(l, link.q, link.v, link.tau);
    }
  }

  void writeJoint(XMLElement* parent, const JointSpec& js) {
    XMLElement* e = child(parent, "joint");
    e->SetAttribute("name", js.name.c_str());
    e->SetAttribute("type", std::string(toString(js.type)).c_str());
    e->SetAttribute("axis", formatNumbers(js.axis).c_str());
    if (js.type == JointType::Universal || js.type == JointType::Planar) {
      e->SetAttribute("axis2", formatNumbers(js.axis2).c_str());
    }
    if (js.type == JointType::Euler) e->SetAttribute("euler_order", eulerOrderName(js.eulerOrder));
    if (js.type == JointType::Screw) e->SetAttribute("pitch", formatNumber(js.pitch).c_str());
    // Per-DoF vectors are written only when some entry differs from the default.
    auto vector = [&](const char* name, const VectorXd& values, double fallback) {
      if (values.size() > 0 && (values.array() != fallback).any()) {
        e->SetAttribute(name, formatNumbers(values).c_str());
      }
    };
    const double inf = std::numeric_limits<double>::infinity();
    vector("lower", js.positionLowerLimits, -inf);
    vector("upper", js.positionUpperLimits, inf);
    vector("velocity_limit", js.velocityLimits, inf);
    vector("effort_limit", js.effortLimits, inf);
    vector("rest", js.restPositions, 0.0);
    vector("stiffness", js.springStiffness, 0.0);
    vector("damping", js.damping, 0.0);
    vector("armature", js.armature, 0.0);
    vector("friction", js.coulombFriction, 0.0);
    writePose(e, "parent_offset", js.parentOffset);
    writePose(e, "child_offset", js.childOffset);
  }

  void writeFrame(XMLElement* root, const FrameSpec& f) {
    XMLElement* e = child(root, "frame");
    e->SetAttribute("name", f.name.c_str());
    e->SetAttribute("kind", f.isFree ? "free" : "fixed");
    e->SetAttribute("parent", f.parent.c_str());
    writePose(e, "pose", f.pose);
    if (f.isFree) {
      e->SetAttribute("velocity", formatNumbers(f.velocity).c_str());
      e->SetAttribute("acceleration", formatNumbers(f.acceleration).c_str());
    }
  }

  void writeShape(XMLElement* root, const ShapeSpec& s) {
    XMLElement* e = child(root, "shape");
    e->SetAttribute("name", s.name.c_str());
    e->SetAttribute("kind", s.collision ? "collision" : "visual");
    e->SetAttribute("owner", s.owner.c_str());
    const Geometry& g = s.geometry;
    XMLElement* ge = child(e, "geometry");
    std::string type(toString(g.type));  // "convex mesh" → "convex_mesh"
    std::replace(type.begin(), type.end(), ' ', '_');
    ge->SetAttribute("type", type.c_str());
    switch (g.type) {
      case GeometryType::Box:
      case GeometryType::Ellipsoid:
        ge->SetAttribute("size", formatNumbers(g.size).c_str());
        break;
      case GeometryType::Sphere:
        ge->SetAttribute("radius", formatNumber(g.radius).c_str());
        break;
      case GeometryType::Capsule:
      case GeometryType::Cylinder:
        ge->SetAttribute("radius", formatNumber(g.radius).c_str());
        ge->SetAttribute("length", formatNumber(g.length).c_str());
        break;
      case GeometryType::Plane:
        break;
      case GeometryType::ConvexMesh:
      case GeometryType::TriangleMesh: {
        if (!g.meshFile.empty()) {
          ge->SetAttribute("file", meshPath(g.meshFile).c_str());
          ge->SetAttribute("scale", formatNumbers(g.meshScale).c_str());
          if (g.type == GeometryType::TriangleMesh && g.parts != fileParts(g.meshFile)) writeParts(ge, g.parts);
          break;
        }
        std::string vertices;
        for (const auto& p : g.vertices) vertices += (vertices.empty() ? "" : " ") + formatNumbers(p);
        ge->SetAttribute("vertices", vertices.c_str());
        if (g.type == GeometryType::TriangleMesh) {
          std::string triangles;
          for (const auto& t : g.triangles) {
            for (const int i : t) triangles += (triangles.empty() ? "" : " ") + std::to_string(i);
          }
          ge->SetAttribute("triangles", triangles.c_str());
          if (!g.parts.empty()) writeParts(ge, g.parts);
        }
        break;
      }
    }
    writePose(e, "pose", s.pose);
    if (s.collision) {
      XMLElement* me = child(e, "material");
      me->SetAttribute("friction", formatNumber(s.material.friction).c_str());
      me->SetAttribute("restitution", formatNumber(s.material.restitution).c_str());
      e->SetAttribute("collidable", s.collidable);
    } else {
      e->SetAttribute("color", formatNumbers(s.color).c_str());
    }
  }

  // The coloured parts a mesh file gives when it is read again; none when
  // it cannot be read (the reader then reports the file).
  static std::vector<MeshPart> fileParts(const std::string& file) {
    try {
      return detail::loadMesh(file)->parts;
    } catch (const Error&) {
      return {};
    }
  }

  // "first count r g b a" per part; an empty list stands for "no parts"
  // where the mesh file has some.
  void writeParts(XMLElement* e, const std::vector<MeshPart>& parts) {
    m_wroteParts = true;
    std::string text;
    for (const MeshPart& p : parts) {
      text += (text.empty() ? "" : " ") + std::to_string(p.firstTriangle) + " " + std::to_string(p.triangleCount) +
              " " + formatNumbers(p.color);
    }
    e->SetAttribute("parts", text.c_str());
  }

  void writePolicy(XMLElement* parent, const LoopClosureRuntimePolicy& p) {
    XMLElement* e = child(parent, "policy");
    e->SetAttribute("enabled", p.enabled);
    e->SetAttribute("kinematics", p.kinematics == ClosureKinematicsPolicy::Project ? "project" : "residual-only");
    e->SetAttribute("dynamics", p.dynamics == ClosureDynamicsPolicy::Solve ? "solve" : "off");
    e->SetAttribute("stabilization", p.stabilization == ClosureStabilization::Compliance ? "compliance" : "baumgarte");
    e->SetAttribute("error_reduction", formatNumber(p.errorReduction).c_str());
    e->SetAttribute("stiffness", formatNumber(p.stiffness).c_str());
    e->SetAttribute("damping", formatNumber(p.damping).c_str());
    e->SetAttribute("project_after_step", p.projectAfterStep);
    e->SetAttribute("tolerance", formatNumber(p.tolerance).c_str());
    e->SetAttribute("max_iterations", p.maxIterations);
  }

  void writeClosure(XMLElement* root, const ClosureSpec& c) {
    XMLElement* e = child(root, "loop_closure");
    e->SetAttribute("name", c.name.c_str());
    e->SetAttribute("family", std::string(toString(c.family)).c_str());
    e->SetAttribute("frame_a", c.frameA.c_str());
    e->SetAttribute("frame_b", c.frameB.c_str());
    if (c.family == LoopClosureFamily::Distance) e->SetAttribute("length", formatNumber(c.length).c_str());
    writePose(e, "offset_a", c.offsetA);
    writePose(e, "offset_b", c.offsetB);
    writePolicy(e, c.policy);
  }

  void writeCoupler(XMLElement* root, const CouplerSpec& c) {
    XMLElement* e = child(root, "joint_coupler");
    e->SetAttribute("name", c.name.c_str());
    e->SetAttribute("leader", c.leader.c_str());
    e->SetAttribute("follower", c.follower.c_str());
    e->SetAttribute("ratio", formatNumber(c.ratio).c_str());
    e->SetAttribute("offset", formatNumber(c.offset).c_str());
    writePolicy(e, c.policy);
  }

  void writeActuator(XMLElement* root, const ActuatorSpec& a) {
    XMLElement* e = child(root, "actuator");
    e->SetAttribute("name", a.name.c_str());
    e->SetAttribute("joint", a.joint.c_str());
    e->SetAttribute("coordinate", a.coordinate);
    e->SetAttribute("type", toString(a.type));
    e->SetAttribute("gear", formatNumber(a.gear).c_str());
    e->SetAttribute("control_range", (formatNumber(a.controlMin) + " " + formatNumber(a.controlMax)).c_str());
    e->SetAttribute("force_range", (formatNumber(a.forceMin) + " " + formatNumber(a.forceMax)).c_str());
    if (a.kp) e->SetAttribute("kp", formatNumber(*a.kp).c_str());
    if (a.kd) e->SetAttribute("kd", formatNumber(*a.kd).c_str());
    if (a.kv) e->SetAttribute("kv", formatNumber(*a.kv).c_str());
    if (a.type == ActuatorType::Pid) {
      e->SetAttribute("ki", formatNumber(a.ki).c_str());
      e->SetAttribute("integral_limit", formatNumber(a.integralLimit).c_str());
    }
    if (a.type == ActuatorType::DcMotor) {
      e->SetAttribute("stall_torque", formatNumber(a.stallTorque).c_str());
      e->SetAttribute("no_load_speed", formatNumber(a.noLoadSpeed).c_str());
    }
    if (std::isfinite(a.velocityLimit)) e->SetAttribute("velocity_limit", formatNumber(a.velocityLimit).c_str());
    if (a.gravityCompensation) e->SetAttribute("gravity_compensation", true);
    if (a.control) e->SetAttribute("control", formatNumber(*a.control).c_str());
  }

  void writeSensor(XMLElement* root, const SensorSpec& s) {
    XMLElement* e = child(root, "sensor");
    e->SetAttribute("name", s.name.c_str());
    e->SetAttribute("type", std::string(toString(s.type)).c_str());
    if (!s.frame.empty()) e->SetAttribute("frame", s.frame.c_str());
    if (!s.joint.empty()) e->SetAttribute("joint", s.joint.c_str());
    if (!s.pose.isApprox(Isometry3d::Identity(), 0.0)) writePose(e, "pose", s.pose);
    if (s.rate != 0.0) e->SetAttribute("rate", formatNumber(s.rate).c_str());
    if (s.noiseStddev != 0.0) e->SetAttribute("noise_stddev", formatNumber(s.noiseStddev).c_str());
    if (s.noiseBias != 0.0) e->SetAttribute("noise_bias", formatNumber(s.noiseBias).c_str());
    if (s.seed != 0) e->SetAttribute("seed", std::to_string(s.seed).c_str());
    if (s.childOnParent) e->SetAttribute("direction", "child_to_parent");
    if (s.type == SensorType::Rangefinder) {
      e->SetAttribute("range", (formatNumber(s.minRange) + " " + formatNumber(s.maxRange)).c_str());
    }
  }

  void writeSchedule(XMLElement* root, const ScheduleSpec& s) {
    XMLElement* e = child(root, "schedule");
    e->SetAttribute("name", s.name.c_str());
    e->SetAttribute("actuator", s.actuator.c_str());
    switch (s.kind) {
      case ScheduleSpec::Kind::Keyframes: {
        e->SetAttribute("kind", "keyframes");
        e->SetAttribute("interpolation", s.interpolation == ScheduleSpec::Interpolation::Hold ? "hold" : "linear");
        e->SetAttribute("loop", s.loop);
        std::string keys;
        for (const auto& [t, value] : s.keyframes) {
          keys += (keys.empty() ? "" : " ") + formatNumber(t) + " " + formatNumber(value);
        }
        e->SetAttribute("keyframes", keys.c_str());
        break;
      }
      case ScheduleSpec::Kind::Sine:
        e->SetAttribute("kind", "sine");
        e->SetAttribute("amplitude", formatNumber(s.amplitude).c_str());
        e->SetAttribute("frequency", formatNumber(s.frequency).c_str());
        e->SetAttribute("phase", formatNumber(s.phase).c_str());
        e->SetAttribute("offset", formatNumber(s.offset).c_str());
        break;
      case ScheduleSpec::Kind::Step:
        e->SetAttribute("kind", "step");
        e->SetAttribute("offset", formatNumber(s.offset).c_str());
        e->SetAttribute("amplitude", formatNumber(s.amplitude).c_str());
        e->SetAttribute("step_time", formatNumber(s.stepTime).c_str());
        break;
    }
  }

  void writeKeyframe(XMLElement* root, const KeyframeSpec& k) {
    XMLElement* e = child(root, "keyframe");
    e->SetAttribute("name", k.name.c_str());
    e->SetAttribute("time", formatNumber(k.time).c_str());
    auto list = [&](const char* attr, const VectorXd& x) {
      if (x.size() == 0) return;
      std::string text;
      for (Eigen::Index i = 0; i < x.size(); ++i) text += (i == 0 ? "" : " ") + formatNumber(x[i]);
      e->SetAttribute(attr, text.c_str());
    };
    list("q", k.q);
    list("v", k.v);
    list("controls", k.controls);
  }

  void writeViewpoint(XMLElement* root, const ViewpointSpec& v) {
    XMLElement* e = child(root, "viewpoint");
    e->SetAttribute("name", v.name.c_str());
    e->SetAttribute("eye", formatNumbers(v.eye).c_str());
    e->SetAttribute("center", formatNumbers(v.center).c_str());
    if (v.fovYDegrees != ViewpointSpec{}.fovYDegrees) e->SetAttribute("fovy", formatNumber(v.fovYDegrees).c_str());
  }

  void writeRecording(XMLElement* root, const SceneRecording& r) {
    XMLElement* e = child(root, "recording");
    e->SetAttribute("every", std::to_string(r.options.every).c_str());
    e->SetAttribute("budget_bytes", std::to_string(r.options.budgetBytes).c_str());
    e->SetAttribute("overflow",
                    r.options.overflow == RecordingOverflow::DropOldest ? "drop-oldest" : "thin-to-keyframes");
    e->SetAttribute("delta_encoding", r.options.deltaEncoding);
    e->SetAttribute("keyframe_interval", r.options.keyframeInterval);
    e->SetAttribute("keep_branches", r.options.keepBranches);
    if (!r.replay.empty()) e->SetAttribute("replay", meshPath(r.replay.string()).c_str());
  }

  const World& m_world;
  bool m_wroteParts = false;
  tinyxml2::XMLDocument doc;
  std::filesystem::path m_meshBase;
  const std::optional<SceneRecording>& m_recording;

  // A mesh or replay file as the scene refers to it: relative to the scene's folder
  // when there is one, in generic (forward slash) form.
  std::string meshPath(const std::string& file) const {
    if (m_meshBase.empty()) return std::filesystem::path(file).generic_string();
    std::error_code ec;
    const std::filesystem::path rel = std::filesystem::relative(file, m_meshBase, ec);
    return (ec || rel.empty() ? std::filesystem::path(file) : rel).generic_string();
  }
};

}  // namespace

std::string sceneToString(const World& world, const std::filesystem::path& base,
                          const std::optional<SceneRecording>& recording) {
  return Writer(world, base, recording).run();
}

void saveScene(const World& world, const std::filesystem::path& file, const std::optional<SceneRecording>& recording) {
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::absolute(file, ec).parent_path();
  const std::string text = sceneToString(world, ec ? file.parent_path() : folder, recording);
  try {
    writeFileAtomically(file, text);
  } catch (const FileAccessError& e) {
    throw ImportError(file.string(), 0, e.problem());
  }
}

}  // namespace articula::io
