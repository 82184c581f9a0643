"""A policy trained in PyTorch as the policy artifact that ``flashnerd policy-eval``,
``policy-video`` and ``flashnerd.Policy`` run (docs/RL.md, the policy artifact).

Everything is checked before anything is written: the actor's layout (Linear, activation,
Linear, ..., Linear) and widths against the task, every weight finite, the normalization finite
in float32 with obs_std > 0, action_std > 0. The policy is written into a scratch directory
beside ``path`` and moved into place, so a refused or failed export leaves ``path`` as it was;
an existing policy is replaced only with ``overwrite=True``."""
import json
import os
import shutil

import numpy as np

from . import _flashnerd
from .tasks import task_info

_FILES = ("policy.safetensors", "policy.json")  # moved into place in this order: the json names a whole policy
_LAYOUT = "a torch.nn.Sequential of Linear layers with one ELU or Tanh after each hidden one, e.g. " \
          "Sequential(Linear(obs_dim, 64), ELU(), Linear(64, 64), ELU(), Linear(64, action_dim))"
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def export_policy(actor, path, task, obs_mean=None, obs_std=None, action_std=None, training=None, overwrite=False):
    """Writes ``actor`` to the directory ``path`` (policy.json + policy.safetensors).

    actor: a ``torch.nn.Sequential`` of ``Linear`` layers with one kind of activation between
    them (``ELU`` or ``Tanh``) and a linear head: the mean action of raw-observation inputs.
    task: a task name or spec file; the actor's input and output widths must be its
    observation and action widths. obs_mean, obs_std: the observation normalization the actor
    was trained behind (``(obs - mean) / std``, std > 0); None for none. action_std: the
    exploration noise (> 0: the std, not its log), recorded. training: a JSON-serializable
    record of how it was trained. overwrite: replace a policy already in ``path``.
    """
    import torch  # only needed here

    info = task_info(os.fspath(task))  # an unknown task is refused first
    obs_dim, act_dim = info["observation_dim"], info["action"]["dim"]
    linears, activation = _mlp(actor, torch, obs_dim, act_dim, task)
    as_np = lambda t: t.detach().cpu().double().numpy()
    weights = [_finite(as_np(linears[i].weight), f"actor[{i}].weight") for i in linears]
    biases = [np.zeros(linears[i].out_features, np.float32) if linears[i].bias is None
              else _finite(as_np(linears[i].bias), f"actor[{i}].bias") for i in linears]
    mean = _statistic(obs_mean, "obs_mean", obs_dim, "observation", 0.0,
                      "pass the observation mean the actor was trained behind")
    std = _statistic(obs_std, "obs_std", obs_dim, "observation", 1.0,
                     "pass the observation std the actor was trained behind (each > 0)", True)
    noise = _statistic(action_std, "action_std", act_dim, "action", 1.0,
                       "pass the std (each > 0), not its log: torch.exp(log_std)", True)
    training = json.dumps(training or {"framework": "pytorch"})
    path = os.fspath(path)
    _check_output(path, os.fspath(task), overwrite)
    scratch = "%s.tmp.%d" % (os.path.abspath(path), os.getpid())
    shutil.rmtree(scratch, ignore_errors=True)  # left by a killed export of this process id
    os.makedirs(scratch)
    try:
        _flashnerd._save_policy(scratch, os.fspath(task), weights, biases, mean, std, noise, activation, training)
        if not os.path.exists(path):
            os.rename(scratch, path)
            return
        for name in _FILES:
            os.replace(os.path.join(scratch, name), os.path.join(path, name))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _mlp(actor, torch, obs_dim, act_dim, task):
    """{Sequential index: Linear} and the activation's name, the layout and widths checked."""
    if not isinstance(actor, (torch.nn.Sequential, torch.nn.ModuleList, list, tuple)):
        hint = "; wrap a lone Linear as torch.nn.Sequential(actor)" if isinstance(actor, torch.nn.Linear) else ""
        raise TypeError(f"export_policy: actor must be {_LAYOUT}; got {type(actor).__name__}{hint}")
    layers = list(actor)
    linears, activations = {}, set()
    for i, layer in enumerate(layers):
        kind = _activation(layer, torch, i)
        if kind is None:
            if i % 2:
                raise ValueError(f"export_policy: actor[{i}] is a Linear right after the Linear actor[{i - 1}]; "
                                 f"the policy applies the activation after every hidden layer: expected {_LAYOUT}")
            linears[i] = layer
        else:
            if i % 2 == 0:
                raise ValueError(f"export_policy: actor[{i}] is {type(layer).__name__} where a Linear belongs; "
                                 f"expected {_LAYOUT}")
            activations.add(kind)
    if not layers or len(layers) % 2 == 0:
        last = type(layers[-1]).__name__ if layers else "nothing"
        raise ValueError(f"export_policy: the actor must end with a Linear head (the mean action), got {last} at "
                         f"the end; expected {_LAYOUT}")
    if len(activations) > 1:
        raise ValueError(f"export_policy: mixed activations {sorted(activations)}; one kind is supported")
    widths = [(i, l.in_features, l.out_features) for i, l in linears.items()]
    if widths[0][1] != obs_dim:
        raise ValueError(f"export_policy: actor[0] takes {widths[0][1]} inputs, but task {task} has {obs_dim} "
                         f"observations: the first layer must be Linear({obs_dim}, ...)")
    for (i, _, out), (j, inp, _) in zip(widths, widths[1:]):
        if inp != out:
            raise ValueError(f"export_policy: actor[{j}] takes {inp} inputs, but actor[{i}] gives {out}")
    if widths[-1][2] != act_dim:
        raise ValueError(f"export_policy: actor[{widths[-1][0]}] gives {widths[-1][2]} outputs, but task {task} has "
                         f"{act_dim} actions: the head must be Linear(..., {act_dim})")
    return linears, activations.pop() if activations else "elu"


