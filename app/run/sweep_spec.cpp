#include "sweep_spec.hpp"

#include "cli.hpp"
#include "parameters.hpp"
#include "world_setup.hpp"

#include <articula/error.hpp>
#include <articula/file_io.hpp>
#include <articula/io/run_log.hpp>
#include <articula/io/state_columns.hpp>
#include <articula/world_spec.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace fs = std::filesystem;

namespace articula::run {

namespace {

// The most runs one sweep may have.
constexpr long kMaxRuns = 1000000;

[[noreturn]] void failAt(const fs::path& file, int line, const std::string& problem) {
  throw CliError(file.string() + ":" + std::to_string(line) + ": " + problem);
}

int lineOf(const YAML::Node& node) {
  return node.Mark().line + 1;
}

std::string scalar(const fs::path& file, const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) failAt(file, lineOf(node), what + " must be a single value");
  return node.Scalar();
}

double numberAt(const fs::path& file, const YAML::Node& node, const std::string& what) {
  const std::string text = scalar(file, node, what);
  try {
    const double x = parseDouble(what, text);
    if (std::isfinite(x)) return x;
  } catch (const CliError&) {
  }
  failAt(file, lineOf(node), what + " must be a finite number (got '" + text + "')");
}

long integerAt(const fs::path& file, const YAML::Node& node, const std::string& what, long low, long high) {
  const std::string text = scalar(file, node, what);
  long x = 0;
  try {
    x = parseLong(what, text);
  } catch (const CliError&) {
    failAt(file, lineOf(node), what + " must be an integer (got '" + text + "')");
  }
  if (x < low || x > high) {
    failAt(file, lineOf(node), what + " must be in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  return x;
}

bool isTrue(const std::string& text) {
  return text == "true" || text == "yes" || text == "on";
}
bool isFalse(const std::string& text) {
  return text == "false" || text == "no" || text == "off";
}

// A path in the sweep file, relative to its folder.
std::string resolvePath(const fs::path& file, const std::string& path) {
  const fs::path p(path);
  return (p.is_absolute() ? p : file.parent_path() / p).lexically_normal().string();
}

// Checks the arguments one sweep-file entry adds, with the scene's, as `run` would.
void checkEntry(const fs::path& file, int line, const std::vector<std::string>& scene,
                const std::vector<std::string>& added) {
  std::vector<std::string> args = scene;
  args.insert(args.end(), added.begin(), added.end());
  args.insert(args.end(), {"--hdf5", "run.h5"});
  try {
    parseRun(args, false);
  } catch (const CliError& e) {
    failAt(file, line, e.what());
  }
}

// options: {KEY: VALUE} → run arguments (--KEY VALUE, --KEY for true, repeated for lists).
void addOptions(const fs::path& file, const YAML::Node& options, std::vector<std::string>& args) {
  const std::vector<std::string> scene = args;
  if (!options.IsMap()) failAt(file, lineOf(options), "options must be a map of run options (dt: 0.002, ...)");
  static const std::vector<std::string> kForbidden = {"csv",   "hdf5",    "record", "record-every", "scene",
                                                      "quiet", "verbose", "every",  "duration",     "steps"};
  static const std::vector<std::string> kPaths = {"controls", "package-path"};
  for (const auto& entry : options) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    const int line = lineOf(entry.first);
    if (std::find(kForbidden.begin(), kForbidden.end(), key) != kForbidden.end()) {
      failAt(file, line,
             "options: '" + key + "' is set by the sweep itself" +
                 (key == "duration" || key == "steps" || key == "every" ? " (write it at the top level)" : ""));
    }
    const std::string option = "--" + key;
    const std::size_t before = args.size();
    auto add = [&](const YAML::Node& v) {
      const std::string text = scalar(file, v, "options: " + key);
      const bool path = std::find(kPaths.begin(), kPaths.end(), key) != kPaths.end();
      args.push_back(option);
      args.push_back(path ? resolvePath(file, text) : text);
    };
    if (key == "set" || key == "param") {
      if (!value.IsMap()) failAt(file, line, "options: " + key + " must be a map (NAME: VALUE)");
      for (const auto& item : value) {
        args.push_back(option);
        args.push_back(item.first.Scalar() + "=" + scalar(file, item.second, "options: " + key));
      }
    } else if (value.IsSequence()) {
      if (key == "gravity") {
        std::string g;
        for (const auto& c : value) g += (g.empty() ? "" : ",") + scalar(file, c, "options: gravity");
        args.push_back(option);
        args.push_back(g);
      } else {
        for (const auto& v : value) add(v);
      }
    } else if (value.IsScalar() && isTrue(value.Scalar())) {
      args.push_back(option);
    } else if (value.IsScalar() && isFalse(value.Scalar())) {
    } else if (value.IsNull()) {
      args.push_back(option);
    } else {
      add(value);
    }
    checkEntry(file, line, scene,
               std::vector<std::string>(args.begin() + static_cast<std::ptrdiff_t>(before), args.end()));
  }
}

SweepParameter readParameter(const fs::path& file, const std::string& name, const YAML::Node& key,
                             const YAML::Node& value) {
  SweepParameter p;
  p.name = name;
  p.line = lineOf(key);
  const std::string what = "parameter " + name;
  if (value.IsScalar()) {
    p.values.push_back(value.Scalar());
  } else if (value.IsSequence()) {
    for (const auto& v : value) p.values.push_back(scalar(file, v, what + ": each value"));
    if (p.values.empty()) failAt(file, p.line, what + ": the list of values is empty");
  } else if (value.IsMap()) {
    auto pair = [&](const char* kind) {
      const YAML::Node n = value[kind];
      if (!n.IsSequence() || n.size() != 2) failAt(file, lineOf(n), what + ": " + kind + " takes [A, B]");
      p.a = numberAt(file, n[0], what);
      p.b = numberAt(file, n[1], what);
    };
    if (value["uniform"]) {
      p.kind = SweepParameter::Kind::Uniform;
      pair("uniform");
      if (!(p.a < p.b)) failAt(file, p.line, what + ": uniform needs LOW < HIGH");
    } else if (value["log-uniform"]) {
      p.kind = SweepParameter::Kind::LogUniform;
      pair("log-uniform");
      if (!(p.a > 0.0 && p.a < p.b)) failAt(file, p.line, what + ": log-uniform needs 0 < LOW < HIGH");
    } else if (value["normal"]) {
      p.kind = SweepParameter::Kind::Normal;
      pair("normal");
      if (!(p.b >= 0.0)) failAt(file, p.line, what + ": normal takes [MEAN, SD] with SD >= 0");
    } else if (value["from"] && value["to"]) {
      p.kind = SweepParameter::Kind::Range;
      p.a = numberAt(file, value["from"], what + ": from");
      p.b = numberAt(file, value["to"], what + ": to");
      if (value["count"] && value["step"]) failAt(file, p.line, what + ": give count or step, not both");
      if (value["count"]) {
        p.count = integerAt(file, value["count"], what + ": count", 1, kMaxRuns);
        if (p.count == 1 && p.a != p.b) failAt(file, p.line, what + ": a count of 1 needs from = to");
      } else if (value["step"]) {
        const double step = numberAt(file, value["step"], what + ": step");
        if (!(step > 0.0)) failAt(file, p.line, what + ": step must be > 0");
        const double n = std::floor(std::abs(p.b - p.a) / step * (1.0 + 1e-12)) + 1.0;
        if (n > static_cast<double>(kMaxRuns)) failAt(file, p.line, what + ": the range has too many values");
        p.count = static_cast<long>(n);
        // The values are from + k·step (towards `to`); `to` itself only if reached.
        p.b = p.a + (p.b >= p.a ? 1.0 : -1.0) * step * static_cast<double>(p.count - 1);
      } else {
        failAt(file, p.line, what + ": a range needs count or step");
      }
    } else {
      failAt(file, p.line,
             what +
                 ": write a list [A, B, ...], a range {from: A, to: B, count: N} (or step: S), or a "
                 "distribution {uniform: [A, B]}, {log-uniform: [A, B]}, {normal: [MEAN, SD]}");
    }
  } else {
    failAt(file, p.line, what + " has no values");
  }
  if (p.kind == SweepParameter::Kind::Range) {
    for (long k = 0; k < p.count; ++k) {
      const double x =
          k == p.count - 1 ? p.b : p.a + (p.b - p.a) * static_cast<double>(k) / static_cast<double>(p.count - 1);
      p.values.push_back(formatNumber(x));
    }
  }
  return p;
}

SweepMetric readMetric(const fs::path& file, const YAML::Node& node) {
  SweepMetric m;
  m.text = scalar(file, node, "a metric");
  m.line = lineOf(node);
  static const std::vector<std::pair<std::string, SweepMetric::Kind>> kWhole = {
      {"energy-drift", SweepMetric::Kind::EnergyDrift},
      {"max-residual", SweepMetric::Kind::MaxResidual},
      {"diverged", SweepMetric::Kind::Diverged},
      {"steps", SweepMetric::Kind::Steps},
      {"unconverged-solves", SweepMetric::Kind::Unconverged}};
  static const std::vector<std::pair<std::string, SweepMetric::Kind>> kColumn = {{"final:", SweepMetric::Kind::Final},
                                                                                 {"max:", SweepMetric::Kind::Max},
                                                                                 {"min:", SweepMetric::Kind::Min},
                                                                                 {"mean:", SweepMetric::Kind::Mean}};
  for (const auto& [name, kind] : kWhole) {
    if (m.text == name) {
      m.kind = kind;
      return m;
    }
  }
  for (const auto& [prefix, kind] : kColumn) {
    if (m.text.rfind(prefix, 0) == 0 && m.text.size() > prefix.size()) {
      m.kind = kind;
      m.column = m.text.substr(prefix.size());
      return m;
    }
  }
  failAt(file, m.line,
         "unknown metric '" + m.text +
             "' (final:COLUMN, max:COLUMN, min:COLUMN, mean:COLUMN with a run-log column such as q:NAME or "
             "energy:total; energy-drift, max-residual, diverged, steps, unconverged-solves)");
}

// Random numbers that depend on (seed, run, parameter) only.
std::uint64_t splitmix(std::uint64_t x) {
  std::uint64_t z = x + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

double unit(std::uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

std::string sample(const SweepParameter& p, std::uint64_t seed, long run, std::size_t parameter) {
  const std::uint64_t h = splitmix(splitmix(splitmix(seed) ^ static_cast<std::uint64_t>(run)) ^ parameter);
  const double u1 = unit(splitmix(h ^ 1));
  const double u2 = unit(splitmix(h ^ 2));
  switch (p.kind) {
    case SweepParameter::Kind::List:
    case SweepParameter::Kind::Range: {
      const auto n = static_cast<double>(p.values.size());
      return p.values[std::min(p.values.size() - 1, static_cast<std::size_t>(u1 * n))];
    }
    case SweepParameter::Kind::Uniform:
      return formatNumber(p.a + (p.b - p.a) * u1);
    case SweepParameter::Kind::LogUniform:
      return formatNumber(std::exp(std::log(p.a) + (std::log(p.b) - std::log(p.a)) * u1));
    case SweepParameter::Kind::Normal:
      return formatNumber(p.a + p.b * std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2));
  }
  return {};
}

}  // namespace

SweepSpec readSweep(const fs::path& path) {
  SweepSpec spec;
  std::error_code ec;
  spec.file = fs::absolute(path, ec).lexically_normal();
  if (ec) spec.file = path;
  std::string text;
  try {
    text = readInputFile(path, kMaxTextFileBytes, "a sweep file");
  } catch (const FileAccessError& e) {
    throw CliError(e.what());
  }
  spec.sha256 = io::sha256Hex(text);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    failAt(path, e.mark.line + 1, "not YAML: " + e.msg);
  }
  if (!root.IsMap()) failAt(path, 1, "a sweep file is a map (scene:, parameters:, metrics:, ...)");
  static const std::vector<std::string> kKeys = {"scene",      "options",  "duration", "steps", "every",
                                                 "parameters", "sampling", "samples",  "seed",  "metrics"};
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      failAt(path, lineOf(entry.first),
             "unknown key '" + key +
                 "' (scene, options, duration, steps, every, parameters, sampling, samples, seed, metrics)");
    }
  }
  const fs::path& file = spec.file;
  if (!root["scene"]) failAt(path, 1, "no scene: name the base scene (a file, or builtin:NAME)");
  const std::string scene = scalar(path, root["scene"], "scene");
  std::vector<std::string>& args = spec.runArguments;
  if (scene.rfind("builtin:", 0) == 0) {
    args = {"--scene", scene.substr(8)};
  } else {
    args = {resolvePath(file, scene)};
  }
  if (root["options"]) addOptions(path, root["options"], args);
  const std::vector<std::string> sceneArgs(args.begin(), args.begin() + (scene.rfind("builtin:", 0) == 0 ? 2 : 1));
  for (const char* key : {"duration", "steps", "every"}) {
    if (root[key]) {
      const std::vector<std::string> entry = {std::string("--") + key, scalar(path, root[key], key)};
      checkEntry(path, lineOf(root[key]), sceneArgs, entry);
      args.insert(args.end(), entry.begin(), entry.end());
    }
  }
  try {
    // Every run writes a log (the sweep names it); a placeholder lets --log through here.
    std::vector<std::string> checked = args;
    checked.insert(checked.end(), {"--hdf5", "run.h5"});
    spec.base = parseRun(checked, false);
    spec.base.hdf5.clear();
  } catch (const CliError& e) {
    failAt(path, lineOf(root["options"] ? root["options"] : root["scene"]), e.what());
  }

  const YAML::Node parameters = root["parameters"];
  if (!parameters || !parameters.IsMap() || parameters.size() == 0) {
    failAt(path, parameters ? lineOf(parameters) : 1, "parameters: give at least one (NAME: [VALUES])");
  }
  for (const auto& entry : parameters) {
    const std::string name = entry.first.Scalar();
    for (const auto& other : spec.parameters) {
      if (other.name == name) failAt(path, lineOf(entry.first), "parameter " + name + " is given twice");
    }
    spec.parameters.push_back(readParameter(path, name, entry.first, entry.second));
  }
  const std::string sampling = root["sampling"] ? scalar(path, root["sampling"], "sampling") : "grid";
  if (sampling == "grid") {
    spec.sampling = SweepSpec::Sampling::Grid;
  } else if (sampling == "zip") {
    spec.sampling = SweepSpec::Sampling::Zip;
  } else if (sampling == "random") {
    spec.sampling = SweepSpec::Sampling::Random;
  } else {
    failAt(path, lineOf(root["sampling"]), "sampling must be grid, zip or random (got '" + sampling + "')");
  }
  if (spec.sampling == SweepSpec::Sampling::Random) {
    if (!root["samples"]) failAt(path, lineOf(root["sampling"]), "random sampling needs samples: N");
    spec.samples = integerAt(path, root["samples"], "samples", 1, kMaxRuns);
    if (root["seed"]) {
      spec.seed =
          static_cast<std::uint64_t>(integerAt(path, root["seed"], "seed", 0, std::numeric_limits<long>::max()));
    }
  } else {
    for (const char* key : {"samples", "seed"}) {
      if (root[key]) failAt(path, lineOf(root[key]), std::string(key) + " applies to sampling: random only");
    }
    for (const SweepParameter& p : spec.parameters) {
      if (p.kind != SweepParameter::Kind::List && p.kind != SweepParameter::Kind::Range) {
        failAt(path, p.line, "parameter " + p.name + ": a distribution needs sampling: random");
      }
    }
    if (spec.sampling == SweepSpec::Sampling::Zip) {
      for (const SweepParameter& p : spec.parameters) {
        if (p.values.size() != spec.parameters.front().values.size()) {
          failAt(path, p.line,
                 "parameter " + p.name + " has " + std::to_string(p.values.size()) + " values and " +
                     spec.parameters.front().name + " " + std::to_string(spec.parameters.front().values.size()) +
                     ": zip sampling needs lists of one length");
        }
      }
    } else {
      double runs = 1.0;
      for (const SweepParameter& p : spec.parameters) runs *= static_cast<double>(p.values.size());
      if (runs > static_cast<double>(kMaxRuns)) {
        failAt(path, lineOf(parameters),
               "the grid has " + formatNumber(runs) + " runs; the limit is " + std::to_string(kMaxRuns));
      }
    }
  }
  if (root["metrics"]) {
    const YAML::Node metrics = root["metrics"];
    if (!metrics.IsSequence()) failAt(path, lineOf(metrics), "metrics must be a list");
    for (const auto& m : metrics) spec.metrics.push_back(readMetric(path, m));
  }
  return spec;
}

