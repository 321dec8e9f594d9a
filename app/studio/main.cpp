// articula-studio [FILE]: the desktop application. Opens FILE (a scene,
// URDF, SDF or replay), or the default scene (the four-bar linkage of the
// shipped scenes); after a crash it first offers to recover the autosaved
// design.
#include "display_check.hpp"
#include "main_window.hpp"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>

namespace {

/// The shipped four-bar scene: next to an installed executable, or in the
/// source tree the build came from.
QString defaultScene() {
  const QString exeDir = QCoreApplication::applicationDirPath();
  const QStringList candidates = {
      qEnvironmentVariable("ARTICULA_SCENES_DIR") + "/four_bar.articula",
      exeDir + "/../share/articula/scenes/four_bar.articula",
      QStringLiteral(ARTICULA_SCENES_DIR) + "/four_bar.articula",
  };
  for (const QString& c : candidates) {
    if (QFileInfo::exists(c)) return QFileInfo(c).absoluteFilePath();
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  // Without a display Qt aborts with a message about its platform plugin;
  // say what is wrong instead.
  QStringList arguments;
  for (int i = 1; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  if (const QString problem = articula::studio::displayProblem(arguments, QProcessEnvironment::systemEnvironment());
      !problem.isEmpty()) {
    std::fprintf(stderr, "%s\n", qPrintable(problem));
    return 2;
  }
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName("Articula");
  QCoreApplication::setApplicationName("Articula Studio");
  QCoreApplication::setApplicationVersion("0.1.0");

  QCommandLineParser parser;
  parser.setApplicationDescription("Articula Studio: design, simulate and replay articulated mechanisms and robots.");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("file", "A .articula, .urdf, .sdf, .world or .replay file to open.", "[FILE]");
  const QCommandLineOption screenshot(
      "screenshot", "Open the file, write a picture of the whole window to PNG and quit (for documentation).", "PNG");
  parser.addOption(screenshot);
  parser.process(app);

  articula::studio::MainWindowOptions options;
  // A picture is taken without asking anything: the import choices stored
  // for the file (or the defaults) are used.
  options.askImportChoices = !parser.isSet(screenshot);
  articula::studio::MainWindow window(options);
  window.show();
  const QStringList args = parser.positionalArguments();
  const QString picture = parser.value(screenshot);
  QTimer::singleShot(0, &window, [&window, args, picture] {
    if (picture.isEmpty() && window.offerRecovery()) return;
    if (!args.isEmpty()) {
      window.openFile(args.front());
    } else if (const QString scene = defaultScene(); !scene.isEmpty()) {
      window.openFile(scene);
    }
    if (picture.isEmpty()) return;
    // Let the viewport draw a few frames first.
    QTimer::singleShot(500, &window, [&window, picture] {
      const bool written = window.grab().toImage().save(picture, "PNG");
      if (!written) qCritical("could not write %s", qPrintable(picture));
      QCoreApplication::exit(written ? 0 : 1);
    });
  });
  return QApplication::exec();
}
