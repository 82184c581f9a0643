"""The Python module against the CLI's artifacts: state stepping, vector environments with
Gymnasium's conventions (autoreset, time-outs apart from terminations, final observations),
policies, and clear errors for bad shapes. Run by ctest (PYTHONPATH=build/python,
FLASHNERD_BIN=the flashnerd executable)."""
import json
import os
import subprocess
import sys

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


def test_a_non_finite_state_is_reported_per_environment(artifacts):
    # as the learned backend's failed flag: that environment is flagged, never an exception,
    # the others step on; a reset clears the flag
    m = flashnerd.Model(str(artifacts / "model"), batch=3)
    q, v, u = np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 1))
    q[1, 0] = np.nan
    q1, v1 = m.step(q, v, u)
    assert m.diverged().tolist() == [False, True, False]
    assert np.isfinite(q1[[0, 2]]).all() and np.isfinite(v1[[0, 2]]).all()
    m.reset(1)
    assert not m.diverged().any()


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
    # dtypes: other floating-point types are converted, anything else is refused by name
    env.step(np.zeros((4, 1), np.float64))
    with pytest.raises(RuntimeError, match="actions: expected a floating-point array, got dtype int32"):
        env.step(np.zeros((4, 1), np.int32))
    with pytest.raises(RuntimeError, match="q: expected a floating-point array, got dtype <U1"):
        m.step(np.full((2, 2), "a"), np.zeros((2, 2)), np.zeros((2, 1)))


def test_vec_env_same_step_autoreset_and_time_outs(artifacts):
    policy = flashnerd.Policy.load(str(artifacts / "run" / "policy"))
    env = flashnerd.make_vec("cartpole-balance", num_envs=16, seed=3, autoreset="same_step")
    obs, info = env.reset()
    assert obs.shape == (16, 5) and info == {}
    timeouts, terminations = np.zeros(16, int), np.zeros(16, int)
    for step in range(1, 201):
        obs, reward, terminated, truncated, info = env.step(policy.act(obs))
        assert not (terminated & truncated).any()
        assert np.array_equal(truncated, info["time_outs"])
        assert np.array_equal(terminated | truncated, info["_final_observation"])
        if truncated.any():
            assert step == 200  # episodes of the balancing policy run out at 200 steps
            ended = info["final_observation"][truncated]
            assert not np.array_equal(ended, obs[truncated])  # obs already holds the new episode
        timeouts += truncated
        terminations += terminated
    # every env either ran its first episode out at step 200 or fell before (then restarted)
    assert timeouts.sum() >= 1
    assert np.array_equal(timeouts + (terminations > 0), np.ones(16, int))


def test_vec_env_next_step_autoreset_is_the_default():
    env = flashnerd.make_vec("cartpole-balance", num_envs=4, seed=3)
    assert env.autoreset_mode == "next_step" and env.max_episode_steps == 200
    obs, _ = env.reset()
    push = np.ones((4, 1), np.float32)  # full force one way: every pole falls
    for step in range(1, 200):
        obs, reward, terminated, truncated, info = env.step(push)
        if terminated.any():
            break
    assert terminated.any() and not truncated.any()
    ended = terminated.copy()
    assert np.array_equal(obs[ended], info["final_observation"][ended])  # the final observation itself
    obs, reward, terminated, truncated, info = env.step(push)  # the reset step of the ended envs
    assert (reward[ended] == 0).all() and not terminated[ended].any() and not truncated[ended].any()
    # a new episode: cart centred and pole upright (within the start noise) again
    assert (np.abs(obs[ended][:, :2]) < 0.1).all()
    assert not info["_final_observation"][ended].any()


def test_spaces_and_reset_options():
    env = flashnerd.make_vec("cartpole-balance", num_envs=3)
    assert env.num_envs == 3
    assert env.single_observation_space.shape == (5,) and env.single_observation_space.dtype == np.float32
    assert env.single_action_space.shape == (1,)
    assert float(env.single_action_space.low[0]) == -1.0 and float(env.single_action_space.high[0]) == 1.0
    assert env.action_space.shape == (3, 1) and env.observation_space.shape == (3, 5)
    assert env.single_action_space.contains(env.single_action_space.sample())
    a, _ = env.reset(seed=5)
    b, _ = env.reset(seed=5)
    c, _ = env.reset(seed=6)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"x": 1})
    with pytest.raises(ValueError, match="autoreset: expected"):
        flashnerd.make_vec("cartpole-balance", autoreset="never")


def test_inputs_are_read_in_place_and_outputs_can_be(artifacts):
    x = np.zeros((3, 4), np.float32)
    assert flashnerd._flashnerd._input_address(x) == x.ctypes.data  # contiguous float32: no copy
    assert flashnerd._flashnerd._input_address(x.astype(np.float64)) != x.ctypes.data
    torch = pytest.importorskip("torch")
    t = torch.zeros(3, 4)
    assert flashnerd._flashnerd._input_address(t.numpy()) == t.data_ptr()  # a torch tensor through numpy
    m = flashnerd.Model(str(artifacts / "model"), batch=2)
    out = np.empty((2, m.output_dim), np.float32)
    ret = m.step_features(np.ones((2, m.input_dim), np.float32), out=out)
    assert np.shares_memory(ret, out) and np.isfinite(out).all()
    with pytest.raises(RuntimeError, match="out: expected a C-contiguous float32 array"):
        m.step_features(np.ones((2, m.input_dim), np.float32), out=np.empty((2, m.output_dim)))


