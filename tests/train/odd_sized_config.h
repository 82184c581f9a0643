// A model of odd sizes for the training tests that compare two computations of it (engine
// against libtorch, the fused pass against autograd): 3 FlashNeRD blocks of spans 4, 2, 3, or
// a 2-layer NeRD with a window of 5.
#pragma once

#include "core/model_config.h"
#include "engine/test_models.h"

namespace flashnerd::train {

// head_dim 16 rather than 64 to keep it small (the engine takes any head_dim).
inline ModelConfig odd_sized_config(Arch arch, NormKind norm, FfnActivation act) {
  ModelConfig c;
  c.arch = arch;
  c.robot = "testbot";
  c.timestep = 0.01;
  c.layout.nq = c.layout.nv = c.layout.nu = 3;
  c.layout.joint_wrapped = {0, 1, 0};
  c.state_dim = 6;
  c.input_dim = 9;
  c.output_dim = 6;
  c.flash.d_model = 40;
  c.flash.n_layers = 3;
  c.flash.n_heads = 3;
  c.flash.head_dim = 16;
  c.flash.spans = {4, 2, 3};
  c.flash.ffn_hidden = 37;
  c.flash.readout_hidden = 23;
  c.flash.norm = norm;
  c.flash.activation = act;
  c.nerd.d_model = 36;
  c.nerd.n_layers = 2;
  c.nerd.n_heads = 3;
  c.nerd.window = 5;
  c.nerd.mlp_hidden = 61;
  c.nerd.head_hidden = 19;
  engine::testing::random_normalization(c, 17);
  c.validate();
  return c;
}

}  // namespace flashnerd::train
