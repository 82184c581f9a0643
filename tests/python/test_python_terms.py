"""Reward terms and terminations written in Python (make_vec's terms=): numpy over the whole
batch, one call per step, equal to the spec's own terms when they compute the same thing, part
of the reward and of the episode's end, refused with the term's name when they misbehave."""
import numpy as np
import pytest

import flashnerd


class ArmReachInNumpy:
    """arm7-reach's distance, reached and joint_vel terms, written again over the batch."""
    rewards = {"distance_py": -2.0, "reached_py": 1.0, "joint_vel_py": -0.01}
    objective = ["reached_py"]
    bodies = ["hand"]

    def __init__(self):
        self.calls = 0

    def reward(self, s):
        self.calls += 1
        err = s.body_pos["hand"] - s.commands["target"]
        d2 = np.sum(err * err, axis=1)
        return {"distance_py": np.sqrt(d2), "reached_py": np.exp(-d2 / 0.01), "joint_vel_py": np.sum(s.v * s.v, axis=1)}


def random_actions(rng, env):
    return rng.uniform(-1.2, 1.2, (env.num_envs, env.single_action_space.shape[0])).astype(np.float32)


def test_python_terms_equal_the_spec_terms_and_join_the_reward():
    terms = ArmReachInNumpy()
    with_py = flashnerd.make_vec("arm7-reach", num_envs=6, seed=3, terms=terms)
    plain = flashnerd.make_vec("arm7-reach", num_envs=6, seed=3)
    with_py.reset()
    plain.reset()
    rng = np.random.default_rng(0)
    for step in range(300):  # past a target's redraw (120 steps) and an episode's end (240)
        actions = random_actions(rng, plain)
        _, r_py, term_py, trunc_py, info_py = with_py.step(actions)
        _, r, term, trunc, info = plain.step(actions)
        parts = info_py["reward_terms"]
        for name in ("distance", "reached", "joint_vel"):
            np.testing.assert_allclose(parts[name + "_py"], parts[name], rtol=1e-6, atol=1e-12, err_msg=f"step {step}")
            np.testing.assert_array_equal(parts[name], info["reward_terms"][name])
        np.testing.assert_allclose(r_py, r + sum(parts[n] for n in ArmReachInNumpy.rewards), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(term_py, term)
        np.testing.assert_array_equal(trunc_py, trunc)
    assert terms.calls == 300  # one call per step for the whole batch
    names = [r["name"] for r in flashnerd.task_info("arm7-reach")["reward"]]
    assert "distance_py" not in names  # the built-in task is unchanged


class SliderBound:
    """Ends a cartpole episode once the cart leaves |x| <= 0.05 (tighter than the task's own)."""

    def __init__(self):
        self.ended = []

    def terminated(self, s):
        mask = np.abs(s.q[:, 0]) > 0.05
        self.ended.append(mask.copy())
        return mask


def test_python_termination_ends_episodes():
    bound = SliderBound()
    env = flashnerd.make_vec("cartpole-balance", num_envs=8, seed=1, terms=bound, autoreset="same_step")
    env.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(200):
        _, _, terminated, _, _ = env.step(random_actions(rng, env))
        assert np.all(terminated[bound.ended[-1]]), "an episode the Python term ended went on"
        ended += int(terminated.sum())
    assert ended > 8


def test_views_are_read_only_and_describe_the_batch():
    seen = {}

    class Probe:
        rewards = {"probe": 0.0}
        bodies = ["hand"]

        def reward(self, s):
            seen.update(q=s.q.shape, v=s.v.shape, a=s.actions.shape, hand=s.body_pos["hand"].shape,
                        quat=s.body_quat["hand"].shape, target=s.commands["target"].shape, dt=s.dt, n=s.num_envs)
            with pytest.raises(ValueError):
                s.q[0, 0] = 1.0
            assert not s.q.flags.owndata and not s.body_pos["hand"].flags.owndata  # views, not copies
            return {"probe": np.zeros(s.num_envs)}

    env = flashnerd.make_vec("arm7-reach", num_envs=5, terms=[Probe()])
    env.reset()
    env.step(np.zeros((5, 7), np.float32))
    assert seen == {"q": (5, 7), "v": (5, 7), "a": (5, 7), "hand": (5, 3), "quat": (5, 4), "target": (5, 3),
                    "dt": pytest.approx(4 / 120), "n": 5}


class Returns:
    def __init__(self, value, rewards=None):
        self.value, self.rewards = value, rewards or {"bad": 1.0}

    def reward(self, s):
        return self.value(s)


@pytest.mark.parametrize("value, message", [
    (lambda s: {"other": np.zeros(s.num_envs)}, r"reward\(state\) returned no 'bad'"),
    (lambda s: {"bad": np.zeros(s.num_envs + 1)}, r"\['bad'\]: expected shape \(4\)"),
    (lambda s: {"bad": np.full(s.num_envs, np.nan)}, r"\['bad'\] is nan in environment 0"),
    (lambda s: np.zeros(s.num_envs), "must return a dict"),
])
def test_misbehaving_terms_are_named(value, message):
    env = flashnerd.make_vec("cartpole-balance", num_envs=4, terms=Returns(value))
    env.reset()
    with pytest.raises(Exception, match=message):
        env.step(np.zeros((4, 1), np.float32))


@pytest.mark.parametrize("task, terms, message", [
    ("cartpole-balance", Returns(None, {"alive": 1.0}), "reward term 'alive' is already a term"),
    ("cartpole-balance", Returns(None, {"x": float("nan")}), "must be finite"),
    ("arm7-reach", type("Bodies", (Returns,), {"bodies": ["wrist_typo"]})(None), "names body 'wrist_typo'"),
    ("cartpole-balance", type("Empty", (), {})(), "adds nothing"),
])
def test_bad_terms_are_refused_before_any_step(task, terms, message):
    with pytest.raises(Exception, match=message):
        flashnerd.make_vec(task, num_envs=2, terms=terms)


class Toward:
    """Pays for the cart's position along `sign`: at 1 m, as much per step as the alive term."""
    rewards = {"toward": 50.0}

    def __init__(self, sign):
        self.sign = sign

    def reward(self, s):
        return {"toward": self.sign * s.q[:, 0]}


def mean_cart_position(policy_dir):
    """The cart's mean position under the policy's mean actions, steps 50 to 200 of 64 MuJoCo episodes."""
    policy = flashnerd.Policy.load(policy_dir)
    env = flashnerd.make_vec("cartpole-balance", num_envs=64, seed=5)
    obs, _ = env.reset()
    positions = []
    for t in range(200):
        obs, *_ = env.step(policy.act(obs))
        if t >= 50:
            positions.append(obs[:, 0].mean())
    return float(np.mean(positions))


def test_a_python_reward_changes_what_ppo_learns(tmp_path):
    """The project's PPO runner from Python with a Python term paying for x > 0, and with one
    paying for x < 0: the same seed, and the carts end up on opposite sides (seeds 1 to 3 on a
    2-core Zen 5: right at +0.77 to +1.35 m, left at -0.64 to -0.78 m)."""
    pytest.importorskip("flashnerd._ppo")
    runs = {}
    for name, sign in (("right", 1.0), ("left", -1.0)):
        runs[name] = flashnerd.ppo("cartpole-balance", tmp_path / name, terms=Toward(sign), num_envs=256,
                                   iterations=100, steps_per_env=32, hidden=(32, 32), seed=1, progress=False)
    assert runs["right"]["reward_terms"][-1]["toward"] > 0
    assert runs["left"]["reward_terms"][-1]["toward"] > 0
    right, left = mean_cart_position(runs["right"]["policy"]), mean_cart_position(runs["left"]["policy"])
    assert right > 0.3 and left < -0.3 and right - left > 1.0, (left, right)
