// Counts heap allocations: a test binary that includes this header (in exactly one source
// file) interposes malloc and friends (operator new goes through malloc) for every library in
// the process, OpenBLAS and MuJoCo included, and counts calls from all threads while
// g_counting is set.
#pragma once

#include <atomic>
#include <cstdlib>

// AddressSanitizer owns malloc: interposing it as well crashes at start-up, so the sanitizer
// build skips these tests (they run in the Release suite that CI runs).
#if defined(__SANITIZE_ADDRESS__)
#define FLASHNERD_COUNT_ALLOCATIONS 0
#else
#define FLASHNERD_COUNT_ALLOCATIONS 1
#endif

#if FLASHNERD_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}
#endif

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
inline void count() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#if FLASHNERD_COUNT_ALLOCATIONS
extern "C" {
void* malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t s) {
  count();
  return __libc_calloc(n, s);
}
void* realloc(void* p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
void* aligned_alloc(size_t a, size_t n) {
  count();
  return __libc_memalign(a, n);
}
void* memalign(size_t a, size_t n) {
  count();
  return __libc_memalign(a, n);
}
int posix_memalign(void** p, size_t a, size_t n) {
  count();
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;  // ENOMEM
}
void free(void* p) { __libc_free(p); }
}
#endif

