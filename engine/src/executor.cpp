// The thread-pool executor: `threads` − 1 pool threads plus the caller.
// A stage is published under the mutex with a new generation number; every
// participant takes task indices from one atomic counter until none is
// left, and the caller waits until all participants have checked out. No
// allocation after construction (but for an exception a task throws).
#include <articula/error.hpp>
#include <articula/executor.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace articula {

namespace {

class ThreadPoolExecutor;
// The pool whose task the current thread is running (pool threads: always
// their own pool): a task that calls parallelFor on it again runs the
// inner tasks itself instead of waiting for threads that wait for it.
thread_local const ThreadPoolExecutor* tRunningPool = nullptr;

class ThreadPoolExecutor final : public Executor {
 public:
  explicit ThreadPoolExecutor(int threads) : threads_(threads) {
    pool_.reserve(static_cast<std::size_t>(threads - 1));
    try {
      for (int w = 1; w < threads; ++w) pool_.emplace_back([this, w] { workerLoop(w); });
    } catch (...) {
      shutDown();
      throw;
    }
  }

  ~ThreadPoolExecutor() override { shutDown(); }

  int concurrency() const override { return threads_; }

  void parallelFor(int count, Task task, void* context) override {
    if (count <= 0) return;
    if (threads_ == 1 || count == 1 || tRunningPool == this) {
      for (int i = 0; i < count; ++i) task(context, i, 0);
      return;
    }
    // One stage at a time, even when several worlds share the pool.
    const std::lock_guard<std::mutex> stage(stageMutex_);
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      task_ = task;
      context_ = context;
      count_ = count;
      error_ = nullptr;
      next_.store(0, std::memory_order_relaxed);
      active_ = threads_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    tRunningPool = this;
    drain(0);
    tRunningPool = nullptr;
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return active_ == 0; });
      error = error_;
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  // Runs tasks until none is left. The first exception is kept for the
  // caller and the remaining tasks are skipped.
  void drain(int worker) {
    for (int i = next_.fetch_add(1, std::memory_order_relaxed); i < count_;
         i = next_.fetch_add(1, std::memory_order_relaxed)) {
      try {
        task_(context_, i, worker);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        next_.store(count_, std::memory_order_relaxed);
      }
    }
  }

  void workerLoop(int worker) {
    tRunningPool = this;
    unsigned long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
      }
      drain(worker);
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (--active_ == 0) done_.notify_one();
      }
    }
  }

  void shutDown() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (auto& t : pool_) t.join();
    pool_.clear();
  }

  const int threads_;
  std::vector<std::thread> pool_;
  std::mutex stageMutex_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  unsigned long generation_ = 0;
  bool stop_ = false;
  int active_ = 0;
  // The stage being run (written under mutex_ before the generation moves).
  Task task_ = nullptr;
  void* context_ = nullptr;
  int count_ = 0;
  std::atomic<int> next_{0};
  std::exception_ptr error_;
};

}  // namespace

std::shared_ptr<Executor> makeThreadPoolExecutor(int threads) {
  if (threads < 0 || threads > kMaxThreadPoolThreads) {
    throw InvalidArgument("makeThreadPoolExecutor: threads must be between 0 (one per hardware thread) and " +
                          std::to_string(kMaxThreadPoolThreads) + ", got " + std::to_string(threads));
  }
  if (threads == 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::make_shared<ThreadPoolExecutor>(threads);
}

}  // namespace articula
