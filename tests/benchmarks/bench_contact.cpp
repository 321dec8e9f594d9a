// Contact scenes: stacks of 10 and 20 boxes, a light box carrying one 100
// and 1000 times heavier, a 7-link arm (floating base, capsule links) lying
// on the ground, and a pile of 500 boxes. After a settling phase, steps are
// timed with the world's stage timers, for each solver method, next to what
// the time buys (a work–precision table): the solve's residual and
// convergence, the drift of the top body, the deepest penetration.
// A second table solves the islands of scenes that have many (16 separate
// towers, the pile) on a thread pool of 1 and 2 threads, and checks that
// both give the same state bit for bit.
//
//   articula-bench-contact [--quick]
#include <articula/articula.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace articula;

RigidBody addBox(World& w, const std::string& name, const Isometry3d& pose, double side) {
  RigidBodyOptions o;
  o.inertia = Inertia::box(1.0, Vector3d::Constant(side));
  o.pose = pose;
  RigidBody b = w.addRigidBody(name, o);
  CollisionShapeOptions s;
  s.geometry = Geometry::box(Vector3d::Constant(side));
  b.addCollisionShape(s);
  return b;
}

void tower(World& w, int count) {
  w.addGroundPlane();
  for (int i = 0; i < count; ++i) {
    Isometry3d X = Isometry3d::Identity();
    X.translation() = Vector3d(0.0, 0.0, 0.1 + 0.2 * i);
    addBox(w, "box" + std::to_string(i), X, 0.2);
  }
}

void boxStack(World& w) {
  tower(w, 10);
}

void tower20(World& w) {
  tower(w, 20);
}

// A 1 kg box carrying a box `ratio` times heavier, on the ground.
void massRatio(World& w, double ratio) {
  w.addGroundPlane();
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(0.0, 0.0, 0.1);
  addBox(w, "light", X, 0.2);
  RigidBodyOptions o;
  o.inertia = Inertia::box(ratio, Vector3d::Constant(0.2));
  o.pose.translation() = Vector3d(0.0, 0.0, 0.3);
  RigidBody heavy = w.addRigidBody("heavy", o);
  CollisionShapeOptions sh;
  sh.geometry = Geometry::box(Vector3d::Constant(0.2));
  heavy.addCollisionShape(sh);
}

void boxPile(World& w) {
  w.addGroundPlane();
  std::srand(7);  // Quaternion::UnitRandom draws from std::rand: the same pile every time
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> jitter(-0.02, 0.02);
  int k = 0;
  // A 10 × 10 × 5 lattice 0.3 m apart (no initial overlap), random orientations.
  for (int z = 0; z < 5; ++z)
    for (int y = 0; y < 10; ++y)
      for (int x = 0; x < 10; ++x) {
        Isometry3d X = Isometry3d::Identity();
        X.linear() = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
        X.translation() = Vector3d(0.3 * (x - 4.5) + jitter(rng), 0.3 * (y - 4.5) + jitter(rng), 0.25 + 0.3 * z);
        addBox(w, "box" + std::to_string(k++), X, 0.2);
      }
}

void armOnGround(World& w) {
  w.addGroundPlane();
  Multibody arm = w.addMultibody("arm");
  const double len = 0.3;
  const double r = 0.04;
  LinkOptions lo;
  lo.name = "base";
  lo.inertia = Inertia::box(2.0, Vector3d(0.2, 0.2, 0.1));
  Isometry3d X = Isometry3d::Identity();
  X.translation() = Vector3d(0.0, 0.0, 0.06);
  Link parent = arm.addLink(lo, JointSpec::free().withParentOffset(X));
  CollisionShapeOptions base;
  base.geometry = Geometry::box(Vector3d(0.2, 0.2, 0.1));
  parent.addCollisionShape(base);
  for (int i = 0; i < 7; ++i) {
    LinkOptions li;
    li.name = "link" + std::to_string(i);
    li.inertia = Inertia::cylinder(1.0, r, len);
    // Links lie along x; the joint sits at the parent's end.
    Isometry3d jointInParent = Isometry3d::Identity();
    jointInParent.translation() = Vector3d(i == 0 ? 0.1 : len / 2, 0.0, 0.0);
    Isometry3d jointInChild = Isometry3d::Identity();
    jointInChild.translation() = Vector3d(-len / 2, 0.0, 0.0);
    JointSpec j = JointSpec::revolute(i % 2 == 0 ? Vector3d::UnitY() : Vector3d::UnitZ());
    j.parentOffset = jointInParent;
    j.childOffset = jointInChild;
    Link link = arm.addLink(li, parent, j);
    CollisionShapeOptions cap;
    cap.geometry = Geometry::capsule(r, len - 2 * r);
    cap.pose = Isometry3d(Eigen::AngleAxisd(0.5 * 3.14159265358979323846, Vector3d::UnitY()));
    link.addCollisionShape(cap);
    parent = link;
  }
}

// The highest body's drift from where it was after settling (m).
double topHeight(const World& w) {
  double top = -1e300;
  for (const RigidBody& b : w.getRigidBodies()) top = std::max(top, b.getPose().translation().z());
  return top;
}

