"""Vector environments with Gymnasium 1.x's conventions (gymnasium itself not required).

``reset(seed=None, options=None) -> (obs, info)`` and ``step(actions) -> (obs, reward,
terminated, truncated, info)``. ``metadata["autoreset_mode"]`` names the autoreset mode with
Gymnasium's ``AutoresetMode`` values:

- ``"NextStep"`` (``autoreset="next_step"``, the default): the step that ends an episode
  returns its final observation; the next step resets that env, ignoring its action, with
  reward 0 and no flags.
- ``"SameStep"`` (``autoreset="same_step"``, rsl_rl / legged_gym): the new episode starts inside
  the ending step, whose observation is the new episode's first.
- ``"Disabled"`` (``autoreset="disabled"``): ended envs are reset only by
  ``reset(options={"reset_mask": mask})``, which resets the envs where mask is True.

In every mode ``info["final_obs"]`` holds the observation each ended env finished in (rows
where ``info["_final_obs"]``; ``final_observation`` / ``_final_observation`` are the same arrays
under Gymnasium 0.29's names), ``info["time_outs"]`` equals ``truncated`` (time-outs can be
bootstrapped), ``info["reward_terms"]`` gives each reward term's share of the reward, and
``info["episode"]`` = ``{"r": return, "l": length, "t": seconds since reset}`` holds the
statistics of the episodes that ended at this step (rows where ``info["_episode"]``), as
Gymnasium's ``RecordEpisodeStatistics`` reports them.

``reset(seed=s)`` seeds env ``e`` with the stream ``(s, e)``; ``reset(seed=[s0, s1, ...])``
gives each env its own seed. Actions may be numpy arrays or PyTorch tensors (detached and
copied); a NaN or infinite action is refused naming the envs. Errors are ``flashnerd.Error``,
a ``ValueError``.
"""
import time

import numpy as np

from . import _flashnerd
from .spaces import Box
from .tasks import describe, task_info, task_names

_MODES = {"next_step": "NextStep", "same_step": "SameStep", "disabled": "Disabled"}


