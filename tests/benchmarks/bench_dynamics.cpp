// Timings of the core dynamics algorithms on serial revolute chains.
// Reports, over repeated batches, the median and the minimum of ns per call,
// and the median ns per DoF. The machine is often shared: the minimum is the
// better estimate of the code's cost, the median of what a user sees.
//
//   articula-bench-dynamics [--quick]
#include "algorithms.hpp"
#include "builtin_scenes.hpp"
#include "world_impl.hpp"

#include <articula/articula.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
volatile double g_sink = 0.0;

struct Timing {
  double median;  // ns per call
  double best;    // ns per call
};

// Median and minimum ns per call over `batches` batches, each ≈ targetMs long.
Timing timeNs(const std::function<void()>& fn, int batches, double targetMs) {
  for (int i = 0; i < 50; ++i) fn();  // warm-up
  long iters = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (long i = 0; i < iters; ++i) fn();
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (ms > targetMs / 4 || iters > (1L << 30)) {
      iters = std::max(1L, static_cast<long>(static_cast<double>(iters) * targetMs / std::max(ms, 1e-3)));
      break;
    }
    iters *= 4;
  }
  std::vector<double> samples;
  for (int b = 0; b < batches; ++b) {
    const auto t0 = Clock::now();
    for (long i = 0; i < iters; ++i) fn();
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / static_cast<double>(iters));
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front()};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace articula;
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int batches = quick ? 3 : 9;
  const double targetMs = quick ? 20.0 : 100.0;

  std::printf("| links (DoF) | algorithm | median ns/call | min ns/call | median ns/DoF |\n");
  std::printf("|---|---|---:|---:|---:|\n");
  for (int n : {7, 30, 100}) {
    World world;
    scenes::buildRevoluteChain(world, "chain", n);
    world.enterSimulationMode();
    auto& w = detail::Access::impl(world);
    const auto& m = w.model;
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    VectorXd q(m.nq), v(m.nv), tau(m.nv), vdot(m.nv), out(m.nv);
    for (int i = 0; i < m.nq; ++i) q[i] = U(rng);
    for (int i = 0; i < m.nv; ++i) v[i] = U(rng), tau[i] = U(rng), vdot[i] = U(rng);
    std::vector<Vector6d> fext(static_cast<std::size_t>(m.nbody), Vector6d::Zero());
    auto& d = w.data;
    MatrixXd M = MatrixXd::Zero(m.nv, m.nv);

    const Timing fk = timeNs(
        [&] {
          detail::forwardKinematicsPositions(m, q, d);
          detail::forwardKinematicsVelocities(m, q, v, d);
          g_sink = g_sink + d.V.back()[0];
        },
        batches, targetMs);
    const Timing aba = timeNs(
        [&] {
          detail::forwardKinematicsPositions(m, q, d);
          detail::forwardKinematicsVelocities(m, q, v, d);
          detail::articulatedBodyAlgorithm(m, v, tau, fext, m.dof_armature, 0, m.nbody, d, out);
          g_sink = g_sink + out[0];
        },
        batches, targetMs);
    const Timing abaOnly = timeNs(
        [&] {
          detail::articulatedBodyAlgorithm(m, v, tau, fext, m.dof_armature, 0, m.nbody, d, out);
          g_sink = g_sink + out[0];
        },
        batches, targetMs);
    const Timing rnea = timeNs(
        [&] {
          detail::forwardKinematicsPositions(m, q, d);
          detail::forwardKinematicsVelocities(m, q, v, d);
          detail::recursiveNewtonEuler(m, v, vdot, &fext, true, true, 0, m.nbody, d, out);
          g_sink = g_sink + out[0];
        },
        batches, targetMs);
    const Timing crba = timeNs(
        [&] {
          detail::forwardKinematicsPositions(m, q, d);
          detail::compositeRigidBodyAlgorithm(m, 0, m.nbody, d, M);
          g_sink = g_sink + M(0, 0);
        },
        batches, targetMs);
    const Timing step = timeNs([&] { world.step(); }, batches, targetMs);
    // The same step without the divergence checks (velocity scan, energy
    // balance): their cost is the difference.
    World unchecked;
    scenes::buildRevoluteChain(unchecked, "chain", n);
    WorldOptions options = unchecked.getOptions();
    options.divergence.maxSpeed = 0.0;
    options.divergence.energyGainFraction = 0.0;
    unchecked.setOptions(options);
    unchecked.enterSimulationMode();
    const Timing stepUnchecked = timeNs([&] { unchecked.step(); }, batches, targetMs);
    const std::pair<const char*, Timing> rows[] = {{"forward kinematics (positions + velocities)", fk},
                                                   {"ABA incl. forward kinematics", aba},
                                                   {"ABA only", abaOnly},
                                                   {"RNEA incl. forward kinematics", rnea},
                                                   {"CRBA incl. forward kinematics (positions)", crba},
                                                   {"World::step() (semi-implicit Euler)", step},
                                                   {"World::step() without divergence checks", stepUnchecked}};
    for (const auto& [label, t] : rows) {
      std::printf("| %d (%d) | %s | %.0f | %.0f | %.1f |\n", n, m.nv, label, t.median, t.best, t.median / m.nv);
    }
  }
  return g_sink == 12345.678 ? 1 : 0;
}
