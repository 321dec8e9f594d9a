// articula-corpus-peers: which robot description files the peer engines
// load. For every file given it tries DART 6.12 (DartLoader for URDF, with
// every sub-folder of the --package-path folders registered as a package;
// SdfParser for SDF worlds and models) and MuJoCo (mj_loadXML, which reads
// URDF; SDF is not a MuJoCo format) and prints one table row per file:
//
//   | file | DART | MuJoCo |
//
// with "ok" or "error: <first line of the engine's message>". Each load runs
// in a child process, so an engine that aborts or crashes on a file (DART
// keeps its assertions) is reported as such and the table goes on; what the
// engines print while loading is captured and only its first error line is
// kept.
//
//   articula-corpus-peers [--package-path DIR]... FILE...
//   articula-corpus-peers --list LIST     (lines "FILE PACKAGE_DIR", '#' comments)
//
// Exit code 0 when the table was printed (whatever the engines said), 2 for
// bad usage.
#ifdef ARTICULA_BENCH_WITH_DART
#include <dart/common/LocalResourceRetriever.hpp>
#include <dart/common/Uri.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/simulation/World.hpp>
#include <dart/utils/sdf/SdfParser.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#endif
#ifdef ARTICULA_BENCH_WITH_MUJOCO
#include <mujoco/mujoco.h>
#endif

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Job {
  fs::path file;
  std::vector<fs::path> packagePath;
};

enum class Format { Urdf, Sdf, Unknown };

/// A load that takes longer is stopped (DART does not return on some closed loops).
constexpr unsigned kTimeLimitSeconds = 30;

Format formatOf(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".urdf") return Format::Urdf;
  if (ext == ".sdf" || ext == ".world") return Format::Sdf;
  return Format::Unknown;
}

std::string readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The text without terminal colour sequences, trimmed.
std::string clean(std::string text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\033') {
      while (i < text.size() && !std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
      continue;
    }
    if (text[i] == '|') {
      out += '/';  // keeps the table's columns intact
      continue;
    }
    out += text[i];
  }
  const auto first = out.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = out.find_last_not_of(" \t\r\n");
  return out.substr(first, last - first + 1);
}

/// The first line of `log` that is an error, else the first that tells of
/// a failure (DART reports a missing mesh as a warning and then returns
/// nothing), else its first line; at most 240 characters.
std::string firstErrorLine(const std::string& log) {
  std::istringstream in(log);
  std::string line;
  std::string first;
  std::string failure;
  while (std::getline(in, line)) {
    line = clean(line);
    if (line.empty()) continue;
    if (first.empty()) first = line;
    std::string lower = line;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.rfind("warning", 0) != 0 && lower.find("error") != std::string::npos) return line.substr(0, 240);
    if (failure.empty() && (lower.find("fail") != std::string::npos || lower.find("error") != std::string::npos)) {
      failure = line;
    }
  }
  return (failure.empty() ? first : failure).substr(0, 240);
}

#ifdef ARTICULA_BENCH_WITH_DART
/// "ok", or why DART could not load the file (the caller adds its log).
std::string loadWithDart(const Job& job) {
  const fs::path file = fs::absolute(job.file);
  const dart::common::Uri uri = dart::common::Uri::createFromPath(file.string());
  if (formatOf(file) == Format::Urdf) {
    dart::utils::DartLoader loader;
    for (const fs::path& dir : job.packagePath) {
      std::error_code ec;
      for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
        if (e.is_directory()) loader.addPackageDirectory(e.path().filename().string(), fs::absolute(e.path()).string());
      }
    }
    const dart::dynamics::SkeletonPtr skeleton = loader.parseSkeleton(uri);
    return skeleton ? "ok" : "";
  }
  // SdfParser reads <sdf><world> with readWorld and <sdf><model> with readSkeleton.
  const std::string text = readText(file);
  if (text.find("<world") != std::string::npos) {
    const dart::simulation::WorldPtr world = dart::utils::SdfParser::readWorld(uri);
    return world ? "ok" : "";
  }
  const dart::dynamics::SkeletonPtr skeleton = dart::utils::SdfParser::readSkeleton(uri);
  return skeleton ? "ok" : "";
}
#endif

#ifdef ARTICULA_BENCH_WITH_MUJOCO
std::string loadWithMujoco(const Job& job) {
  if (formatOf(job.file) != Format::Urdf) return "not supported (MuJoCo reads MJCF and URDF, not SDF)";
  std::array<char, 1000> error{};
  mjModel* model = mj_loadXML(job.file.string().c_str(), nullptr, error.data(), static_cast<int>(error.size()));
  if (model == nullptr) return "error: " + firstErrorLine(error.data());
  mj_deleteModel(model);
  return "ok";
}
#endif

