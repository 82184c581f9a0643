#include "env/start_buffer.h"

#include <algorithm>

#include "core/error.h"

namespace flashnerd::env {

StartBuffer::StartBuffer(int frames, int nq, int nv, int nu, int capacity)
    : frames_(frames), nq_(nq), nv_(nv), nu_(nu), capacity_(capacity) {
  FN_CHECK(frames >= 0 && nq > 0 && nv > 0 && nu >= 0 && capacity >= 1, "start buffer: frames ", frames, ", nq ", nq,
           ", nv ", nv, ", nu ", nu, ", capacity ", capacity, " (frames >= 0, capacity >= 1)");
  const size_t slots = size_t(capacity), states = size_t(frames) + 1;
  used_.assign(slots, 0);
  q_.assign(slots * states * size_t(nq), 0.0);
  v_.assign(slots * states * size_t(nv), 0.0);
  u_.assign(slots * size_t(frames) * size_t(nu), 0.0);
}

void StartBuffer::add(int frames, const double* q, const double* v, const double* u) {
  FN_CHECK(frames >= 0 && frames <= frames_, "start buffer: a start of ", frames, " recorded steps; it holds up to ",
           frames_);
  const size_t slot = size_t(next_), states = size_t(frames_) + 1;
  used_[slot] = frames;
  std::copy_n(q, size_t(frames + 1) * size_t(nq_), q_.begin() + long(slot * states * size_t(nq_)));
  std::copy_n(v, size_t(frames + 1) * size_t(nv_), v_.begin() + long(slot * states * size_t(nv_)));
  std::copy_n(u, size_t(frames) * size_t(nu_), u_.begin() + long(slot * size_t(frames_) * size_t(nu_)));
  next_ = (next_ + 1) % capacity_;
  size_ = std::min(size_ + 1, capacity_);
  ++added_;
}

StartBuffer::Start StartBuffer::get(int index) const {
  FN_CHECK(index >= 0 && index < size_, "start buffer: start ", index, " of ", size_);
  const size_t slot = size_t(index), states = size_t(frames_) + 1;
  return {used_[slot], q_.data() + slot * states * size_t(nq_), v_.data() + slot * states * size_t(nv_),
          u_.data() + slot * size_t(frames_) * size_t(nu_)};
}

StartBuffer::Start StartBuffer::draw(Rng& rng) const {
  FN_CHECK(size_ > 0, "start buffer: no start to draw from");
  return get(int(rng.below(uint64_t(size_))));
}

void StartBuffer::io_state(StateIo& io) {
  int shape[5] = {frames_, nq_, nv_, nu_, capacity_};
  for (int& s : shape) io.io(s);
  FN_CHECK(shape[0] == frames_ && shape[1] == nq_ && shape[2] == nv_ && shape[3] == nu_ && shape[4] == capacity_,
           "start buffer: the saved buffer holds starts of ", shape[0], " frames (nq ", shape[1], ", nv ", shape[2],
           ", nu ", shape[3], ", capacity ", shape[4], "), this one of ", frames_, " (nq ", nq_, ", nv ", nv_, ", nu ",
           nu_, ", capacity ", capacity_, ")");
  io.io(size_);
  io.io(next_);
  io.io(added_);
  io.io(used_);
  io.io(q_);
  io.io(v_);
  io.io(u_);
}

}  // namespace flashnerd::env
