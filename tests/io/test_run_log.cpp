// Run logs (articula/io/run_log.hpp): the columns and their values, the
// HDF5 files read back through libhdf5, chunk boundaries, atomic output,
// reproducible bytes, no allocation per step, and SHA-256.
#include <articula/articula.hpp>
#include <articula/file_io.hpp>
#include <articula/io/run_log.hpp>
#include <articula/io/scene_file.hpp>

#include "counting_allocator.hpp"
#include "test_helpers.hpp"

#include <H5Cpp.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace articula;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<World> servoArm() {
  auto world = std::make_unique<World>();
  io::loadScene(*world, fs::path(ARTICULA_SOURCE_DIR) / "scenes" / "servo_arm.articula");
  SensorSpec imu;
  imu.name = "imu";
  imu.type = SensorType::Imu;
  imu.frame = "arm/fore";
  imu.noiseStddev = 0.01;
  imu.seed = 3;
  world->addSensor(imu);
  SensorSpec encoder;
  encoder.name = "elbow_encoder";
  encoder.type = SensorType::JointEncoder;
  encoder.joint = "arm/elbow";
  world->addSensor(encoder);
  world->enterSimulationMode();
  return world;
}

// A whole dataset as doubles (rows × columns, row-major) and its shape.
std::vector<double> readDataset(const fs::path& file, const std::string& name, std::vector<hsize_t>* shape) {
  H5::H5File f(file.string(), H5F_ACC_RDONLY);
  H5::DataSet set = f.openDataSet(name);
  H5::DataSpace space = set.getSpace();
  shape->assign(static_cast<std::size_t>(space.getSimpleExtentNdims()), 0);
  space.getSimpleExtentDims(shape->data());
  hsize_t n = 1;
  for (const hsize_t d : *shape) n *= d;
  std::vector<double> values(n);
  if (n > 0) set.read(values.data(), H5::PredType::NATIVE_DOUBLE);
  return values;
}

