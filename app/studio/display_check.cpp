#include "display_check.hpp"

namespace articula::studio {

QString displayProblem(const QStringList& arguments, const QProcessEnvironment& environment) {
  const auto isSet = [&](const char* name) { return !environment.value(QString::fromLatin1(name)).isEmpty(); };
  if (isSet("DISPLAY") || isSet("WAYLAND_DISPLAY") || isSet("QT_QPA_PLATFORM")) return {};
  for (const QString& a : arguments) {
    if (a == "-platform" || a == "--platform" || a.startsWith("-platform=") || a.startsWith("--platform=")) return {};
  }
  return QStringLiteral(
      "articula-studio: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); run it under "
      "xvfb-run -a articula-studio ..., or set DISPLAY");
}

}  // namespace articula::studio
