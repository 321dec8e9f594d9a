// articula-run sweep: parameter studies, run locally in parallel processes
// or as a Slurm job array, resumable, with one summary table (docs/sweeps.md).
//
// Layout of the output folder:
//   manifest.yaml          the sweep and scene hashes and every run's parameters
//   runs/NNNNN.h5          the run's HDF5 log
//   runs/NNNNN.yaml        its result (status, exit code, message, metrics)
//   runs/NNNNN.log         its output
//   summary.csv, summary.h5
//   slurm/                 the job-array script, the runs it covers, the tasks' output
#include "commands.hpp"
#include "csv_writer.hpp"
#include "sweep_spec.hpp"

#include <articula/file_io.hpp>
#include <articula/io/run_log.hpp>

#include <yaml-cpp/yaml.h>

#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

extern char** environ;

namespace fs = std::filesystem;

namespace articula::run {

namespace {

void printSweepUsage(std::ostream& os) {
  os << "usage: articula-run sweep SWEEP.yaml [options]          run every run of a sweep (resuming)\n"
        "       articula-run sweep collect SWEEP.yaml [--out DIR]  merge the results of a --slurm --no-wait sweep\n"
        "\n"
        "  --out DIR                the results folder (default: SWEEP.sweep beside the sweep file)\n"
        "  --jobs N                 runs in parallel (default: the number of cores)\n"
        "  --list                   print the runs and their parameters, run nothing\n"
        "  --restart                discard the results in DIR and start over\n"
        "  --retry-failed           run again the runs that failed (a diverged run is a result, not a failure)\n"
        "  --quiet                  no progress bar or import report\n"
        "  --slurm                  submit the runs as a Slurm job array (sbatch) and wait for it\n"
        "  --partition P            the Slurm partition (default: the cluster's default)\n"
        "  --time T                 the time limit of each array task (sbatch --time, e.g. 00:30:00)\n"
        "  --array-limit N          at most N array tasks at once (--array=...%N)\n"
        "  --chunk K                runs per array task (default: as many as make at most 100 tasks)\n"
        "  --sbatch-option TEXT     one more #SBATCH line (e.g. --account=me); repeatable\n"
        "  --no-wait                submit and return; 'articula-run sweep collect' merges later\n"
        "\n"
        "A run that fails or diverges is recorded with its exit code and message and the sweep goes on;\n"
        "rerunning the same command skips the runs that have a result. The exit code is 0 when every run\n"
        "has a result (whatever it is), 2 for a bad sweep file.\n";
}

struct SweepOptions {
  std::string file;
  fs::path out;
  bool collect = false;
  int jobs = 0;
  bool list = false;
  bool restart = false;
  bool retryFailed = false;
  bool quiet = false;
  bool slurm = false;
  std::string partition;
  std::string time;
  long arrayLimit = 0;
  long chunk = 0;
  std::vector<std::string> sbatchOptions;
  bool noWait = false;
  long worker = -1;  ///< internal: run one run
  long task = -1;    ///< internal: run one Slurm array task's runs
};

struct RunResult {
  long run = 0;
  std::string status;  ///< ok, diverged, failed
  long exitCode = 0;
  std::string message;
  std::vector<std::string> values;
  std::vector<double> metrics;
  long steps = 0;
  double wallTime = 0.0;
};

std::string runName(long run) {
  char name[16];
  std::snprintf(name, sizeof name, "%05ld", run);
  return name;
}

fs::path resultPath(const fs::path& out, long run) {
  return out / "runs" / (runName(run) + ".yaml");
}
fs::path logPath(const fs::path& out, long run) {
  return out / "runs" / (runName(run) + ".log");
}
fs::path hdf5Path(const fs::path& out, long run) {
  return out / "runs" / (runName(run) + ".h5");
}

void writeText(const fs::path& file, const std::string& text) {
  try {
    AtomicFile f(file);
    f.write(text);
    f.commit();
  } catch (const FileAccessError& e) {
    throw CliError(e.what());
  }
}

void writeResult(const fs::path& out, const RunResult& r) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "run" << YAML::Value << r.run;
  e << YAML::Key << "status" << YAML::Value << r.status;
  e << YAML::Key << "exit_code" << YAML::Value << r.exitCode;
  e << YAML::Key << "message" << YAML::Value << YAML::DoubleQuoted << r.message;
  e << YAML::Key << "values" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& v : r.values) e << YAML::DoubleQuoted << v;
  e << YAML::EndSeq;
  e << YAML::Key << "metrics" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const double m : r.metrics) e << formatNumber(m);
  e << YAML::EndSeq;
  e << YAML::Key << "steps" << YAML::Value << r.steps;
  e << YAML::Key << "wall_time" << YAML::Value << formatNumber(r.wallTime);
  e << YAML::EndMap;
  writeText(resultPath(out, r.run), std::string(e.c_str()) + "\n");
}

