// Closed chains: one crank-rocker four-bar, ten four-bars in one world, a
// slider-crank and a gear pair (joint coupler). Each scene runs 1 s to
// warm up, then steps are timed with the world's stage timers (mean µs per
// step: dynamics, constraint solve, post-step projection, total) for the
// default policy (bilateral rows + projection after the step), Baumgarte
// rows only, and both solver methods. A last table times the assembly of
// an open four-bar by projectClosures.
//
//   articula-bench-closures [--quick]
#include "builtin_scenes.hpp"

#include <articula/articula.hpp>

#include <algorithm>
#include <chrono>
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
  };
  std::printf("Closed chains, dt = 1 ms, %d timed steps after 1 s\n\n", steps);
  std::printf("| scene | solver | stabilization | dynamics µs | solve µs | projection µs | total µs/step | max residual |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|\n");
  for (const auto& scene : scenes) {
    for (const char* method : {"projected-gauss-seidel", "direct-pivoting"}) {
      for (const bool project : {true, false}) {
        World w;
        scene.build(w);
        WorldOptions o = w.getOptions();
        o.solver.method = method;
        w.setOptions(o);
        setProjectAfterStep(w, project);
        w.step(1000);
        StepTimings sum;
        double residual = 0.0;
        for (int k = 0; k < steps; ++k) {
          w.step();
          sum += w.getLastStepTimings();
          residual = std::max(residual, maxResidual(w));
        }
        const double us = 1e6 / steps;
        std::printf("| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.1e |\n", scene.name, method,
                    project ? "rows + projection" : "Baumgarte rows", sum.dynamics * us, sum.solve * us,
                    sum.projection * us, sum.total * us, residual);
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
