// libtorch's thread and allocator settings for this project, applied once per process
// (training and PPO): one intra-op and one inter-op thread, since two pools on two cores
// fight, and heap settings that keep libtorch's large buffers from being mmapped anew.
#pragma once

namespace flashnerd::train {

void configure_threads();

}  // namespace flashnerd::train