/// Runs `load` in a child process with stdout and stderr captured; returns
/// its verdict: "ok", "error: ...", "not supported ..." or "crashed ...".
template <typename Load>
std::string isolated(const Job& job, Load load) {
  char logName[] = "/tmp/articula-corpus-peers-XXXXXX";
  const int logFd = mkstemp(logName);
  int verdictPipe[2];
  if (logFd < 0 || pipe(verdictPipe) != 0) return "error: could not create a pipe or a log file";
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) return "error: fork failed";
  if (pid == 0) {
    close(verdictPipe[0]);
    dup2(logFd, STDOUT_FILENO);
    dup2(logFd, STDERR_FILENO);
    alarm(kTimeLimitSeconds);
    std::string verdict;
    try {
      verdict = load(job);
      if (verdict.empty()) verdict = "error: ";  // the engine returned nothing; its log says why
    } catch (const std::exception& e) {
      verdict = std::string("error: exception: ") + e.what();
    } catch (...) {
      verdict = "error: unknown exception";
    }
    std::fflush(stdout);
    std::cout.flush();
    std::cerr.flush();
    [[maybe_unused]] const ssize_t n = write(verdictPipe[1], verdict.data(), verdict.size());
    _exit(0);
  }
  close(verdictPipe[1]);
  std::string verdict;
  std::array<char, 4096> buffer{};
  ssize_t n = 0;
  while ((n = read(verdictPipe[0], buffer.data(), buffer.size())) > 0) verdict.append(buffer.data(), std::size_t(n));
  close(verdictPipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  close(logFd);
  const std::string log = readText(logName);
  fs::remove(logName);
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string what = sig == SIGALRM ? "error: no answer within " + std::to_string(kTimeLimitSeconds) + " s (stopped)"
                                      : "crashed (" + std::string(strsignal(sig)) + ")";
    const std::string line = firstErrorLine(log);
    if (!line.empty()) what += ": " + line;
    return what;
  }
  if (verdict == "error: ") {
    const std::string line = firstErrorLine(log);
    return "error: " + (line.empty() ? std::string("the loader returned nothing") : line);
  }
  return clean(verdict);
}

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "articula-corpus-peers: " << problem << "\n"
            << "usage: articula-corpus-peers [--package-path DIR]... FILE...\n"
            << "       articula-corpus-peers --list LIST   (lines \"FILE PACKAGE_DIR\")\n";
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Job> jobs;
  std::vector<fs::path> packagePath;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--package-path") {
      if (i + 1 >= argc) usage("--package-path needs a folder");
      packagePath.emplace_back(argv[++i]);
    } else if (arg == "--list") {
      if (i + 1 >= argc) usage("--list needs a file");
      std::ifstream in(argv[++i]);
      if (!in) usage(std::string("cannot read ") + argv[i]);
      std::string line;
      while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string file;
        std::string dir;
        if (!(fields >> file) || file[0] == '#') continue;
        Job job{file, {}};
        if (fields >> dir) job.packagePath.emplace_back(dir);
        jobs.push_back(std::move(job));
      }
    } else if (arg == "-h" || arg == "--help") {
      usage("help");
    } else if (!arg.empty() && arg[0] == '-') {
      usage("unknown option " + arg);
    } else {
      jobs.push_back(Job{arg, {}});
    }
  }
  if (jobs.empty()) usage("no file given");
  for (Job& job : jobs) job.packagePath.insert(job.packagePath.end(), packagePath.begin(), packagePath.end());

  int dartOk = 0;
  int mujocoOk = 0;
  std::printf("| file | DART | MuJoCo |\n|---|---|---|\n");
  for (const Job& job : jobs) {
    std::string dartVerdict = "not built (DART not found)";
    std::string mujocoVerdict = "not built (MuJoCo not found)";
    if (!fs::exists(job.file)) {
      dartVerdict = mujocoVerdict = "error: no such file";
    } else {
#ifdef ARTICULA_BENCH_WITH_DART
      dartVerdict = isolated(job, loadWithDart);
#endif
#ifdef ARTICULA_BENCH_WITH_MUJOCO
      mujocoVerdict = isolated(job, loadWithMujoco);
#endif
    }
    dartOk += dartVerdict == "ok";
    mujocoOk += mujocoVerdict == "ok";
    std::printf("| %s | %s | %s |\n", job.file.string().c_str(), dartVerdict.c_str(), mujocoVerdict.c_str());
    std::fflush(stdout);
  }
  std::printf("\nDART loaded %d of %zu; MuJoCo loaded %d of %zu\n", dartOk, jobs.size(), mujocoOk, jobs.size());
  return 0;
}
