// Task tapes: a task's recorded episodes on a backend, replayed to another task with no physics.
// A tape holds what the backend held after every physics step and after every reset, the
// commands it was given, and what the task made of it (observations, reward terms, rewards,
// ends). ReplayBackend hands the recorded states to the task under test and checks the commands
// and reset states it is given, so two tasks compare bit for bit on task code alone, and the
// task a tape was recorded from need not exist any more (tests/data/task_tapes/README.md).
#pragma once

#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/blob.h"
#include "core/error.h"
#include "env/backend.h"
#include "env/task.h"
#include "env/vec_env.h"

namespace flashnerd::testing {

// What a backend lets a task read of one environment, in one row: q, v, objects' q and v, probe
// clearances and positions, tracked body poses, and the failed flag (as a double).
inline int tape_row_width(const env::Backend& b) {
  return b.nq() + b.nv() + b.object_nq() + b.object_nv() + 4 * b.probe_count() + 7 * b.tracked_body_count() + 1;
}

inline void read_tape_row(const env::Backend& b, int e, double* row) {
  row = std::copy_n(b.q(e), b.nq(), row);
  row = std::copy_n(b.v(e), b.nv(), row);
  row = std::copy_n(b.object_q(e), b.object_nq(), row);
  row = std::copy_n(b.object_v(e), b.object_nv(), row);
  row = std::copy_n(b.probe_clearance(e), b.probe_count(), row);
  row = std::copy_n(b.probe_position(e), 3 * b.probe_count(), row);
  for (int k = 0; k < b.tracked_body_count(); ++k) row = std::copy_n(b.body_pose(e, k), 7, row);
  *row = b.failed(e) ? 1.0 : 0.0;
}

struct TaskTape {
  // The recorded task and run: name, source, seeds, sizes, reward and observation terms (JSON).
  nlohmann::json header;
  int envs = 0, steps = 0, row = 0, obs = 0, act = 0, nu = 0, terms = 0;
  int control_steps = 1;               // backend steps per task step: the last one's rows are kept
  std::vector<double> physics;         // (steps, envs, row): after each step's physics
  std::vector<int> reset_slot;         // (steps + 1, envs): a reset's row in `resets`, or -1
  std::vector<double> resets;          // (resets, row): after each reset, in phase order
  std::vector<float> actions;          // (steps, envs, act)
  std::vector<double> commands;        // (steps, envs, nu)
  std::vector<double> term_values;     // (steps, envs, terms)
  std::vector<float> rewards;          // (steps, envs)
  std::vector<uint8_t> terminated, timed_out;           // (steps, envs)
  std::vector<float> observations;     // (steps + 1, envs, obs): the first, then after each step
  std::vector<float> final_observations;  // (episodes ended, obs): in step and env order

  void io(StateIo& io, bool loading) {
    std::string text = loading ? std::string() : header.dump();
    io.io(text);
    if (loading) {
      header = nlohmann::json::parse(text);
      envs = header.at("envs"), steps = header.at("steps"), row = header.at("row"), obs = header.at("obs");
      act = header.at("act"), nu = header.at("nu"), terms = int(header.at("reward_terms").size());
      control_steps = header.at("control_steps");
      const size_t se = size_t(steps) * size_t(envs);
      physics.resize(se * size_t(row));
      reset_slot.resize(se + size_t(envs));
      actions.resize(se * size_t(act));
      commands.resize(se * size_t(nu));
      term_values.resize(se * size_t(terms));
      rewards.resize(se);
      terminated.resize(se);
      timed_out.resize(se);
      observations.resize((se + size_t(envs)) * size_t(obs));
      uint64_t count = 0, ended = 0;
      io.io(count);
      io.io(ended);
      resets.resize(size_t(count) * size_t(row));
      final_observations.resize(size_t(ended) * size_t(obs));
    } else {
      uint64_t count = resets.size() / size_t(row), ended = final_observations.size() / size_t(obs);
      io.io(count);
      io.io(ended);
    }
    io.io(resets);
    io.io(physics);
    io.io(reset_slot);
    io.io(actions);
    io.io(commands);
    io.io(term_values);
    io.io(rewards);
    io.io(terminated);
    io.io(timed_out);
    io.io(observations);
    io.io(final_observations);
  }

  void save(const std::string& path) {
    BlobWriter w;
    StateIo io(w);
    this->io(io, false);
    std::ofstream(path, std::ios::binary) << w.bytes();
  }