std::vector<std::vector<std::string>> expandRuns(const SweepSpec& spec) {
  std::vector<std::vector<std::string>> runs;
  const std::size_t np = spec.parameters.size();
  if (spec.sampling == SweepSpec::Sampling::Random) {
    for (long r = 0; r < spec.samples; ++r) {
      std::vector<std::string> values;
      for (std::size_t i = 0; i < np; ++i) values.push_back(sample(spec.parameters[i], spec.seed, r, i));
      runs.push_back(std::move(values));
    }
  } else if (spec.sampling == SweepSpec::Sampling::Zip) {
    for (std::size_t r = 0; r < spec.parameters.front().values.size(); ++r) {
      std::vector<std::string> values;
      for (const SweepParameter& p : spec.parameters) values.push_back(p.values[r]);
      runs.push_back(std::move(values));
    }
  } else {
    std::vector<std::size_t> index(np, 0);
    while (true) {
      std::vector<std::string> values;
      for (std::size_t i = 0; i < np; ++i) values.push_back(spec.parameters[i].values[index[i]]);
      runs.push_back(std::move(values));
      // The last parameter varies fastest.
      std::size_t i = np;
      while (i > 0) {
        --i;
        if (++index[i] < spec.parameters[i].values.size()) break;
        index[i] = 0;
        if (i == 0) return runs;
      }
      if (np == 0) return runs;
    }
  }
  return runs;
}

