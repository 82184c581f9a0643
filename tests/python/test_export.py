"""A PyTorch actor exported with flashnerd.export_policy acts like the actor, and
`flashnerd policy-eval` scores it as Python's own evaluation does (same task, seed and envs)."""
import json
import os
import subprocess

import numpy as np
import pytest

import flashnerd

torch = pytest.importorskip("torch")
FN = os.environ.get("FLASHNERD_BIN", "flashnerd")


def python_return(actor, mean, std, task, envs, steps, seed):
    """Mean return of every env's first episode under the actor's mean actions, as policy-eval counts it."""
    env = flashnerd.make_vec(task, num_envs=envs, seed=seed, autoreset="same_step")
    obs, _ = env.reset()
    total, done = np.zeros(envs), np.zeros(envs, bool)
    for _ in range(steps):
        with torch.no_grad():
            a = actor(torch.from_numpy((obs - mean) / std)).numpy()
        obs, reward, terminated, truncated, _ = env.step(a)
        total += np.where(done, 0.0, reward)
        done |= terminated | truncated
    return total.mean()


@pytest.mark.parametrize("activation", [torch.nn.Tanh, torch.nn.ELU])
def test_exported_actor_acts_and_scores_like_the_original(tmp_path, activation):
    torch.manual_seed(0)
    actor = torch.nn.Sequential(torch.nn.Linear(5, 32), activation(), torch.nn.Linear(32, 16), activation(),
                                torch.nn.Linear(16, 1))
    mean = np.array([0.0, 0.1, -0.5, 0.2, 0.0], np.float32)
    std = np.array([1.0, 0.7, 0.7, 2.0, 5.0], np.float32)
    flashnerd.export_policy(actor, tmp_path / "policy", "cartpole-swingup", obs_mean=mean, obs_std=std,
                            action_std=torch.full((1,), 0.3), training={"by": "test"})
    policy = flashnerd.Policy.load(str(tmp_path / "policy"))
    obs = np.random.default_rng(1).normal(size=(64, 5)).astype(np.float32)
    with torch.no_grad():
        want = actor(torch.from_numpy((obs - mean) / std)).numpy()
    np.testing.assert_allclose(policy.act(obs), want, rtol=1e-5, atol=1e-6)

    envs, steps, seed = 32, 300, 11
    out = subprocess.run([FN, "policy-eval", "--policy", str(tmp_path / "policy"), "--envs", str(envs), "--steps",
                          str(steps), "--seed", str(seed), "--json"], check=True, capture_output=True, text=True)
    cli = json.loads(out.stdout)["episode_reward"]
    assert cli == pytest.approx(python_return(actor, mean, std, "cartpole-swingup", envs, steps, seed), rel=1e-3)


def test_unsupported_layers_are_refused(tmp_path):
    actor = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    with pytest.raises(TypeError, match="ReLU"):
        flashnerd.export_policy(actor, tmp_path / "p", "cartpole-swingup")
    wrong = torch.nn.Sequential(torch.nn.Linear(4, 1))
    with pytest.raises(ValueError, match="observation"):
        flashnerd.export_policy(wrong, tmp_path / "q", "cartpole-swingup")