def _activation(layer, torch, i):
    """'elu' or 'tanh' for an activation the policy runs, None for a Linear; others refused."""
    if isinstance(layer, torch.nn.Linear):
        return None
    if isinstance(layer, torch.nn.ELU):
        if layer.alpha != 1.0:
            raise ValueError(f"export_policy: actor[{i}] is ELU(alpha={layer.alpha}); the policy runs ELU(alpha=1.0)")
        return "elu"
    if isinstance(layer, torch.nn.Tanh):
        return "tanh"
    raise TypeError(f"export_policy: layer actor[{i}] {type(layer).__name__} is not Linear, ELU or Tanh; "
                    f"expected {_LAYOUT}")


def _finite(values, name, fix="the actor diverged: export a checkpoint from before the divergence",
            positive=False):
    """``values`` as float32, refused naming the first value that is not finite in float32
    (or, with ``positive``, not > 0) and the fix."""
    wide = np.asarray(values, np.float64)
    with np.errstate(over="ignore"):
        narrow = wide.astype(np.float32)
    bad = ~np.isfinite(narrow) | (~(narrow > 0) if positive else False)
    if bad.any():
        where = np.unravel_index(int(np.flatnonzero(bad)[0]), bad.shape)
        value = wide[where]
        index = ", ".join(str(int(k)) for k in where)
        why = ("not a finite number" if not np.isfinite(value) else
               f"beyond float32's range (±{_FLOAT32_MAX:.3g}): it would be written as inf"
               if abs(value) > _FLOAT32_MAX else "but it must be > 0")
        raise ValueError(f"export_policy: {name}[{index}] is {value!r}, {why} ({int(bad.sum())} bad of "
                         f"{bad.size}); {fix}")
    return narrow


def _statistic(value, name, n, per, default, fix, positive=False):
    """A normalization vector of ``n`` finite float32 values (``default`` when None)."""
    if value is None:
        return np.full(n, default, np.float32)
    if hasattr(value, "detach"):
        value = value.detach().cpu().double().numpy()
    a = np.asarray(value, np.float64).reshape(-1)
    if a.size != n:
        raise ValueError(f"export_policy: {name} has {a.size} values; the task has {n}, one per {per}")
    return _finite(a, name, fix, positive)


def _check_output(path, task, overwrite):
    """Refuses writing over the task spec the policy is made from, and over a policy unless overwrite."""
    targets = [path] + [os.path.join(path, name) for name in _FILES]
    if os.path.isfile(task) and os.path.realpath(task) in {os.path.realpath(t) for t in targets}:
        raise ValueError(f"export_policy: the output {path} is the task spec {task} it is made from; "
                         f"write the policy to another directory")
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"export_policy: {path} is a file; a policy is a directory (policy.json + "
                         f"policy.safetensors): choose another path")
    existing = [t for t in targets[1:] if os.path.exists(t)]
    if existing and not overwrite:
        raise FileExistsError(f"export_policy: {path} already holds a policy ({os.path.basename(existing[0])}); "
                              f"pass overwrite=True to replace it, or choose another path")
