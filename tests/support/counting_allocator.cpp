// Replaces every global operator new/delete, and on glibc without a
// sanitizer malloc/calloc/realloc, with versions that count calls while a
// CountingScope is alive (counting_allocator.hpp). Link this file into a
// test executable to check that code under test does not allocate. Eigen
// allocates dynamic matrices with std::malloc directly, not operator new,
// hence the C layer.
#include "counting_allocator.hpp"

#include <cstdlib>
#include <new>

namespace articula::test {
std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_newCount{0};
std::atomic<std::size_t> g_deleteCount{0};
std::atomic<std::size_t> g_mallocCount{0};
}  // namespace articula::test

using articula::test::g_counting;
using articula::test::g_deleteCount;
using articula::test::g_mallocCount;
using articula::test::g_newCount;

namespace {

inline bool counting() {
  return g_counting.load(std::memory_order_relaxed);
}

void* allocateCounted(std::size_t size) {
  if (counting()) g_newCount.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}

void* allocateAlignedCounted(std::size_t size, std::align_val_t al) {
  if (counting()) g_newCount.fetch_add(1, std::memory_order_relaxed);
  std::size_t alignment = static_cast<std::size_t>(al);
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, alignment, size == 0 ? 1 : size) != 0) return nullptr;
  return p;
}

void freeCounted(void* p) noexcept {
  if (p == nullptr) return;
  if (counting()) g_deleteCount.fetch_add(1, std::memory_order_relaxed);
  std::free(p);
}

}  // namespace

// ---- replaceable global allocation functions -------------------------------

void* operator new(std::size_t size) {
  if (void* p = allocateCounted(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = allocateCounted(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return allocateCounted(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return allocateCounted(size);
}
void* operator new(std::size_t size, std::align_val_t al) {
  if (void* p = allocateAlignedCounted(size, al)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t al) {
  if (void* p = allocateAlignedCounted(size, al)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
  return allocateAlignedCounted(size, al);
}
void* operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
  return allocateAlignedCounted(size, al);
}

void operator delete(void* p) noexcept {
  freeCounted(p);
}
void operator delete[](void* p) noexcept {
  freeCounted(p);
}
void operator delete(void* p, std::size_t) noexcept {
  freeCounted(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  freeCounted(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  freeCounted(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  freeCounted(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  freeCounted(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  freeCounted(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  freeCounted(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  freeCounted(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  freeCounted(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  freeCounted(p);
}

// ---- C allocation functions (glibc, no sanitizer) ---------------------------

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_MEMORY__)
#define ARTICULA_TEST_NO_MALLOC_HOOK 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#ifndef ARTICULA_TEST_NO_MALLOC_HOOK
#define ARTICULA_TEST_NO_MALLOC_HOOK 1
#endif
#endif
#endif

#if defined(__GLIBC__) && !defined(ARTICULA_TEST_NO_MALLOC_HOOK)
#define ARTICULA_TEST_MALLOC_HOOK 1
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);

void* malloc(std::size_t size) noexcept {
  if (counting()) g_mallocCount.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) noexcept {
  if (counting()) g_mallocCount.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) noexcept {
  if (counting()) g_mallocCount.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, size);
}
}
const bool articula::test::kMallocCounted = true;
#else
const bool articula::test::kMallocCounted = false;
#endif

namespace articula::test {

QString describeCounts(const Counts& c) {
  return QString("operator new: %1, operator delete: %2, malloc/calloc/realloc: %3%4")
      .arg(c.news)
      .arg(c.deletes)
      .arg(c.mallocs)
      .arg(kMallocCounted ? "" : " (not interposed)");
}

}  // namespace articula::test
