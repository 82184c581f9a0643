#include "eval/recorded_frames.h"

#include <algorithm>

#include "core/contact_row.h"
#include "core/error.h"

namespace flashnerd::eval {

namespace {

int checked_probes(const StepModel& model, const Dataset& data) {
  const int K = model.contact_capacity();
  FN_CHECK(K == 0 || data.contact_capacity == K, "the model reads ", K, " contact rows per frame but the dataset "
           "records ", data.contact_capacity, "; regenerate it recording ", K, " contact rows per frame");
  const int probe_count = model.probe_dim() / kProbeFeatureDim;
  FN_CHECK(probe_count == 0 || data.probe_count == probe_count, "the model reads ", probe_count,
           " fixed probes but the dataset records ", data.probe_count);
  return probe_count;
}

}  // namespace

RecordedFrames::RecordedFrames(const StepModel& model, const Dataset& data, int batch)
    : data_(data),
      codec_(data.layout),
      capacity_(model.contact_capacity()),
      probe_count_(checked_probes(model, data)),
      input_dim_(model.input_dim()),
      batch_(std::max(1, batch)),
      features_(codec_, probe_count_),
      inputs_(size_t(batch_) * size_t(input_dim_)),
      rows_(size_t(batch_) * size_t(std::max(1, capacity_)) * kContactRowDim),
      counts_(static_cast<size_t>(batch_)),
      links_(size_t(batch_) * size_t(std::max(1, capacity_))),
      contacts_{rows_.data(), links_.data(), counts_.data()} {}

void RecordedFrames::load(const std::vector<int64_t>& trajectories, size_t first, int b, int64_t t,
                          std::vector<uint8_t>& alive) {
  const int K = capacity_;
  for (int e = 0; e < b; ++e) {
    const int64_t n = trajectories[first + size_t(e)];
    alive[size_t(e)] &= data_.is_valid(n, t);
    features_.input(data_.q(n, t), data_.v(n, t), data_.a(n, t), data_.u(n, t),
                    probe_count_ ? data_.probe(n, t) : nullptr, inputs_.data() + size_t(e) * size_t(input_dim_));
    if (K == 0) continue;
    const int64_t f = n * data_.frames() + t;
    counts_[size_t(e)] = data_.contact_count[size_t(f)];
    std::copy_n(&data_.contact_rows[size_t(f * K * kContactRowDim)], size_t(K) * kContactRowDim,
                &rows_[size_t(e) * size_t(K) * kContactRowDim]);
    std::copy_n(&data_.contact_link[size_t(f * K)], size_t(K), &links_[size_t(e) * size_t(K)]);
  }
}

}  // namespace flashnerd::eval