class VectorEnv:
    """``num_envs`` copies of a task over one backend (mujoco, flashnerd, nerd, two-way, one-way)."""

    def __init__(self, task, backend="mujoco", model="", num_envs=16, seed=0, threads=1, robot="",
                 precision="auto", autoreset="next_step"):
        for name, value in (("num_envs", num_envs), ("seed", seed), ("threads", threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        self._env = _flashnerd.make_vec(task, backend=backend, model=model, num_envs=num_envs, seed=seed,
                                        threads=threads, robot=robot, precision=precision, autoreset=autoreset)
        self.task, self.backend = task, backend
        self.num_envs = self._env.num_envs
        self.autoreset_mode = self._env.autoreset
        self.metadata = {"autoreset_mode": _MODES[self.autoreset_mode], "render_modes": ["rgb_array"]}
        self.render_mode = "rgb_array"
        self.task_info = task_info(task)
        self.max_episode_steps = self._env.episode_steps
        self.dt = self._env.dt  # seconds of simulated time per step
        bound = self._env.action_bound
        self.single_observation_space = Box(-np.inf, np.inf, (self._env.observation_dim,), np.float32)
        self.single_action_space = Box(-bound, bound, (self._env.action_dim,), np.float32)
        self.observation_space = Box(-np.inf, np.inf, (self.num_envs, self._env.observation_dim), np.float32)
        self.action_space = Box(-bound, bound, (self.num_envs, self._env.action_dim), np.float32)
        self.warnings = list(self._env.warnings)
        self._return = np.zeros(self.num_envs, np.float64)
        self._length = np.zeros(self.num_envs, np.int64)
        self._start = np.full(self.num_envs, time.perf_counter())
        self._pending = np.zeros(self.num_envs, bool)  # NextStep: ended at the last step

    @property
    def observation_dim(self):
        return self._open().observation_dim

    @property
    def action_dim(self):
        return self._open().action_dim

    def _open(self):
        if self._env is None:
            raise RuntimeError("this VectorEnv was closed; make a new one with flashnerd.make_vec")
        return self._env

    def reset(self, seed=None, options=None):
        """Every env starts a new episode, or (``options={"reset_mask": mask}``) the envs where
        mask is True. ``seed``: None, an int, or one int per env. -> (obs, info)"""
        env = self._open()
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"reset: unknown options {sorted(options)}; the only option is 'reset_mask'")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.dtype != bool or mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask: expected a bool array of shape ({self.num_envs},), got "
                                 f"{mask.dtype} {mask.shape}")
        if isinstance(seed, np.integer):
            seed = int(seed)
        elif seed is not None and not isinstance(seed, int):
            seed = [int(s) if isinstance(s, np.integer) else s for s in seed]
        obs, info = env.reset(seed, mask)
        reset = np.ones(self.num_envs, bool) if mask is None else mask
        self._return[reset], self._length[reset] = 0.0, 0
        self._start[reset] = time.perf_counter()
        self._pending[reset] = False
        return obs, info

    def step(self, actions):
        """actions (num_envs, action_dim), numpy or torch -> (obs, reward, terminated, truncated, info)"""
        env = self._open()
        if hasattr(actions, "detach"):  # a torch tensor, with or without requires_grad
            actions = actions.detach().cpu().numpy()
        a = np.asarray(actions)
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            bad = np.flatnonzero(~np.isfinite(a.reshape(a.shape[0], -1)).all(axis=1)) if a.ndim >= 1 else []
            raise ValueError(f"actions: NaN or infinite values for envs {list(bad[:8])}"
                             f"{' ...' if len(bad) > 8 else ''}; nothing was stepped")
        obs, reward, terminated, truncated, info = env.step(a)
        ended = terminated | truncated
        counted = ~self._pending  # a NextStep reset step is no step of an episode
        self._return[counted] += reward[counted]
        self._length[counted] += 1
        now = time.perf_counter()
        info["episode"] = {"r": np.where(ended, self._return, 0.0).astype(np.float32),
                           "l": np.where(ended, self._length, 0).astype(np.int32),
                           "t": np.where(ended, now - self._start, 0.0).astype(np.float32)}
        info["_episode"] = ended
        if self.autoreset_mode == "next_step":
            self._start[self._pending] = now  # their reset step just ran
            self._pending = ended.copy()
        self._return[ended], self._length[ended] = 0.0, 0
        self._start[ended] = now
        return obs, reward, terminated, truncated, info

    def render(self, env=0, width=480, height=360):
        """Env ``env``'s scene drawn by MuJoCo's renderer (offscreen, EGL): an (height, width, 3)
        uint8 array. A learned backend's state is drawn as the robot it stands for."""
        return self._open().render(int(env), int(width), int(height))

    def get_state(self, env):
        """Env ``env``'s state: {"qpos", "qvel"} of the robot (MuJoCo's order), plus
        "object_qpos" / "object_qvel" where the backend simulates objects (the cube)."""
        return self._open().get_state(int(env))

    def set_state(self, env, qpos, qvel, object_qpos=None, object_qvel=None):
        """Puts env ``env`` at a state (as get_state returns it) with a fresh history, as a reset
        does; the task's own state (command, target, episode step) stays. -> env's observation"""
        return self._open().set_state(int(env), qpos, qvel, object_qpos, object_qvel)

    def describe(self):
        """This env's task in words: observation slots, action, reward terms, ends."""
        return describe(self.task)

    def timings(self):
        """Seconds spent so far in the backend's dynamics, its sensing, and the task."""
        return self._open().timings()

    def close(self):
        self._env = None

    def __repr__(self):
        return f"VectorEnv({self.task!r}, backend={self.backend!r}, num_envs={self.num_envs})"


def make_vec(task, backend="mujoco", model="", num_envs=16, seed=0, threads=1, robot="", precision="auto",
             autoreset="next_step"):
    """A vector environment of any task and backend, e.g. ``make_vec("quadruped-velocity",
    backend="flashnerd", model=DIR, num_envs=4096)``.

    task: one of ``flashnerd.task_names()``, each described below (and by
    ``flashnerd.task_info(task)``, ``flashnerd tasks --markdown``, docs/TASKS.md).
    backend: mujoco; flashnerd or nerd with model=DIR (a trained artifact or an ensemble);
    two-way or one-way (cube-reorient: the hand learned, the cube in MuJoCo) with model=the
    hand's free-velocity artifact.
    num_envs: at most what fits in memory (refused before allocation otherwise); threads: 0 (all
    cores) up to the core count; precision: auto (bf16 products on CPUs with native bf16), fp32
    or bf16; autoreset: next_step, same_step or disabled (see the module's documentation).
    """
    return VectorEnv(task, backend, model, num_envs, seed, threads, robot, precision, autoreset)


# help(make_vec) lists every task's observation slots, action, reward terms and ends, read
# from the task definitions themselves.
make_vec.__doc__ += "\n    Tasks:\n\n" + "\n\n".join(
    "\n".join("    " + line for line in describe(name).splitlines()) for name in task_names())