void checkSweep(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, bool quiet) {
  World world;
  try {
    prepareWorld(world, spec.base.setup, quiet, false);
  } catch (const CliError& e) {
    throw CliError(spec.file.string() + ": the base scene: " + e.what());
  }
  const WorldSpec base = world.getSpec();
  const StateColumns state(world);
  std::vector<ParameterValue> first;
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    const SweepParameter& p = spec.parameters[i];
    const ParameterValue value{p.name, runs.empty() ? p.values.front() : runs.front()[i]};
    if (p.name.rfind("q:", 0) == 0) {
      try {
        state.resolvePosition(p.name);
      } catch (const InvalidArgument& e) {
        failAt(spec.file, p.line, "parameter " + p.name + ": " + e.what());
      }
      continue;
    }
    if (p.name.rfind("v:", 0) == 0) {
      const auto& names = state.velocityNames();
      if (std::find(names.begin(), names.end(), p.name.substr(2)) == names.end()) {
        failAt(spec.file, p.line, "parameter " + p.name + ": no velocity coordinate named '" + p.name.substr(2) + "'");
      }
      continue;
    }
    World scratch(base);
    try {
      applyParameters(scratch, {value});
    } catch (const CliError& e) {
      failAt(spec.file, p.line, e.what());
    }
    first.push_back(value);
  }
  applyParameters(world, first);
  io::LogGroups groups = spec.base.log;
  groups.energies = groups.diagnostics = true;
  const io::LogColumns columns(world, groups);
  for (const SweepMetric& m : spec.metrics) {
    if (m.column.empty() || columns.find(m.column) >= 0) continue;
    std::string known;
    int shown = 0;
    for (const std::string& n : columns.names()) {
      if (n == "t" || shown >= 12) continue;
      known += (known.empty() ? "" : ", ") + n;
      ++shown;
    }
    if (columns.size() > 13) known += ", ...";
    failAt(spec.file, m.line,
           "metric " + m.text + ": the run log has no column '" + m.column + "' (it has " + known +
               "; options: log: GROUPS adds more)");
  }
}

