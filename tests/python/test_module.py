"""The Python module against the CLI's artifacts: state stepping, vector environments with
Gymnasium's conventions (autoreset, time-outs apart from terminations, final observations),
policies, and clear errors for bad shapes. Run by ctest (PYTHONPATH=build/python,
FLASHNERD_BIN=the flashnerd executable)."""
import os
import subprocess

import numpy as np
import pytest

import flashnerd

FN = os.environ.get("FLASHNERD_BIN", "flashnerd")


def run(*args):
    subprocess.run([FN, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory):
    d = tmp_path_factory.mktemp("artifacts")
    run("gen", "--robot", "cartpole", "--trajectories", "20", "--steps", "20", "--seed", "1", "--out", str(d / "data.h5"))
    run("train", "--data", str(d / "data.h5"), "--preset", "tiny", "--updates", "4", "--valid-every", "0", "--quiet",
        "--out", str(d / "model"))
    run("ppo", "--task", "cartpole-balance", "--envs", "64", "--steps-per-env", "32", "--iterations", "120",
        "--hidden", "32,32", "--entropy", "0", "--seed", "5", "--quiet", "--out", str(d / "run"))
    return d


def test_model_steps_in_state_terms(artifacts):
    m = flashnerd.Model(str(artifacts / "model"), batch=3)
    assert (m.robot, m.nq, m.nv, m.nu) == ("cartpole", 2, 2, 1)
    rng = np.random.default_rng(0)
    q, v, u = rng.normal(size=(3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(3, 1))
    q1, v1 = m.step(q, v, u)
    assert q1.shape == (3, 2) and v1.shape == (3, 2) and q1.dtype == np.float64
    m.reset_all()
    q2, v2 = m.step(q, v, u)
    assert np.array_equal(q1, q2) and np.array_equal(v1, v2)  # same history, same bits
    m.step(q1, v1, u)
    m.reset(1)  # env 1 starts over: its next step from (q, v) repeats the first; env 0 does not
    q3, _ = m.step(q, v, u)
    assert np.array_equal(q3[1], q1[1])
    assert not np.array_equal(q3[0], q1[0])
    assert not m.diverged().any()
    feats = m.step_features(np.zeros((3, m.input_dim), np.float32))
    assert feats.shape == (3, m.output_dim)


def test_bad_shapes_name_the_argument(artifacts):
    m = flashnerd.Model(str(artifacts / "model"), batch=2)
    with pytest.raises(RuntimeError, match=r"command: expected shape \(2, 1\)"):
        m.step(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 3)))
    env = flashnerd.make_vec("cartpole-balance", num_envs=4)
    env.reset()
    with pytest.raises(RuntimeError, match=r"actions: expected shape \(4, 1\)"):
        env.step(np.zeros((4, 2), np.float32))
    with pytest.raises(RuntimeError, match="unknown task"):
        flashnerd.make_vec("walk", robot="cartpole")


def test_vec_env_autoreset_and_time_outs(artifacts):
    policy = flashnerd.Policy.load(str(artifacts / "run" / "policy"))
    env = flashnerd.make_vec("cartpole-balance", num_envs=16, seed=3)
    obs, info = env.reset()
    assert obs.shape == (16, 5) and info == {}
    timeouts, terminations = np.zeros(16, int), np.zeros(16, int)
    for step in range(1, 201):
        obs, reward, terminated, truncated, info = env.step(policy.act(obs))
        assert not (terminated & truncated).any()
        assert np.array_equal(truncated, info["time_outs"])
        if truncated.any():
            assert step == 200  # episodes of the balancing policy run out at 200 steps
            ended = info["final_observation"][truncated]
            assert not np.array_equal(ended, obs[truncated])  # obs already holds the new episode
        timeouts += truncated
        terminations += terminated
    # every env either ran its first episode out at step 200 or fell before (then restarted)
    assert timeouts.sum() >= 1
    assert np.array_equal(timeouts + (terminations > 0), np.ones(16, int))


def test_learned_backend_env(artifacts):
    env = flashnerd.make_vec("cartpole-balance", backend="flashnerd", model=str(artifacts / "model"), num_envs=8)
    obs, _ = env.reset(seed=2)
    for _ in range(5):
        obs, reward, terminated, truncated, info = env.step(np.zeros((8, 1), np.float32))
    assert obs.shape == (8, 5) and np.isfinite(obs).all()
    assert env.timings()["dynamics_seconds"] > 0
