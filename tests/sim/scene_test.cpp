// Per-trajectory scenes: the platform each trajectory was generated with can be rebuilt from
// (seed, n) alone, so probes recomputed at the recorded states equal the recorded probes bit
// for bit; different trajectories get different platforms.
#include "sim/scene.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/dataset.h"
#include "sim/contact_rows.h"
#include "sim/contact_sensor.h"
#include "sim/generator.h"
#include "sim/probe_features.h"

namespace flashnerd::sim {
namespace {

// A climbing dataset of the platform robot (both contact representations recorded).
Dataset climbing_data(const Robot& robot, int64_t trajectories, int steps, uint64_t seed) {
  GenerateOptions o;
  o.trajectories = trajectories;
  o.steps = steps;
  o.seed = seed;
  o.progress = false;
  ThreadPool pool(2);
  return generate_dataset(robot, o, pool);
}

TEST(Scene, RecordedProbesAreReproducibleFromSeedAndTrajectory) {
  auto robot = Robot::load("quadruped_platform");
  ASSERT_TRUE(randomizes_scene(*robot));
  Dataset d = climbing_data(*robot, 4, 10, 21);
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

TEST(Scene, RecordedContactRowsAreReproducedByTheDetectorAtThatState) {
  // what rollouts rely on: the sensor at a recorded state equals the generator's rows there
  auto robot = Robot::load("quadruped_platform");
  Dataset d = climbing_data(*robot, 6, 30, 5);
  const int K = d.contact_capacity;
  ASSERT_GT(K, 0);
  ContactSensor sensor(*robot);
  std::vector<float> rows(size_t(K) * kContactRowDim);
  std::vector<int32_t> link(static_cast<size_t>(K));
  int64_t nonzero = 0;
  for (int64_t n = 0; n < d.trajectories; ++n) {
    for (int64_t t = 0; t <= d.steps; ++t) {
      const int64_t f = n * d.frames() + t;
      sensor.place(d.seed, n, d.q(n, t), d.v(n, t));
      ContactRowsOut out{rows.data(), link.data(), 0, 0};
      sensor.detect(K, out);
      ASSERT_EQ(out.count, d.contact_count[size_t(f)]) << "n=" << n << " t=" << t;
      nonzero += out.count > 0;
      for (size_t i = 0; i < rows.size(); ++i)
        ASSERT_EQ(rows[i], d.contact_rows[size_t(f) * rows.size() + i]) << "n=" << n << " t=" << t;
      for (int i = 0; i < K; ++i) ASSERT_EQ(link[size_t(i)], d.contact_link[size_t(f * K + i)]);
    }
  }
  EXPECT_GT(nonzero, d.trajectories * d.steps / 4);  // the comparison saw real contacts
}

TEST(Scene, ClimbingStartsArePlacedAndClassifiedAsTheirKind) {
  const Platform p{0.17, 0.6};
  Rng rng(3);
  for (int kind = 0; kind < kStartKinds; ++kind)
    for (int i = 0; i < 200; ++i) {
      double base[3] = {0, 0.1, 0.55};
      place_start(p, StartKind(kind), rng, base);
      EXPECT_EQ(int(classify_start(p, base)), kind) << start_kind_name(StartKind(kind)) << " x=" << base[0];
      EXPECT_NEAR(base[2], kind == 0 ? 0.55 : 0.55 + p.height, 1e-12);
    }
}

TEST(Scene, GeneratedClimbingDataStartsOnGroundEdgeAndTop) {
  auto robot = Robot::load("quadruped_platform");
  Dataset d = climbing_data(*robot, 60, 1, 8);
  mjModel* m = robot->copy_model();
  int kinds[kStartKinds] = {0, 0, 0};
  for (int64_t n = 0; n < d.trajectories; ++n)
    ++kinds[int(classify_start(apply_trajectory_scene(*robot, m, d.seed, n), d.q(n, 0)))];
  for (int k = 0; k < kStartKinds; ++k) EXPECT_GE(kinds[k], 10) << start_kind_name(StartKind(k));
  mj_deleteModel(m);
}

}  // namespace
}  // namespace flashnerd::sim