// A number as formatNumber writes it (also "nan", "inf", "-inf").
double readNumber(const std::string& text) {
  if (text == "nan") return std::nan("");
  if (text == "inf") return HUGE_VAL;
  if (text == "-inf") return -HUGE_VAL;
  return parseDouble("number", text);
}

std::optional<RunResult> readResult(const fs::path& out, long run) {
  const fs::path file = resultPath(out, run);
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  try {
    const YAML::Node n = YAML::Load(readInputFile(file, kMaxTextFileBytes, "a run result"));
    RunResult r;
    r.run = n["run"].as<long>();
    r.status = n["status"].as<std::string>();
    r.exitCode = n["exit_code"].as<long>();
    r.message = n["message"].as<std::string>();
    for (const auto& v : n["values"]) r.values.push_back(v.as<std::string>());
    for (const auto& m : n["metrics"]) r.metrics.push_back(readNumber(m.as<std::string>()));
    r.steps = n["steps"].as<long>();
    r.wallTime = readNumber(n["wall_time"].as<std::string>());
    if (r.run != run) return std::nullopt;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable (an interrupted write cannot make one): run it again
  }
}

// --- one run ----------------------------------------------------------------

int workerMain(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, const SweepOptions& o) {
  if (o.worker >= static_cast<long>(runs.size())) {
    throw CliError("--worker " + std::to_string(o.worker) + ": the sweep has " + std::to_string(runs.size()) + " runs");
  }
  RunResult r;
  r.run = o.worker;
  r.values = runs[static_cast<std::size_t>(o.worker)];
  MetricAccumulator metrics(spec.metrics);
  RunOutcome outcome;
  const auto start = std::chrono::steady_clock::now();
  try {
    std::vector<std::string> args = spec.runArguments;
    args.insert(args.end(), {"--hdf5", hdf5Path(o.out, o.worker).string(), "--quiet"});
    for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
      args.push_back("--param");
      args.push_back(spec.parameters[i].name + "=" + r.values[i]);
    }
    RunOptions run = parseRun(args, false);
    run.commandLine = "articula-run sweep " + spec.file.string() + " --out " + o.out.string() + " --worker " +
                      std::to_string(o.worker);
    outcome = executeRun(run, [&](const io::LogColumns& columns, const double* row) { metrics.row(columns, row); });
    r.status = outcome.diverged ? "diverged" : "ok";
    r.exitCode = outcome.exitCode;
    r.message = outcome.failure;
  } catch (const CliError& e) {
    r.status = "failed";
    r.exitCode = kExitBadInput;
    r.message = e.what();
  } catch (const io::ImportError& e) {
    r.status = "failed";
    r.exitCode = kExitBadInput;
    r.message = e.what();
  } catch (const Error& e) {
    r.status = "failed";
    r.exitCode = kExitBadInput;
    r.message = e.what();
  }
  r.metrics = metrics.finish(outcome);
  if (r.status == "failed") std::fill(r.metrics.begin(), r.metrics.end(), std::nan(""));
  r.steps = outcome.steps;
  r.wallTime = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writeResult(o.out, r);
  if (r.status == "failed") std::cerr << "articula-run: " << r.message << "\n";
  return static_cast<int>(r.exitCode);
}

// --- processes --------------------------------------------------------------

fs::path selfExecutable() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw CliError("cannot find the articula-run executable (/proc/self/exe): " + ec.message());
  return self;
}

// Starts `articula-run sweep FILE --out DIR --worker RUN` with its output in the run's log.
pid_t spawnWorker(const fs::path& self, const SweepSpec& spec, const fs::path& out, long run) {
  const std::vector<std::string> args = {self.string(), "sweep",    spec.file.string(), "--out",
                                         out.string(),  "--worker", std::to_string(run)};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = logPath(out, run).string();
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw CliError("cannot start a run: " + std::string(std::strerror(rc)));
  return pid;
}

