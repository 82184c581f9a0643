#include "train/op_profile.h"

#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <map>

namespace flashnerd::train {

namespace profiler = torch::autograd::profiler;

OpProfiler::~OpProfiler() {
  if (running_) stop();
}

void OpProfiler::start() {
  profiler::enableProfilerLegacy(
      torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::CPU));
  running_ = true;
}

std::vector<OpTime> OpProfiler::stop() {
  running_ = false;
  const profiler::thread_event_lists lists = profiler::disableProfilerLegacy();
  std::map<std::string, OpTime> by_name;
  for (const auto& events : lists) {
    // push/pop ranges nest per thread: self time = the range minus its direct children
    struct Open {
      const profiler::LegacyEvent* push;
      double children_us;
    };
    std::vector<Open> stack;
    for (const auto& e : events) {
      if (e.kind() == profiler::EventKind::PushRange) {
        stack.push_back({&e, 0});
      } else if (e.kind() == profiler::EventKind::PopRange && !stack.empty()) {
        const Open open = stack.back();
        stack.pop_back();
        const double total = open.push->cpuElapsedUs(e);
        OpTime& t = by_name[open.push->name()];
        t.name = open.push->name();
        t.self_ms += (total - open.children_us) / 1000;
        ++t.calls;
        if (!stack.empty()) stack.back().children_us += total;
      }
    }
  }
  std::vector<OpTime> out;
  for (auto& [name, t] : by_name) out.push_back(t);
  std::sort(out.begin(), out.end(), [](const OpTime& a, const OpTime& b) { return a.self_ms > b.self_ms; });
  return out;
}

}  // namespace flashnerd::train
