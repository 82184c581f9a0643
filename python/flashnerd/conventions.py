"""Gymnasium 1.x's vector conventions without requiring gymnasium: ``AutoresetMode``, autoreset
names, seed checks and vector info dicts (each key with a ``_key`` bool mask)."""
import enum

import numpy as np

from . import _flashnerd

try:  # Gymnasium's own enum when importable, so its wrappers' checks (`in {AutoresetMode.NEXT_STEP}`) hold
    from gymnasium.vector import AutoresetMode
except ImportError:  # pragma: no cover - depends on the machine
    class AutoresetMode(enum.Enum):
        """gymnasium.vector.AutoresetMode: the names and values of Gymnasium 1.x."""
        NEXT_STEP = "NextStep"
        SAME_STEP = "SameStep"
        DISABLED = "Disabled"

# every accepted spelling, lower-cased without underscores -> the module's name (env::Autoreset's)
_AUTORESET = {name.replace("_", ""): name for name in _flashnerd.autoreset_names()}
GYM_MODE = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP,
            "disabled": AutoresetMode.DISABLED}
SEED_RANGE = "a non-negative int, 0 to 2**64-1"


def autoreset_name(mode):
    """'next_step', 'same_step' or 'disabled' for any of Gymnasium's spellings: 'next_step',
    'NextStep', 'NEXT_STEP', or an object (an AutoresetMode) whose .value or .name is one."""
    for candidate in (mode, getattr(mode, "value", None), getattr(mode, "name", None)):
        if isinstance(candidate, str) and candidate.replace("_", "").lower() in _AUTORESET:
            return _AUTORESET[candidate.replace("_", "").lower()]
    raise ValueError(f"autoreset: expected 'next_step', 'same_step' or 'disabled' (or Gymnasium's AutoresetMode, "
                     f"'NextStep', 'SameStep', 'Disabled'), got {mode!r}")


def check_seed(seed, name):
    """``seed`` as a Python int in 0..2**64-1; else a TypeError / ValueError naming it and the range."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be {SEED_RANGE}, got {type(seed).__name__} {seed!r}")
    if not 0 <= int(seed) < 2**64:
        raise ValueError(f"{name} must be {SEED_RANGE}, got {int(seed)}")
    return int(seed)


def check_reset_seed(seed, num_envs):
    """reset's seed: None, one int, or one int per env (list, tuple, range or array)."""
    if seed is None or isinstance(seed, (bool, np.bool_, int, np.integer)):
        return seed if seed is None else check_seed(seed, "reset: seed")
    if not isinstance(seed, (list, tuple, range, np.ndarray)):
        raise TypeError(f"reset: seed must be None, {SEED_RANGE}, or a list of {num_envs} such ints, got "
                        f"{type(seed).__name__} {seed!r}")
    if len(seed) != num_envs:
        raise ValueError(f"reset: seed lists {len(seed)} seeds for {num_envs} environments")
    return [check_seed(s, f"reset: seed[{e}]") for e, s in enumerate(seed)]


def seeded_generator(seed):
    """(Generator, seed) as gymnasium.utils.seeding.np_random(seed) makes them."""
    sequence = np.random.SeedSequence(seed)
    return np.random.Generator(np.random.PCG64(sequence)), sequence.entropy


def masked_info(info, mask):
    """``info``'s per-env arrays kept where ``mask`` and zero elsewhere, each key with its ``_key``
    mask, nested dicts likewise: the vector info Gymnasium's ``VectorEnv._add_info`` builds."""
    out = {}
    for key, value in info.items():
        if isinstance(value, dict):
            out[key] = masked_info(value, mask)
        else:
            value = np.asarray(value)
            out[key] = np.where(mask.reshape((-1,) + (1,) * (value.ndim - 1)), value, np.zeros((), value.dtype))
        out["_" + key] = mask.copy()
    return out
