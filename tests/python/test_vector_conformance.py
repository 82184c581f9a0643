"""flashnerd.VectorEnv against Gymnasium 1.x's documented VectorEnv contract, written without
gymnasium (not installed here): SameStep's final_obs / final_info, AutoresetMode names and
enums, the Disabled mode's held ended envs, the attributes every VectorEnv has (closed,
np_random, unwrapped, spec, a context manager), render() with one frame per env, and seeds
refused with the accepted range. MuJoCo cartpole, a few envs, a few hundred steps."""
import enum
import os
import re

import numpy as np
import pytest

import flashnerd

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PUSH = np.ones((4, 1), np.float32)  # full force one way: every pole falls within ~60 steps


class GymAutoresetMode(enum.Enum):
    """gymnasium.vector.AutoresetMode as Gymnasium 1.x defines it."""
    NEXT_STEP = "NextStep"
    SAME_STEP = "SameStep"
    DISABLED = "Disabled"


def mode_value(mode):
    return getattr(mode, "value", mode)


def step_until_an_end(env, actions=PUSH, limit=300):
    for _ in range(limit):
        out = env.step(actions)
        if (out[2] | out[3]).any():
            return out
    raise AssertionError("no episode ended")


def assert_vector_info(info, n):
    """Every key of a Gymnasium vector info dict has a bool mask `_key` of shape (n,), recursively."""
    for key, value in info.items():
        if key.startswith("_"):
            continue
        mask = info["_" + key]
        assert mask.dtype == bool and mask.shape == (n,), key
        if isinstance(value, dict):
            assert_vector_info(value, n)
        else:
            assert np.asarray(value).shape[0] == n, key


def test_same_step_info_has_final_obs_and_final_info():
    env = flashnerd.make_vec("cartpole-balance", num_envs=4, seed=1, autoreset="same_step")
    env.reset(seed=1)
    obs, reward, terminated, truncated, info = step_until_an_end(env)
    ended = terminated | truncated
    assert np.array_equal(info["_final_obs"], ended) and np.array_equal(info["_final_info"], ended)
    assert not np.array_equal(obs[ended], info["final_obs"][ended])  # obs already holds the new episode
    assert (info["final_obs"][~ended] == 0).all()  # rows of envs that went on: zeros, as _add_info leaves them
    final = info["final_info"]
    assert isinstance(final, dict)
    assert_vector_info(final, 4)
    assert all(np.array_equal(final["_" + k], ended) for k in final if not k.startswith("_"))
    terms = final["reward_terms"]
    total = sum(v for k, v in terms.items() if not k.startswith("_"))
    np.testing.assert_allclose(total[ended], reward[ended], atol=1e-5)
    assert (total[~ended] == 0).all()
    assert (final["episode"]["l"][ended] > 1).all() and (final["episode"]["l"][~ended] == 0).all()


@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_every_mode_returns_gymnasium_vector_info(mode):
    env = flashnerd.make_vec("cartpole-balance", num_envs=4, seed=2, autoreset=mode)
    obs, info = env.reset(seed=2)
    assert info == {} and obs.shape == (4, 5) and obs.dtype == np.float32
    obs, reward, terminated, truncated, info = step_until_an_end(env)
    assert reward.shape == terminated.shape == truncated.shape == (4,)
    assert terminated.dtype == truncated.dtype == bool
    assert_vector_info({k: info[k] for k in ("final_obs", "_final_obs", "final_info", "_final_info")}, 4)
    # RecordEpisodeStatistics' layout: {"r", "l", "t"} arrays, one "_episode" mask
    assert np.array_equal(info["_episode"], terminated | truncated)
    assert all(info["episode"][k].shape == (4,) for k in ("r", "l", "t"))


@pytest.mark.parametrize("given,name", [
    ("next_step", "next_step"), ("NextStep", "next_step"), (GymAutoresetMode.NEXT_STEP, "next_step"),
    ("same_step", "same_step"), ("SameStep", "same_step"), (GymAutoresetMode.SAME_STEP, "same_step"),
    ("disabled", "disabled"), ("Disabled", "disabled"), (GymAutoresetMode.DISABLED, "disabled"),
])
def test_autoreset_mode_accepts_gymnasium_names_and_enums(given, name):
    env = flashnerd.make_vec("cartpole-balance", num_envs=2, autoreset=given)
    assert env.autoreset_mode == name
    gym_value = {"next_step": "NextStep", "same_step": "SameStep", "disabled": "Disabled"}[name]
    assert mode_value(env.metadata["autoreset_mode"]) == gym_value
    assert env.metadata["autoreset_mode"] is flashnerd.AutoresetMode(gym_value)  # Gymnasium's enum when importable
    # Gymnasium's keyword, as SyncVectorEnv(autoreset_mode=...) takes it
    assert flashnerd.make_vec("cartpole-balance", num_envs=2, autoreset_mode=given).autoreset_mode == name


def test_autoreset_mode_duck_typed_and_refused():
    class ByName:
        name = "SAME_STEP"

    class ByValue:
        value = "Disabled"

    assert flashnerd.make_vec("cartpole-balance", num_envs=2, autoreset=ByName()).autoreset_mode == "same_step"
    assert flashnerd.make_vec("cartpole-balance", num_envs=2, autoreset=ByValue()).autoreset_mode == "disabled"
    for bad in ("never", 3, None):
        with pytest.raises(ValueError, match="autoreset: expected 'next_step', 'same_step' or 'disabled'"):
            flashnerd.make_vec("cartpole-balance", num_envs=2, autoreset=bad)
    with pytest.raises(ValueError, match="autoreset"):
        flashnerd.make_vec("cartpole-balance", num_envs=2, autoreset="same_step", autoreset_mode="disabled")


