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


def mlp(inputs=5, outputs=1):
    return torch.nn.Sequential(torch.nn.Linear(inputs, 8), torch.nn.ELU(), torch.nn.Linear(8, outputs))


def test_an_existing_policy_is_replaced_only_with_overwrite(tmp_path):
    out = tmp_path / "policy"
    flashnerd.export_policy(mlp(), out, "cartpole-swingup", action_std=[0.5])
    before = {name: (out / name).read_bytes() for name in ("policy.json", "policy.safetensors")}
    with pytest.raises(FileExistsError, match="overwrite=True"):
        flashnerd.export_policy(mlp(), out, "cartpole-swingup", action_std=[0.7])
    assert {name: (out / name).read_bytes() for name in before} == before  # untouched
    flashnerd.export_policy(mlp(), out, "cartpole-swingup", action_std=[0.7], overwrite=True)
    assert (out / "policy.safetensors").read_bytes() != before["policy.safetensors"]
    flashnerd.Policy.load(str(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy"]  # no scratch directory left


def test_the_task_spec_and_a_file_are_no_output(tmp_path):
    spec = tmp_path / "swingup.json"
    spec.write_text(open(os.path.join(os.path.dirname(__file__), "..", "..", "robots", "tasks",
                                      "cartpole-swingup.json")).read())
    with pytest.raises(ValueError, match="task spec"):
        flashnerd.export_policy(mlp(), spec, str(spec), overwrite=True)
    assert json.loads(spec.read_text())  # still the spec
    with pytest.raises(ValueError, match="is a file; a policy is a directory"):
        flashnerd.export_policy(mlp(), spec, "cartpole-swingup", overwrite=True)


@pytest.mark.parametrize("bad, match", [
    ("weight", r"actor\[2\].weight\[0, 3\] is nan, not a finite number.*checkpoint"),
    ("bias", r"actor\[0\].bias\[1\] is inf, not a finite number"),
    ("obs_mean", r"obs_mean\[2\] is 1e\+39, beyond float32's range.*written as inf"),
    ("obs_std", r"obs_std\[4\] is 0.0, but it must be > 0"),
    ("action_std", r"action_std\[0\] is -1.0, but it must be > 0.*torch.exp\(log_std\)"),
    ("nan_std", r"action_std\[0\] is nan, not a finite number"),
])
def test_non_finite_or_impossible_tensors_are_refused_by_name(tmp_path, bad, match):
    actor = mlp()
    kwargs = {}
    with torch.no_grad():
        if bad == "weight":
            actor[2].weight[0, 3] = float("nan")
        if bad == "bias":
            actor[0].bias[1] = float("inf")
    if bad == "obs_mean":
        kwargs["obs_mean"] = [0.0, 0.0, 1e39, 0.0, 0.0]
    if bad == "obs_std":
        kwargs["obs_std"] = np.array([1.0, 1.0, 1.0, 1.0, 0.0])
    if bad in ("action_std", "nan_std"):
        kwargs["action_std"] = torch.full((1,), -1.0 if bad == "action_std" else float("nan"))
    with pytest.raises(ValueError, match=match):
        flashnerd.export_policy(actor, tmp_path / "p", "cartpole-swingup", **kwargs)
    assert not (tmp_path / "p").exists()


def test_the_layout_and_widths_are_named_when_wrong(tmp_path):
    Linear, ELU = torch.nn.Linear, torch.nn.ELU
    cases = [
        (Linear(5, 1), TypeError, r"torch.nn.Sequential of Linear.*got Linear; wrap a lone Linear"),
        (torch.nn.Sequential(Linear(5, 8), Linear(8, 1)), ValueError, r"actor\[1\] is a Linear right after"),
        (torch.nn.Sequential(Linear(5, 8), ELU(), Linear(8, 1), ELU()), ValueError, r"end with a Linear head \(the mean action\), got ELU"),
        (torch.nn.Sequential(ELU(), Linear(5, 1)), ValueError, r"actor\[0\] is ELU where a Linear belongs"),
        (torch.nn.Sequential(Linear(5, 8), ELU(alpha=0.5), Linear(8, 1)), ValueError, r"ELU\(alpha=0.5\)"),
        (mlp(inputs=4), ValueError, r"actor\[0\] takes 4 inputs, but task cartpole-swingup has 5 observations"),
        (mlp(outputs=2), ValueError, r"actor\[2\] gives 2 outputs, but task cartpole-swingup has 1 actions"),
        (torch.nn.Sequential(Linear(5, 8), ELU(), Linear(7, 1)), ValueError, r"actor\[2\] takes 7 inputs, but actor\[0\] gives 8"),
    ]
    for actor, error, match in cases:
        with pytest.raises(error, match=match):
            flashnerd.export_policy(actor, tmp_path / "p", "cartpole-swingup")
    assert not (tmp_path / "p").exists()
