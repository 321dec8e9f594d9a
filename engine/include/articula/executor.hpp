// Executors: where the independent parts of a step run.
//
// A world steps on the calling thread unless it is given an executor
// (World::setExecutor). Today the independent parts are the constraint
// islands of a step (bodies and trees connected by contacts, joint limits,
// closures and couplers): with an executor of concurrency N, up to N
// islands are solved at the same time. The results do not depend on the
// executor: every island is solved with its own scratch and the step's
// outcome is gathered in island order, so a world steps bit-identically
// with one thread, two threads or any Executor.
#pragma once

#include <memory>

namespace articula {

/// Runs the tasks of one stage of a step. Implement it to place the work
/// on threads of your own (a job system, a shared pool); Articula's own is
/// makeThreadPoolExecutor.
class Executor {
 public:
  /// A task: `context` is the stage's, `index` in [0, count), `worker` in
  /// [0, concurrency()): tasks given the same worker must not run at once.
  using Task = void (*)(void* context, int index, int worker);

  virtual ~Executor() = default;
  /// How many tasks may run at once (≥ 1). A world keeps that many sets of
  /// scratch, one per worker.
  virtual int concurrency() const = 0;
  /// Runs task(context, i, worker) once for every i in [0, count) and
  /// returns when all have finished. Called from the stepping thread; must
  /// not allocate if the step is to allocate nothing. Threads that run
  /// tasks must use the stepping thread's floating-point environment
  /// (rounding, flush-to-zero) for results to be bit-identical.
  virtual void parallelFor(int count, Task task, void* context) = 0;
};

inline constexpr int kMaxThreadPoolThreads = 256;

/// A pool of `threads` − 1 threads plus the calling thread (0 ≤ threads ≤
/// kMaxThreadPoolThreads; 0 means one per hardware thread). The pool's
/// threads sleep between stages and start with the floating-point
/// environment of the thread that made the pool. One pool may serve several
/// worlds, one stage at a time; a task of the pool that steps a world on
/// the same pool runs that world's islands itself. An exception thrown by a
/// task reaches parallelFor's caller once every task has stopped.
/// @throws InvalidArgument for threads outside that range.
std::shared_ptr<Executor> makeThreadPoolExecutor(int threads = 0);

}  // namespace articula
