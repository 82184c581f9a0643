"""Observation and action spaces: ``gymnasium.spaces.Box`` when gymnasium is importable, else a
small stand-in with the same attributes (shape, dtype, low, high, sample, contains)."""
import numpy as np

try:  # gymnasium is not packaged in Debian: optional
    from gymnasium.spaces import Box as _GymBox
except ImportError:  # pragma: no cover - depends on the machine
    _GymBox = None


class _Box:
    """A box in R^shape with the attributes Gymnasium's Box has."""

    def __init__(self, low, high, shape, dtype=np.float32, seed=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.low = np.full(self.shape, low, self.dtype)
        self.high = np.full(self.shape, high, self.dtype)
        self._rng = np.random.default_rng(seed)

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)

    def sample(self):
        # unbounded sides sample a standard normal, as Gymnasium does
        low = np.where(np.isfinite(self.low), self.low, -1.0)
        high = np.where(np.isfinite(self.high), self.high, 1.0)
        bounded = np.isfinite(self.low) & np.isfinite(self.high)
        x = np.where(bounded, self._rng.uniform(low, high), self._rng.standard_normal(self.shape))
        return x.astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low) and np.all(x <= self.high))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


def Box(low, high, shape, dtype=np.float32):
    """A Gymnasium Box when gymnasium is importable, else the stand-in."""
    if _GymBox is not None:
        return _GymBox(low=low, high=high, shape=tuple(shape), dtype=dtype)
    return _Box(low, high, shape, dtype)
