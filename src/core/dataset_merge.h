// Shards of one generation run (flashnerd gen --shard i/n, on as many machines as there are
// shards) joined into the dataset a single run would have written: same arrays, same
// provenance, and, saved, the same bytes. And datasets of different runs of one robot (random
// and on-policy data, for a finetune) concatenated into one, and a rolling window of the
// newest trajectories.
#pragma once

#include <string>
#include <vector>

#include "core/dataset.h"

namespace flashnerd {

// Every shard 0..n-1 of one run exactly once, in any order; `names` (file names, for messages)
// parallel to `shards`. Throws naming the file and the difference when a shard is missing,
// repeated, or from another run (robot, MJCF, seed, steps, settings).
Dataset merge_shards(std::vector<Dataset> shards, const std::vector<std::string>& names);

// The trajectories of every part, in the given order. The parts must record the same robot
// (name, MJCF, layout, actuators), timestep, steps per trajectory, probes, contact capacity and
// free dynamics; throws naming the file and the difference. The generator block lists the
// parts' own (file, seed, generator); the seed is the first part's.
Dataset concat_datasets(std::vector<Dataset> parts, const std::vector<std::string>& names);

// Appends `newer`'s trajectories to `d`'s (the same recording; throws naming the difference),
// then lets the oldest go until at most `keep` remain. `d` may be empty (no trajectories yet):
// it then becomes `newer`. The generator block stays `d`'s first one.
void append_keeping_newest(Dataset& d, Dataset newer, int64_t keep);

}  // namespace flashnerd
