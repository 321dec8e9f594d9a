// Constraint islands solved on an executor: the thread pool runs every task
// once; with any executor (none, one thread, two threads, an injected one
// that runs the islands in reverse order) a world with several islands
// steps bit-identically, for every solver method; one pool serves two
// worlds stepping on two threads, also as tasks of that pool; an exception
// thrown by a task reaches the caller.
#include <articula/articula.hpp>

#include <QtTest/QtTest>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using namespace articula;

namespace {

constexpr double kSide = 0.2;

// Four stacks of three boxes (one island each while they stand) and two
// pendulums swinging into their joint limits (an island each).
void buildScene(World& world, const std::string& method) {
  WorldOptions o = world.getOptions();
  o.solver.method = method;
  world.setOptions(o);
  world.addGroundPlane();
  for (int s = 0; s < 4; ++s) {
    for (int i = 0; i < 3; ++i) {
      RigidBodyOptions b;
      b.inertia = Inertia::box(1.0 + 0.5 * i, Vector3d::Constant(kSide));
      // Slightly off-centre and turned, so that the stacks rock.
      b.pose = test::translation(1.0 * s + 0.01 * i, 0.003 * s * i, 0.5 * kSide + i * (kSide + 0.002)) *
               Eigen::AngleAxisd(0.05 * (s + i), Vector3d::UnitZ());
      const std::string name = "box_" + std::to_string(s) + "_" + std::to_string(i);
      RigidBody body = world.addRigidBody(name, b);
      body.addCollisionShape(
          {.name = name + "_shape", .geometry = Geometry::box(Vector3d::Constant(kSide)), .material = {}});
    }
  }
  for (int p = 0; p < 2; ++p) {
    Multibody mb = world.addMultibody("pendulum_" + std::to_string(p));
    JointSpec j = JointSpec::revolute(Vector3d::UnitY()).withParentOffset(test::translation(5.0 + p, 0.0, 2.0));
    j.positionLowerLimits = VectorXd::Constant(1, -0.3);
    j.positionUpperLimits = VectorXd::Constant(1, 0.3);
    Inertia in = Inertia::box(1.0, Vector3d(0.05, 0.05, 0.5));
    in.com = Vector3d(0.0, 0.0, -0.25);
    mb.addLink({.name = "bob_" + std::to_string(p), .inertia = in}, j);
    mb.setVelocities(VectorXd::Constant(1, 3.0 - 6.0 * p));
  }
}

struct Outcome {
  VectorXd q, v;
  std::vector<int> islands, iterations;
  std::vector<double> residuals;
};

Outcome run(const std::string& method, std::shared_ptr<Executor> executor, int steps) {
  World world;
  buildScene(world, method);
  world.setExecutor(std::move(executor));
  world.enterSimulationMode();
  Outcome out;
  for (int k = 0; k < steps; ++k) {
    world.step();
    const StepDiagnostics& d = world.getStepDiagnostics();
    out.islands.push_back(d.numIslands);
    out.iterations.push_back(d.iterations);
    out.residuals.push_back(d.residual);
  }
  out.q = world.getPositions();
  out.v = world.getVelocities();
  return out;
}

bool bitIdentical(const VectorXd& a, const VectorXd& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

// An executor of the caller's own: runs the tasks in reverse order,
// cycling through `workers` worker indices, on the calling thread.
class ReversingExecutor final : public Executor {
 public:
  explicit ReversingExecutor(int workers) : workers_(workers) {}
  int concurrency() const override { return workers_; }
  void parallelFor(int count, Task task, void* context) override {
    ++stages;
    for (int i = count - 1; i >= 0; --i) task(context, i, i % workers_);
  }
  int stages = 0;

 private:
  int workers_;
};

}  // namespace

class TestParallelIslands : public QObject {
  Q_OBJECT