std::string lastLine(const fs::path& file) {
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// After a worker ended: a worker that could not write its result (a crash,
// a kill) gets one that says how it ended.
void finishRun(const fs::path& out, long run, const std::vector<std::string>& values, int waitStatus) {
  if (readResult(out, run)) return;
  RunResult r;
  r.run = run;
  r.values = values;
  r.status = "failed";
  if (WIFSIGNALED(waitStatus)) {
    r.exitCode = 128 + WTERMSIG(waitStatus);
    r.message = std::string("killed by signal ") + std::to_string(WTERMSIG(waitStatus)) + " (" +
                strsignal(WTERMSIG(waitStatus)) + ")";
  } else {
    r.exitCode = WIFEXITED(waitStatus) ? WEXITSTATUS(waitStatus) : 1;
    r.message = "ended with exit code " + std::to_string(r.exitCode) + " and no result";
  }
  const std::string last = lastLine(logPath(out, run));
  if (!last.empty()) r.message += ": " + last;
  writeResult(out, r);
}

class SweepProgress {
 public:
  SweepProgress(bool enabled, long total) : m_enabled(enabled), m_total(total) {}
  void update(long done, long failed, bool force = false) {
    if (!m_enabled) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && now - m_last < std::chrono::milliseconds(100)) return;
    m_last = now;
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const int width = 24;
    const int filled = m_total > 0 ? static_cast<int>(width * done / m_total) : width;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(width, '.');
    std::string eta = "--:--";
    if (done > 0 && done < m_total)
      eta = clock(elapsed / static_cast<double>(done) * static_cast<double>(m_total - done));
    if (done >= m_total) eta = "0:00";
    std::fprintf(stderr, "\r[%s] %ld/%ld runs%s  %s elapsed  ETA %s ", bar.c_str(), done, m_total,
                 failed > 0 ? (" (" + std::to_string(failed) + " failed)").c_str() : "", clock(elapsed).c_str(),
                 eta.c_str());
    std::fflush(stderr);
  }
  void finish(long done, long failed) {
    if (!m_enabled) return;
    update(done, failed, true);
    std::fprintf(stderr, "\n");
  }

 private:
  static std::string clock(double seconds) {
    const long s = std::lround(seconds);
    char text[32];
    if (s >= 3600) {
      std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    } else {
      std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
    }
    return text;
  }
  bool m_enabled;
  long m_total;
  std::chrono::steady_clock::time_point m_start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point m_last{};
};

// Runs `pending` with at most `jobs` workers at once.
void runLocally(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs,
                const std::vector<long>& pending, const fs::path& out, int jobs, SweepProgress* progress) {
  const fs::path self = selfExecutable();
  std::map<pid_t, long> running;
  std::size_t next = 0;
  long done = 0, failed = 0;
  while (next < pending.size() || !running.empty()) {
    while (next < pending.size() && static_cast<int>(running.size()) < jobs) {
      const long run = pending[next++];
      std::error_code ec;
      fs::remove(resultPath(out, run), ec);  // a stale result must not stand for this attempt
      running[spawnWorker(self, spec, out, run)] = run;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw CliError(std::string("waiting for the runs failed: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const long run = it->second;
    running.erase(it);
    finishRun(out, run, runs[static_cast<std::size_t>(run)], status);
    ++done;
    const std::optional<RunResult> r = readResult(out, run);
    if (!r || r->status == "failed") ++failed;
    if (progress) progress->update(done, failed);
  }
}

// --- the folder -------------------------------------------------------------

std::string sceneHash(const SweepSpec& spec) {
  const std::string& file = spec.base.setup.input.file;
  if (file.empty()) return {};
  try {
    return io::sha256Hex(readInputFile(file, kMaxTextFileBytes, "a scene file"));
  } catch (const FileAccessError& e) {
    throw CliError(e.what());
  }
}

// SHA-256 of the controls CSV (options: controls), or empty.
std::string controlsHash(const SweepSpec& spec) {
  const std::string& file = spec.base.setup.controls;
  if (file.empty()) return {};
  try {
    return io::sha256Hex(readInputFile(file, kMaxTextFileBytes, "a controls file"));
  } catch (const FileAccessError& e) {
    throw CliError(e.what());
  }
}

std::string sceneReference(const SweepSpec& spec) {
  const InputOptions& input = spec.base.setup.input;
  return input.file.empty() ? "builtin:" + input.scene : input.file;
}

// DIR/manifest.yaml: the sweep's and the scene's hashes, and every run's
// values and status (pending until its result is there).
void writeManifest(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, const fs::path& out,
                   const std::string& sceneSha) {
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "format" << YAML::Value << "articula sweep 1";
  e << YAML::Key << "sweep" << YAML::Value << spec.file.string();
  e << YAML::Key << "sweep_sha256" << YAML::Value << spec.sha256;
  e << YAML::Key << "scene" << YAML::Value << sceneReference(spec);
  e << YAML::Key << "scene_sha256" << YAML::Value << YAML::DoubleQuoted << sceneSha;
  e << YAML::Key << "controls_sha256" << YAML::Value << YAML::DoubleQuoted << controlsHash(spec);
  e << YAML::Key << "parameters" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const SweepParameter& p : spec.parameters) e << p.name;
  e << YAML::EndSeq;
  e << YAML::Key << "metrics" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const SweepMetric& m : spec.metrics) e << m.text;
  e << YAML::EndSeq;
  e << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::optional<RunResult> r = readResult(out, static_cast<long>(i));
    e << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "run" << YAML::Value << i;
    e << YAML::Key << "values" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& v : runs[i]) e << YAML::DoubleQuoted << v;
    e << YAML::EndSeq;
    e << YAML::Key << "status" << YAML::Value << (r && r->values == runs[i] ? r->status : std::string("pending"));
    e << YAML::EndMap;
  }
  e << YAML::EndSeq << YAML::EndMap;
  writeText(out / "manifest.yaml", std::string(e.c_str()) + "\n");
}

