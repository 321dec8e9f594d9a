#pragma once
// Counting of heap allocations for the no-allocation tests: link
// counting_allocator.cpp into the test executable (it replaces the global
// allocation functions), then count inside a CountingScope.
#include <QtCore/QString>

#include <atomic>
#include <cstddef>

namespace articula::test {

extern std::atomic<bool> g_counting;
extern std::atomic<std::size_t> g_newCount;     ///< operator new (all variants)
extern std::atomic<std::size_t> g_deleteCount;  ///< operator delete (all variants), non-null pointers
extern std::atomic<std::size_t> g_mallocCount;  ///< malloc/calloc/realloc (when interposed)
/// Whether malloc/calloc/realloc are counted (glibc without a sanitizer).
extern const bool kMallocCounted;

/// Turns counting on for its lifetime (off again even if the body throws).
class CountingScope {
 public:
  CountingScope() {
    g_newCount = 0;
    g_deleteCount = 0;
    g_mallocCount = 0;
    g_counting.store(true);
  }
  ~CountingScope() { g_counting.store(false); }
  CountingScope(const CountingScope&) = delete;
  CountingScope& operator=(const CountingScope&) = delete;
};

struct Counts {
  std::size_t news, deletes, mallocs;
};

inline Counts counts() {
  return {g_newCount.load(), g_deleteCount.load(), g_mallocCount.load()};
}

QString describeCounts(const Counts& c);

}  // namespace articula::test
