// Reference forward passes, written for obviousness, not speed: double arithmetic straight
// from the stored tensors (Model::tensor, not the packed kernel layout), whole sequences at
// once as in training. The streaming engine, and the libtorch models, are checked against
// these (tests/engine). engine.h states the formulas.
#pragma once

#include <vector>

#include "engine/engine.h"

namespace flashnerd::engine {

// inputs (T, input_dim), frames 0..T−1 of one history (raw, or x̂ when normalized). Returns
// (T, output_dim): at t the raw increment predicted from frames 0..t (FlashNeRD: banded
// causal attention of each block's span over the sequence; NeRD: its window of the last
// min(t+1, W) frames at positions 0..n−1). A model with variable contacts takes each frame's
// rows: contacts->rows (T, K, kContactRowDim), link (T, K), count (T).
std::vector<double> reference_forward(const Model& model, const float* inputs, int T,
                                      bool normalized = false, const ContactBatch* contacts = nullptr);

}  // namespace flashnerd::engine
