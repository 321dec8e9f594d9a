// Public robot descriptions (tests/data/corpus, listed in corpus.list and
// sourced in SOURCES.md): every file must import through importFile with its
// entry folder as the package path, and a 0.5 s run with the default
// integrator (semi-implicit Euler) and time step, on a ground plane, must
// keep the state finite. One row per file.
#include <articula/articula.hpp>
#include <articula/io/import.hpp>

#include "sdformat_home.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace articula;
namespace fs = std::filesystem;

namespace {

fs::path corpusDir() {
  return fs::path(ARTICULA_SOURCE_DIR) / "tests" / "data" / "corpus";
}

/// The ENTRY/FILE lines of corpus.list.
std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  std::ifstream in(corpusDir() / "corpus.list");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t\r");
    files.push_back(line.substr(first, last - first + 1));
  }
  return files;
}

}  // namespace

class TestPublicCorpus : public QObject {
  Q_OBJECT

 private slots:
  // sdformat writes its log to $HOME/.sdformat; use a temporary home when
  // that is not writable.
  void initTestCase() { QVERIFY(articula::test::ensureWritableHomeForSdformat(m_home)); }

  // The list names every file of the corpus once, and every file exists.
  void listIsComplete() {
    const std::vector<std::string> listed = corpusFiles();
    QVERIFY2(listed.size() >= 34, "corpus.list names fewer than 34 files");
    int urdf = 0;
    int sdf = 0;
    for (const std::string& f : listed) {
      QVERIFY2(fs::is_regular_file(corpusDir() / f), f.c_str());
      const std::string ext = fs::path(f).extension().string();
      urdf += ext == ".urdf" || ext == ".URDF";
      sdf += ext == ".sdf" || ext == ".world";
    }
    QVERIFY(urdf >= 26);
    QVERIFY(sdf >= 8);
  }

  void importsAndRuns_data() {
    QTest::addColumn<QString>("file");
    for (const std::string& f : corpusFiles()) QTest::addRow("%s", f.c_str()) << QString::fromStdString(f);
  }

  // Imports the file (meshes that are not in the corpus are the importer's
  // to report, not to fail on), then simulates 0.5 s.
  void importsAndRuns() {
    QFETCH(QString, file);
    const fs::path path = corpusDir() / file.toStdString();
    const fs::path entry = corpusDir() / fs::path(file.toStdString()).begin()->string();

    io::ImportOptions options;
    options.useEnvironmentPaths = false;
    options.packagePath = {entry};
    options.addGroundPlane = true;

    World world;
    io::ImportReport report;
    try {
      report = io::importFile(world, path, options);
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("import failed: %1").arg(e.what())));
    }
    QVERIFY2(world.numMultibodies() + world.numRigidBodies() > 0, "the import produced no body");

    try {
      QVERIFY(world.getOptions().integrator == Integrator::SemiImplicitEuler);
      world.enterSimulationMode();
      const double h = world.getOptions().timeStep;
      const auto steps = static_cast<std::size_t>(std::llround(0.5 / h));
      // Every step must succeed: a rejected (diverged) step keeps a finite
      // state, so finiteness alone would not notice it.
      for (std::size_t k = 0; k < steps; ++k) {
        world.step();
        const StepDiagnostics& d = world.getStepDiagnostics();
        if (d.failed)
          QFAIL(qPrintable(QString("step %1 failed: %2").arg(k + 1).arg(QString::fromStdString(d.message))));
      }
    } catch (const std::exception& e) {
      QFAIL(qPrintable(QString("simulation failed: %1").arg(e.what())));
    }
    const VectorXd q = world.getPositions();
    const VectorXd v = world.getVelocities();
    QVERIFY2(q.allFinite(), "positions are not finite after 0.5 s");
    QVERIFY2(v.allFinite(), "velocities are not finite after 0.5 s");
    QVERIFY2(std::isfinite(world.computeKineticEnergy()), "kinetic energy is not finite after 0.5 s");
    QCOMPARE(world.getTime() > 0.49, true);
  }

 private:
  QTemporaryDir m_home;
};

QTEST_MAIN(TestPublicCorpus)
#include "test_public_corpus.moc"
