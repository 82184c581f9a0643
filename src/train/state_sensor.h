// What the simulator senses at a state the model predicted (or a perturbed one): fixed-probe
// features and contact rows, in the scene of the dataset trajectory the state belongs to.
// The train floor has no MuJoCo: the layer that owns both (the CLI) implements this with the
// same detector that eval and the environments use, and hands it to the trainer.
#pragma once

#include <cstdint>

namespace flashnerd::train {

class StateSensor {
 public:
  virtual ~StateSensor() = default;
  // State (q, v) of dataset trajectory `trajectory`. probes: probe_dim floats to fill, or null
  // when the model reads none. rows (capacity × kContactRowDim) and links (capacity): raw
  // contact rows, when capacity > 0. Returns the number of rows written (0 without contacts).
  virtual int sense(int64_t trajectory, const double* q, const double* v, float* probes, int capacity, float* rows,
                    int32_t* links) = 0;
};

}  // namespace flashnerd::train
