"""Vector environments with Gymnasium's conventions (gymnasium itself not required).

``reset(seed=None, options=None) -> (obs, info)`` and ``step(actions) -> (obs, reward,
terminated, truncated, info)``; autoreset in Gymnasium's next-step mode by default (the step
that ends an episode returns its final observation, the next step resets that env, ignoring
its action, with reward 0 and no flags), or ``autoreset="same_step"`` (rsl_rl / legged_gym:
the new episode starts inside the ending step). Either way ``info["final_observation"]`` holds
the observation each ended env finished in (rows where ``info["_final_observation"]``) and
``info["time_outs"]`` equals ``truncated``, so time-outs can be bootstrapped.
"""
import numpy as np

from . import _flashnerd
from .spaces import Box


class VectorEnv:
    """``num_envs`` copies of a task over one backend (mujoco, flashnerd or nerd)."""

    def __init__(self, task, backend="mujoco", model="", num_envs=16, seed=0, threads=1, robot="",
                 precision="fp32", autoreset="next_step"):
        self._env = _flashnerd.make_vec(task, backend=backend, model=model, num_envs=num_envs, seed=seed,
                                        threads=threads, robot=robot, precision=precision, autoreset=autoreset)
        self.task, self.backend = task, backend
        self.num_envs = self._env.num_envs
        self.autoreset_mode = self._env.autoreset
        self.max_episode_steps = self._env.episode_steps
        self.dt = self._env.dt  # seconds of simulated time per step
        bound = self._env.action_bound
        self.single_observation_space = Box(-np.inf, np.inf, (self._env.observation_dim,), np.float32)
        self.single_action_space = Box(-bound, bound, (self._env.action_dim,), np.float32)
        self.observation_space = Box(-np.inf, np.inf, (self.num_envs, self._env.observation_dim), np.float32)
        self.action_space = Box(-bound, bound, (self.num_envs, self._env.action_dim), np.float32)
        self.warnings = list(self._env.warnings)

    @property
    def observation_dim(self):
        return self._env.observation_dim

    @property
    def action_dim(self):
        return self._env.action_dim

    def reset(self, seed=None, options=None):
        """Every env starts a new episode; a seed re-seeds every env's stream. -> (obs, info)"""
        if options:
            raise ValueError(f"reset: options are not supported, got {options!r}")
        return self._env.reset(seed)

    def step(self, actions):
        """actions (num_envs, action_dim) float32 -> (obs, reward, terminated, truncated, info)"""
        return self._env.step(actions)

    def timings(self):
        """Seconds spent so far in the backend's dynamics, its sensing, and the task."""
        return self._env.timings()

    def close(self):
        self._env = None

    def __repr__(self):
        return f"VectorEnv({self.task!r}, backend={self.backend!r}, num_envs={self.num_envs})"


def make_vec(task, backend="mujoco", model="", num_envs=16, seed=0, threads=1, robot="", precision="fp32",
             autoreset="next_step"):
    """A vector environment of any task and backend: ``make_vec("quadruped-velocity",
    backend="flashnerd", model=DIR, num_envs=4096)``."""
    return VectorEnv(task, backend, model, num_envs, seed, threads, robot, precision, autoreset)