  static TaskTape load(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    FN_CHECK(f.good(), path, ": no such tape");
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    BlobReader r(bytes, path);
    StateIo io(r);
    TaskTape tape;
    tape.io(io, true);
    r.expect_end();
    return tape;
  }

  const double* physics_row(int step, int env) const {
    return physics.data() + (size_t(step) * size_t(envs) + size_t(env)) * size_t(row);
  }
  // The row env reset to at `phase` (0: the first reset, s + 1: inside step s), or nullptr.
  const double* reset_row(int phase, int env) const {
    const int slot = reset_slot[size_t(phase) * size_t(envs) + size_t(env)];
    return slot < 0 ? nullptr : resets.data() + size_t(slot) * size_t(row);
  }
};

// Plays a tape's states to a task. Each step's commands and each reset's robot and object
// states are checked against the tape (the first difference per environment is kept, as a
// message). Within a task step of several backend steps, only the last one moves the state:
// tasks read it after the last.
class ReplayBackend : public env::Backend {
 public:
  ReplayBackend(std::shared_ptr<const sim::Robot> robot, const TaskTape& tape, ThreadPool& pool)
      : Backend(std::move(robot), tape.envs, pool), tape_(&tape), mismatch_(size_t(tape.envs)) {
    allocate_objects();
  }

  std::string kind() const override { return "replay"; }
  // The first difference between what the task gave and what the tape holds, per env ("" if none).
  const std::vector<std::string>& mismatches() const { return mismatch_; }

  void reset(int env, const double* q, const double* v) override {
    put_state(env, q, v, "replay reset");
    const double* r = tape_->reset_row(phase_, env);
    if (r == nullptr) return note(env, "a reset the tape does not have");
    if (!std::equal(q, q + nq_, r) || !std::equal(v, v + nv_, r + nq_)) note(env, "another reset state");
    load_row(env, r);
  }
  void set_objects(int env, const double* q, const double* v) override {
    const double* r = tape_->reset_row(phase_, env);
    if (r != nullptr && (!std::equal(q, q + onq_, r + nq_ + nv_) || !std::equal(v, v + onv_, r + nq_ + nv_ + onq_)))
      note(env, "another object state");
    Backend::set_objects(env, q, v);
  }
  void set_state(int, const double*, const double*) override { throw Error("a replay does not set states"); }
  void step_first(const double* u, int count) override {
    FN_CHECK(count == envs_ && phase_ < tape_->steps, "replay: a step the tape does not have");
    for (int e = 0; e < envs_; ++e) {
      const double* recorded = tape_->commands.data() + (size_t(phase_) * size_t(envs_) + size_t(e)) * size_t(nu_);
      if (!std::equal(u + size_t(e) * size_t(nu_), u + size_t(e + 1) * size_t(nu_), recorded))
        note(e, "other commands");
    }
    if (++call_ < tape_->control_steps) return;
    for (int e = 0; e < envs_; ++e) load_row(e, tape_->physics_row(phase_, e));
    call_ = 0;
    ++phase_;
  }
  void copy_env(int, int) override { throw Error("a replay does not copy environments"); }
  std::string save_state() const override { throw Error("a replay has no state to save"); }
  void load_state(const std::string&) override { throw Error("a replay has no state to load"); }

 private:
  void note(int env, const std::string& what) {
    if (mismatch_[size_t(env)].empty())
      mismatch_[size_t(env)] = what + " at phase " + std::to_string(phase_);
  }
  void load_row(int e, const double* r) {
    FN_CHECK(tape_row_width(*this) == tape_->row, "replay: the tape's rows are ", tape_->row,
             " values wide, this robot and task read ", tape_row_width(*this));
    r = copy_to(r, nq_, q_, e);
    r = copy_to(r, nv_, v_, e);
    r = copy_to(r, onq_, oq_, e);
    r = copy_to(r, onv_, ov_, e);
    r = copy_to(r, probe_count_, clearance_, e);
    r = copy_to(r, 3 * probe_count_, probe_position_, e);
    r = copy_to(r, 7 * int(tracked_bodies_.size()), body_pose_, e);
    failed_[size_t(e)] = *r != 0 ? 1 : 0;
  }
  static const double* copy_to(const double* r, int width, std::vector<double>& a, int e) {
    std::copy_n(r, width, a.begin() + long(e) * width);
    return r + width;
  }

  const TaskTape* tape_;
  int phase_ = 0, call_ = 0;  // task steps replayed; backend steps into the current one
  std::vector<std::string> mismatch_;
};

}  // namespace flashnerd::testing
