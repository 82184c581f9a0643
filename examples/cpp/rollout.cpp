// Loads a trained FlashNeRD / NeRD artifact and rolls it out in state terms: the robot's
// (q, v) and a command go in, the next (q, v) comes out; FlashNeRD's frame features and state
// codec do the conversion around the engine. Prints one line per step.
//
// Build against an installed FlashNeRD (cmake --install): with CMake (CMakeLists.txt here) or
//   g++ rollout.cpp $(pkg-config --cflags --libs flashnerd) -o rollout
// Usage: rollout MODEL_DIR [STEPS]   (a model without probes, e.g. the demo's cartpole)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <vector>

#include "core/frame_features.h"
#include "core/state_codec.h"
#include "engine/engine.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL_DIR [STEPS]\n", argv[0]);
    return 2;
  }
  const int steps = argc > 2 ? std::atoi(argv[2]) : 100;
  try {
    auto model = flashnerd::engine::Model::load(argv[1]);  // immutable: share it between threads
    const flashnerd::ModelConfig& c = model->config();
    flashnerd::engine::Context ctx(*model, flashnerd::engine::ContextOptions{});  // one env's history
    const flashnerd::StateCodec codec(c.layout);
    const flashnerd::FrameFeatures features(codec, c.probe_dim / flashnerd::kProbeFeatureDim);
    if (features.probe_dim() > 0) throw std::runtime_error("this example steps models without probes");
    std::vector<double> q(size_t(c.layout.nq), 0.0), v(size_t(c.layout.nv), 0.0), u(size_t(c.layout.nu), 0.0);
    std::vector<double> q1 = q, v1 = v, increment(size_t(c.output_dim));
    std::vector<float> in(size_t(c.input_dim)), out(size_t(c.output_dim));
    for (int t = 0; t < steps; ++t) {
      for (double& x : u) x = 0.5 * std::sin(0.1 * t);
      features.input(q.data(), v.data(), u.data(), nullptr, in.data());
      flashnerd::engine::step(*model, ctx, 1, in.data(), out.data());
      for (size_t i = 0; i < out.size(); ++i) increment[i] = out[i];
      codec.apply(q.data(), v.data(), increment.data(), q1.data(), v1.data());
      q.swap(q1);
      v.swap(v1);
      std::printf("%d", t + 1);
      for (double x : q) std::printf(" %.17g", x);
      std::printf("\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rollout: %s\n", e.what());
    return 1;
  }
  return 0;
}
