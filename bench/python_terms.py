"""What reward terms written in Python cost: make_vec's step time with and without a three-term
Python reward (planar velocity tracking, yaw-rate tracking and action rate, in numpy over the
whole batch), on a learned backend, in rounds that alternate the two so drift hits both. The
terms run inside the task's share of the step (VecEnv's task seconds), which is measured apart
from the whole step: on a busy machine the whole steps' difference is mostly noise.

    PYTHONPATH=build/python python3 bench/python_terms.py [--envs 4096] [--steps 100]
        [--model models/quadruped] [--threads 1] [--rounds 3]
"""
import argparse
import statistics
import time

import numpy as np

import flashnerd


class VelocityRewardInNumpy:
    """legged_gym's velocity tracking, yaw-rate tracking and action rate, over the batch."""
    rewards = {"py_track_lin_vel": 1.0, "py_track_ang_vel": 0.5, "py_action_rate": -0.01}

    def __init__(self):
        self.last_actions = None

    def reward(self, s):
        quat = s.q[:, 3:7]  # base orientation (w, x, y, z)
        w, xyz = quat[:, :1], quat[:, 1:]
        lin = s.v[:, :3]  # world-frame linear velocity: rotate into the body frame
        t = 2.0 * np.cross(xyz, lin)
        body = lin - w * t + np.cross(xyz, t)
        command = s.commands["velocity"]
        lin_err = np.sum((command[:, :2] - body[:, :2]) ** 2, axis=1)
        yaw_err = (command[:, 2] - s.v[:, 5]) ** 2
        if self.last_actions is None:
            self.last_actions = np.zeros_like(s.actions)
        rate = np.sum((s.actions - self.last_actions) ** 2, axis=1)
        self.last_actions[:] = s.actions
        return {"py_track_lin_vel": np.exp(-lin_err / 0.25), "py_track_ang_vel": np.exp(-yaw_err / 0.25),
                "py_action_rate": rate}


def seconds_per_step(env, actions, steps):
    """(wall seconds, task seconds) per step: the task's share is where Python terms run."""
    env.reset(seed=1)
    for _ in range(5):  # warm up
        env.step(actions)
    task_before = env.timings()["task_seconds"]
    start = time.perf_counter()
    for _ in range(steps):
        env.step(actions)
    wall = (time.perf_counter() - start) / steps
    return wall, (env.timings()["task_seconds"] - task_before) / steps


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--envs", type=int, default=4096)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--model", default="models/quadruped")
    p.add_argument("--task", default="quadruped-velocity")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    make = dict(backend="flashnerd", model=a.model, num_envs=a.envs, seed=1, threads=a.threads)
    plain = flashnerd.make_vec(a.task, **make)
    with_terms = flashnerd.make_vec(a.task, terms=VelocityRewardInNumpy(), **make)
    actions = np.random.default_rng(0).uniform(-0.5, 0.5, (a.envs, plain.single_action_space.shape[0]))
    actions = actions.astype(np.float32)
    times = {"plain": [], "terms": []}
    for _ in range(a.rounds):
        times["plain"].append(seconds_per_step(plain, actions, a.steps))
        times["terms"].append(seconds_per_step(with_terms, actions, a.steps))
    wall = {k: statistics.median(t[0] for t in v) for k, v in times.items()}
    task = {k: statistics.median(t[1] for t in v) for k, v in times.items()}
    print(f"make_vec step, {a.task} on {a.model}, {a.envs} envs, {a.threads} thread(s), median of {a.rounds} "
          f"rounds x {a.steps} steps")
    print(f"{'environment':<28}{'step ms':>10}{'task ms':>10}{'env steps/s':>14}")
    for key, label in (("plain", "task terms only"), ("terms", "+ 3 Python reward terms")):
        print(f"{label:<28}{wall[key] * 1e3:>10.2f}{task[key] * 1e3:>10.2f}{a.envs / wall[key]:>14.0f}")
    added = task["terms"] - task["plain"]
    print(f"Python terms: {added * 1e3:.2f} ms per step inside the task, {100 * added / wall['plain']:.1f}% of the "
          f"step without them; whole steps {100 * (wall['terms'] - wall['plain']) / wall['plain']:+.1f}%")

if __name__ == "__main__":
    main()
