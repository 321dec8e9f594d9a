#pragma once
// Command-line helpers of articula-run: errors with their exit codes,
// argument scanning, number parsing and loading the input scene.

#include <articula/io/import.hpp>
#include <articula/io/state_columns.hpp>
#include <articula/world.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace articula::run {

/// Exit codes of articula-run.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitDiverged = 3;
inline constexpr int kExitNotConverged = 4;  ///< ik: some target not reached

/// Bad usage or bad input: printed on stderr, exit code 2. `usageHint`
/// adds a pointer to --help.
class CliError : public std::runtime_error {
 public:
  explicit CliError(const std::string& message, bool usageHint = false)
      : std::runtime_error(message), m_usageHint(usageHint) {}
  bool usageHint() const { return m_usageHint; }

 private:
  bool m_usageHint = false;
};

[[noreturn]] inline void usageError(const std::string& message) {
  throw CliError(message, true);
}

/// Walks the arguments of a subcommand; understands `--option value` and
/// `--option=value`.
class ArgScanner {
 public:
  explicit ArgScanner(std::vector<std::string> args) : m_args(std::move(args)) {}
  bool done() const { return m_index >= m_args.size(); }
  /// The next argument (an option name without an inline value, or a positional).
  const std::string& next();
  /// The value of the option just returned by next().
  std::string value();
  /// Throws a usage error if the option just returned carried an inline value.
  void noValue() const;
  /// The optional numeric value of the option just returned: its inline
  /// value, or the next argument when that is a number (else nothing).
  std::optional<double> optionalNumber();

 private:
  std::vector<std::string> m_args;
  std::size_t m_index = 0;
  std::string m_current;
  std::string m_inlineValue;
  bool m_hasInlineValue = false;
};

double parseDouble(const std::string& option, const std::string& text);
long parseLong(const std::string& option, const std::string& text);
/// "X,Y,Z" as three finite numbers.
Vector3d parseVector3(const std::string& option, const std::string& text);

/// Options shared by run, inspect and export for reading the input.
struct InputOptions {
  std::string file;   ///< a scene or robot file
  std::string scene;  ///< a built-in scene (when no file is given)
  io::ImportOptions import;
  bool rootGiven = false;    ///< --fixed-base or --floating-base was given
  bool groundGiven = false;  ///< --ground was given
  bool verbose = false;      ///< --verbose: the whole import report, not its one-line summary
};

/// Handles --fixed-base, --floating-base and --package-path DIR; returns
/// false for any other option.
bool parseInputOption(ArgScanner& args, const std::string& option, InputOptions& input);

/// Whether `arg` names a file rather than a built-in scene: it exists, or
/// has a path separator or an extension.
bool looksLikeFile(const std::string& arg);

/// Reads the input into `world` (a file through io::importFile, or a
/// built-in scene). @throws CliError for a missing file or an unknown scene,
/// io::ImportError for a file that cannot be imported.
io::ImportReport loadInput(World& world, const InputOptions& input, bool quiet);

/// Refuses an output path that exists and is not a regular file (a device,
/// a FIFO, a directory) or whose folder is missing. @throws CliError "OPTION: FILE: problem".
void checkOutputOption(const std::string& option, const std::string& file);
/// Whether two paths name the same existing file (or are the same path).
bool sameFile(const std::string& a, const std::string& b);

/// A link ("LINK" when unique, or "MULTIBODY/LINK"), rigid body, user frame,
/// or the child link of a joint named so. @throws CliError naming `option`.
Frame resolveFrame(const World& world, const std::string& name, const char* option);

/// Whether the report has anything beyond its header line.
bool hasFindings(const io::ImportReport& report);
/// Writes the import report to stderr when it has findings: its one-line
/// summary, or all of it with `verbose`.
void printImportReport(const io::ImportReport& report, bool verbose);

/// Shortest text that reads back as the same double ("nan", "inf", "-inf" for those).
std::string formatNumber(double value);
/// A byte count (a mean, say) with one decimal, without a trailing ".0": "312.5", "2960".
std::string formatByteCount(double bytes);
using io::jsonString;
using io::StateColumns;
using io::StateOwner;

}  // namespace articula::run
