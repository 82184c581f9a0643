// Generation that survives a kill: a run of N trajectories is made in blocks, each block a
// shard i/n of the run (sim/generator.h), saved under "<out>.parts/" as soon as it is done.
// A rerun with `resume` keeps the finished blocks and makes the rest; the blocks then merge
// into the file one uninterrupted run writes, byte for byte (core/dataset_merge.h), and the
// parts are removed. A run of one block, a shard and a replayed plan are made at once.
#pragma once

#include <string>

#include "sim/generator.h"

namespace flashnerd::sim {

struct ResumableOptions {
  std::string out;                   // the dataset file; its blocks go to out + ".parts/"
  int64_t block_trajectories = 2048; // trajectories per block
  bool resume = false;               // keep the finished blocks of an interrupted run
  bool progress = true;
};

std::string parts_directory(const std::string& out);

// Generates (or finishes) the run and returns the whole dataset; throws when blocks of an
// interrupted run exist and `resume` is off, or when they belong to another run (naming
// the setting that differs).
Dataset generate_resumable(const Robot& robot, const GenerateOptions& options, ThreadPool& pool,
                           const ResumableOptions& r, GenerateSummary* summary);

}  // namespace flashnerd::sim
