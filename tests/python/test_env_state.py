"""Environments from Python beyond reset/step: render() through the EGL renderer, get/set of
an env's state (a fresh history on learned backends too), and the task descriptions that
help(make_vec) and task_info() read from the C++ task definitions."""
import os

import numpy as np
import pytest

import flashnerd

MODEL = os.path.join(os.path.dirname(__file__), "..", "..", "models", "cartpole")


def test_render_draws_the_env_scene():
    env = flashnerd.make_vec("cartpole-swingup", num_envs=2, seed=1)
    env.reset()
    assert env.metadata["render_modes"] == ["rgb_array"]
    a = env.render(0, width=96, height=64)
    assert a.shape == (64, 96, 3) and a.dtype == np.uint8 and int(a.max()) - int(a.min()) > 50
    env.set_state(1, np.array([0.0, 0.0]), np.zeros(2))  # upright: another picture
    assert not np.array_equal(env.render(1, width=96, height=64), a)
    with pytest.raises(ValueError, match="env must lie in 0..1"):
        env.render(2)


@pytest.mark.parametrize("backend", ["mujoco", "flashnerd"])
def test_set_state_places_an_env_and_steps_from_there(backend):
    model = MODEL if backend == "flashnerd" else ""
    env = flashnerd.make_vec("cartpole-swingup", backend=backend, model=model, num_envs=3, seed=2, autoreset="disabled")
    env.reset()
    state = env.get_state(0)
    assert state["qpos"].shape == (2,) and state["qvel"].shape == (2,)
    qpos, qvel = np.array([0.3, 0.2]), np.array([0.1, -0.4])
    for e in (1, 2):
        obs = env.set_state(e, qpos, qvel)
        np.testing.assert_allclose(obs, [0.3, np.sin(0.2), np.cos(0.2), 0.1, -0.4], rtol=1e-6)
    np.testing.assert_array_equal(env.get_state(1)["qpos"], qpos)
    obs, *_ = env.step(np.full((3, 1), 0.5, np.float32))
    np.testing.assert_array_equal(obs[1], obs[2])  # one state, one action, one next state
    assert not np.array_equal(obs[0], obs[1])
    with pytest.raises(ValueError, match=r"qpos: expected shape \(2\)"):
        env.set_state(0, np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="qvel"):
        env.set_state(0, np.zeros(2), np.array([np.nan, 0.0]))
    with pytest.raises(ValueError, match="no objects"):
        env.set_state(0, qpos, qvel, object_qpos=np.zeros(7), object_qvel=np.zeros(6))


def test_task_descriptions_match_the_spaces():
    assert "cartpole-swingup" in flashnerd.task_names()
    for name in flashnerd.task_names():
        info = flashnerd.task_info(name)
        widths = sum(o["width"] for o in info["observation"])
        assert widths == info["observation_dim"], name
        assert name in flashnerd.make_vec.__doc__
    env = flashnerd.make_vec("cartpole-balance", num_envs=1)
    assert env.single_observation_space.shape == (env.task_info["observation_dim"],)
    assert env.single_action_space.shape == (env.task_info["action"]["dim"],)
    assert "pole_sin" in env.describe()
    with pytest.raises(flashnerd.Error, match="unknown task"):
        flashnerd.task_info("walk")
