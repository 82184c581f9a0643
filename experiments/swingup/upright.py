#!/usr/bin/env python3
"""Whether a cartpole swing-up policy swings up in MuJoCo: 256 episodes of 300 steps (seed 5),
the share of episodes with cos θ > 0.95 at every one of their last 100 steps, and the median
first step at which the pole is up. Prints JSON.

    python3 experiments/swingup/upright.py POLICY_DIR"""
import json
import sys

import numpy as np

import flashnerd


def main():
    policy = flashnerd.Policy.load(sys.argv[1])
    env = flashnerd.make_vec("cartpole-swingup", backend="mujoco", num_envs=256, seed=5)
    obs, _ = env.reset(seed=5)
    cos, left_rail = [], np.zeros(env.num_envs, bool)
    for _ in range(env.max_episode_steps):
        obs, _, terminated, truncated, _ = env.step(policy.act(obs))
        cos.append(obs[:, 2].copy())
        left_rail |= terminated  # that episode did not hold the pole up, whatever follows
    cos = np.array(cos)
    up = cos > 0.95
    held = up[-100:].all(axis=0) & ~left_rail
    print(json.dumps({"policy": sys.argv[1], "held_up_share": float(held.mean()),
                      "median_first_up_step": float(np.median(np.where(up.any(axis=0), up.argmax(axis=0), len(up))))}))


if __name__ == "__main__":
    main()
