#include "train/torch_threads.h"

#include <torch/torch.h>

#include <malloc.h>

#include <mutex>

namespace flashnerd::train {

void configure_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    at::set_num_threads(1);
    // libtorch frees and re-allocates the same large activation buffers every update; with
    // glibc's default thresholds each one is an mmap/munmap pair and the page faults cost
    // more than the maths (measured: 2x slower, 70% of the time in the kernel). Keep freed
    // memory in the heap instead.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 256 << 20);
    try {
      at::set_num_interop_threads(1);
    } catch (const c10::Error&) {
      // already fixed by an earlier parallel call; the intra-op setting is what matters
    }
  });
}

}  // namespace flashnerd::train
