"""A policy trained in PyTorch as the policy artifact that ``flashnerd policy-eval``,
``policy-video`` and ``flashnerd.Policy`` run (docs/RL.md, the policy artifact)."""
import json

import numpy as np

from . import _flashnerd


def export_policy(actor, path, task, obs_mean=None, obs_std=None, action_std=None, training=None):
    """Writes ``actor`` to the directory ``path`` (policy.json + policy.safetensors).

    actor: a ``torch.nn.Sequential`` of ``Linear`` layers with one kind of activation between
    them (``ELU`` or ``Tanh``) and a linear head: the mean action of raw-observation inputs.
    obs_mean, obs_std: the observation normalization the actor was trained behind
    (``(obs - mean) / std``); None for none. action_std: the exploration noise, recorded.
    training: a JSON-serializable record of how it was trained.
    """
    import torch  # only needed here

    linears, activations = [], set()
    for layer in actor:
        if isinstance(layer, torch.nn.Linear):
            linears.append(layer)
        elif isinstance(layer, torch.nn.ELU):
            activations.add("elu")
        elif isinstance(layer, torch.nn.Tanh):
            activations.add("tanh")
        else:
            raise TypeError(f"export_policy: layer {type(layer).__name__} is not Linear, ELU or Tanh")
    if len(activations) > 1:
        raise ValueError(f"export_policy: mixed activations {sorted(activations)}; one kind is supported")
    if not linears:
        raise ValueError("export_policy: the actor has no Linear layer")
    as_np = lambda t: np.ascontiguousarray(t.detach().cpu().numpy(), dtype=np.float32)
    obs_dim, act_dim = linears[0].in_features, linears[-1].out_features
    mean = np.zeros(obs_dim, np.float32) if obs_mean is None else np.asarray(obs_mean, np.float32).reshape(-1)
    std = np.ones(obs_dim, np.float32) if obs_std is None else np.asarray(obs_std, np.float32).reshape(-1)
    noise = np.ones(act_dim, np.float32) if action_std is None else np.asarray(
        action_std.detach().cpu().numpy() if hasattr(action_std, "detach") else action_std, np.float32).reshape(-1)
    _flashnerd._save_policy(str(path), task, [as_np(l.weight) for l in linears], [as_np(l.bias) for l in linears],
                            mean, std, noise, activations.pop() if activations else "elu",
                            json.dumps(training or {"framework": "pytorch"}))
