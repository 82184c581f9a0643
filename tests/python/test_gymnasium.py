"""Gymnasium 1.x vector conventions, each checked on its own: autoreset_mode metadata, per-env
seeds, final_obs / _final_obs, episode statistics, the disabled mode with a reset mask, torch
actions, refused NaN actions, ValueError for bad arguments, and a closed env. Then a PPO-style
loop written against those conventions alone runs unchanged in all three modes."""
import numpy as np
import pytest

import flashnerd


def test_metadata_names_the_autoreset_mode():
    for mode, name in (("next_step", "NextStep"), ("same_step", "SameStep"), ("disabled", "Disabled")):
        assert flashnerd.make_vec("cartpole-balance", num_envs=2, autoreset=mode).metadata["autoreset_mode"].value == name


def test_per_env_seeds():
    env = flashnerd.make_vec("cartpole-balance", num_envs=3)
    a, _ = env.reset(seed=[7, 8, 9])
    b, _ = env.reset(seed=[7, 8, 9])
    c, _ = env.reset(seed=[7, 7, 7])
    assert np.array_equal(a, b)
    assert np.array_equal(c[0], c[1]) and np.array_equal(c[1], c[2]) and np.array_equal(c[0], a[0])
    with pytest.raises(ValueError, match="seed lists 2 seeds for 3"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="non-negative int"):
        env.reset(seed=[1, -2, 3])


def test_final_obs_and_episode_statistics_same_step():
    env = flashnerd.make_vec("cartpole-balance", num_envs=8, seed=1, autoreset="same_step")
    env.reset(seed=1)
    returns, lengths, seen = np.zeros(8), np.zeros(8, int), 0
    for _ in range(400):
        obs, reward, terminated, truncated, info = env.step(np.ones((8, 1), np.float32))
        returns += reward
        lengths += 1
        ended = terminated | truncated
        assert np.array_equal(info["_final_obs"], ended) and np.array_equal(info["_episode"], ended)
        assert info["final_obs"] is info["final_observation"] or np.array_equal(info["final_obs"], info["final_observation"])
        for e in np.flatnonzero(ended):
            assert info["episode"]["l"][e] == lengths[e]
            assert info["episode"]["r"][e] == pytest.approx(returns[e], rel=1e-5)
            assert not np.array_equal(obs[e], info["final_obs"][e])  # the new episode's first
            returns[e], lengths[e], seen = 0, 0, seen + 1
    assert seen > 0


def test_disabled_mode_resets_only_the_masked_envs():
    env = flashnerd.make_vec("cartpole-balance", num_envs=4, seed=2, autoreset="disabled")
    obs0, _ = env.reset(seed=2)
    push = np.ones((4, 1), np.float32)
    for _ in range(300):
        obs, _, terminated, truncated, info = env.step(push)
        if (terminated | truncated).any():
            break
    ended = terminated | truncated
    assert ended.any()
    assert np.array_equal(obs[ended], info["final_obs"][ended])  # nothing restarted by itself
    before = obs.copy()
    obs, _ = env.reset(options={"reset_mask": ended})
    assert np.array_equal(obs[~ended], before[~ended])
    assert not np.array_equal(obs[ended], before[ended])
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(3, bool)})
    with pytest.raises(ValueError, match="unknown options"):
        env.reset(options={"mask": ended})


def test_actions_torch_nan_and_closed_env():
    torch = pytest.importorskip("torch")
    env = flashnerd.make_vec("cartpole-balance", num_envs=2)
    env.reset(seed=0)
    env.step(torch.zeros((2, 1), requires_grad=True))
    bad = np.zeros((2, 1), np.float32)
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"envs \[1\]"):
        env.step(bad)
    with pytest.raises(TypeError, match="num_envs must be an int"):
        flashnerd.make_vec("cartpole-balance", num_envs=2.5)
    with pytest.raises(ValueError, match="unknown task"):
        flashnerd.make_vec("walk")
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros((2, 1), np.float32))


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_a_gymnasium_style_rollout_loop_runs_in_every_mode(mode):
    """The loop a Gymnasium 1.x PPO collects with: bootstrap time-outs from final_obs, reset
    ended envs with a mask in the disabled mode, log episode statistics."""
    env = flashnerd.make_vec("cartpole-swingup", num_envs=16, autoreset=mode)
    obs, _ = env.reset(seed=list(range(16)))
    rng = np.random.default_rng(0)
    episodes, finals = [], 0
    for _ in range(320):
        actions = rng.uniform(-1, 1, size=(16, 1)).astype(np.float32)
        obs, reward, terminated, truncated, info = env.step(actions)
        assert obs.shape == (16, 5) and reward.shape == (16,)
        finals += int(info["_final_obs"][truncated].sum())
        episodes += list(info["episode"]["r"][info["_episode"]])
        if env.metadata["autoreset_mode"] == flashnerd.AutoresetMode.DISABLED and (terminated | truncated).any():
            obs, _ = env.reset(options={"reset_mask": terminated | truncated})
    assert finals > 0 and len(episodes) >= 16 and np.isfinite(episodes).all()