std::string activeJob(const fs::path& out);

// Creates or checks DIR/manifest.yaml.
void prepareFolder(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, const SweepOptions& o) {
  std::error_code ec;
  const fs::path manifest = o.out / "manifest.yaml";
  const std::string scene = sceneHash(spec);
  if (fs::exists(manifest, ec) && !o.restart) {
    YAML::Node n;
    try {
      n = YAML::Load(readInputFile(manifest, kMaxTextFileBytes, "a sweep manifest"));
    } catch (const std::exception& e) {
      throw CliError(manifest.string() + ": unreadable (" + e.what() + "); use --restart to start over");
    }
    const std::string sweepSha = n["sweep_sha256"] ? n["sweep_sha256"].as<std::string>() : "";
    const std::string sceneSha = n["scene_sha256"] ? n["scene_sha256"].as<std::string>() : "";
    if (sweepSha != spec.sha256) {
      throw CliError(o.out.string() + " holds the results of another version of " + spec.file.string() +
                     " (its SHA-256 differs); use --restart to discard them, or another --out");
    }
    if (sceneSha != scene) {
      throw CliError(o.out.string() + " holds results for another version of the scene " + sceneReference(spec) +
                     " (its SHA-256 differs); use --restart to discard them, or another --out");
    }
    const std::string controlsSha = n["controls_sha256"] ? n["controls_sha256"].as<std::string>() : "";
    if (controlsSha != controlsHash(spec)) {
      throw CliError(o.out.string() + " holds results made with another version of the controls file " +
                     spec.base.setup.controls + "; use --restart to discard them, or another --out");
    }
    fs::create_directories(o.out / "runs", ec);
    return;
  }
  if (o.restart) {
    if (const std::string job = activeJob(o.out); !job.empty()) {
      throw CliError("--restart: Slurm job " + job + " still works in " + o.out.string() + "; scancel " + job +
                     " first");
    }
    fs::remove_all(o.out / "runs", ec);
    fs::remove_all(o.out / "slurm", ec);
    fs::remove(o.out / "summary.csv", ec);
    fs::remove(o.out / "summary.h5", ec);
  }
  fs::create_directories(o.out / "runs", ec);
  if (ec) throw CliError("--out " + o.out.string() + ": cannot create the folder: " + ec.message());
  writeManifest(spec, runs, o.out, scene);
}

// Runs without a usable result (with retryFailed: or with a failed one).
std::vector<long> pendingRuns(const std::vector<std::vector<std::string>>& runs, const SweepOptions& o) {
  std::vector<long> pending;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::optional<RunResult> r = readResult(o.out, static_cast<long>(i));
    const bool finished = r && r->values == runs[i] && !(o.retryFailed && r->status == "failed");
    if (!finished) pending.push_back(static_cast<long>(i));
  }
  return pending;
}

// Writes summary.csv and summary.h5 from the runs' results; returns the counts.
struct Counts {
  long ok = 0, diverged = 0, failed = 0, missing = 0;
};

