// Uses the three installed libraries: a free body falls for one second
// (compared with ½ g t²), a one-link pendulum read from URDF swings, and a
// shipped scene file loads and steps.
//
//   articula_consumer SCENE.articula
#include <articula/articula.hpp>
#include <articula/io/import.hpp>
#include <articula/viewer/scene_description.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <string>

namespace {

// A pendulum: a 1 kg point-like bob 0.5 m below a revolute joint about y.
const char* const kPendulumUrdf = R"(<?xml version="1.0"?>
<robot name="pendulum">
  <link name="base"/>
  <link name="bob">
    <inertial>
      <origin xyz="0 0 -0.5"/>
      <mass value="1.0"/>
      <inertia ixx="1e-4" ixy="0" ixz="0" iyy="1e-4" iyz="0" izz="1e-4"/>
    </inertial>
  </link>
  <joint name="hinge" type="continuous">
    <parent link="base"/>
    <child link="bob"/>
    <axis xyz="0 1 0"/>
  </joint>
</robot>
)";

int failures = 0;

void check(bool ok, const char* what, double got, const char* expected) {
  std::printf("%s %s: %.9g (expected %s)\n", ok ? "ok  " : "FAIL", what, got, expected);
  if (!ok) ++failures;
}

std::string approximately(double value, double tolerance) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g +- %.3g", value, tolerance);
  return text;
}

// One second of free fall from rest: the drop is ½ g t². Semi-implicit
// Euler with step h (v is updated before x) drops ½ g h t more, within the
// tolerance g h t; the velocity is exact.
void freeFall() {
  articula::World world;  // gravity −9.81 z, h = 1 ms
  articula::RigidBodyOptions options;
  options.inertia = articula::Inertia::box(1.0, {0.1, 0.1, 0.1});
  options.pose.translation() = articula::Vector3d(0.0, 0.0, 10.0);
  articula::RigidBody body = world.addRigidBody("ball", options);
  world.step(1000);

  const double g = 9.81;
  const double h = world.getOptions().timeStep;
  const double t = world.getTime();
  check(std::abs(t - 1.0) < 1e-9, "time after 1000 steps (s)", t, "1");
  const double drop = 10.0 - body.getPose().translation().z();
  check(std::abs(drop - 0.5 * g * t * t) <= g * h * t, "free-fall drop (m)", drop,
        approximately(0.5 * g * t * t, g * h * t).c_str());
  const double vz = body.getLinearVelocityWorld().z();
  check(std::abs(vz + g * t) < 1e-9, "free-fall velocity (m/s)", vz, approximately(-g * t, 1e-9).c_str());
}

// The pendulum released from rest at θ0 = 0.5 rad: after a short time t
// it has swung back by ½ θ̈0 t², θ̈0 = m g l sin θ0 / (m l² + I_yy) (the
// next term of the series is O(t⁴), below the tolerance at t = 0.1 s).
void urdfPendulum() {
  articula::World world;
  articula::io::importUrdfFromString(world, kPendulumUrdf, "pendulum.urdf");
  check(world.numDofs() == 1, "pendulum DoFs from URDF", world.numDofs(), "1");
  if (world.numDofs() != 1) return;
  const double theta0 = 0.5;
  articula::VectorXd q = world.getPositions();
  q[0] = theta0;
  world.setPositions(q);
  world.step(100);
  const double t = world.getTime();
  const double m = 1.0, l = 0.5, iyy = 1e-4, g = 9.81;
  const double swing = 0.5 * m * g * l * std::sin(theta0) / (m * l * l + iyy) * t * t;
  const double got = theta0 - std::abs(world.getPositions()[0]);
  check(std::abs(got - swing) < 1e-3, "pendulum swing after 0.1 s (rad)", got, approximately(swing, 1e-3).c_str());
}

// A shipped scene loads, steps and is described for the viewer.
void shippedScene(const char* file) {
  articula::World world;
  const articula::io::ImportReport report = articula::io::importFile(world, file);
  check(report.format == "articula", "scene file read in the native format", report.format == "articula", "1");
  check(world.numDofs() > 0, "scene DoFs", world.numDofs(), "> 0");
  world.step(10);
  const articula::viewer::SceneDescription scene = articula::viewer::describeScene(world);
  check(scene.bodies.size() > 1 && !scene.shapes.empty(), "bodies described for the viewer",
        static_cast<double>(scene.bodies.size()), "> 1, with shapes");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: articula_consumer SCENE.articula\n");
    return 2;
  }
  try {
    freeFall();
    urdfPendulum();
    shippedScene(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
