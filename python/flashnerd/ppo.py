"""PPO from Python: the project's C++ runner (``flashnerd ppo``'s), not a reimplementation.

    summary = flashnerd.ppo("arm7-reach", "runs/reach", terms=HandNearTarget(), num_envs=1024)

trains on any task, backend and model ``make_vec`` takes, with reward terms and a termination
written in Python (``terms=``, as ``make_vec``'s), and writes what ``flashnerd ppo`` writes:
checkpoint (``resume=True`` continues it), ``log.csv``, reward curves and ``policy/``, which
``Policy.load``, ``flashnerd policy-eval`` and ``policy-video`` read. The runner's module links
libtorch, so it is loaded on the first call, not by ``import flashnerd``.
"""

__all__ = ["ppo"]


def ppo(task, out, backend="mujoco", model="", terms=None, num_envs=4096, iterations=300, steps_per_env=24, seed=1,
        lr=1e-3, entropy=0.005, hidden=(128, 64, 32), threads=1, robot="", precision="auto", overwrite=False,
        resume=False, progress=True):
    """Trains a policy with PPO and returns the run's summary: ``returns`` (per iteration, the
    mean return of the episodes that ended), ``reward_terms`` (per iteration, each term's share
    of an episode's return, Python terms included), ``return_finished_episodes``, ``seconds``,
    ``transitions`` and ``policy`` (the directory of the trained policy). ``threads``: 0 (all
    cores) up to the core count; the Python terms run on the calling thread, once per step."""
    try:
        from . import _ppo
    except ImportError as e:
        raise ImportError("flashnerd.ppo needs the module flashnerd._ppo, built with the training library "
                          "(FLASHNERD_WITH_TORCH=ON)") from e
    return _ppo.ppo(task, str(out), backend=backend, model=str(model), terms=terms, num_envs=num_envs,
                    iterations=iterations, steps_per_env=steps_per_env, seed=seed, lr=lr, entropy=entropy,
                    hidden=list(hidden), threads=threads, robot=robot, precision=precision, overwrite=overwrite,
                    resume=resume, progress=progress)