Counts writeSummary(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, const fs::path& out) {
  Counts counts;
  io::SweepTable table;
  for (const SweepParameter& p : spec.parameters) table.parameterNames.push_back(p.name);
  for (const SweepMetric& m : spec.metrics) table.metricNames.push_back(m.text);
  std::string csv = "run,status,exit_code";
  for (const auto& n : table.parameterNames) csv += "," + csvField(n);
  for (const auto& n : table.metricNames) csv += "," + csvField(n);
  csv += ",message\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::optional<RunResult> r = readResult(out, static_cast<long>(i));
    if (!r || r->values != runs[i]) {
      ++counts.missing;
      continue;
    }
    if (r->status == "ok") ++counts.ok;
    if (r->status == "diverged") ++counts.diverged;
    if (r->status == "failed") ++counts.failed;
    r->metrics.resize(spec.metrics.size(), std::nan(""));
    table.run.push_back(r->run);
    table.status.push_back(r->status);
    table.exitCode.push_back(r->exitCode);
    table.parameters.push_back(r->values);
    table.metrics.push_back(r->metrics);
    table.message.push_back(r->message);
    csv += std::to_string(r->run) + "," + r->status + "," + std::to_string(r->exitCode);
    for (const auto& v : r->values) csv += "," + csvField(v);
    for (const double m : r->metrics) csv += "," + formatNumber(m);
    csv += "," + csvField(r->message) + "\n";
  }
  if (counts.missing > 0) return counts;
  table.attributes = {{"format", "articula sweep summary 1"},
                      {"sweep_sha256", spec.sha256},
                      {"scene", sceneReference(spec)},
                      {"scene_sha256", sceneHash(spec)}};
  writeText(out / "summary.csv", csv);
  try {
    io::writeSweepTable(out / "summary.h5", table);
  } catch (const FileAccessError& e) {
    throw CliError(e.what());
  }
  return counts;
}

int report(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, const fs::path& out, long ran,
           double wall) {
  writeManifest(spec, runs, out, sceneHash(spec));
  const Counts c = writeSummary(spec, runs, out);
  if (c.missing > 0) {
    std::cerr << "articula-run: " << c.missing << " of " << runs.size()
              << " runs have no result; run the sweep again to run them\n";
    return kExitBadInput;
  }
  std::printf("runs=%zu ran=%ld ok=%ld diverged=%ld failed=%ld wall_time=%.6g summary=%s\n", runs.size(), ran, c.ok,
              c.diverged, c.failed, wall, (out / "summary.csv").string().c_str());
  std::fflush(stdout);
  return kExitOk;
}

// --- Slurm ------------------------------------------------------------------

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

struct Captured {
  int status = -1;  ///< exit status (-1: could not run or killed)
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

// Runs a shell command; its stdout and stderr apart (site scripts print
// notes on stderr that must not be read as a job id).
Captured capture(const std::string& command, const fs::path& folder) {
  Captured c;
  const fs::path errors = folder / (".stderr-" + std::to_string(::getpid()));
  FILE* pipe = ::popen((command + " 2>" + shellQuote(errors.string())).c_str(), "r");
  if (!pipe) return c;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) c.out.append(buffer, n);
  const int status = ::pclose(pipe);
  c.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(errors);
  c.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::error_code ec;
  fs::remove(errors, ec);
  return c;
}

// The job id sbatch --parsable printed: its last line "ID" or "ID;CLUSTER".
std::string parseJobId(const std::string& out) {
  std::string job;
  std::size_t start = 0;
  while (start < out.size()) {
    const std::size_t end = std::min(out.find('\n', start), out.size());
    const std::string line = out.substr(start, end - start);
    const std::string id = line.substr(0, line.find(';'));
    if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos) job = id;
    start = end + 1;
  }
  return job;
}

// Whether Slurm still lists `job` (queued or running); nullopt when squeue fails.
std::optional<bool> jobActive(const std::string& job, const fs::path& folder) {
  const Captured c = capture("squeue -h -j " + job + " -o %i", folder);
  // Without accounting, a job that left the queue has ended: squeue lists
  // nothing, or (once the record is purged) rejects the id.
  if (c.err.find("Invalid job id") != std::string::npos) return false;
  if (c.status != 0) return std::nullopt;
  return c.out.find_first_not_of(" \n") != std::string::npos;
}

// The job of the last submission into `out`, if it is still queued or running.
std::string activeJob(const fs::path& out) {
  std::ifstream in(out / "slurm" / "job");
  std::string job;
  if (!(in >> job)) return {};
  const std::optional<bool> active = jobActive(job, out);
  return active.value_or(true) ? job : std::string();
}

std::vector<long> readPending(const fs::path& out) {
  std::vector<long> pending;
  std::ifstream in(out / "slurm" / "pending");
  long run = 0;
  while (in >> run) pending.push_back(run);
  return pending;
}

