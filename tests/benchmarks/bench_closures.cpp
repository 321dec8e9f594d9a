// Closed chains: one crank-rocker four-bar, ten four-bars in one world, a
// slider-crank, a gear pair (joint coupler) and a closed-loop biped in free
// fall (tests/support/closed_loop_robots.hpp: floating base, four loops of
// which two close at slender rods on ball joints, leaf-spring joints). Each scene runs 1 s to
// warm up, then steps are timed with the world's stage timers (mean µs per
// step: dynamics, constraint solve, post-step projection, total) with
// semi-implicit Euler (both solver methods) and RK4, each with the default
// policy (rows + projection after the step) and with Baumgarte rows only;
// the largest residual and the energy error (relative to the largest
// kinetic energy of the run) are reported next to the times, with the
// real-time factor (simulated over wall-clock time of World::step). A last line
// times the assembly of an open four-bar by projectClosures.
//
//   articula-bench-closures [--quick]
#include "builtin_scenes.hpp"
#include "closed_loop_robots.hpp"

#include <articula/articula.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace articula;

struct Scene {
  const char* name;
  std::function<void(World&)> build;
};

void setProjectAfterStep(World& w, bool on) {
  for (auto c : w.getLoopClosures()) {
    auto p = c.getRuntimePolicy();
    p.projectAfterStep = on;
    c.setRuntimePolicy(p);
  }
  for (auto c : w.getJointCouplers()) {
    auto p = c.getRuntimePolicy();
    p.projectAfterStep = on;
    c.setRuntimePolicy(p);
  }
}

double maxResidual(World& w) {
  double r = 0.0;
  for (auto c : w.getLoopClosures()) r = std::max(r, c.computeResidual().norm);
  for (auto c : w.getJointCouplers()) r = std::max(r, std::abs(c.computeResidual().residual));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int steps = quick ? 500 : 5000;
  const std::vector<Scene> scenes = {
      {"four-bar", [](World& w) { scenes::buildScene(w, "four-bar"); }},
      {"10 four-bars",
       [](World& w) {
         for (int i = 0; i < 10; ++i)
           scenes::buildFourBar(w, "four_bar_" + std::to_string(i), Vector3d(0.0, 0.5 * i, 1.0));
       }},
      {"slider-crank", [](World& w) { scenes::buildScene(w, "slider-crank"); }},
      {"gear-pair", [](World& w) { scenes::buildScene(w, "gear-pair"); }},
      {"biped (4 loops, free fall)",
       [](World& w) {
         robots::Biped b = robots::buildBiped(w);
         VectorXd v(b.mb.numDofs());
         for (int i = 0; i < v.size(); ++i) v[i] = std::sin(1.7 * i + 0.3);  // tumbling, legs swinging
         b.mb.setVelocities(v);
       }},
  };
  std::printf("Closed chains, dt = 1 ms, %d timed steps after 1 s\n\n", steps);
  struct Config {
    const char* label;
    Integrator integrator;
    const char* method;
  };
  const Config configs[] = {{"SI-Euler, PGS", Integrator::SemiImplicitEuler, "projected-gauss-seidel"},
                            {"SI-Euler, pivoting", Integrator::SemiImplicitEuler, "direct-pivoting"},
                            {"RK4", Integrator::RungeKutta4, "direct-pivoting"}};
  std::printf(
      "| scene | integrator, solver | stabilization | dynamics µs | solve µs | projection µs | total µs/step | "
      "real time × | max residual | energy error |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& scene : scenes) {
    for (const auto& config : configs) {
      for (const bool project : {true, false}) {
        World w;
        scene.build(w);
        WorldOptions o = w.getOptions();
        o.integrator = config.integrator;
        o.solver.method = config.method;
        w.setOptions(o);
        setProjectAfterStep(w, project);
        w.step(1000);
        StepTimings sum;
        double residual = 0.0;
        const double e0 = w.computeKineticEnergy() + w.computePotentialEnergy();
        double maxKinetic = 0.0;
        double maxError = 0.0;
        for (int k = 0; k < steps; ++k) {
          w.step();
          sum += w.getLastStepTimings();
          residual = std::max(residual, maxResidual(w));
          const double kinetic = w.computeKineticEnergy();
          maxKinetic = std::max(maxKinetic, kinetic);
          maxError = std::max(maxError, std::abs(kinetic + w.computePotentialEnergy() - e0));
        }
        const double us = 1e6 / steps;
        std::printf("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %.1e | %.2g %% |\n", scene.name, config.label,
                    project ? "rows + projection" : "Baumgarte rows", sum.dynamics * us, sum.solve * us,
                    sum.projection * us, sum.total * us, o.timeStep / (sum.total / steps), residual,
                    100.0 * maxError / std::max(maxKinetic, 1e-300));
      }
    }
  }

  // Assembly: the open four-bar of the scene builder, projected from scratch.
  const int repeats = quick ? 200 : 2000;
  World w;
  scenes::buildFourBar(w, "fb", Vector3d(0, 0, 1));
  auto mb = *w.getMultibody("fb");
  auto crank = mb.getJoints()[0];
  const VectorXd assembled = mb.getPositions();
  VectorXd open = assembled;
  open[1] += 0.25;
  open[2] -= 0.25;
  ClosureProjectionOptions po;
  po.lockedJoints = {crank};
  int iterations = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) {
    mb.setPositions(open);
    iterations = w.projectClosures(po).iterations;
  }
  const double each = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats;
  std::printf("\nAssembly of the open four-bar (crank held): %d iterations, %.1f µs per projectClosures call\n",
              iterations, each * 1e6);
  return 0;
}
