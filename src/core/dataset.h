// Datasets of task-independent transitions (docs/DATASET.md), stored in HDF5 and held in
// memory as flat arrays. N trajectories of T transitions: states at frames 0..T, commands
// and validity at transitions 0..T-1. Invalid transitions are masked, never cut out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/contact_row.h"
#include "core/state_layout.h"

namespace flashnerd {

constexpr int kDatasetSchemaVersion = 1;

struct Dataset {
  // identity and provenance (HDF5 attributes)
  std::string robot;
  std::string mjcf_hash;
  std::string actuator_model;
  double timestep = 0;
  uint64_t seed = 0;
  nlohmann::json generator = nlohmann::json::object();  // sampler and contact settings
  StateLayout layout;

  int64_t trajectories = 0;  // N
  int64_t steps = 0;         // T transitions per trajectory
  std::vector<double> qpos;  // (N, T+1, nq)
  std::vector<double> qvel;  // (N, T+1, nv)
  std::vector<double> act;   // (N, T+1, na) actuator activations; empty when na = 0 (HDF5 'act' absent)
  std::vector<double> ctrl;  // (N, T, nu)
  std::vector<uint8_t> valid;  // (N, T) 1 = transition t -> t+1 is usable

  int probe_count = 0;          // P fixed probes (0 = none recorded)
  std::vector<float> probes;    // (N, T+1, P, kProbeFeatureDim)

  int contact_capacity = 0;           // K rows (0 = not recorded)
  std::vector<float> contact_rows;    // (N, T+1, K, kContactRowDim), zero padding
  std::vector<int32_t> contact_link;  // (N, T+1, K) robot link index, -1 for padding
  std::vector<int32_t> contact_count; // (N, T+1) valid rows
  std::vector<int32_t> contact_overflow;  // (N, T+1) rows dropped beyond K
  int link_count = 0;                 // robot links (size of the learned link embedding)

  std::vector<double> free_dv;  // (N, T, nv) pre-constraint velocity increment, optional

  int64_t frames() const { return steps + 1; }
  const double* q(int64_t n, int64_t t) const { return qpos.data() + (n * frames() + t) * layout.nq; }
  const double* v(int64_t n, int64_t t) const { return qvel.data() + (n * frames() + t) * layout.nv; }
  // activations of frame t, or nullptr when the layout has none (na = 0)
  const double* a(int64_t n, int64_t t) const {
    return layout.na > 0 ? act.data() + (n * frames() + t) * layout.na : nullptr;
  }
  const double* u(int64_t n, int64_t t) const { return ctrl.data() + (n * steps + t) * layout.nu; }
  const float* probe(int64_t n, int64_t t) const {
    return probes.data() + (n * frames() + t) * probe_count * kProbeFeatureDim;
  }
  bool is_valid(int64_t n, int64_t t) const { return valid[size_t(n * steps + t)] != 0; }

  // Bytes allocate(n, t, with_free_dv) would take, from the layout, P and K already set.
  double allocation_bytes(int64_t n, int64_t t, bool with_free_dv) const;
  // Allocates every array for N x T (probes/contacts/free_dv when their sizes are set).
  void allocate(int64_t n, int64_t t, bool with_free_dv);
  // Throws flashnerd::Error naming the array whose size does not match.
  void validate() const;
};

// Throws unless every frame's contact/count is in [0, K], every valid row's contact/link is in
// [0, link_count) and contact/overflow is >= 0; names `origin` (the file), the trajectory, the
// step and the fix. Corrupt counts would otherwise index past the rows (load_dataset calls it).
void check_contact_arrays(const Dataset& d, const std::string& origin);

// Throws unless every transition marked valid has finite qpos, qvel, act (both frames) and ctrl;
// names `origin`, the trajectory, the step and the array (load_dataset calls it).
void check_valid_transitions_finite(const Dataset& d, const std::string& origin);

// Writes atomically (temporary name, then rename). Throws with the path on failure.
void save_dataset(const std::string& path, const Dataset& d);
// Reads and validates; throws naming the file and the problem (missing, wrong schema...).
Dataset load_dataset(const std::string& path);
// Throws unless the dataset was made for a robot with this name and layout.
void check_dataset_robot(const Dataset& d, const std::string& robot, const StateLayout& layout,
                         const std::string& what);

}  // namespace flashnerd