 private slots:
  void poolRunsEveryTaskOnce();
  void poolRejectsNegativeThreads();
  void resultsDoNotDependOnTheExecutor_data();
  void resultsDoNotDependOnTheExecutor();
  void onePoolServesTwoWorlds();
  void taskExceptionsReachTheCaller();
  void worldsSteppedAsTasksOfTheirOwnPool();
};

void TestParallelIslands::poolRunsEveryTaskOnce() {
  auto pool = makeThreadPoolExecutor(3);
  QCOMPARE(pool->concurrency(), 3);
  struct Context {
    std::vector<std::atomic<int>> hits = std::vector<std::atomic<int>>(1000);
    std::atomic<int> badWorker{0};
    std::atomic<int> threadsSeen{0};
  } c;
  for (int round = 0; round < 50; ++round) {
    for (auto& h : c.hits) h.store(0);
    pool->parallelFor(
        static_cast<int>(c.hits.size()),
        [](void* ctx, int i, int worker) {
          auto* cc = static_cast<Context*>(ctx);
          cc->hits[static_cast<std::size_t>(i)].fetch_add(1);
          if (worker < 0 || worker >= 3) cc->badWorker.fetch_add(1);
        },
        &c);
    for (std::size_t i = 0; i < c.hits.size(); ++i) QCOMPARE(c.hits[i].load(), 1);
  }
  QCOMPARE(c.badWorker.load(), 0);
  // No tasks: returns at once.
  pool->parallelFor(
      0, [](void*, int, int) { QFAIL("no task should run"); }, nullptr);
}

void TestParallelIslands::poolRejectsNegativeThreads() {
  QVERIFY_THROWS_EXCEPTION(InvalidArgument, makeThreadPoolExecutor(-1));
  QVERIFY_THROWS_EXCEPTION(InvalidArgument, makeThreadPoolExecutor(kMaxThreadPoolThreads + 1));
  QVERIFY(makeThreadPoolExecutor(0)->concurrency() >= 1);
}

void TestParallelIslands::resultsDoNotDependOnTheExecutor_data() {
  QTest::addColumn<QString>("method");
  for (const char* m : {"projected-gauss-seidel", "direct-pivoting", "nonsmooth-newton", "convex"}) {
    QTest::newRow(m) << QString(m);
  }
}

void TestParallelIslands::resultsDoNotDependOnTheExecutor() {
  QFETCH(QString, method);
  const int steps = 400;
  const Outcome reference = run(method.toStdString(), nullptr, steps);
  // The scene does have several islands to spread.
  QVERIFY2(
      *std::max_element(reference.islands.begin(), reference.islands.end()) >= 6,
      qPrintable(
          QString("at most %1 islands").arg(*std::max_element(reference.islands.begin(), reference.islands.end()))));
  QVERIFY(reference.q.allFinite());
  auto reversing = std::make_shared<ReversingExecutor>(3);
  const std::pair<const char*, std::shared_ptr<Executor>> executors[] = {
      {"one thread", makeThreadPoolExecutor(1)},
      {"two threads", makeThreadPoolExecutor(2)},
      {"four threads", makeThreadPoolExecutor(4)},
      {"reversing, three workers", reversing},
  };
  for (const auto& [name, executor] : executors) {
    const Outcome o = run(method.toStdString(), executor, steps);
    QVERIFY2(bitIdentical(o.q, reference.q), name);
    QVERIFY2(bitIdentical(o.v, reference.v), name);
    QVERIFY2(o.islands == reference.islands, name);
    QVERIFY2(o.iterations == reference.iterations, name);
    QVERIFY2(o.residuals == reference.residuals, name);
  }
  QVERIFY2(reversing->stages >= steps / 2, qPrintable(QString::number(reversing->stages)));
}

// Two worlds on two threads share one pool; each steps as it does alone.
void TestParallelIslands::onePoolServesTwoWorlds() {
  const Outcome reference = run("projected-gauss-seidel", nullptr, 200);
  auto pool = makeThreadPoolExecutor(2);
  Outcome a, b;
  std::thread ta([&] { a = run("projected-gauss-seidel", pool, 200); });
  std::thread tb([&] { b = run("projected-gauss-seidel", pool, 200); });
  ta.join();
  tb.join();
  QVERIFY(bitIdentical(a.q, reference.q));
  QVERIFY(bitIdentical(b.q, reference.q));
  QVERIFY(bitIdentical(a.v, reference.v));
  QVERIFY(bitIdentical(b.v, reference.v));
}

// A task that throws: parallelFor rethrows it once every task has
// stopped, and the pool runs the next stage normally.
void TestParallelIslands::taskExceptionsReachTheCaller() {
  auto pool = makeThreadPoolExecutor(3);
  std::atomic<int> ran{0};
  auto throwing = [](void* ctx, int i, int) {
    static_cast<std::atomic<int>*>(ctx)->fetch_add(1);
    if (i == 37) throw std::runtime_error("task 37 failed");
  };
  bool caught = false;
  try {
    pool->parallelFor(200, throwing, &ran);
  } catch (const std::runtime_error& e) {
    caught = QString(e.what()) == QStringLiteral("task 37 failed");
  }
  QVERIFY(caught);
  QVERIFY(ran.load() >= 1 && ran.load() <= 200);
  std::vector<std::atomic<int>> hits(500);
  pool->parallelFor(
      500, [](void* ctx, int i, int) { (*static_cast<std::vector<std::atomic<int>>*>(ctx))[std::size_t(i)]++; }, &hits);
  for (const auto& h : hits) QCOMPARE(h.load(), 1);
}

// An application that runs its worlds as tasks of one pool and gives each
// world that pool as its executor: the islands of each world run on the
// task's thread (no deadlock), with the same results.
void TestParallelIslands::worldsSteppedAsTasksOfTheirOwnPool() {
  const Outcome reference = run("direct-pivoting", nullptr, 150);
  struct Context {
    std::shared_ptr<Executor> pool = makeThreadPoolExecutor(2);
    Outcome outcomes[4];
  } c;
  c.pool->parallelFor(
      4,
      [](void* ctx, int i, int) {
        auto* cc = static_cast<Context*>(ctx);
        cc->outcomes[i] = run("direct-pivoting", cc->pool, 150);
      },
      &c);
  for (const Outcome& o : c.outcomes) {
    QVERIFY(bitIdentical(o.q, reference.q));
    QVERIFY(bitIdentical(o.v, reference.v));
  }
}

QTEST_APPLESS_MAIN(TestParallelIslands)
#include "test_parallel_islands.moc"
