"""Vector environments with Gymnasium 1.x's ``VectorEnv`` conventions (gymnasium itself not required).

``reset(seed=None, options=None) -> (obs, info)`` and ``step(actions) -> (obs, reward,
terminated, truncated, info)``. ``metadata["autoreset_mode"]`` is a ``flashnerd.AutoresetMode``
(``gymnasium.vector.AutoresetMode`` when gymnasium is importable; ``.value`` "NextStep",
"SameStep" or "Disabled"); ``autoreset=`` takes those, their names or ``"next_step"``,
``"same_step"``, ``"disabled"``:

- NextStep (the default): the step that ends an episode returns its final observation; the next
  step resets that env, ignoring its action, with reward 0 and no flags.
- SameStep (rsl_rl / legged_gym): the new episode starts inside the ending step, whose
  observation is the new episode's first; ``info["final_obs"]`` and ``info["final_info"]``
  hold the ending observation and the ending step's info (rows where ``_final_obs`` /
  ``_final_info``), as Gymnasium's SyncVectorEnv gives them.
- Disabled: an ended env is reset only by ``reset(options={"reset_mask": mask})``. Until then
  it is held as it ended: the same observation and flags at every step, reward 0, no new
  episode. (Gymnasium's SyncVectorEnv asserts instead.)

The episode statistics, pending resets and held envs are the C++ ``VecEnv``'s (env/vec_env.h);
this layer adds Gymnasium's names and masks.

In every mode ``info["final_obs"]`` / ``info["final_info"]`` (rows where ``info["_final_obs"]`` /
``info["_final_info"]``, zeros elsewhere; ``final_observation`` / ``_final_observation`` are
Gymnasium 0.29's names for the same arrays) hold what each env ended in at this step.
``final_info`` is a vector info dict: ``reward_terms`` and ``episode``, each key with its ``_key``
mask. ``info["time_outs"]`` equals ``truncated`` (time-outs can be bootstrapped),
``info["reward_terms"]`` gives each reward term's share of the reward, and ``info["episode"]`` =
``{"r": return, "l": length, "t": seconds since reset}`` holds the statistics of the episodes
that ended at this step (rows where ``info["_episode"]``), as Gymnasium's vector
``RecordEpisodeStatistics`` reports them.

``reset(seed=s)`` seeds env ``e`` with the stream ``(s, e)`` and ``np_random`` as Gymnasium's
``seeding.np_random(s)`` does; ``reset(seed=[s0, s1, ...])`` gives each env its own seed. Seeds
are ints from 0 to 2**64-1. Actions may be numpy arrays or PyTorch tensors (detached and
copied); a NaN or infinite action is refused naming the envs. Errors are ``flashnerd.Error``,
a ``ValueError``.
"""
import json

import numpy as np

from . import _flashnerd
from .conventions import (GYM_MODE, AutoresetMode, autoreset_name, check_reset_seed, check_seed, masked_info,
                          seeded_generator)
from .spaces import Box
from .tasks import describe, task_names

__all__ = ["AutoresetMode", "VectorEnv", "make_vec"]
_C_INT_MAX = 2**31 - 1  # the module's make_vec takes its seed as a C int


