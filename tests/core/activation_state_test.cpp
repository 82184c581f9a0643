// Actuator activations (layout na > 0) as extra state channels: the codec appends them to
// features, increments and channels without touching the rest; layouts without "na" (old
// files and artifacts) read na = 0 and na = 0 is not written; datasets store an 'act' array.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/dataset.h"
#include "core/rng.h"
#include "core/state_codec.h"
#include "h5_edit.h"

namespace flashnerd {
namespace {

StateLayout arm_layout(int na) {
  StateLayout l;
  l.nq = l.nv = 2;
  l.nu = 3;
  l.na = na;
  l.joint_wrapped = {0, 1};
  return l;
}

TEST(ActivationState, LayoutJsonOmitsZeroAndOldLayoutsReadZero) {
  nlohmann::json j = arm_layout(0);
  EXPECT_FALSE(j.contains("na"));  // na = 0 layouts are written as before activations existed
  EXPECT_EQ(j.get<StateLayout>().na, 0);
  j = arm_layout(2);
  EXPECT_EQ(j.at("na"), 2);
  EXPECT_EQ(j.get<StateLayout>().na, 2);
  EXPECT_FALSE(arm_layout(1) == arm_layout(0));
  StateLayout bad = arm_layout(4);  // more activations than actuators
  EXPECT_THROW(bad.validate(), Error);
}

TEST(ActivationState, CodecAppendsActivationsAndLeavesTheRestAlone) {
  const StateCodec with(arm_layout(2)), without(arm_layout(0));
  EXPECT_EQ(with.feature_dim(), without.feature_dim() + 2);
  EXPECT_EQ(with.increment_dim(), without.increment_dim() + 2);
  ASSERT_EQ(with.channel_dim(), without.channel_dim() + 2);
  EXPECT_EQ(with.channel_group(with.channel_dim() - 1), ChannelGroup::Activation);
  EXPECT_STREQ(channel_group_name(ChannelGroup::Activation), "activation");

  Rng rng(3);
  double q0[2], v0[2], a0[2], q1[2], v1[2], a1[2];
  for (int i = 0; i < 2; ++i) {
    q0[i] = rng.uniform(-3, 3), v0[i] = rng.normal(), a0[i] = rng.uniform(0, 1);
    q1[i] = rng.uniform(-3, 3), v1[i] = rng.normal(), a1[i] = rng.uniform(0, 1);
  }
  double f[6], f0[4], inc[6], inc0[4], ch[6], ch0[4], err[6];
  with.encode(q0, v0, a0, f);
  without.encode(q0, v0, f0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(f[i], f0[i]);
  EXPECT_EQ(f[4], a0[0]);
  EXPECT_EQ(f[5], a0[1]);
  with.increment(q0, v0, a0, q1, v1, a1, inc);
  without.increment(q0, v0, q1, v1, inc0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(inc[i], inc0[i]);
  double q2[2], v2[2], a2[2];
  with.apply(q0, v0, a0, inc, q2, v2, a2);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(a2[i], a1[i], 1e-15);
  with.channels(q1, v1, a1, ch);
  without.channels(q1, v1, ch0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ch[i], ch0[i]);
  EXPECT_EQ(ch[4], a1[0]);
  with.channel_error(q2, v2, a2, q1, v1, a1, err);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(err[i], 0.0, 1e-12);
}

TEST(ActivationState, DatasetStoresActWhenNaIsPositive) {
  Dataset d = testing::small_contact_dataset();
  d.layout.nu = 2;
  d.layout.na = 1;
  d.allocate(3, 4, false);
  for (auto& v : d.valid) v = 1;
  for (size_t i = 0; i < d.act.size(); ++i) d.act[i] = 0.1 * double(i);
  for (auto& c : d.contact_count) c = 0;
  const std::string path = ::testing::TempDir() + "activation_act.h5";
  save_dataset(path, d);
  Dataset back = load_dataset(path);
  EXPECT_EQ(back.layout.na, 1);
  EXPECT_EQ(back.act, d.act);
  EXPECT_EQ(back.a(2, 3)[0], d.act[size_t(2 * 5 + 3)]);

  d.layout.na = 0;  // files without activations have no 'act' array and a(n, t) is null
  d.allocate(3, 4, false);
  save_dataset(path, d);
  back = load_dataset(path);
  EXPECT_TRUE(back.act.empty());
  EXPECT_EQ(back.a(0, 0), nullptr);
}

}  // namespace
}  // namespace flashnerd