void run(const char* scene, const std::function<void(World&)>& build, const std::string& method, int settle,
         int measured) {
  WorldOptions o;
  o.solver.method = method;
  World w(o);
  build(w);
  w.step(static_cast<std::size_t>(settle));
  StepTimings s;
  long contacts = 0;
  long rows = 0;
  long unconverged = 0;
  long iterations = 0;
  double residual = 0.0;
  double depth = 0.0;
  const double z0 = topHeight(w);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < measured; ++i) {
    w.step();
    s += w.getLastStepTimings();
    const StepDiagnostics& d = w.getStepDiagnostics();
    contacts += d.numContacts;
    rows += d.numRows;
    iterations += d.iterations;
    unconverged += d.converged ? 0 : 1;
    residual = std::max(residual, d.residual);
    for (const Contact& c : w.getContacts()) depth = std::max(depth, c.depth);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double k = 1e6 / measured;
  std::printf("| %-16s | %-22s | %9.1f | %9.1f | %8ld | %6ld | %7.1f | %9.2e | %10.1f | %9.2e | %9.2e | %5.2f |\n",
              scene, method.c_str(), s.total * k, s.solve * k, contacts / measured, rows / measured,
              static_cast<double>(iterations) / measured, residual, 100.0 * static_cast<double>(unconverged) / measured,
              std::abs(topHeight(w) - z0), depth, 1e-3 * measured / wall);
  std::fflush(stdout);
}

// 16 towers of 10 boxes, 1 m apart: 16 islands.
void towers16(World& w) {
  w.addGroundPlane();
  for (int t = 0; t < 16; ++t) {
    for (int i = 0; i < 10; ++i) {
      Isometry3d X = Isometry3d::Identity();
      X.translation() = Vector3d(1.0 * (t % 4), 1.0 * (t / 4), 0.1 + 0.2 * i);
      addBox(w, "box" + std::to_string(t) + "_" + std::to_string(i), X, 0.2);
    }
  }
}

struct ThreadRun {
  StepTimings timings;
  double islands = 0.0;
  VectorXd q, v;
};

ThreadRun runOn(const std::function<void(World&)>& build, const std::string& method, int threads, int settle,
                int measured) {
  WorldOptions o;
  o.solver.method = method;
  World w(o);
  build(w);
  w.setExecutor(makeThreadPoolExecutor(threads));
  w.step(static_cast<std::size_t>(settle));
  ThreadRun r;
  long islands = 0;
  for (int i = 0; i < measured; ++i) {
    w.step();
    r.timings += w.getLastStepTimings();
    islands += w.getStepDiagnostics().numIslands;
  }
  const double k = 1.0 / measured;
  r.timings.total *= k;
  r.timings.solve *= k;
  r.islands = static_cast<double>(islands) * k;
  r.q = w.getPositions();
  r.v = w.getVelocities();
  return r;
}

void runThreads(const char* scene, const std::function<void(World&)>& build, const std::string& method, int settle,
                int measured) {
  const ThreadRun one = runOn(build, method, 1, settle, measured);
  const ThreadRun two = runOn(build, method, 2, settle, measured);
  const bool same =
      one.q.size() == two.q.size() && (one.q.array() == two.q.array()).all() && (one.v.array() == two.v.array()).all();
  std::printf("| %-16s | %-22s | %7.1f | %9.1f | %9.1f | %6.2f | %9.1f | %9.1f | %-9s |\n", scene, method.c_str(),
              one.islands, 1e6 * one.timings.solve, 1e6 * two.timings.solve, one.timings.solve / two.timings.solve,
              1e6 * one.timings.total, 1e6 * two.timings.total, same ? "yes" : "NO");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int scale = quick ? 4 : 1;
  std::printf("Contact scenes, dt = 1 ms, semi-implicit Euler; mean µs per step over the measured steps.\n");
  std::printf(
      "iter. = mean iterations per step (sweeps, pivots or Newton steps); residual = largest solve residual (m/s);\n"
      "unconv. = steps whose solve did not converge; drift = top body's height change over the measured steps;\n"
      "depth = deepest contact; RTF = simulated time / wall time over the measured steps.\n\n");
  std::printf(
      "| scene            | method                 | µs / step |   solve | contacts |   rows |   iter. |  residual | "
      "unconv. %% |     drift |     depth |   RTF |\n");
  std::printf(
      "|------------------|------------------------|-----------|---------|----------|--------|---------|-----------|--"
      "----------|-----------|-----------|-------|\n");
  const auto& methods = constraintSolverMethods();
  for (const std::string& method : methods) run("box stack (10)", boxStack, method, 1000 / scale, 2000 / scale);
  for (const std::string& method : methods) run("tower (20)", tower20, method, 1000 / scale, 2000 / scale);
  for (const double ratio : {100.0, 1000.0}) {
    const std::string name = "mass ratio " + std::to_string(static_cast<int>(ratio)) + ":1";
    for (const std::string& method : methods) {
      run(
          name.c_str(), [ratio](World& w) { massRatio(w, ratio); }, method, 1000 / scale, 2000 / scale);
    }
  }
  for (const std::string& method : methods) run("arm on ground", armOnGround, method, 1000 / scale, 2000 / scale);
  for (const std::string& method : methods) run("box pile (500)", boxPile, method, 2000 / scale, 500 / scale);

  std::printf(
      "\nIslands on a thread pool (World::setExecutor(makeThreadPoolExecutor(n))): mean µs per step with 1 and 2\n"
      "threads; identical = the final states of the two runs are equal bit for bit.\n\n");
  std::printf(
      "| scene            | method                 | islands | solve, 1 | solve, 2 | ratio | step, 1 | step, 2 | "
      "identical |\n");
  std::printf(
      "|------------------|------------------------|---------|-----------|-----------|--------|-----------|----------"
      "-|-----------|\n");
  for (const std::string& method : methods) runThreads("16 towers of 10", towers16, method, 1000 / scale, 1000 / scale);
  for (const std::string& method : methods) runThreads("box pile (500)", boxPile, method, 2000 / scale, 500 / scale);
  return 0;
}
