#!/usr/bin/env python3
"""Reward terms per second under random actions: what exploration costs a task.

Runs a task's vector environment with zero-mean Gaussian actions of each given standard
deviation (a PPO policy's noise at the start, when the mean is ~0) and prints every reward term's
mean rate (per second of simulated time), the total, the falls per env-second and the base's
planar speed. A term table like this shows whether the penalties that noise earns outweigh what
tracking can pay, i.e. whether PPO is pushed to shrink its noise before it finds a gait.

  PYTHONPATH=build/python python3 experiments/locomotion/reward_terms_under_noise.py --std 1 0.5 0.25
"""
import argparse

import numpy as np

import flashnerd


def rates(task, backend, model, robot, std, envs, steps, warmup, seed):
    env = flashnerd.make_vec(task, backend, model=model, robot=robot, num_envs=envs, seed=seed, autoreset="same_step")
    dt = env.dt
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    sums, total, falls, counted = {}, 0.0, 0, 0
    for step in range(warmup + steps):
        actions = (std * rng.standard_normal((envs, env.action_dim))).astype(np.float32)
        _, reward, terminated, _, info = env.step(actions)
        if step < warmup:
            continue
        for name, column in info["reward_terms"].items():
            sums[name] = sums.get(name, 0.0) + float(column.sum())
        total += float(reward.sum())
        falls += int(terminated.sum())
        counted += envs
    per_second = {name: value / counted / dt for name, value in sums.items()}
    return per_second, total / counted / dt, falls / counted / dt


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--task", default="quadruped-velocity")
    p.add_argument("--backend", default="mujoco")
    p.add_argument("--model", default="")
    p.add_argument("--robot", default="")
    p.add_argument("--std", type=float, nargs="+", default=[1.0, 0.5, 0.25])
    p.add_argument("--envs", type=int, default=512)
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--warmup", type=int, default=20, help="steps left out after the resets")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rows = [(std, *rates(a.task, a.backend, a.model, a.robot, std, a.envs, a.steps, a.warmup, a.seed)) for std in a.std]
    names = list(rows[0][1])
    print("| action std | " + " | ".join(names) + " | total | falls per env-second |")
    print("|---:|" + "---:|" * (len(names) + 2))
    for std, terms, total, falls in rows:
        print(f"| {std:g} | " + " | ".join(f"{terms[n]:+.3f}" for n in names) + f" | {total:+.3f} | {falls:.3f} |")


if __name__ == "__main__":
    main()
