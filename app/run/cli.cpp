#include "cli.hpp"

#include "builtin_scenes.hpp"

#include <articula/file_io.hpp>
#include <articula/io/run_log.hpp>
#include <articula/io/scene_file.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <system_error>

namespace fs = std::filesystem;

namespace articula::run {

const std::string& ArgScanner::next() {
  m_current = m_args[m_index++];
  m_hasInlineValue = false;
  m_inlineValue.clear();
  if (m_current.size() > 2 && m_current.compare(0, 2, "--") == 0) {
    const std::size_t eq = m_current.find('=');
    if (eq != std::string::npos) {
      m_inlineValue = m_current.substr(eq + 1);
      m_current.resize(eq);
      m_hasInlineValue = true;
    }
  }
  return m_current;
}

std::string ArgScanner::value() {
  if (m_hasInlineValue) {
    m_hasInlineValue = false;
    return m_inlineValue;
  }
  if (m_index >= m_args.size()) usageError(m_current + " needs a value");
  return m_args[m_index++];
}

void ArgScanner::noValue() const {
  if (m_hasInlineValue) usageError(m_current + " takes no value");
}

std::optional<double> ArgScanner::optionalNumber() {
  if (m_hasInlineValue) {
    m_hasInlineValue = false;
    return parseDouble(m_current, m_inlineValue);
  }
  if (m_index >= m_args.size()) return std::nullopt;
  const std::string& candidate = m_args[m_index];
  char* end = nullptr;
  const double v = std::strtod(candidate.c_str(), &end);
  if (candidate.empty() || *end != '\0') return std::nullopt;
  if (!std::isfinite(v)) usageError(m_current + " expects a finite number, got '" + candidate + "'");
  ++m_index;
  return v;
}

double parseDouble(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v)) {
    usageError(option + " expects a number, got '" + text + "'");
  }
  return v;
}

long parseLong(const std::string& option, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE) {
    usageError(option + " expects an integer, got '" + text + "'");
  }
  return v;
}

Vector3d parseVector3(const std::string& option, const std::string& text) {
  Vector3d v;
  std::size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const std::size_t comma = text.find(',', start);
    if ((i < 2) != (comma != std::string::npos)) usageError(option + " expects X,Y,Z, got '" + text + "'");
    const std::string part = text.substr(start, i < 2 ? comma - start : std::string::npos);
    char* end = nullptr;
    const double x = std::strtod(part.c_str(), &end);
    if (part.empty() || *end != '\0' || !std::isfinite(x)) usageError(option + " expects X,Y,Z, got '" + text + "'");
    v[i] = x;
    start = comma + 1;
  }
  return v;
}

bool parseInputOption(ArgScanner& args, const std::string& option, InputOptions& input) {
  if (option == "--fixed-base" || option == "--floating-base") {
    args.noValue();
    const auto root = option == "--fixed-base" ? io::RootAttachment::Fixed : io::RootAttachment::Floating;
    if (input.rootGiven && input.import.root != root) usageError("give either --fixed-base or --floating-base");
    input.import.root = root;
    input.rootGiven = true;
    return true;
  }
  if (option == "--verbose") {
    args.noValue();
    input.verbose = true;
    return true;
  }
  if (option == "--ground") {
    input.import.addGroundPlane = true;
    input.import.groundHeight = args.optionalNumber().value_or(0.0);
    input.groundGiven = true;
    return true;
  }
  if (option == "--package-path") {
    const std::string dir = args.value();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw CliError("--package-path: '" + dir + "' is not a directory");
    input.import.packagePath.emplace_back(dir);
    return true;
  }
  return false;
}

bool looksLikeFile(const std::string& arg) {
  std::error_code ec;
  if (fs::exists(arg, ec)) return true;
  return arg.find('/') != std::string::npos || fs::path(arg).has_extension();
}

io::ImportReport loadInput(World& world, const InputOptions& input, bool quiet) {
  if (input.file.empty()) {
    try {
      scenes::buildScene(world, input.scene);
    } catch (const InvalidArgument& e) {
      throw CliError(e.what());
    }
    io::ImportReport report;
    report.file = input.scene;
    report.format = "built-in";
    return report;
  }
  std::error_code ec;
  const fs::file_status status = fs::status(input.file, ec);
  if (!fs::exists(status)) {
    std::string hint;
    for (const auto& s : scenes::builtinScenes()) {
      if (s.name == input.file) hint = " (for the built-in scene write --scene " + s.name + ")";
    }
    throw CliError(input.file + ": no such file" + hint);
  }
  if (fs::is_directory(status)) throw CliError(input.file + ": is a directory, not a scene or robot file");
  try {
    checkInputFile(input.file, kMaxTextFileBytes, "a scene or robot file");
  } catch (const FileAccessError& e) {
    throw CliError(e.what());
  }
  const std::string ext = fs::path(input.file).extension().string();
  if (input.rootGiven && ext == ".articula" && !quiet) {
    std::cerr << "articula-run: note: --fixed-base/--floating-base apply to URDF and SDF files; " << input.file
              << " keeps the attachment it was saved with\n";
  }
  return io::importFile(world, input.file, input.import);
}

void checkOutputOption(const std::string& option, const std::string& file) {
  try {
    checkOutputTarget(file);
  } catch (const FileAccessError& e) {
    throw CliError(option + ": " + e.what());
  }
}

bool sameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return a == b;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return ec ? a == b : ca == cb;
}

bool hasFindings(const io::ImportReport& report) {
  return !report.cuts.empty() || !report.couplers.empty() || !report.ignored.empty() || !report.warnings.empty() ||
         report.assembly.performed;
}

void printImportReport(const io::ImportReport& report, bool verbose) {
  if (!hasFindings(report)) return;
  if (verbose) {
    std::cerr << report.toText() << std::flush;
  } else {
    std::cerr << report.summary() << " (--verbose lists them)\n" << std::flush;
  }
}

std::string formatNumber(double value) {
  return io::csvNumber(value);
}

std::string formatByteCount(double bytes) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", bytes);
  std::string text = buffer;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
  return text;
}

}  // namespace articula::run
