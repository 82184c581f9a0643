"""flashnerd export-onnx / flashnerd.export_onnx: the policy as an ONNX graph, judged by reading
the file with the onnx package and evaluating its graph with a small interpreter of its own
(numpy, float32), independent of FlashNeRD's code: it must equal Policy.act to 1e-5."""
import os
import subprocess

import numpy as np
import onnx
from onnx import numpy_helper
import pytest

import flashnerd

FN = os.environ.get("FLASHNERD_BIN", "flashnerd")


def run_graph(model, observation):
    """Evaluates the graph's nodes in order (Sub, Div, Gemm, Elu, Tanh: what the exporter emits)."""
    values = {t.name: numpy_helper.to_array(t).astype(np.float32) for t in model.graph.initializer}
    values[model.graph.input[0].name] = observation.astype(np.float32)
    for node in model.graph.node:
        x = [values[name] for name in node.input]
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Sub":
            y = x[0] - x[1]
        elif node.op_type == "Div":
            y = x[0] / x[1]
        elif node.op_type == "Gemm":
            b = x[1].T if attrs.get("transB", 0) else x[1]
            a = x[0].T if attrs.get("transA", 0) else x[0]
            y = attrs.get("alpha", 1.0) * (a @ b) + attrs.get("beta", 1.0) * x[2]
        elif node.op_type == "Elu":
            alpha = attrs.get("alpha", 1.0)
            y = np.where(x[0] > 0, x[0], alpha * np.expm1(x[0]))
        elif node.op_type == "Tanh":
            y = np.tanh(x[0])
        else:
            raise AssertionError("operator %s is not one the exporter should emit" % node.op_type)
        values[node.output[0]] = y.astype(np.float32)
    return values[model.graph.output[0].name]


def random_policy(directory, activation, seed):
    """A policy of the cartpole swing-up with random weights and normalization, through
    export_policy (the path a PyTorch user takes)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(seed)
    act = torch.nn.ELU if activation == "elu" else torch.nn.Tanh
    task = "cartpole-swingup"
    dims = flashnerd.task_info(task)
    obs_dim, act_dim = dims["observation_dim"], dims["action"]["dim"]
    actor = torch.nn.Sequential(torch.nn.Linear(obs_dim, 64), act(), torch.nn.Linear(64, 32), act(),
                                torch.nn.Linear(32, act_dim))
    rng = np.random.default_rng(seed)
    flashnerd.export_policy(actor, str(directory), task, obs_mean=rng.normal(size=obs_dim).astype(np.float32),
                            obs_std=rng.uniform(0.5, 2.0, size=obs_dim).astype(np.float32),
                            action_std=np.full(act_dim, 0.5, np.float32))
    return obs_dim


@pytest.mark.parametrize("activation", ["elu", "tanh"])
def test_the_graph_equals_policy_act_on_ten_thousand_observations(tmp_path, activation):
    obs_dim = random_policy(tmp_path / "policy", activation, seed=3)
    path = tmp_path / "policy.onnx"
    flashnerd.export_onnx(str(tmp_path / "policy"), str(path))
    model = onnx.load(str(path))
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ["observation"]
    assert [o.name for o in model.graph.output] == ["action"]
    obs = np.random.default_rng(7).normal(scale=3.0, size=(10000, obs_dim)).astype(np.float32)
    expected = flashnerd.Policy.load(str(tmp_path / "policy")).act(obs)
    got = run_graph(model, obs)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-5)


def test_the_cli_writes_the_same_graph_and_keeps_an_existing_file(tmp_path):
    random_policy(tmp_path / "policy", "elu", seed=5)
    flashnerd.export_onnx(str(tmp_path / "policy"), str(tmp_path / "python.onnx"))
    subprocess.run([FN, "export-onnx", "--policy", str(tmp_path / "policy"), "--out", str(tmp_path / "cli.onnx")],
                   check=True, capture_output=True)
    assert (tmp_path / "cli.onnx").read_bytes() == (tmp_path / "python.onnx").read_bytes()
    before = (tmp_path / "cli.onnx").read_bytes()
    r = subprocess.run([FN, "export-onnx", "--policy", str(tmp_path / "policy"), "--out", str(tmp_path / "cli.onnx")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "pass --overwrite" in r.stderr
    assert (tmp_path / "cli.onnx").read_bytes() == before
    with pytest.raises(flashnerd.Error, match="overwrite"):
        flashnerd.export_onnx(str(tmp_path / "policy"), str(tmp_path / "python.onnx"))
    flashnerd.export_onnx(str(tmp_path / "policy"), str(tmp_path / "python.onnx"), overwrite=True)
