// Runs every benchmark scene on Articula and on each peer engine compiled
// in (DART, MuJoCo, Bullet), in one process: after a warm-up the engines
// take turns running batches of steps, and the median time per step of
// each engine is compared. Next to speed it measures accuracy: forward
// dynamics on random states against every other engine, energy drift over
// 10 s, closure drift, and penetration and drift of resting bodies; on
// contact scenes also Articula's solve residual and unconverged steps,
// optionally for every constraint solver method (a work–precision table).
//
//   articula-bench-peers [--quick] [--scene NAME]... [--engines a,b,...]
//                        [--articula-methods all|m1,m2,...]
//                        [--dt SECONDS] [--markdown FILE] [--json FILE]
#include "peer.hpp"
#include "scenes.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/utsname.h>

namespace {

using namespace bench;
using Clock = std::chrono::steady_clock;
using Eigen::VectorXd;

struct Options {
  bool quick = false;
  std::vector<std::string> scenes;
  std::vector<std::string> engines;
  std::vector<std::string> articulaMethods;  // one extra Articula row per method on contact scenes
  std::string markdownPath;
  std::string jsonPath;
  double dt = 1e-3;
};

// What one engine measured on one scene.
struct EngineResult {
  std::string key;
  std::string note;  // why it did not run, if it did not
  bool ran = false;
  double median = 0.0;         // µs per step
  double best = 0.0;           // µs per step
  double fdWorst = -1.0;       // worst relative FD difference against Articula (peers only)
  double energyDrift = -1.0;   // max |E(t) − E(0)| over 10 s (J)
  double closureDrift = -1.0;  // max closure error over 10 s (m)
  double penetration = -1.0;   // deepest penetration during the measured steps (m)
  double restingDrift = -1.0;  // largest displacement of a free body's origin during the measured steps (m);
                               // +∞ once the state is no longer finite
  // Contact scenes, engines reporting their solve (Articula), over the measured steps:
  double maxResidual = -1.0;     // largest solve residual (m/s)
  double unconverged = -1.0;     // share of steps whose solve did not converge, in [0, 1]
  double meanIterations = -1.0;  // solver iterations per step
  int failedSteps = 0;           // steps rejected by the engine (the previous state kept)
};

struct SceneResult {
  std::string name;
  std::string category;
  int dofs = 0;
  int steps = 0;  // measured steps per engine
  std::vector<EngineResult> engines;
  std::map<std::string, double> fdPairs;  // "a/b" → worst relative difference
};

__attribute__((format(printf, 1, 2))) std::string fmt(const char* f, ...) {
  char buf[128];
  va_list args;
  va_start(args, f);
  std::vsnprintf(buf, sizeof buf, f, args);
  va_end(args);
  return buf;
}

// Articula with other solver settings, not a peer: "articula-lite" (an
// extra column) and "articula (<method>)" (rows of the contact table only).
bool isVariant(const std::string& key) {
  return key != "articula" && key.rfind("articula", 0) == 0;
}

// One constraint solver method of Articula ("articula (convex)").
bool isMethodRow(const std::string& key) {
  return key.rfind("articula (", 0) == 0;
}

const char* categoryName(SceneKind k) {
  switch (k) {
    case SceneKind::ContactFree:
      return "contact-free";
    case SceneKind::Contact:
      return "contact";
    case SceneKind::ClosedChain:
      return "closed chain";
  }
  return "?";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double relativeDifference(const VectorXd& a, const VectorXd& b) {
  const double scale = std::max(a.norm(), b.norm());
  return scale > 0.0 ? (a - b).norm() / scale : 0.0;
}

// Positions of the free bodies' origins (neutral q layout).
std::vector<Eigen::Vector3d> freeOrigins(const Scene& scene, const VectorXd& q) {
  std::vector<Eigen::Vector3d> out;
  int offset = 0;
  for (const auto& t : scene.trees)
    for (const auto& b : t.bodies) {
      if (b.joint == JointType::Free) {
        out.emplace_back(q.segment<3>(offset));
        offset += 7;
      } else {
        offset += 1;
      }
    }
  return out;
}

// What one engine showed during the measured steps of a contact scene,
// observed after every step.
struct ContactWatch {
  std::vector<Eigen::Vector3d> start;  // free bodies' origins at the end of settling (m)
  double deepest = 0.0;                // m
  double moved = 0.0;                  // m; +∞ once the state is not finite
  int steps = 0;
  bool reportsSolve = false;
  double maxResidual = 0.0;  // m/s
  int unconverged = 0;
  long iterations = 0;
  int failed = 0;

  void observe(const Scene& scene, const Instance& inst, VectorXd& q, VectorXd& v) {
    ++steps;
    deepest = std::max(deepest, inst.maxPenetration());
    inst.getState(q, v);
    const auto now = freeOrigins(scene, q);
    for (std::size_t b = 0; b < now.size(); ++b) {
      const double d = (now[b] - start[b]).norm();
      moved = std::isfinite(d) ? std::max(moved, d) : std::numeric_limits<double>::infinity();
    }
    if (const std::optional<SolveReport> r = inst.lastSolve()) {
      reportsSolve = true;
      maxResidual =
          std::isfinite(r->residual) ? std::max(maxResidual, r->residual) : std::numeric_limits<double>::infinity();
      unconverged += r->converged ? 0 : 1;
      iterations += r->iterations;
      failed += r->failed ? 1 : 0;
    }
  }

  void writeTo(EngineResult& r) const {
    r.penetration = deepest;
    r.restingDrift = moved;
    if (!reportsSolve || steps == 0) return;
    r.maxResidual = maxResidual;
    r.unconverged = static_cast<double>(unconverged) / steps;
    r.meanIterations = static_cast<double>(iterations) / steps;
    r.failedSteps = failed;
  }
};

struct Runner {
  Options opt;
  std::vector<std::unique_ptr<Backend>> backends;

  // Forward dynamics of every engine on 100 random states.
  void compareForwardDynamics(const Scene& scene, const std::vector<const Backend*>& engines, SceneResult& out) {
    std::vector<std::unique_ptr<Instance>> instances;
    for (const Backend* b : engines) instances.push_back(b->create(scene));
    std::mt19937 rng(2026);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    const int n = scene.numDofs();
    std::vector<double> worst(engines.size() * engines.size(), 0.0);
    for (int sample = 0; sample < 100; ++sample) {
      VectorXd q(n);
      VectorXd v(n);
      VectorXd tau(n);
      for (int i = 0; i < n; ++i) {
        q[i] = std::numbers::pi * U(rng);
        v[i] = 2.0 * U(rng);
        tau[i] = 5.0 * U(rng);
      }
      std::vector<VectorXd> a;
      for (auto& inst : instances) a.push_back(inst->forwardDynamics(q, v, tau));
      for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < a.size(); ++j) {
          double& w = worst[i * a.size() + j];
          w = std::max(w, relativeDifference(a[i], a[j]));
        }
    }
    for (std::size_t i = 0; i < engines.size(); ++i) {
      for (std::size_t j = i + 1; j < engines.size(); ++j)
        out.fdPairs[engines[i]->key() + "/" + engines[j]->key()] = worst[i * engines.size() + j];
      for (auto& r : out.engines)
        if (r.key == engines[i]->key() && i > 0) r.fdWorst = worst[i * engines.size()];
    }
  }

  // Energy (and closure) drift over 10 s of simulated time. Open chains
  // run without gravity from random joint velocities, uniform in ±1/√n
  // rad/s for n DoF (so the outermost link turns at about 1 rad/s):
  // under gravity a fixed-base robot falling from rest whips its light
  // wrist links until semi-implicit Euler at 1 ms diverges in every engine.
  // Closed chains swing under gravity from rest.
  void measureDrift(const Scene& original, const Backend& backend, EngineResult& r) {
    Scene scene = original;
    if (scene.kind == SceneKind::ContactFree) {
      scene.gravity.setZero();
      std::mt19937 rng(11);
      std::uniform_real_distribution<double> U(-1.0, 1.0);
      const double scale = 1.0 / std::sqrt(static_cast<double>(scene.v0.size()));
      for (int i = 0; i < scene.v0.size(); ++i) scene.v0[i] = scale * U(rng);
    }
    auto inst = backend.create(scene);
    auto meter = makeMeter(scene);
    VectorXd q;
    VectorXd v;
    inst->getState(q, v);
    const double e0 = meter->energy(q, v);
    double drift = 0.0;
    double closure = meter->closureError(q);
    const int steps = static_cast<int>(std::lround((opt.quick ? 2.0 : 10.0) / scene.dt));
    for (int s = 1; s <= steps; ++s) {
      inst->step();
      if (s % 10 != 0) continue;
      inst->getState(q, v);
      drift = std::max(drift, std::abs(meter->energy(q, v) - e0));
      if (!scene.closures.empty()) closure = std::max(closure, meter->closureError(q));
      if (!std::isfinite(drift)) break;
    }
    r.energyDrift = drift;
    if (!scene.closures.empty()) r.closureDrift = closure;
  }

  SceneResult run(const Scene& scene) {
    SceneResult out;
    out.name = scene.name;
    out.category = categoryName(scene.kind);
    out.dofs = scene.numDofs();
    std::vector<const Backend*> engines;
    for (const auto& b : backends) {
      EngineResult r;
      r.key = b->key();
      std::string why;
      if (b->supports(scene, why)) {
        engines.push_back(b.get());
        r.ran = true;
      } else {
        r.note = why;
      }
      out.engines.push_back(r);
    }
    auto resultOf = [&](const Backend* b) -> EngineResult& {
      for (auto& r : out.engines)
        if (r.key == b->key()) return r;
      throw std::logic_error("no result slot");
    };
    std::fprintf(stderr, "%s (%d DoF):", scene.name.c_str(), out.dofs);

    // Accuracy first (each on fresh instances).
    if (scene.kind == SceneKind::ContactFree) {
      std::fprintf(stderr, " forward dynamics…");
      compareForwardDynamics(scene, engines, out);
    }
    if (scene.kind != SceneKind::Contact) {
      std::fprintf(stderr, " drift…");
      for (const Backend* b : engines) measureDrift(scene, *b, resultOf(b));
    }

    // Timing: fresh instances, warm-up (contact scenes: settling), then
    // batches in turn, the first engine of each round rotating.
    std::vector<std::unique_ptr<Instance>> inst;
    for (const Backend* b : engines) inst.push_back(b->create(scene));
    const bool contact = scene.kind == SceneKind::Contact;
    double settle = contact ? 1.0 : 0.1;
    if (scene.trees.size() > 100) settle = 2.0;
    if (opt.quick) settle *= 0.5;
    const int warmup = static_cast<int>(std::lround(settle / scene.dt));
    std::fprintf(stderr, " warm-up…");
    // An engine whose warm-up exceeds the time budget is stopped there; its
    // time per step is that of the warm-up steps it ran.
    const double budget = opt.quick ? 20.0 : 60.0;  // s
    std::vector<double> firstCost(inst.size());
    std::vector<bool> stopped(inst.size(), false);
    for (std::size_t i = 0; i < inst.size(); ++i) {
      const auto t0 = Clock::now();
      int s = 0;
      double elapsed = 0.0;
      while (s < warmup) {
        inst[i]->step();
        ++s;
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        if (elapsed > budget) break;
      }
      firstCost[i] = 1e6 * elapsed / s;
      if (s < warmup) {
        stopped[i] = true;
        EngineResult& r = resultOf(engines[i]);
        r.median = r.best = firstCost[i];
        r.note = fmt("stopped after %d of %d warm-up steps (%.0f s budget); time per step of those steps", s, warmup,
                     budget);
      }
    }
    // Batch sizes: contact scenes measure a fixed stretch of simulated time
    // (the same steps for every engine, so resting accuracy is comparable);
    // contact-free scenes batches of about 5 ms each.
    const int rounds = opt.quick ? 7 : 21;
    std::vector<int> batch(inst.size());
    for (std::size_t i = 0; i < inst.size(); ++i) {
      if (contact) {
        const double window = scene.trees.size() > 100 ? 0.3 : 1.0;
        batch[i] = std::max(1, static_cast<int>(std::lround(window / scene.dt / rounds)));
      } else {
        batch[i] = std::max(1, static_cast<int>((opt.quick ? 2000.0 : 5000.0) / std::max(firstCost[i], 0.05)));
      }
    }
    std::vector<std::vector<double>> samples(inst.size());
    std::vector<ContactWatch> watch(inst.size());
    VectorXd q;
    VectorXd v;
    for (std::size_t i = 0; i < inst.size(); ++i) {
      inst[i]->getState(q, v);
      watch[i].start = freeOrigins(scene, q);
    }
    std::fprintf(stderr, " timing…");
    for (int round = 0; round < rounds; ++round) {
      for (std::size_t k = 0; k < inst.size(); ++k) {
        const std::size_t i = (k + static_cast<std::size_t>(round)) % inst.size();
        if (stopped[i]) continue;
        // Without contacts every batch starts again from the initial state:
        // the robots fall from rest under gravity without damping or limits,
        // and many seconds of it would end in divergence.
        if (!contact) {
          inst[i]->setState(scene.q0, scene.v0);
          const auto t0 = Clock::now();
          for (int s = 0; s < batch[i]; ++s) inst[i]->step();
          samples[i].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / batch[i]);
          continue;
        }
        // Contact scenes: every step is observed, and only the steps are timed.
        double busy = 0.0;  // µs
        for (int s = 0; s < batch[i]; ++s) {
          const auto t0 = Clock::now();
          inst[i]->step();
          busy += std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
          watch[i].observe(scene, *inst[i], q, v);
        }
        samples[i].push_back(busy / batch[i]);
      }
    }
    for (std::size_t i = 0; i < inst.size(); ++i) {
      if (stopped[i]) continue;
      EngineResult& r = resultOf(engines[i]);
      r.median = median(samples[i]);
      r.best = *std::min_element(samples[i].begin(), samples[i].end());
      if (contact) watch[i].writeTo(r);
    }
    out.steps = batch.empty() ? 0 : batch[0] * rounds;
    std::fprintf(stderr, " done\n");
    return out;
  }
};