def test_load_dataset_names_the_arrays(artifacts):
    d = flashnerd.load_dataset(str(artifacts / "data.h5"))
    assert d["robot"] == "cartpole" and d["timestep"] > 0
    assert d["qpos"].shape == (20, 21, 2) and d["qvel"].shape == (20, 21, 2)
    assert d["ctrl"].shape == (20, 20, 1) and d["valid"].shape == (20, 20) and d["valid"].dtype == bool
    assert d["valid"].all() and np.isfinite(d["qpos"]).all()
    with pytest.raises(RuntimeError, match="nope.h5"):
        flashnerd.load_dataset(str(artifacts / "nope.h5"))


def test_python_ppo_example_learns_to_balance(tmp_path):
    pytest.importorskip("torch")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, os.path.join(root, "examples", "python", "ppo_cartpole.py"), "--backend",
                          "mujoco", "--iterations", "100", "--seed", "1", "--json"], check=True, capture_output=True,
                         text=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    # a random policy drops the pole in ~20 steps; 100 iterations balance (seeds 1, 3, 5: 200 of 200)
    assert result["mujoco_mean_episode_length"] > 150, result


def test_learned_backend_env(artifacts):
    env = flashnerd.make_vec("cartpole-balance", backend="flashnerd", model=str(artifacts / "model"), num_envs=8)
    obs, _ = env.reset(seed=2)
    for _ in range(5):
        obs, reward, terminated, truncated, info = env.step(np.zeros((8, 1), np.float32))
    assert obs.shape == (8, 5) and np.isfinite(obs).all()
    assert env.timings()["dynamics_seconds"] > 0


def test_model_load_config_and_prime(artifacts):
    m = flashnerd.Model.load(str(artifacts / "model"), batch=2)
    assert m.config["arch"] == "flashnerd" and m.config["robot"]["name"] == "cartpole"
    d = flashnerd.load_dataset(str(artifacts / "data.h5"))
    q, v, u = (np.ascontiguousarray(d[k][:2, :5].transpose(1, 0, 2)) for k in ("qpos", "qvel", "ctrl"))
    primed = m.prime(q, v, u)  # 5 recorded frames of trajectories 0 and 1
    m.reset_all()
    for t in range(5):
        stepped = m.step(q[t], v[t], u[t])
    assert all(np.array_equal(a, b) for a, b in zip(primed, stepped))
    with pytest.raises(RuntimeError, match=r"command: expected shape \(5, 2, 1\)"):
        m.prime(q, v, u[:, :, :0])


def test_write_dataset_round_trips_with_probes_from_mujoco(tmp_path):
    run("gen", "--robot", "quadruped", "--trajectories", "3", "--steps", "6", "--seed", "4", "--out", str(tmp_path / "g.h5"))
    g = flashnerd.load_dataset(str(tmp_path / "g.h5"))
    assert g["probes"].shape[2] > 0
    out = str(tmp_path / "recorded.h5")
    flashnerd.write_dataset(out, "quadruped", g["qpos"], g["qvel"], g["ctrl"], valid=g["valid"])
    r = flashnerd.load_dataset(out)
    for k in ("qpos", "qvel", "ctrl", "valid"):
        assert np.array_equal(r[k], g[k]), k
    # probe features recomputed by MuJoCo at the recorded states, as the generator did
    assert np.allclose(r["probes"], g["probes"], atol=1e-5)
    with pytest.raises(RuntimeError, match="exists; pass overwrite=True"):
        flashnerd.write_dataset(out, "quadruped", g["qpos"], g["qvel"], g["ctrl"])
    with pytest.raises(RuntimeError, match=r"ctrl: expected shape \(3, 6, 12\)"):
        flashnerd.write_dataset(out, "quadruped", g["qpos"], g["qvel"], g["ctrl"][:, :, :3], overwrite=True)
    bad = g["qvel"].copy()
    bad[1, 2, 0] = np.nan
    with pytest.raises(RuntimeError, match="trajectory 1"):
        flashnerd.write_dataset(out, "quadruped", g["qpos"], bad, g["ctrl"], overwrite=True)


def test_vec_env_cube_reorientation_on_the_hand():
    # the task picks its robot (hand16 with its cube); a policy step is 8 control steps
    env = flashnerd.make_vec("cube-reorient-reduced", num_envs=2, seed=1)
    assert env.single_observation_space.shape == (69,) and env.single_action_space.shape == (16,)
    assert env.max_episode_steps == 300
    obs, _ = env.reset()
    for _ in range(5):
        obs, reward, terminated, truncated, info = env.step(np.zeros((2, 16), np.float32))
    assert np.isfinite(obs).all() and np.isfinite(reward).all()
    assert (np.abs(obs[:, 32:35]) < 0.1).all()  # the cube is still near its resting spot (after 16 joints, 16 velocities)


def test_vec_env_reward_terms_add_up_to_the_reward():
    env = flashnerd.make_vec("quadruped-velocity", num_envs=8, seed=5)
    assert env.dt == pytest.approx(0.02)  # the quadruped's 50 Hz control
    env.reset()
    rng = np.random.default_rng(0)
    names = {"tracking_lin_vel", "tracking_ang_vel", "lin_vel_z", "ang_vel_xy", "orientation", "torques",
             "dof_acc", "action_rate", "feet_air_time", "termination"}
    resets, prev_ended = 0, np.zeros(8, bool)
    for _ in range(60):
        obs, reward, terminated, truncated, info = env.step(rng.normal(0, 1.5, (8, 12)).astype(np.float32))
        terms = info["reward_terms"]
        assert set(terms) == names
        total = sum(terms.values())
        assert np.allclose(total, reward, atol=1e-5)
        assert (terms["action_rate"] <= 0).all() and (terms["tracking_lin_vel"] >= 0).all()
        resets += prev_ended.sum()  # next_step autoreset: a reset step has no terms
        assert all((column[prev_ended] == 0).all() for column in terms.values())
        prev_ended = terminated | truncated
    assert resets >= 1  # the strong random actions topple some robots, so a reset step was checked
