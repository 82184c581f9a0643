// Runs an action when a scope ends: the guard that a function hands back after it changed
// something process- or thread-wide (a thread count, an autocast mode), so the caller's
// scope restores it on every path out, exceptions included.
#pragma once

#include <functional>
#include <utility>

namespace flashnerd {

class [[nodiscard]] ScopeExit {
 public:
  ScopeExit() = default;  // nothing to do
  explicit ScopeExit(std::function<void()> action) : action_(std::move(action)) {}
  ScopeExit(ScopeExit&& other) noexcept : action_(std::exchange(other.action_, nullptr)) {}
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;
  ScopeExit& operator=(ScopeExit&&) = delete;
  ~ScopeExit() {
    if (action_) action_();
  }

 private:
  std::function<void()> action_;
};

}  // namespace flashnerd