void MetricAccumulator::row(const io::LogColumns& columns, const double* row) {
  const std::size_t n = m_metrics->size();
  if (m_rows == 0) {
    m_columns.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i)
      m_columns[i] = (*m_metrics)[i].column.empty() ? -1 : columns.find((*m_metrics)[i].column);
    m_energy = columns.find("energy:total");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m_final.assign(n, nan);
    m_max.assign(n, -std::numeric_limits<double>::infinity());
    m_min.assign(n, std::numeric_limits<double>::infinity());
    m_sum.assign(n, 0.0);
    if (m_energy >= 0) m_energy0 = row[m_energy];
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (m_columns[i] < 0) continue;
    const double x = row[m_columns[i]];
    m_final[i] = x;
    m_max[i] = std::max(m_max[i], x);
    m_min[i] = std::min(m_min[i], x);
    m_sum[i] += x;
  }
  if (m_energy >= 0) m_drift = std::max(m_drift, std::abs(row[m_energy] - m_energy0));
  ++m_rows;
}

std::vector<double> MetricAccumulator::finish(const RunOutcome& outcome) const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> values;
  for (std::size_t i = 0; i < m_metrics->size(); ++i) {
    const SweepMetric& m = (*m_metrics)[i];
    const bool column = m_rows > 0 && !m_columns.empty() && m_columns[i] >= 0;
    switch (m.kind) {
      case SweepMetric::Kind::Final:
        values.push_back(column ? m_final[i] : nan);
        break;
      case SweepMetric::Kind::Max:
        values.push_back(column ? m_max[i] : nan);
        break;
      case SweepMetric::Kind::Min:
        values.push_back(column ? m_min[i] : nan);
        break;
      case SweepMetric::Kind::Mean:
        values.push_back(column ? m_sum[i] / static_cast<double>(m_rows) : nan);
        break;
      case SweepMetric::Kind::EnergyDrift:
        values.push_back(m_energy >= 0 && m_rows > 0 ? m_drift : nan);
        break;
      case SweepMetric::Kind::MaxResidual:
        values.push_back(outcome.maxResidual);
        break;
      case SweepMetric::Kind::Diverged:
        values.push_back(outcome.diverged ? 1.0 : 0.0);
        break;
      case SweepMetric::Kind::Steps:
        values.push_back(static_cast<double>(outcome.steps));
        break;
      case SweepMetric::Kind::Unconverged:
        values.push_back(static_cast<double>(outcome.unconverged));
        break;
    }
  }
  return values;
}

}  // namespace articula::run