class VectorEnv:
    """``num_envs`` copies of a task over one backend (mujoco, flashnerd, nerd, two-way, one-way).
    A context manager (``with make_vec(...) as env:`` closes it)."""

    spec = None  # not made from a Gymnasium registry entry
    render_mode = "rgb_array"

    def __init__(self, task, backend="mujoco", model="", num_envs=16, seed=0, threads=1, robot="",
                 precision="auto", autoreset="next_step", autoreset_mode=None, terms=None):
        self.task, self.backend, self.closed, self._env = task, backend, False, None
        for name, value in (("num_envs", num_envs), ("threads", threads)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        seed = check_seed(seed, "make_vec: seed")
        mode = _mode(autoreset, autoreset_mode)
        self._env = _flashnerd.make_vec(task, backend=backend, model=model, num_envs=num_envs,
                                        seed=seed if seed <= _C_INT_MAX else 0, threads=threads, robot=robot,
                                        precision=precision, autoreset=mode, terms=terms)
        self._first_seed = seed if seed > _C_INT_MAX else None  # applied by the first reset, as reset(seed=s)
        self._seed, self._np_random, self._np_random_seed = seed, None, None
        self.num_envs = self._env.num_envs
        self.autoreset_mode = mode
        self.max_episode_steps = self._env.episode_steps
        self.dt = self._env.dt  # seconds of simulated time per step
        self.metadata = {"autoreset_mode": GYM_MODE[mode], "render_modes": ["rgb_array"], "render_fps": 1.0 / self.dt}
        self.task_info = json.loads(self._env.task_info_json())  # as stepped: Python terms included
        self._spaces(self._env.observation_dim, self._env.action_dim, self._env.action_bound)
        self.warnings = list(self._env.warnings)

    def _spaces(self, observation_dim, action_dim, bound):
        n = self.num_envs
        self.single_observation_space = Box(-np.inf, np.inf, (observation_dim,), np.float32)
        self.single_action_space = Box(-bound, bound, (action_dim,), np.float32)
        self.observation_space = Box(-np.inf, np.inf, (n, observation_dim), np.float32)
        self.action_space = Box(-bound, bound, (n, action_dim), np.float32)

    @property
    def observation_dim(self):
        return self._open().observation_dim

    @property
    def action_dim(self):
        return self._open().action_dim

    @property
    def unwrapped(self):
        return self

    @property
    def np_random(self):
        """A numpy Generator for the caller's draws: seeded by reset(seed=s) as Gymnasium's
        seeding.np_random(s) seeds one; until then, from make_vec's seed."""
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeded_generator(self._seed)
        return self._np_random

    @np_random.setter
    def np_random(self, value):
        self._np_random, self._np_random_seed = value, -1  # -1: not known, as in Gymnasium

    @property
    def np_random_seed(self):
        return self._np_random_seed if self._np_random is not None else self._seed

    def _open(self):
        if self._env is None:
            raise RuntimeError("this VectorEnv was closed; make a new one with flashnerd.make_vec")
        return self._env

    def reset(self, seed=None, options=None):
        """Every env starts a new episode, or (``options={"reset_mask": mask}``) the envs where
        mask is True. ``seed``: None, an int, or one int per env, each from 0 to 2**64-1 (not
        with a mask: the module would reseed, and so restart, every env). -> (obs, info)"""
        env = self._open()
        mask = self._reset_mask(options)
        seed = check_reset_seed(seed, self.num_envs)
        if seed is not None and mask is not None:
            raise ValueError("reset: a seed with options['reset_mask'] is not supported (the module reseeds every env, "
                             "which would restart the unmasked ones too); reset the masked envs without a seed")
        if seed is not None:
            self._np_random, self._np_random_seed = seeded_generator(seed)
        elif mask is None and self._first_seed is not None:
            seed = self._first_seed
        self._first_seed = None
        return env.reset(seed, mask)

    def _reset_mask(self, options):
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"reset: unknown options {sorted(options)}; the only option is 'reset_mask'")
        if mask is not None:
            mask = np.asarray(mask)
            if mask.dtype != bool or mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask: expected a bool array of shape ({self.num_envs},), got "
                                 f"{mask.dtype} {mask.shape}")
        return mask

    def step(self, actions):
        """actions (num_envs, action_dim), numpy or torch -> (obs, reward, terminated, truncated, info)"""
        obs, reward, terminated, truncated, info = self._open().step(_checked_actions(actions))
        _final_info(info, info["_episode"])  # the episodes that ended at this step
        return obs, reward, terminated, truncated, info

    def render(self, env=None, width=480, height=360):
        """Every env's scene drawn by MuJoCo's renderer (offscreen, EGL), as Gymnasium's vector
        ``render()``: a tuple of ``num_envs`` (height, width, 3) uint8 arrays; ``env=e``: env e's
        alone, one array (with thousands of envs, pick one). A learned backend's state is drawn
        as the robot it stands for."""
        vec, width, height = self._open(), int(width), int(height)
        if env is None:
            return tuple(vec.render(e, width, height) for e in range(self.num_envs))
        return vec.render(int(env), width, height)

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
        return describe(self.task_info)

    def timings(self):
        """Seconds spent so far in the backend's dynamics, its sensing, and the task."""
        return self._open().timings()

    def close(self):
        """Frees the environments; later calls raise RuntimeError, closing again does nothing."""
        self._env = None
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"VectorEnv({self.task!r}, backend={self.backend!r}, num_envs={getattr(self, 'num_envs', '?')})"