std::string readBytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> folderContents(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

class TestRunLog : public QObject {
  Q_OBJECT

 private slots:
  void sha256KnownVectors() {
    QCOMPARE(io::sha256Hex(""), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(io::sha256Hex("abc"), std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(io::sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
             std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    QCOMPARE(io::sha256Hex(std::string(1000000, 'a')),
             std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  }

  // Every length around the block and padding boundaries, against coreutils' sha256sum.
  void sha256MatchesSha256sum() {
    QTemporaryDir dir;
    std::mt19937 random(11);
    for (int n : {0, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000}) {
      std::string bytes(static_cast<std::size_t>(n), '\0');
      for (char& c : bytes) c = static_cast<char>(random() & 0xff);
      const QString file = dir.filePath("bytes");
      std::ofstream(file.toStdString(), std::ios::binary) << bytes;
      QProcess p;
      p.start("sha256sum", {file});
      QVERIFY(p.waitForFinished());
      const std::string expected = p.readAllStandardOutput().left(64).toStdString();
      QCOMPARE(io::sha256Hex(bytes), expected);
    }
  }

  void columnsAndValues() {
    auto world = servoArm();
    world->step(20);
    io::LogGroups groups;
    groups.energies = groups.diagnostics = true;
    io::LogColumns columns(*world, groups);
    const std::vector<std::string> expected = {"t",
                                               "q:shoulder",
                                               "q:elbow",
                                               "v:shoulder",
                                               "v:elbow",
                                               "ctrl:shoulder_servo",
                                               "ctrl:elbow_pid",
                                               "force:shoulder_servo",
                                               "force:elbow_pid"};
    QVERIFY(std::equal(expected.begin(), expected.end(), columns.names().begin()));
    QCOMPARE(columns.find("sensor:elbow_encoder:q0"), 15);
    QCOMPARE(columns.find("energy:total") + 1, columns.find("diagnostics:contacts"));
    QVERIFY(columns.allocationFree());
    std::vector<double> row(static_cast<std::size_t>(columns.size()));
    columns.fill(*world, row.data());
    QCOMPARE(row[0], world->getTime());
    QCOMPARE(row[1], world->getPositions()[0]);
    QCOMPARE(row[4], world->getVelocities()[1]);
    QCOMPARE(row[7], world->getActuators()[0].getForce());
    const Sensor imu = *world->getSensor("imu");
    QCOMPARE(row[9], imu.getReading().values[0]);
    const int kinetic = columns.find("energy:kinetic");
    QCOMPARE(row[static_cast<std::size_t>(kinetic)], world->computeKineticEnergy());
    QCOMPARE(row[static_cast<std::size_t>(kinetic + 2)],
             world->computeKineticEnergy() + world->computePotentialEnergy());
    QCOMPARE(row.back(), world->getStepDiagnostics().converged ? 1.0 : 0.0);
    QCOMPARE(columns.blocks().front().dataset, std::string("t"));
    int total = 0;
    for (const io::LogBlock& b : columns.blocks()) {
      QCOMPARE(b.offset, total);
      total += b.size;
    }
    QCOMPARE(total, columns.size());
    QVERIFY_THROWS_EXCEPTION(InvalidArgument, io::parseLogGroups("controls,colour"));
    QVERIFY(!io::LogColumns(*world, io::parseLogGroups("all")).allocationFree());
  }

  // Rows across several chunks (7 rows each) read back equal to the states seen.
  void loggerAcrossChunks() {
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "run.h5";
    auto world = servoArm();
    io::Hdf5Logger::Options o;
    o.every = 3;
    o.chunkRows = 7;
    o.info.commandLine = "test";
    std::vector<double> t = {world->getTime()};
    std::vector<VectorXd> q = {world->getPositions()};
    {
      io::Hdf5Logger logger(*world, file, o);
      for (int k = 1; k <= 100; ++k) {
        world->step();
        if (k % 3 == 0) {
          t.push_back(world->getTime());
          q.push_back(world->getPositions());
        }
      }
      QCOMPARE(logger.rows(), std::int64_t{34});
      QVERIFY(!fs::exists(file));
      logger.close();
    }
    std::vector<hsize_t> shape;
    const std::vector<double> times = readDataset(file, "t", &shape);
    QCOMPARE(shape, (std::vector<hsize_t>{34}));
    QCOMPARE(times, t);
    const std::vector<double> positions = readDataset(file, "q", &shape);
    QCOMPARE(shape, (std::vector<hsize_t>{34, 2}));
    for (std::size_t i = 0; i < q.size(); ++i) {
      QCOMPARE(positions[2 * i], q[i][0]);
      QCOMPARE(positions[2 * i + 1], q[i][1]);
    }
    readDataset(file, "energy", &shape);
    QCOMPARE(shape, (std::vector<hsize_t>{34, 3}));
    QCOMPARE(folderContents(dir.path().toStdString()), std::vector<std::string>{"run.h5"});
  }

  // A step with the logger attached allocates nothing between chunk writes.
  void loggerStepAllocatesNothing() {
    QTemporaryDir dir;
    auto world = servoArm();
    io::Hdf5Logger::Options o;
    o.chunkRows = 128;
    io::Hdf5Logger logger(*world, fs::path(dir.path().toStdString()) / "run.h5", o);
    world->step(10);  // warm up (the first row and ten more are buffered)
    {
      test::CountingScope scope;
      world->step(100);  // rows 12..111 of a 128-row chunk
      const test::Counts c = test::counts();
      QCOMPARE(c.news, std::size_t{0});
      QCOMPARE(c.mallocs, std::size_t{0});
    }
    world->step(100);  // crosses a chunk write
    logger.close();
    QCOMPARE(logger.rows(), std::int64_t{211});
  }

  // Destroyed without close(), the logger leaves the previous file as it was and no temporary file.
  void loggerIsAtomic() {
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "run.h5";
    std::ofstream(file) << "previous";
    {
      auto world = servoArm();
      io::Hdf5Logger logger(*world, file);
      world->step(3000);
      QCOMPARE(folderContents(dir.path().toStdString()).size(), std::size_t{2});
    }
    QCOMPARE(readBytes(file), std::string("previous"));
    QCOMPARE(folderContents(dir.path().toStdString()), std::vector<std::string>{"run.h5"});
    auto world = servoArm();
    QVERIFY_THROWS_EXCEPTION(FileAccessError, io::Hdf5Logger(*world, file.parent_path() / "no" / "run.h5"));
  }

  // A write that fails (here the file size limit) throws out of the step
  // that met it; later steps log nothing, close() fails, nothing is left.
  void failedWriteStopsTheLogger() {
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "run.h5";
    auto world = servoArm();
    io::Hdf5Logger::Options o;
    o.chunkRows = 16;
    io::Hdf5Logger logger(*world, file, o);
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit previous{};
    getrlimit(RLIMIT_FSIZE, &previous);
    rlimit limit = previous;
    limit.rlim_cur = 16 * 1024;
    setrlimit(RLIMIT_FSIZE, &limit);
    int thrown = 0;
    for (int k = 0; k < 2000; ++k) {
      try {
        world->step();
      } catch (const FileAccessError& e) {
        ++thrown;
        QVERIFY(std::string(e.what()).find("cannot write the HDF5 log") != std::string::npos);
      }
    }
    setrlimit(RLIMIT_FSIZE, &previous);
    std::signal(SIGXFSZ, SIG_DFL);
    QCOMPARE(thrown, 1);
    QVERIFY_THROWS_EXCEPTION(FileAccessError, logger.close());
    world->step(10);  // detached
    QVERIFY(folderContents(dir.path().toStdString()).empty());
  }

  // Thousands of columns: their names outgrow an object header (64 KiB).
  void thousandsOfColumns() {
    QTemporaryDir dir;
    const fs::path file = fs::path(dir.path().toStdString()) / "run.h5";
    World world;
    for (int i = 0; i < 700; ++i) world.addRigidBody("a_rather_long_body_name_" + std::to_string(i));
    world.enterSimulationMode();
    io::Hdf5Logger logger(world, file);
    world.step(3);
    logger.close();
    QCOMPARE(logger.columns().size(), 1 + 700 * 13 + 8);
    std::vector<hsize_t> shape;
    readDataset(file, "q", &shape);
    QCOMPARE(shape, (std::vector<hsize_t>{4, 4900}));
  }

  // The same rows make the same bytes (no time stamps in the file).
  void sameRowsSameBytes() {
    QTemporaryDir dir;
    const fs::path a = fs::path(dir.path().toStdString()) / "a.h5";
    const fs::path b = fs::path(dir.path().toStdString()) / "b.h5";
    for (const fs::path& file : {a, b}) {
      auto world = servoArm();
      io::Hdf5Logger logger(*world, file);
      world->step(500);
      logger.close();
      if (file == a) QTest::qSleep(1100);  // a time stamp, were one stored, would differ
    }
    QCOMPARE(readBytes(a), readBytes(b));
    io::SweepTable table;
    table.parameterNames = {"joint:elbow.damping", "options.solver"};
    table.metricNames = {"final:q:elbow"};
    table.run = {0, 1};
    table.status = {"ok", "failed"};
    table.exitCode = {0, 2};
    table.parameters = {{"0.5", "convex"}, {"-1", "convex"}};
    table.metrics = {{0.25}, {std::nan("")}};
    table.message = {"", "bad"};
    io::writeSweepTable(a, table);
    QTest::qSleep(1100);
    io::writeSweepTable(b, table);
    QCOMPARE(readBytes(a), readBytes(b));
    std::vector<hsize_t> shape;
    const std::vector<double> parameters = readDataset(a, "parameters", &shape);
    QCOMPARE(shape, (std::vector<hsize_t>{2, 2}));
    QCOMPARE(parameters[0], 0.5);
    QVERIFY(std::isnan(parameters[1]));  // text
    QCOMPARE(parameters[2], -1.0);
    const std::vector<double> metrics = readDataset(a, "metrics", &shape);
    QCOMPARE(metrics[0], 0.25);
    QVERIFY(std::isnan(metrics[1]));
  }
};

QTEST_GUILESS_MAIN(TestRunLog)
#include "test_run_log.moc"
