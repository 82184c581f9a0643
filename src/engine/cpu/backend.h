// The CPU backend's tile functions. A tile is a contiguous range of environments
// [env0, env1) of the context's current job, processed start to finish by one worker with its
// own scratch (engine_impl.h).
#pragma once

#include "engine/engine_impl.h"

namespace flashnerd::engine::cpu {

// Process environments [env0, env1) of the context's current job.
void flash_tile(const Model& model, CpuContext& ctx, Scratch& s, int env0, int env1);
void nerd_tile(const Model& model, CpuContext& ctx, Scratch& s, int env0, int env1);
// Contact encoder and gates of environments [env0, env1): fills s.cg; G_e at column 0, G_r
// at 2d, G_Δ at 2d + 2r (exact zeros for an environment without rows).
void contact_tile(const Model& model, CpuContext& ctx, Scratch& s, int env0, int env1);
// Shared head of both tiles: frame x (input_dim) of environment env from the job, normalized
// unless the job's inputs already are; returns false when a feature is not finite.
bool normalize_frame(const Model& model, const Job& job, int env, float* x);
// Shared tail of both tiles: de-normalize the standardized increments s.o into the job's
// outputs, flag environments with a non-finite result, count the frame in every history.
void finish_tile(const Model& model, CpuContext& ctx, const Scratch& s, int env0, int env1);

}  // namespace flashnerd::engine::cpu
