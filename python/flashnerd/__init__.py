"""FlashNeRD from Python: learned robot dynamics as a simulator.

    import numpy as np, flashnerd
    env = flashnerd.make_vec("cartpole-balance", backend="flashnerd", model="out/demo/flashnerd", num_envs=1024)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(np.zeros((1024, 1), np.float32))

- ``Model(dir, batch)``: a trained artifact stepped in state terms (``step(q, v, command)``)
  or raw features (``step_features``), with per-env ``reset`` and ``diverged`` flags.
- ``make_vec(task, backend, model, num_envs)``: vector environments with Gymnasium's
  conventions over MuJoCo or a learned model (``vector.VectorEnv``; ``AutoresetMode`` names its
  autoreset modes, Gymnasium's enum when gymnasium is importable), with ``render()``,
  ``get_state`` / ``set_state``; ``task_names()`` and ``task_info(task)`` describe each task's
  observation, action, reward terms and ends (``help(flashnerd.make_vec)`` lists them).
- ``Policy.load(dir)``: a policy trained by ``flashnerd ppo``, without libtorch;
  ``export_policy(actor, dir, task, obs_mean, obs_std)`` writes a PyTorch actor as one, for
  ``flashnerd policy-eval`` and ``policy-video``; ``export_onnx(policy_dir, path)`` writes a
  policy as an ONNX graph, normalization inside.
- ``ppo(task, out, terms=...)``: the project's PPO runner (``flashnerd ppo``'s) from Python, with
  reward terms written in Python (``make_vec``'s ``terms=``); loads libtorch on the first call.
- ``load_dataset(path)``: a ``flashnerd gen`` file as named numpy arrays.
- ``flashnerd.plot.draw(spec)``: a plot spec the CLI wrote (``NAME.plot.json``) drawn with matplotlib.
- ``Error``: every error of the C++ core (bad arguments, bad files), a ``ValueError``.

Arrays are numpy; PyTorch users convert with ``torch.from_numpy`` (no copy). docs/PYTHON.md
has the whole API.
"""
from ._flashnerd import Error, Model, Policy, export_onnx, load_dataset, robot_info, write_dataset
from .export import export_policy
from .ppo import ppo
from .spaces import Box
from .tasks import task_info, task_names
from .vector import AutoresetMode, VectorEnv, make_vec

__all__ = ["AutoresetMode", "Box", "Error", "Model", "Policy", "VectorEnv", "export_onnx", "export_policy", "load_dataset",
           "make_vec", "ppo", "robot_info", "task_info", "task_names", "write_dataset"]
