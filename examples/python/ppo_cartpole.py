#!/usr/bin/env python3
"""PPO in ~150 lines of PyTorch on a FlashNeRD vector environment: trains a CartPole
policy (balance, or the swing-up with --task cartpole-swingup) on the learned simulator or on
MuJoCo, then evaluates it in MuJoCo through the same API. No RL library; rsl_rl-style
settings (clipped surrogate, GAE, value loss, entropy bonus, time-outs bootstrapped from the
final observation).

    export PYTHONPATH=$PWD/build/python
    python3 examples/python/ppo_cartpole.py --backend flashnerd --model models/cartpole
    python3 examples/python/ppo_cartpole.py --task cartpole-swingup --backend mujoco \
        --envs 512 --iterations 200 --entropy 0.01

Prints one line per iteration and, at the end, the mean MuJoCo episode length and return of
the mean policy (on the balance task 200 = every episode balanced to the time limit); --json
prints that as JSON."""
import argparse
import json
import time

import numpy as np
import torch
from torch import nn

import flashnerd


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, act_dim, hidden=64):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                   nn.Linear(hidden, act_dim))
        self.critic = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                    nn.Linear(hidden, 1))
        self.log_std = nn.Parameter(torch.full((act_dim,), -0.5))

    def dist(self, obs):
        return torch.distributions.Normal(self.actor(obs), self.log_std.exp())

    def value(self, obs):
        return self.critic(obs).squeeze(-1)


def collect(env, model, obs, steps, gamma):
    """One rollout of `steps` per env: observations, actions, log-probs, rewards, dones, values."""
    buf = {k: [] for k in ("obs", "act", "logp", "rew", "done", "val")}
    for _ in range(steps):
        o = torch.from_numpy(obs)  # no copy
        with torch.no_grad():
            d = model.dist(o)
            a = d.sample()
            buf["val"].append(model.value(o))
        buf["obs"].append(o)
        buf["act"].append(a)
        buf["logp"].append(d.log_prob(a).sum(-1))
        obs, reward, terminated, truncated, info = env.step(a.numpy())
        reward = torch.from_numpy(reward.astype(np.float32))
        if truncated.any():  # a time-out is not a failure: bootstrap from where the episode ended
            with torch.no_grad():
                final = torch.from_numpy(info["final_obs"][truncated])
                reward[torch.from_numpy(truncated)] += gamma * model.value(final)
        buf["rew"].append(reward)
        buf["done"].append(torch.from_numpy(terminated | truncated).float())
    with torch.no_grad():
        last_value = model.value(torch.from_numpy(obs))
    return {k: torch.stack(v) for k, v in buf.items()}, last_value, obs


def advantages(b, last_value, gamma, lam):
    adv = torch.zeros_like(b["rew"])
    gae = torch.zeros_like(last_value)
    for t in reversed(range(len(adv))):
        next_value = last_value if t + 1 == len(adv) else b["val"][t + 1]
        not_done = 1.0 - b["done"][t]
        delta = b["rew"][t] + gamma * next_value * not_done - b["val"][t]
        gae = delta + gamma * lam * not_done * gae
        adv[t] = gae
    return adv, adv + b["val"]


def update(model, opt, b, adv, ret, epochs=5, minibatches=4, clip=0.2, entropy=0.0):
    flat = lambda x: x.reshape(-1, *x.shape[2:])
    obs, act, logp_old, adv, ret = flat(b["obs"]), flat(b["act"]), flat(b["logp"]), flat(adv), flat(ret)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    n = len(obs)
    for _ in range(epochs):
        for idx in torch.randperm(n).chunk(minibatches):
            d = model.dist(obs[idx])
            ratio = (d.log_prob(act[idx]).sum(-1) - logp_old[idx]).exp()
            surrogate = torch.max(-adv[idx] * ratio, -adv[idx] * ratio.clamp(1 - clip, 1 + clip)).mean()
            value_loss = (model.value(obs[idx]) - ret[idx]).pow(2).mean()
            loss = surrogate + value_loss - entropy * d.entropy().sum(-1).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()


def evaluate(model, task, envs, seed):
    """Mean episode length and return of the mean policy in MuJoCo (first episode of every env)."""
    env = flashnerd.make_vec(task, backend="mujoco", num_envs=envs, seed=seed)
    obs, _ = env.reset(seed=seed)
    length, total, alive = np.zeros(envs), np.zeros(envs), np.ones(envs, bool)
    for _ in range(env.max_episode_steps):
        with torch.no_grad():
            a = model.actor(torch.from_numpy(obs)).numpy()
        obs, reward, terminated, truncated, _ = env.step(a)
        length += alive
        total += alive * reward
        alive &= ~(terminated | truncated)
        if not alive.any():
            break
    return float(length.mean()), float(total.mean())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--task", default="cartpole-balance", choices=["cartpole-balance", "cartpole-swingup"])
    p.add_argument("--backend", default="flashnerd", help="mujoco, flashnerd or nerd")
    p.add_argument("--model", default="", help="trained cartpole model directory (learned backends)")
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--steps", type=int, default=32, help="steps per env per iteration")
    p.add_argument("--iterations", type=int, default=100)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--entropy", type=float, default=0.0, help="entropy bonus weight")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--export", default="", help="write the trained actor here as a policy artifact "
                   "(then: flashnerd policy-eval --policy DIR)")
    a = p.parse_args()
    torch.manual_seed(a.seed)
    torch.set_num_threads(1)
    gamma, lam = 0.99, 0.95
    # same-step autoreset: every stored transition is a real one (rsl_rl's convention)
    env = flashnerd.make_vec(a.task, backend=a.backend, model=a.model, num_envs=a.envs, seed=a.seed,
                             autoreset="same_step")
    model = ActorCritic(env.observation_dim, env.action_dim)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    obs, _ = env.reset(seed=a.seed)
    start = time.monotonic()
    for it in range(1, a.iterations + 1):
        b, last_value, obs = collect(env, model, obs, a.steps, gamma)
        adv, ret = advantages(b, last_value, gamma, lam)
        update(model, opt, b, adv, ret, entropy=a.entropy)
        if not a.json:
            print(f"iteration {it}/{a.iterations}: reward per step {b['rew'].mean():.3f}, "
                  f"episodes ended {int(b['done'].sum())}", flush=True)
    seconds = time.monotonic() - start
    if a.export:
        flashnerd.export_policy(model.actor, a.export, a.task, action_std=model.log_std.exp(),
                                training={"by": "examples/python/ppo_cartpole.py", "backend": a.backend,
                                          "iterations": a.iterations, "seed": a.seed})
    length, ret = evaluate(model, a.task, 64, a.seed + 1000)
    result = {"task": a.task, "backend": a.backend, "iterations": a.iterations, "seed": a.seed,
              "seconds": seconds, "mujoco_mean_episode_length": length, "mujoco_mean_return": ret, "time_limit": env.max_episode_steps}
    print(json.dumps(result) if a.json else f"MuJoCo evaluation: mean episode length {length:.1f} of "
          f"{env.max_episode_steps}, mean return {ret:.1f}")


if __name__ == "__main__":
    main()