std::string sci(double x) {
  return x < 0.0 ? "–" : fmt("%.1e", x);
}

// Millimetres of a length in metres; "diverged" when it is not finite.
std::string millimetres(double x) {
  return std::isfinite(x) ? fmt("%.2f", 1e3 * x) : std::string("diverged");
}

std::string machineDescription() {
  std::string cpu = "unknown CPU";
  std::ifstream info("/proc/cpuinfo");
  int cores = 0;
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      ++cores;
    }
  }
  utsname u{};
  uname(&u);
  std::ostringstream s;
  s << cpu << ", " << cores << " logical cores, " << u.sysname << " " << u.release << ", GCC " << __VERSION__;
  return s.str();
}

// The contact scenes with one row per engine (and per Articula solver
// method): the time per step next to what it buys, drift and penetration,
// and the solve residual and convergence of the engines that report them.
void writeWorkPrecision(const std::vector<SceneResult>& results, const std::vector<std::unique_ptr<Backend>>& backends,
                        std::FILE* md) {
  std::fprintf(md,
               "\n### Work and precision, contact scenes\n\nOver the measured steps: median µs per step; drift, the "
               "largest displacement of a free body's origin from its position at the end of settling (mm); the "
               "deepest penetration (mm); for engines reporting their solve (Articula), the largest solve residual "
               "(velocity error, m/s), the share of steps whose solve did not converge (residual above the "
               "solver's tolerance, 1e-6 m/s by default) and the mean solver iterations per step (sweeps or Newton "
               "iterations, largest over islands; pivots, summed).\n\n"
               "| scene | engine | µs/step | drift (mm) | penetration (mm) | max residual (m/s) | unconverged | "
               "iterations |\n|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& s : results) {
    if (s.category != "contact") continue;
    for (const auto& b : backends) {
      const auto it =
          std::find_if(s.engines.begin(), s.engines.end(), [&](const EngineResult& r) { return r.key == b->key(); });
      if (it == s.engines.end() || !it->ran) continue;
      const EngineResult& r = *it;
      std::fprintf(md, "| %s | %s | %.1f%s |", s.name.c_str(), r.key.c_str(), r.median, r.note.empty() ? "" : "†");
      if (r.penetration < 0.0)
        std::fprintf(md, " – | – |");
      else
        std::fprintf(md, " %s | %s |", millimetres(r.restingDrift).c_str(), millimetres(r.penetration).c_str());
      if (r.maxResidual < 0.0)
        std::fprintf(md, " – | – | – |\n");
      else
        std::fprintf(md, " %s | %.1f %% | %.1f |\n", sci(r.maxResidual).c_str(), 100.0 * r.unconverged,
                     r.meanIterations);
    }
  }
}