int taskMain(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs, const SweepOptions& o) {
  const std::vector<long> pending = readPending(o.out);
  if (o.chunk < 1) throw CliError("--task needs --chunk K");
  const std::size_t first = static_cast<std::size_t>(o.task) * static_cast<std::size_t>(o.chunk);
  const std::size_t last = std::min(pending.size(), first + static_cast<std::size_t>(o.chunk));
  std::vector<long> mine;
  for (std::size_t i = first; i < last; ++i) {
    if (pending[i] < static_cast<long>(runs.size())) mine.push_back(pending[i]);
  }
  std::printf("task %ld: runs", o.task);
  for (const long r : mine) std::printf(" %ld", r);
  std::printf("\n");
  std::fflush(stdout);
  runLocally(spec, runs, mine, o.out, 1, nullptr);
  return kExitOk;
}

int slurmMain(const SweepSpec& spec, const std::vector<std::vector<std::string>>& runs,
              const std::vector<long>& pending, const SweepOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  if (pending.empty()) return report(spec, runs, o.out, 0, 0.0);
  if (capture("command -v sbatch", o.out).status != 0) {
    throw CliError("--slurm: sbatch was not found on PATH (Slurm's client tools are needed)");
  }
  if (const std::string job = activeJob(o.out); !job.empty()) {
    throw CliError("--slurm: job " + job + " of an earlier submission into " + o.out.string() +
                   " is still queued or running; wait for it (or scancel " + job +
                   "), then 'articula-run sweep collect' or rerun");
  }
  const long chunk = o.chunk > 0 ? o.chunk : std::max<long>(1, (static_cast<long>(pending.size()) + 99) / 100);
  const long tasks = (static_cast<long>(pending.size()) + chunk - 1) / chunk;
  const fs::path dir = o.out / "slurm";
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string list;
  for (const long r : pending) list += std::to_string(r) + "\n";
  writeText(dir / "pending", list);
  // A stale result of a run about to run again must not count as its new one.
  for (const long r : pending) fs::remove(resultPath(o.out, r), ec);
  // In #SBATCH lines a value is quoted for spaces, and % starts a file-name pattern.
  std::string output;
  for (const char c : (dir / "task-%a.out").string()) output += c == '"' ? std::string("\\\"") : std::string(1, c);
  for (std::size_t at = output.find('%'); at != std::string::npos; at = output.find('%', at + 2)) {
    if (output.compare(at, 2, "%a") != 0) output.insert(at, "%");
  }
  std::string script = "#!/bin/sh\n#SBATCH --job-name=articula-sweep\n";
  script += "#SBATCH --array=0-" + std::to_string(tasks - 1) +
            (o.arrayLimit > 0 ? "%" + std::to_string(o.arrayLimit) : std::string()) + "\n";
  script += "#SBATCH --output=\"" + output + "\"\n";
  script += "#SBATCH --cpus-per-task=1\n";
  if (!o.partition.empty()) script += "#SBATCH --partition=" + o.partition + "\n";
  if (!o.time.empty()) script += "#SBATCH --time=" + o.time + "\n";
  for (const auto& extra : o.sbatchOptions) script += "#SBATCH " + extra + "\n";
  script += "exec " + shellQuote(selfExecutable().string()) + " sweep " + shellQuote(spec.file.string()) + " --out " +
            shellQuote(o.out.string()) + " --task \"$SLURM_ARRAY_TASK_ID\" --chunk " + std::to_string(chunk) + "\n";
  const fs::path scriptFile = dir / "sweep.sbatch";
  writeText(scriptFile, script);
  const Captured submitted = capture("sbatch --parsable " + shellQuote(scriptFile.string()), o.out);
  const std::string job = parseJobId(submitted.out);
  if (submitted.status != 0 || job.empty()) {
    throw CliError("--slurm: sbatch failed (exit code " + std::to_string(submitted.status) + "): " + submitted.err +
                   submitted.out);
  }
  writeText(dir / "job", job + "\n");
  if (!o.quiet) {
    std::cerr << "articula-run: submitted Slurm job " << job << ": " << pending.size() << " runs in " << tasks
              << " array task" << (tasks == 1 ? "" : "s") << "\n";
  }
  if (o.noWait) {
    std::printf("job=%s tasks=%ld runs=%zu collect='articula-run sweep collect %s --out %s'\n", job.c_str(), tasks,
                pending.size(), spec.file.string().c_str(), o.out.string().c_str());
    return kExitOk;
  }
  SweepProgress progress(!o.quiet && isatty(STDERR_FILENO) != 0, static_cast<long>(pending.size()));
  int squeueErrors = 0;
  auto count = [&](long* failed) {
    long done = 0;
    *failed = 0;
    for (const long r : pending) {
      if (const std::optional<RunResult> result = readResult(o.out, r)) {
        ++done;
        if (result->status == "failed") ++*failed;
      }
    }
    return done;
  };
  while (true) {
    const std::optional<bool> active = jobActive(job, o.out);
    long failed = 0;
    const long done = count(&failed);
    progress.update(done, failed);
    if (active == false) {
      progress.finish(done, failed);
      break;
    }
    if (!active && ++squeueErrors > 120) {
      throw CliError("--slurm: squeue keeps failing; the job " + job +
                     " may still run: 'articula-run sweep collect' merges its results later");
    }
    if (active) squeueErrors = 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  // Results written on other nodes may take a moment to show on a network
  // file system: wait up to 10 s for the missing ones.
  for (int wait = 0; wait < 20; ++wait) {
    long failed = 0;
    if (count(&failed) == static_cast<long>(pending.size())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  // Runs whose task ended without a result (a time limit, a cancelled job).
  for (std::size_t i = 0; i < pending.size(); ++i) {
    const long r = pending[i];
    if (readResult(o.out, r)) continue;
    RunResult missing;
    missing.run = r;
    missing.values = runs[static_cast<std::size_t>(r)];
    missing.status = "failed";
    missing.exitCode = 1;
    missing.message = "no result: its Slurm array task ended without one (see " +
                      (dir / ("task-" + std::to_string(static_cast<long>(i) / chunk) + ".out")).string() +
                      "); --retry-failed runs it again";
    missing.metrics.assign(spec.metrics.size(), std::nan(""));
    writeResult(o.out, missing);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report(spec, runs, o.out, static_cast<long>(pending.size()), wall);
}

// One sweep at a time in a folder: an exclusive lock on DIR/.lock, held
// while this process runs (released by the kernel if it dies).
class FolderLock {
 public:
  explicit FolderLock(const fs::path& out) {
    m_fd = ::open((out / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0) throw CliError(out.string() + ": cannot create its lock file: " + std::strerror(errno));
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(m_fd);
      throw CliError("another 'articula-run sweep' is working in " + out.string() + "; wait for it to end");
    }
  }
  ~FolderLock() { ::close(m_fd); }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int m_fd = -1;
};

// A worker or array task re-reads the sweep file: it must be the one the
// sweep started with (queued tasks can start hours later).
void checkUnchanged(const SweepSpec& spec, const fs::path& out) {
  const fs::path manifest = out / "manifest.yaml";
  std::string sha;
  try {
    const YAML::Node n = YAML::Load(readInputFile(manifest, kMaxTextFileBytes, "a sweep manifest"));
    sha = n["sweep_sha256"] ? n["sweep_sha256"].as<std::string>() : "";
  } catch (const std::exception& e) {
    throw CliError(manifest.string() + ": unreadable (" + e.what() + ")");
  }
  if (sha != spec.sha256) {
    throw CliError(spec.file.string() + " changed after the sweep in " + out.string() +
                   " started (its SHA-256 differs from the manifest's); rerun the sweep with --restart");
  }
}

SweepOptions parseSweep(const std::vector<std::string>& argv) {
  SweepOptions o;
  ArgScanner args(argv);
  bool outGiven = false;
  while (!args.done()) {
    const std::string a = args.next();
    if (a == "--out") {
      o.out = args.value();
      outGiven = true;
    } else if (a == "--jobs" || a == "-j") {
      const long jobs = parseLong(a, args.value());
      if (jobs < 1 || jobs > 1024) usageError("--jobs must be in [1, 1024]");
      o.jobs = static_cast<int>(jobs);
    } else if (a == "--list") {
      args.noValue();
      o.list = true;
    } else if (a == "--restart") {
      args.noValue();
      o.restart = true;
    } else if (a == "--retry-failed") {
      args.noValue();
      o.retryFailed = true;
    } else if (a == "--quiet" || a == "-q") {
      args.noValue();
      o.quiet = true;
    } else if (a == "--slurm") {
      args.noValue();
      o.slurm = true;
    } else if (a == "--partition") {
      o.partition = args.value();
    } else if (a == "--time") {
      o.time = args.value();
    } else if (a == "--array-limit") {
      o.arrayLimit = parseLong(a, args.value());
      if (o.arrayLimit < 1) usageError("--array-limit must be >= 1");
    } else if (a == "--chunk") {
      o.chunk = parseLong(a, args.value());
      if (o.chunk < 1) usageError("--chunk must be >= 1");
    } else if (a == "--sbatch-option") {
      o.sbatchOptions.push_back(args.value());
    } else if (a == "--no-wait") {
      args.noValue();
      o.noWait = true;
    } else if (a == "--worker") {
      o.worker = parseLong(a, args.value());
      if (o.worker < 0) usageError("--worker must be >= 0");
    } else if (a == "--task") {
      o.task = parseLong(a, args.value());
      if (o.task < 0) usageError("--task must be >= 0");
    } else if (a == "collect" && o.file.empty() && !o.collect) {
      o.collect = true;
    } else if (!a.empty() && a[0] != '-' && o.file.empty()) {
      o.file = a;
    } else if (!a.empty() && a[0] != '-') {
      usageError("sweep takes one SWEEP.yaml (got '" + o.file + "' and '" + a + "')");
    } else {
      usageError("unknown option '" + a + "' for sweep");
    }
  }
  if (o.file.empty()) usageError("sweep needs a SWEEP.yaml file");
  if (!o.slurm && !o.collect &&
      (!o.partition.empty() || !o.time.empty() || o.arrayLimit > 0 || !o.sbatchOptions.empty() || o.noWait)) {
    usageError("--partition, --time, --array-limit, --sbatch-option and --no-wait go with --slurm");
  }
  if (o.slurm && o.jobs > 0) usageError("--jobs is for local runs; with --slurm the cluster decides");
  if (!o.slurm && o.chunk > 0 && o.task < 0) usageError("--chunk goes with --slurm");
  if (o.collect && (o.restart || o.retryFailed || o.slurm || o.list)) {
    usageError("collect merges results: --restart, --retry-failed, --slurm and --list do not go with it");
  }
  if (!outGiven) {
    const fs::path f(o.file);
    o.out = f.parent_path() / (f.stem().string() + ".sweep");
  }
  std::error_code ec;
  const fs::path absolute = fs::absolute(o.out, ec);
  if (!ec) o.out = absolute.lexically_normal();
  if (o.jobs == 0) {
    // The cores this process may use (a Slurm allocation, a container), not the host's.
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    const int usable = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
    o.jobs = usable > 0 ? usable : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  }
  return o;
}

}  // namespace

int sweepCommand(const std::vector<std::string>& argv) {
  for (const auto& a : argv) {
    if (a == "-h" || a == "--help") {
      printSweepUsage(std::cout);
      return kExitOk;
    }
  }
  const SweepOptions o = parseSweep(argv);
  const SweepSpec spec = readSweep(o.file);
  const std::vector<std::vector<std::string>> runs = expandRuns(spec);
  if (o.worker >= 0 || o.task >= 0) {
    checkUnchanged(spec, o.out);
    return o.worker >= 0 ? workerMain(spec, runs, o) : taskMain(spec, runs, o);
  }
  if (o.list) {
    std::string header = "run";
    for (const SweepParameter& p : spec.parameters) header += "," + csvField(p.name);
    std::printf("%s\n", header.c_str());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      std::string line = std::to_string(i);
      for (const auto& v : runs[i]) line += "," + csvField(v);
      std::printf("%s\n", line.c_str());
    }
    return kExitOk;
  }
  if (o.collect) {
    std::error_code ec;
    if (!fs::exists(o.out / "manifest.yaml", ec)) throw CliError(o.out.string() + " holds no sweep (no manifest.yaml)");
    const FolderLock lock(o.out);
    if (const std::string job = activeJob(o.out); !job.empty()) {
      throw CliError("Slurm job " + job + " is still queued or running; collect when it has ended (squeue -j " + job +
                     ")");
    }
    prepareFolder(spec, runs, o);
    return report(spec, runs, o.out, 0, 0.0);
  }
  checkSweep(spec, runs, o.quiet);
  std::error_code ec;
  fs::create_directories(o.out, ec);
  if (ec) throw CliError("--out " + o.out.string() + ": cannot create the folder: " + ec.message());
  const FolderLock lock(o.out);
  prepareFolder(spec, runs, o);
  const std::vector<long> pending = pendingRuns(runs, o);
  if (!o.quiet && pending.size() < runs.size()) {
    std::cerr << "articula-run: " << runs.size() - pending.size() << " of " << runs.size()
              << " runs have results already in " << o.out.string() << "; running the other " << pending.size() << "\n";
  }
  if (o.slurm) return slurmMain(spec, runs, pending, o);
  const auto start = std::chrono::steady_clock::now();
  SweepProgress progress(!o.quiet && isatty(STDERR_FILENO) != 0, static_cast<long>(pending.size()));
  runLocally(spec, runs, pending, o.out, o.jobs, &progress);
  long failed = 0;
  for (const long r : pending) {
    const std::optional<RunResult> result = readResult(o.out, r);
    if (!result || result->status == "failed") ++failed;
  }
  progress.finish(static_cast<long>(pending.size()), failed);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report(spec, runs, o.out, static_cast<long>(pending.size()), wall);
}

}  // namespace articula::run
