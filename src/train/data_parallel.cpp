#include "train/data_parallel.h"

#include <torch/torch.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace flashnerd::train {

namespace {

int env_int(const char* name, int fallback, int lo, int hi) {
  const char* s = std::getenv(name);
  if (s == nullptr || *s == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s, &end, 10);
  FN_CHECK(errno == 0 && *end == '\0' && v >= lo && v <= hi, "environment variable ", name, "='", s,
           "' is not an integer in [", lo, ", ", hi, "]");
  return int(v);
}

std::string progress_key(int rank) { return str_cat("flashnerd/finished_update/", rank); }

// Parameters (or their gradients; an unused parameter's is zero) as one flat fp32 buffer with
// `extra` free slots at its end, reallocated only when the size changes.
void pack(const std::vector<at::Tensor>& params, bool gradients, int64_t extra, at::Tensor& flat) {
  int64_t n = extra;
  for (const auto& p : params) n += p.numel();
  if (!flat.defined() || flat.numel() != n) flat = torch::empty({n}, torch::kFloat);
  int64_t offset = 0;
  for (const auto& p : params) {
    auto slot = flat.narrow(0, offset, p.numel());
    const at::Tensor& source = gradients ? p.grad() : p;
    if (source.defined()) {
      slot.copy_(source.reshape({-1}));
    } else {
      slot.zero_();
    }
    offset += p.numel();
  }
}

void unpack(const at::Tensor& flat, const std::vector<at::Tensor>& params, bool gradients) {
  int64_t offset = 0;
  for (const auto& p : params) {
    auto slot = flat.narrow(0, offset, p.numel()).view(p.sizes());
    if (gradients) {
      auto& g = const_cast<at::Tensor&>(p).mutable_grad();
      if (!g.defined()) g = torch::zeros_like(p);
      g.copy_(slot);
    } else {
      const_cast<at::Tensor&>(p).copy_(slot);
    }
    offset += p.numel();
  }
}

}  // namespace

DistributedConfig distributed_from_environment() {
  DistributedConfig c;
  const bool has_rank = std::getenv("RANK") != nullptr, has_world = std::getenv("WORLD_SIZE") != nullptr;
  FN_CHECK(has_rank == has_world, "set both RANK and WORLD_SIZE for a data-parallel run (only ",
           has_rank ? "RANK" : "WORLD_SIZE", " is set), or neither for one process");
  if (!has_rank) return c;
  c.world_size = env_int("WORLD_SIZE", 1, 1, 4096);
  c.rank = env_int("RANK", 0, 0, c.world_size - 1);
  if (const char* a = std::getenv("MASTER_ADDR"); a != nullptr && *a != '\0') c.master_addr = a;
  c.master_port = env_int("MASTER_PORT", c.master_port, 1, 65535);
  c.timeout_seconds = env_int("FLASHNERD_WORKER_TIMEOUT", int(c.timeout_seconds), 1, 86400);
  return c;
}

struct DataParallel::Impl {
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  at::Tensor flat;  // the gradient buffer, allocated once
};

DataParallel::DataParallel(const DistributedConfig& config) : config_(config) {
  FN_CHECK(config.world_size >= 1 && config.rank >= 0 && config.rank < config.world_size, "rank ", config.rank,
           " is outside a world of ", config.world_size);
  if (!distributed()) return;
  impl_ = std::make_unique<Impl>();
  const auto timeout = std::chrono::milliseconds(int64_t(config.timeout_seconds * 1000));
  try {
    c10d::TCPStoreOptions so;
    so.port = uint16_t(config.master_port);
    so.isServer = is_root();
    so.numWorkers = config.world_size;
    so.waitWorkers = true;
    so.timeout = timeout;
    impl_->store = c10::make_intrusive<c10d::TCPStore>(config.master_addr, so);
    auto options = c10d::ProcessGroupGloo::Options::create();
    options->timeout = timeout;
    // GLOO_SOCKET_IFNAME picks the network interface(s), as in PyTorch; else loopback for a
    // store on this machine, or the address this host's name resolves to
    if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname != nullptr && *ifname != '\0') {
      std::string names = ifname;
      for (size_t start = 0; start <= names.size();) {
        const size_t end = std::min(names.find(',', start), names.size());
        if (end > start)
          options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(names.substr(start, end - start)));
        start = end + 1;
      }
    } else if (config.master_addr.rfind("127.", 0) == 0 || config.master_addr == "localhost") {
      // one machine: loopback, whatever this host's name resolves to
      options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    impl_->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl_->store, config.rank, config.world_size, options);
  } catch (const std::exception& e) {
    throw Error(str_cat("rank ", config.rank, " of ", config.world_size, ": no rendezvous with the other workers at ",
                        config.master_addr, ":", config.master_port, " within ", config.timeout_seconds,
                        " s (is every rank started, with the same MASTER_ADDR and MASTER_PORT, and is the port "
                        "free and reachable?): ", e.what()));
  }
}