void writeReport(const std::vector<SceneResult>& results, const std::vector<std::unique_ptr<Backend>>& backends,
                 const Options& opt, std::FILE* md, std::ostream* json) {
  const std::string& ref = backends.front()->key();
  auto find = [](const SceneResult& s, const std::string& key) -> const EngineResult* {
    for (const auto& r : s.engines)
      if (r.key == key && r.ran) return &r;
    return nullptr;
  };
  // The engines with a column: all but the solver-method rows.
  std::vector<const Backend*> columns;
  for (const auto& b : backends)
    if (!isMethodRow(b->key())) columns.push_back(b.get());
  std::fprintf(md, "Machine: %s%s\n\n", machineDescription().c_str(), opt.quick ? " (--quick run)" : "");
  std::fprintf(md, "Engines:");
  for (const Backend* b : columns) std::fprintf(md, " %s;", b->name().c_str());
  if (!opt.articulaMethods.empty()) {
    std::fprintf(md, " Articula's constraint solver methods (contact scenes):");
    for (const auto& m : opt.articulaMethods) std::fprintf(md, " %s;", m.c_str());
  }
  std::fprintf(md, "\n\n### Speed: median µs per step (ratio Articula / peer)\n\n| scene | DoF |");
  for (const Backend* b : columns) std::fprintf(md, " %s |", b->name().c_str());
  std::fprintf(md, "\n|---|---:|");
  for (std::size_t i = 0; i < columns.size(); ++i) std::fprintf(md, "---:|");
  std::fprintf(md, "\n");
  for (const auto& s : results) {
    const EngineResult* a = find(s, ref);
    std::fprintf(md, "| %s | %d |", s.name.c_str(), s.dofs);
    for (const Backend* b : columns) {
      const EngineResult* r = find(s, b->key());
      if (!r) {
        std::fprintf(md, " – |");
      } else if (b->key() == ref || isVariant(b->key()) || !a) {
        std::fprintf(md, " %.1f%s |", r->median, r->note.empty() ? "" : "†");
      } else {
        std::fprintf(md, " %.1f%s (%.2f) |", r->median, r->note.empty() ? "" : "†", a->median / r->median);
      }
    }
    std::fprintf(md, "\n");
  }
  std::fprintf(md, "\n### Accuracy, contact-free and closed chains\n\n");
  std::fprintf(md,
               "Forward dynamics: worst relative difference ‖v̇ₐ − v̇ₚ‖ / max(‖v̇ₐ‖, ‖v̇ₚ‖) over 100 random states "
               "against Articula. Drift: max |E(t) − E(0)| over %s s (J): open chains without gravity from random "
               "joint velocities "
               "in ±1/√n rad/s (n DoF), closed chains under gravity from rest, where the largest closure error (m) is "
               "also shown.\n\n| scene |",
               opt.quick ? "2" : "10");
  std::vector<const Backend*> main;  // Articula and the peers
  for (const Backend* b : columns)
    if (!isVariant(b->key())) main.push_back(b);
  for (std::size_t i = 1; i < main.size(); ++i) std::fprintf(md, " FD vs %s |", main[i]->name().c_str());
  for (const Backend* b : columns) std::fprintf(md, " ΔE %s |", b->name().c_str());
  std::fprintf(md, "\n|---|");
  for (std::size_t i = 1; i < main.size() + columns.size(); ++i) std::fprintf(md, "---:|");
  std::fprintf(md, "\n");
  for (const auto& s : results) {
    if (s.category == "contact") continue;
    std::fprintf(md, "| %s |", s.name.c_str());
    for (std::size_t i = 1; i < main.size(); ++i) {
      const EngineResult* r = find(s, main[i]->key());
      std::fprintf(md, " %s |", r ? sci(r->fdWorst).c_str() : "–");
    }
    for (const Backend* b : columns) {
      const EngineResult* r = find(s, b->key());
      if (!r) {
        std::fprintf(md, " – |");
      } else if (r->closureDrift >= 0.0) {
        std::fprintf(md, " %s (closure %s) |", sci(r->energyDrift).c_str(), sci(r->closureDrift).c_str());
      } else {
        std::fprintf(md, " %s |", sci(r->energyDrift).c_str());
      }
    }
    std::fprintf(md, "\n");
  }
  std::fprintf(md,
               "\n### Accuracy, contact scenes\n\nDeepest penetration (mm) and largest displacement of a free "
               "body (mm) during the measured steps.\n\n| scene |");
  for (const Backend* b : columns) std::fprintf(md, " %s |", b->name().c_str());
  std::fprintf(md, "\n|---|");
  for (std::size_t i = 0; i < columns.size(); ++i) std::fprintf(md, "---:|");
  std::fprintf(md, "\n");
  for (const auto& s : results) {
    if (s.category != "contact") continue;
    std::fprintf(md, "| %s |", s.name.c_str());
    for (const Backend* b : columns) {
      const EngineResult* r = find(s, b->key());
      if (!r || r->penetration < 0.0)
        std::fprintf(md, " – |");
      else
        std::fprintf(md, " %s / %s |", millimetres(r->penetration).c_str(), millimetres(r->restingDrift).c_str());
    }
    std::fprintf(md, "\n");
  }
  writeWorkPrecision(results, backends, md);
  for (const auto& s : results)
    for (const auto& r : s.engines)
      if (r.ran && !r.note.empty())
        std::fprintf(md, "\n† %s on %s: %s.\n", r.key.c_str(), s.name.c_str(), r.note.c_str());
  for (const auto& s : results)
    for (const auto& r : s.engines) {
      if (r.ran && r.restingDrift >= 0.0 && !std::isfinite(r.restingDrift))
        std::fprintf(md, "\n%s on %s: the state stopped being finite during the measured steps.\n", r.key.c_str(),
                     s.name.c_str());
      if (r.ran && r.failedSteps > 0)
        std::fprintf(md, "\n%s on %s: %d of %d measured steps rejected (previous state kept).\n", r.key.c_str(),
                     s.name.c_str(), r.failedSteps, s.steps);
    }
  // Engines that could not run a scene.
  bool header = false;
  for (const auto& s : results)
    for (const auto& r : s.engines)
      if (!r.ran && !isVariant(r.key)) {
        if (!header) std::fprintf(md, "\nNot run:\n");
        header = true;
        std::fprintf(md, "- %s on %s: %s\n", r.key.c_str(), s.name.c_str(), r.note.c_str());
      }

  if (!json) return;
  auto num = [](double x) { return std::isfinite(x) ? fmt("%.6g", x) : std::string("null"); };
  *json << "{\n  \"machine\": \"" << machineDescription() << "\",\n  \"quick\": " << (opt.quick ? "true" : "false")
        << ",\n  \"engines\": {";
  for (std::size_t i = 0; i < backends.size(); ++i)
    *json << (i ? ", " : "") << "\"" << backends[i]->key() << "\": \"" << backends[i]->name() << "\"";
  *json << "},\n  \"scenes\": [\n";
  for (std::size_t k = 0; k < results.size(); ++k) {
    const auto& s = results[k];
    const EngineResult* a = find(s, ref);
    *json << "    {\"name\": \"" << s.name << "\", \"category\": \"" << s.category << "\", \"dofs\": " << s.dofs
          << ", \"results\": {";
    bool first = true;
    for (const auto& r : s.engines) {
      *json << (first ? "" : ", ") << "\"" << r.key << "\": ";
      first = false;
      if (!r.ran) {
        *json << "{\"skipped\": \"" << r.note << "\"}";
        continue;
      }
      *json << "{\"median_us_per_step\": " << num(r.median) << ", \"best_us_per_step\": " << num(r.best);
      if (!r.note.empty()) *json << ", \"note\": \"" << r.note << "\"";
      if (a && r.key != ref && !isVariant(r.key))
        *json << ", \"ratio_articula_over_peer\": " << num(a->median / r.median);
      if (r.fdWorst >= 0) *json << ", \"fd_worst_relative_vs_articula\": " << num(r.fdWorst);
      if (r.energyDrift >= 0) *json << ", \"energy_drift_J\": " << num(r.energyDrift);
      if (r.closureDrift >= 0) *json << ", \"closure_drift_m\": " << num(r.closureDrift);
      if (r.penetration >= 0) *json << ", \"max_penetration_m\": " << num(r.penetration);
      if (r.restingDrift >= 0) *json << ", \"resting_drift_m\": " << num(r.restingDrift);
      if (r.maxResidual >= 0) {
        *json << ", \"max_residual_mps\": " << num(r.maxResidual) << ", \"unconverged_share\": " << num(r.unconverged)
              << ", \"mean_iterations\": " << num(r.meanIterations) << ", \"failed_steps\": " << r.failedSteps;
      }
      *json << "}";
    }
    *json << "}";
    if (!s.fdPairs.empty()) {
      *json << ", \"fd_pairs\": {";
      bool f = true;
      for (const auto& [pair, w] : s.fdPairs) {
        *json << (f ? "" : ", ") << "\"" << pair << "\": " << num(w);
        f = false;
      }
      *json << "}";
    }
    *json << "}" << (k + 1 < results.size() ? "," : "") << "\n";
  }
  *json << "  ]\n}\n";
}

