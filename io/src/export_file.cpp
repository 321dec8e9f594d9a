// exportFile: the writer chosen by the output file's extension, written
// atomically; and the export report's text and JSON.
#include "export_common.hpp"

#include <articula/file_io.hpp>
#include <articula/io/import.hpp>
#include <articula/io/scene_file.hpp>
#include <articula/world.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>

namespace fs = std::filesystem;

namespace articula::io {

const char* toString(ExportFormat format) {
  switch (format) {
    case ExportFormat::Articula:
      return "articula";
    case ExportFormat::Urdf:
      return "urdf";
    case ExportFormat::Sdf:
      return "sdf";
    case ExportFormat::Mjcf:
      return "mjcf";
  }
  return "articula";
}

std::optional<ExportFormat> exportFormatForPath(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".articula") return ExportFormat::Articula;
  if (ext == ".urdf") return ExportFormat::Urdf;
  if (ext == ".sdf" || ext == ".world") return ExportFormat::Sdf;
  if (ext == ".xml" || ext == ".mjcf") return ExportFormat::Mjcf;
  return std::nullopt;
}

std::string ExportReport::toText() const {
  std::ostringstream os;
  for (const ExportEntry& e : notExported) os << "not exported: " << e.object << ": " << e.message << "\n";
  for (const ExportEntry& e : converted) os << "converted: " << e.object << ": " << e.message << "\n";
  return os.str();
}

std::string ExportReport::summary() const {
  std::ostringstream os;
  os << notExported.size() << (notExported.size() == 1 ? " object" : " objects") << " not exported, "
     << converted.size() << " converted";
  return os.str();
}

std::string ExportReport::toJson() const {
  std::ostringstream os;
  const auto list = [&](const std::vector<ExportEntry>& entries) {
    os << "[";
    for (std::size_t i = 0; i < entries.size(); ++i) {
      os << (i ? "," : "") << "{\"object\":" << jsonString(entries[i].object)
         << ",\"message\":" << jsonString(entries[i].message) << "}";
    }
    os << "]";
  };
  os << "{\"file\":" << jsonString(file) << ",\"format\":" << jsonString(format) << ",\"not_exported\":";
  list(notExported);
  os << ",\"converted\":";
  list(converted);
  os << "}";
  return os.str();
}

ExportReport exportFile(const World& world, const fs::path& file) {
  const std::optional<ExportFormat> format = exportFormatForPath(file);
  if (!format) {
    throw ImportError(file.string(), 0,
                      "cannot tell the format from the extension '" + file.extension().string() +
                          "': expected .urdf, .sdf (or .world), .xml (MJCF) or .articula");
  }
  return exportFile(world, file, *format);
}

ExportReport exportFile(const World& world, const fs::path& file, ExportFormat format) {
  ExportReport report;
  report.file = file.string();
  report.format = toString(format);
  if (format == ExportFormat::Articula) {
    saveScene(world, file);
    return report;
  }
  ExportOptions options;
  std::error_code ec;
  const fs::path folder = fs::absolute(file, ec).parent_path();
  options.meshBase = ec ? file.parent_path() : folder;
  if (options.meshBase.empty()) options.meshBase = fs::current_path(ec);
  const WorldSpec spec = world.getSpec();
  std::string text;
  switch (format) {
    case ExportFormat::Urdf:
      text = toUrdf(spec, report, options);
      break;
    case ExportFormat::Sdf:
      text = toSdf(spec, report, options);
      break;
    case ExportFormat::Mjcf:
      text = toMjcf(spec, report, options);
      break;
    case ExportFormat::Articula:
      break;
  }
  try {
    writeFileAtomically(file, text);
  } catch (const FileAccessError& e) {
    throw ImportError(file.string(), 0, e.problem());
  }
  return report;
}

}  // namespace articula::io