DataParallel::~DataParallel() = default;

void DataParallel::fail(const char* what, const std::exception& e) {
  std::string behind;
  try {  // which ranks have not finished the update this rank is in
    for (int r = 0; r < config_.world_size; ++r) {
      if (r == config_.rank) continue;
      const std::string key = progress_key(r);
      int64_t done = 0;
      if (impl_->store->check({key})) {
        const auto bytes = impl_->store->get(key);
        done = std::stoll(std::string(bytes.begin(), bytes.end()));
      }
      if (done < last_update_ + 1)
        behind += str_cat(behind.empty() ? "" : ", ", "rank ", r, " (last finished update ", done, ")");
    }
  } catch (const std::exception&) {
    // The store's server runs in rank 0 and serves one request at a time: when rank 0's own
    // query fails, a peer stopped halfway through a request is holding it (with two ranks,
    // the other one); anywhere else, rank 0 is gone or stuck.
    if (!is_root())
      behind = "rank 0 (it holds the store, which no longer answers)";
    else if (config_.world_size == 2)
      behind = "rank 1 (it stopped halfway through a request to the store this rank holds)";
    else
      behind = "a rank stopped halfway through a request to the store this rank holds";
  }
  // Abandon the group and the store, never tear them down: their destructors join threads
  // that may wait forever on a dead or stopped peer (the store's server, for one, blocks on a
  // peer stopped halfway through a request), and this rank must end, not hang.
  static_cast<void>(impl_->group.release());
  static_cast<void>(impl_->store.release());
  throw Error(str_cat("rank ", config_.rank, " of ", config_.world_size, ": ", what, " of update ", last_update_ + 1,
                      " failed or timed out (", config_.timeout_seconds, " s)",
                      behind.empty() ? std::string() : str_cat("; not done with it: ", behind), ": ", e.what()));
}

void DataParallel::sum(std::vector<double>& values, const char* what) {
  if (!distributed() || values.empty()) return;
  try {
    std::vector<at::Tensor> t{torch::from_blob(values.data(), {int64_t(values.size())}, torch::kDouble)};
    impl_->group->allreduce(t)->wait();
  } catch (const std::exception& e) {
    fail(what, e);
  }
}

void DataParallel::broadcast_bytes(std::string& bytes, const char* what) {
  if (!distributed()) return;
  try {
    std::vector<at::Tensor> size{torch::full({1}, int64_t(bytes.size()), torch::kLong)};
    impl_->group->broadcast(size)->wait();
    bytes.resize(size_t(size[0].item<int64_t>()));
    if (bytes.empty()) return;
    std::vector<at::Tensor> data{torch::from_blob(bytes.data(), {int64_t(bytes.size())}, torch::kUInt8)};
    impl_->group->broadcast(data)->wait();
  } catch (const std::exception& e) {
    fail(what, e);
  }
}

void DataParallel::broadcast_parameters(const std::vector<at::Tensor>& params) {
  if (!distributed()) return;
  torch::NoGradGuard no_grad;
  try {
    pack(params, false, 0, impl_->flat);
    std::vector<at::Tensor> t{impl_->flat};
    impl_->group->broadcast(t)->wait();
    unpack(impl_->flat, params, false);
  } catch (const std::exception& e) {
    fail("the broadcast of the initial parameters", e);
  }
}

void DataParallel::sum_gradients(const std::vector<at::Tensor>& params, std::vector<double>& values,
                                 const std::function<double(const std::vector<double>&)>& scale) {
  if (!distributed()) return;
  torch::NoGradGuard no_grad;
  try {
    const auto extra = int64_t(values.size());
    pack(params, true, extra, impl_->flat);
    float* tail = impl_->flat.data_ptr<float>() + (impl_->flat.numel() - extra);
    for (int64_t i = 0; i < extra; ++i) tail[i] = float(values[size_t(i)]);
    std::vector<at::Tensor> t{impl_->flat};
    impl_->group->allreduce(t)->wait();
    for (int64_t i = 0; i < extra; ++i) values[size_t(i)] = tail[i];
    impl_->flat.mul_(scale(values));
    unpack(impl_->flat, params, true);
  } catch (const std::exception& e) {
    fail("the gradient all-reduce", e);
  }
}

void DataParallel::finished_update(int64_t update) {
  last_update_ = update;
  if (!distributed()) return;
  try {
    const std::string s = std::to_string(update);
    impl_->store->set(progress_key(config_.rank), std::vector<uint8_t>(s.begin(), s.end()));
  } catch (const std::exception& e) {
    fail("publishing progress", e);
  }
}

}  // namespace flashnerd::train
