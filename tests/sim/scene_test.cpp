// Per-trajectory scenes: the platform each trajectory was generated with can be rebuilt from
// (seed, n) alone, so probes recomputed at the recorded states equal the recorded probes bit
// for bit; different trajectories get different platforms.
#include "sim/scene.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/dataset.h"
#include "sim/generator.h"
#include "sim/probe_features.h"

namespace flashnerd::sim {
namespace {

TEST(Scene, RecordedProbesAreReproducibleFromSeedAndTrajectory) {
  auto robot = Robot::load("quadruped_platform");
  ASSERT_TRUE(randomizes_scene(*robot));
  GenerateOptions o;
  o.trajectories = 4;
  o.steps = 10;
  o.seed = 21;
  o.progress = false;
  ThreadPool pool(2);
  Dataset d = generate_dataset(*robot, o, pool);
  ASSERT_GT(d.probe_count, 0);
  mjModel* m = robot->copy_model();
  mjData* md = mj_makeData(m);
  const int g = mj_name2id(m, mjOBJ_GEOM, robot->spec().platform->geom.c_str());
  std::vector<double> heights;
  std::vector<float> probes(static_cast<size_t>(d.probe_count) * kProbeFeatureDim);
  for (int64_t n = 0; n < d.trajectories; ++n) {
    apply_trajectory_scene(*robot, m, d.seed, n);
    heights.push_back(2 * m->geom_size[3 * g + 2]);
    EXPECT_GE(heights.back(), robot->spec().platform->height[0]);
    EXPECT_LE(heights.back(), robot->spec().platform->height[1]);
    for (int64_t t = 0; t <= d.steps; ++t) {
      std::memcpy(md->qpos, d.q(n, t), sizeof(double) * size_t(d.layout.nq));
      mj_kinematics(m, md);
      build_probe_features(*robot, m, md, robot->probes(), robot->spec().probe_threshold, probes.data());
      const float* recorded = d.probe(n, t);
      for (size_t i = 0; i < probes.size(); ++i) ASSERT_EQ(probes[i], recorded[i]) << "n=" << n << " t=" << t;
    }
  }
  EXPECT_NE(heights[0], heights[1]);
  mj_deleteData(md);
  mj_deleteModel(m);
}

}  // namespace
}  // namespace flashnerd::sim