def _mode(autoreset, autoreset_mode):
    """The module's autoreset name from ``autoreset`` or Gymnasium's keyword ``autoreset_mode``."""
    if autoreset_mode is None:
        return autoreset_name(autoreset)
    mode = autoreset_name(autoreset_mode)
    if autoreset_name(autoreset) not in ("next_step", mode):  # next_step: the default, left as it was
        raise ValueError(f"autoreset={autoreset!r} and autoreset_mode={autoreset_mode!r} disagree; give one")
    return mode


def _checked_actions(actions):
    if hasattr(actions, "detach"):  # a torch tensor, with or without requires_grad
        actions = actions.detach().cpu().numpy()
    a = np.asarray(actions)
    if a.dtype.kind == "f" and not np.isfinite(a).all():
        bad = np.flatnonzero(~np.isfinite(a.reshape(a.shape[0], -1)).all(axis=1)) if a.ndim >= 1 else []
        raise ValueError(f"actions: NaN or infinite values for envs {list(bad[:8])}"
                         f"{' ...' if len(bad) > 8 else ''}; nothing was stepped")
    return a


def _final_info(info, ended):
    """final_obs / final_info of the envs that ended at this step, as Gymnasium's SameStep gives them."""
    info["final_obs"][~ended] = 0  # rows of envs that went on: zeros, as Gymnasium's _add_info leaves them
    info["final_info"] = masked_info({"reward_terms": info["reward_terms"], "episode": info["episode"]}, ended)
    info["_final_info"] = ended


def make_vec(task, backend="mujoco", model="", num_envs=16, seed=0, threads=1, robot="", precision="auto",
             autoreset="next_step", autoreset_mode=None, terms=None):
    """A vector environment of any task and backend, e.g. ``make_vec("quadruped-velocity",
    backend="flashnerd", model="models/quadruped", num_envs=4096)``.

    task: one of ``flashnerd.task_names()``, each described below (and by
    ``flashnerd.task_info(task)``, ``flashnerd tasks --markdown``, docs/TASKS.md); a spec file's
    path; or a whole task in Python: an object with ``spec``, a dict of the spec file's schema
    (robot, action, episode length, commands, resets, and any of its own terms), whose own
    observations, rewards and termination (as ``terms`` below) complete it.
    backend: mujoco; flashnerd or nerd with model=DIR (a trained artifact or an ensemble);
    two-way or one-way (cube-reorient: the hand learned, the cube in MuJoCo) with model=the
    hand's free-velocity artifact.
    num_envs: at most what fits in memory (refused before allocation otherwise); seed: 0 to
    2**64-1; threads: 0 (all cores) up to the core count; precision: auto (bf16 products on CPUs
    with native bf16), fp32 or bf16; autoreset (or Gymnasium's keyword autoreset_mode):
    next_step, same_step or disabled, or Gymnasium's AutoresetMode (see the module's
    documentation).
    terms: reward terms, observations and a termination written in Python, added to the task (one
    object or a list; docs/PYTHON.md, "Terms from Python"). Each object declares ``rewards =
    {"name": scale per second}`` with ``reward(state) -> {"name": array (num_envs,)}``,
    ``observations = {"name": width}`` with ``observe(state) -> {"name": array (num_envs,
    width)}`` (appended to the task's observation), and/or ``terminated(state) -> bool array
    (num_envs,)``; optional ``bodies = ["hand"]`` and ``objective = ["name"]``. ``state`` holds
    read-only numpy views of the whole batch: ``q``, ``v``, ``actions``, ``body_pos[name]``,
    ``body_quat[name]``, ``commands[name]``, ``probe_clearance``, ``dt``, ``num_envs`` (valid
    during the call). One call for every env, never one per env: rewards and termination after
    each step, observations after each step and after resets.
    """
    return VectorEnv(task, backend, model, num_envs, seed, threads, robot, precision, autoreset, autoreset_mode,
                     terms)


# help(make_vec) lists every task's observation slots, action, reward terms and ends, read
# from the task definitions themselves.
make_vec.__doc__ += "\n    Tasks:\n\n" + "\n\n".join(
    "\n".join("    " + line for line in describe(name).splitlines()) for name in task_names())