def test_disabled_mode_holds_ended_envs_until_a_masked_reset():
    env = flashnerd.make_vec("cartpole-balance", num_envs=4, seed=3, autoreset="disabled")
    env.reset(seed=3)
    obs, _, terminated, truncated, info = step_until_an_end(env)
    ended = terminated | truncated
    held = obs[ended].copy()
    assert (info["episode"]["l"][ended] > 1).all()
    lengths = []
    for _ in range(30):  # the ended envs neither step nor pay nor end again
        obs, reward, term, trunc, info = env.step(PUSH)
        assert np.array_equal(obs[ended], held) and (reward[ended] == 0).all()
        assert np.array_equal(term[ended], terminated[ended]) and np.array_equal(trunc[ended], truncated[ended])
        assert not info["_episode"][ended].any() and not info["_final_obs"][ended].any()
        assert all((column[ended] == 0).all() for column in info["reward_terms"].values())
        lengths += list(info["episode"]["l"][info["_episode"]])
    assert all(n > 1 for n in lengths)  # no one-step episodes
    obs, _ = env.reset(options={"reset_mask": ended})
    assert (np.abs(obs[ended][:, :2]) < 0.1).all()  # a new episode: cart centred, pole upright
    obs, reward, term, trunc, info = env.step(np.zeros((4, 1), np.float32))
    assert (reward[ended] != 0).all() and not term[ended].any()  # stepping again


def test_seed_with_reset_mask_is_refused_rather_than_clearing_the_others():
    # the module reseeds every env when given a seed, which would restart the unmasked ones too
    env = flashnerd.make_vec("cartpole-balance", num_envs=3, autoreset="disabled")
    env.reset(seed=1)
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(seed=7, options={"reset_mask": np.array([True, False, False])})


def test_vector_env_attributes_and_context_manager():
    with flashnerd.make_vec("cartpole-balance", num_envs=2) as env:
        assert env.closed is False and env.unwrapped is env and env.spec is None
        assert env.render_mode == "rgb_array" and env.metadata["render_modes"] == ["rgb_array"]
        env.reset(seed=0)
        env.step(np.zeros((2, 1), np.float32))
    assert env.closed is True
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros((2, 1), np.float32))
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()
    env.close()  # a second close is harmless
    assert "num_envs=2" in repr(env)


def test_np_random_is_seeded_by_reset():
    env = flashnerd.make_vec("cartpole-balance", num_envs=2)
    env.reset(seed=42)
    assert isinstance(env.np_random, np.random.Generator) and env.np_random_seed == 42
    a = env.np_random.random(3)
    # seeding.np_random(42) in Gymnasium: Generator(PCG64(SeedSequence(42)))
    assert np.array_equal(a, np.random.Generator(np.random.PCG64(np.random.SeedSequence(42))).random(3))
    env.reset()  # no seed: the generator goes on
    assert not np.array_equal(env.np_random.random(3), a)
    env.reset(seed=42)
    assert np.array_equal(env.np_random.random(3), a)
    env.np_random = np.random.default_rng(1)
    assert env.np_random_seed == -1


def test_render_gives_one_frame_per_env():
    env = flashnerd.make_vec("cartpole-swingup", num_envs=2, seed=1)
    env.reset()
    frames = env.render(width=64, height=48)
    assert isinstance(frames, tuple) and len(frames) == 2
    assert all(f.shape == (48, 64, 3) and f.dtype == np.uint8 for f in frames)
    env.set_state(1, np.array([0.0, 0.0]), np.zeros(2))  # upright: another picture
    frames = env.render(width=64, height=48)
    assert not np.array_equal(frames[0], frames[1])
    assert np.array_equal(env.render(1, width=64, height=48), frames[1])  # one env alone


@pytest.mark.parametrize("bad", [-1, 1.5, "abc", 2**64, 2**70, True, [0, None]])
def test_bad_seeds_name_the_seed_and_the_range(bad):
    env = flashnerd.make_vec("cartpole-balance", num_envs=2)
    with pytest.raises((ValueError, TypeError), match=r"seed.*0 to 2\*\*64-1") as caught:
        env.reset(seed=bad)
    assert "Unable to cast" not in str(caught.value)


@pytest.mark.parametrize("bad", [-5, 1.5, "abc", 2**64])
def test_bad_make_vec_seeds_name_the_seed_and_the_range(bad):
    with pytest.raises((ValueError, TypeError), match=r"seed.*0 to 2\*\*64-1") as caught:
        flashnerd.make_vec("cartpole-balance", num_envs=2, seed=bad)
    assert "Unable to cast" not in str(caught.value)


def test_every_seed_of_the_range_is_accepted():
    big = 2**64 - 1
    a, _ = flashnerd.make_vec("cartpole-balance", num_envs=2, seed=big).reset()
    b, _ = flashnerd.make_vec("cartpole-balance", num_envs=2).reset(seed=np.uint64(big))
    assert np.array_equal(a, b)  # make_vec(seed=s) then reset() is reset(seed=s)
    c, _ = flashnerd.make_vec("cartpole-balance", num_envs=2).reset(seed=[2**63, np.int64(5)])
    assert np.isfinite(c).all()


def test_documented_python_examples_name_shipped_models():
    for doc in ("README.md", os.path.join("docs", "PYTHON.md")):
        with open(os.path.join(ROOT, doc)) as f:
            text = f.read()
        for block in re.findall(r"```python\n(.*?)```", text, re.S):
            for model in re.findall(r"model=\"([^\"]+)\"", block):
                assert os.path.isfile(os.path.join(ROOT, model, "config.json")), (doc, model)
