// articula-studio [FILE]: the desktop application. Opens FILE (a scene,
// URDF, SDF or replay), or the default scene (the four-bar linkage of the
// shipped scenes); after a crash it first offers to recover the autosaved
// design.
#include "display_check.hpp"
#include "main_window.hpp"

#include <articula/file_io.hpp>

#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>
#include <string_view>

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

  const QStringList args = parser.positionalArguments();
  const QString picture = parser.value(screenshot);
  articula::studio::MainWindowOptions options;
  // A picture is taken without asking anything: the import choices stored
  // for the file (or the defaults) are used.
  options.askImportChoices = !parser.isSet(screenshot);
  if (!picture.isEmpty()) {
    // Unattended: no dialog may wait for an answer. Errors go to stderr and
    // end the program with exit code 2; questions are answered "no".
    options.dialogs.ask = [](QWidget*, const QString&, const QString&, QMessageBox::StandardButtons) {
      return QMessageBox::No;
    };
    options.dialogs.error = [](QWidget*, const QString& title, const QString& text) {
      std::fprintf(stderr, "articula-studio: %s: %s\n", qPrintable(title), qPrintable(text));
    };
    options.dialogs.openFile = [](QWidget*, const QString&, const QString&) { return QString(); };
    options.dialogs.saveFile = [](QWidget*, const QString&, const QString&, const QString&) { return QString(); };
  }
  articula::studio::MainWindow window(options);
  window.show();
  QTimer::singleShot(0, &window, [&window, args, picture] {
    if (picture.isEmpty() && window.offerRecovery()) return;
    bool opened = true;
    if (!args.isEmpty()) {
      opened = window.openFile(args.front());
    } else if (const QString scene = defaultScene(); !scene.isEmpty()) {
      opened = window.openFile(scene);
    }
    if (picture.isEmpty()) return;
    if (!opened) {
      QCoreApplication::exit(2);
      return;
    }
    // Let the viewport draw a few frames first.
    QTimer::singleShot(500, &window, [&window, picture] {
      QByteArray png;
      QBuffer buffer(&png);
      buffer.open(QIODevice::WriteOnly);
      if (!window.grab().toImage().save(&buffer, "PNG")) {
        std::fprintf(stderr, "articula-studio: %s: cannot encode the window as PNG\n", qPrintable(picture));
        QCoreApplication::exit(2);
        return;
      }
      try {
        articula::writeFileAtomically(picture.toStdString(), std::string_view(png.constData(), png.size()));
      } catch (const articula::Error& e) {
        std::fprintf(stderr, "articula-studio: %s\n", e.what());
        QCoreApplication::exit(2);
        return;
      }
      QCoreApplication::exit(0);
    });
  });
  return QApplication::exec();
}