// Target check lines (printed after the table).
void printTargets(const std::vector<SceneResult>& results, std::FILE* md) {
  std::fprintf(md, "\n### Targets\n\n");
  for (const auto& s : results) {
    const EngineResult* a = nullptr;
    const EngineResult* variant = nullptr;
    double fastestPeer = 0.0;
    std::string fastestKey;
    double dart = 0.0;
    double worstRatio = 0.0;
    for (const auto& r : s.engines) {
      if (!r.ran) continue;
      if (r.key == "articula") {
        a = &r;
        continue;
      }
      if (isVariant(r.key)) {
        if (!isMethodRow(r.key)) variant = &r;
        continue;
      }
      if (fastestKey.empty() || r.median < fastestPeer) fastestPeer = r.median, fastestKey = r.key;
      if (r.key == "dart") dart = r.median;
    }
    if (!a || fastestKey.empty()) continue;
    for (const auto& r : s.engines)
      if (r.ran && r.key != "articula" && !isVariant(r.key)) worstRatio = std::max(worstRatio, a->median / r.median);
    const std::string lite = variant ? fmt(" (peer-like settings: %.2f)", variant->median / fastestPeer) : "";
    if (s.category == "contact") {
      const double ratio = a->median / fastestPeer;
      std::fprintf(md, "- %s: %.2f× the fastest peer (%s)%s; target ≤ 1.5: %s\n", s.name.c_str(), ratio,
                   fastestKey.c_str(), lite.c_str(), ratio <= 1.5 ? "met" : "missed");
    } else {
      const bool dartOk = dart == 0.0 || a->median / dart < 0.5;
      std::fprintf(md, "- %s: largest ratio %.2f (vs %s)%s%s; target < 1.0%s: %s\n", s.name.c_str(), worstRatio,
                   fastestKey.c_str(), lite.c_str(), dart > 0.0 ? fmt(", %.2f vs DART", a->median / dart).c_str() : "",
                   dart > 0.0 ? " and < 0.5 vs DART" : "", worstRatio < 1.0 && dartOk ? "met" : "missed");
    }
  }
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--quick")
        opt.quick = true;
      else if (a == "--scene")
        for (const auto& s : split(value())) opt.scenes.push_back(s);
      else if (a == "--engines")
        opt.engines = split(value());
      else if (a == "--articula-methods") {
        const std::string list = value();
        opt.articulaMethods = list == "all" ? articulaSolverMethods() : split(list);
      } else if (a == "--markdown")
        opt.markdownPath = value();
      else if (a == "--json")
        opt.jsonPath = value();
      else if (a == "--dt")
        opt.dt = std::stod(value());
      else if (a == "--help" || a == "-h") {
        std::printf(
            "usage: articula-bench-peers [--quick] [--scene NAME[,NAME...]] [--engines KEY[,KEY...]]\n"
            "                            [--articula-methods all|METHOD[,METHOD...]]\n"
            "                            [--dt SECONDS] [--markdown FILE] [--json FILE]\n"
            "\n"
            "  --quick             shorter settling, timing and drift runs\n"
            "  --scene             run only these scenes (an unknown name lists them)\n"
            "  --engines           peers to run besides Articula: articula-lite, dart, mujoco, bullet\n"
            "  --articula-methods  on contact scenes, one more Articula row per constraint solver\n"
            "                      method, in the work-precision table; methods:");
        for (const auto& m : articulaSolverMethods()) std::printf(" %s", m.c_str());
        std::printf(
            "\n"
            "  --dt                time step (s), default 0.001\n"
            "  --markdown, --json  also write the report to FILE\n");
        return 0;
      } else {
        throw std::runtime_error("unknown argument '" + a + "' (see --help)");
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "articula-bench-peers: %s\n", e.what());
      return 2;
    }
  }

  Runner runner;
  runner.opt = opt;
  std::vector<std::unique_ptr<Backend>> all;
  all.push_back(makeArticulaBackend());
  all.push_back(makeArticulaBackend(true));
  try {
    for (const auto& m : opt.articulaMethods) all.push_back(makeArticulaMethodBackend(m));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula-bench-peers: --articula-methods: %s\n", e.what());
    return 2;
  }
  for (auto& peer : makePeerBackends()) all.push_back(std::move(peer));
  for (auto& b : all) {
    const bool wanted = opt.engines.empty() || b->key() == "articula" || isMethodRow(b->key()) ||
                        std::find(opt.engines.begin(), opt.engines.end(), b->key()) != opt.engines.end();
    if (wanted) runner.backends.push_back(std::move(b));
  }

  const std::string models = modelsDirectory() + "/example-robot-data/robots/";
  const std::vector<std::pair<std::string, std::function<Scene()>>> catalogue = {
      {"chain-5", [] { return makeSerialChain(5); }},
      {"chain-10", [] { return makeSerialChain(10); }},
      {"chain-30", [] { return makeSerialChain(30); }},
      {"chain-100", [] { return makeSerialChain(100); }},
      {"panda", [&] { return makeFixedBaseRobot("panda", models + "panda_description/urdf/panda.urdf"); }},
      {"talos", [&] { return makeFixedBaseRobot("talos", models + "talos_data/robots/talos_reduced.urdf"); }},
      {"box-stack-10", [] { return makeBoxStack(10); }},
      {"box-tower-20",
       [] {
         Scene s = makeBoxStack(20);
         s.name = "box-tower-20";
         return s;
       }},
      {"mass-ratio-1000", [] { return makeMassRatioStack(1000.0); }},
      {"box-pile-500", [] { return makeBoxPile(500); }},
      {"quadruped", [&] { return makeQuadruped(models + "solo_description/robots/solo12.urdf"); }},
      {"four-bar", [] { return makeFourBars(1); }},
      {"four-bars-10", [] { return makeFourBars(10); }},
  };
  for (const auto& name : opt.scenes) {
    const bool known = std::any_of(catalogue.begin(), catalogue.end(), [&](const auto& c) { return c.first == name; });
    if (!known) {
      std::string list;
      for (const auto& c : catalogue) list += " " + c.first;
      std::fprintf(stderr, "articula-bench-peers: unknown scene '%s'; scenes:%s\n", name.c_str(), list.c_str());
      return 2;
    }
  }

  std::vector<SceneResult> results;
  std::vector<Scene> scenes;
  scenes.reserve(catalogue.size());
  int failures = 0;
  for (const auto& [name, make] : catalogue) {
    if (!opt.scenes.empty() && std::find(opt.scenes.begin(), opt.scenes.end(), name) == opt.scenes.end()) continue;
    try {
      scenes.push_back(make());
      scenes.back().dt = opt.dt;
      results.push_back(runner.run(scenes.back()));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "\n%s: %s\n", name.c_str(), e.what());
      ++failures;
    }
  }

  std::ostringstream json;
  writeReport(results, runner.backends, opt, stdout, opt.jsonPath.empty() ? nullptr : &json);
  printTargets(results, stdout);
  if (!opt.markdownPath.empty()) {
    std::FILE* f = std::fopen(opt.markdownPath.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "articula-bench-peers: cannot write %s\n", opt.markdownPath.c_str());
      return 1;
    }
    writeReport(results, runner.backends, opt, f, nullptr);
    printTargets(results, f);
    std::fclose(f);
  }
  if (!opt.jsonPath.empty()) {
    std::ofstream f(opt.jsonPath);
    f << json.str();
    if (!f) {
      std::fprintf(stderr, "articula-bench-peers: cannot write %s\n", opt.jsonPath.c_str());
      return 1;
    }
  }
  return failures == 0 ? 0 : 1;
}
