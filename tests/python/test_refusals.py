"""Nothing silently wrong from Python: sizes and thread counts the CLI refuses are refused, a
precision that does not exist is refused whatever the backend, a policy with a NaN weight is
refused by tensor name, a file where a model directory belongs is called a file, set_state and
write_dataset refuse non-finite or implausible values (|x| > 1e6) by array and index, and
write_dataset refuses a size beyond memory before allocating it; an error about an option names
the keyword (model=), never a command-line flag. Run by
ctest (PYTHONPATH=build/python, FLASHNERD_BIN=the flashnerd executable)."""
import json
import os
import shutil
import struct
import subprocess

import numpy as np
import pytest

import flashnerd

FN = os.environ.get("FLASHNERD_BIN", "flashnerd")


def test_sizes_and_threads_are_refused_before_allocation():
    with pytest.raises(Exception, match="would need"):
        flashnerd.make_vec("cartpole-balance", num_envs=10**8)
    for threads in (-1, 4096):
        with pytest.raises(Exception, match="threads"):
            flashnerd.make_vec("cartpole-balance", num_envs=2, threads=threads)


def test_environments_count_their_buffers_with_their_simulator_state():
    # the observations and task buffers are part of the estimate: 2**31-1 quadrupeds need
    # terabytes in all, and the refusal names the sum, before anything is allocated
    with pytest.raises(Exception, match=r"make_vec: 2147483647 environments would need [0-9.]+ TB"):
        flashnerd.make_vec("quadruped-velocity", num_envs=2**31 - 1)


def test_option_errors_name_the_keyword_not_the_flag():
    # the library names the option field; Python shows it as the keyword its calls take
    with pytest.raises(flashnerd.Error) as e:
        flashnerd.make_vec("quadruped-velocity", backend="flashnerd")
    assert str(e.value).startswith("model=: backend flashnerd needs a trained model"), str(e.value)
    assert "--" not in str(e.value), str(e.value)
    with pytest.raises(flashnerd.Error, match=r"^threads=: 4096 exceeds the [0-9]+ cores"):
        flashnerd.make_vec("cartpole-balance", num_envs=2, threads=4096)


def test_unknown_precision_is_refused_on_every_backend():
    with pytest.raises(Exception, match="fp8"):
        flashnerd.make_vec("cartpole-balance", num_envs=2, precision="fp8")


def test_policy_with_a_nan_weight_is_refused_by_name(tmp_path):
    run = tmp_path / "run"
    subprocess.run([FN, "ppo", "--task", "cartpole-balance", "--envs", "4", "--steps-per-env", "4", "--iterations", "1",
                    "--hidden", "8,8", "--quiet", "--out", str(run)], check=True, stdout=subprocess.DEVNULL)
    flashnerd.Policy.load(str(run / "policy"))
    bad = tmp_path / "bad"
    shutil.copytree(run / "policy", bad)
    path = bad / "policy.safetensors"
    b = bytearray(path.read_bytes())
    n = struct.unpack("<Q", b[:8])[0]
    offset = 8 + n + json.loads(b[8:8 + n])["actor.1.bias"]["data_offsets"][0]
    b[offset:offset + 4] = struct.pack("<f", float("inf"))
    path.write_bytes(bytes(b))
    with pytest.raises(Exception, match="actor.1.bias element 0 is inf"):
        flashnerd.Policy.load(str(bad))


def test_a_file_is_not_a_model_directory(tmp_path):
    f = tmp_path / "config.txt"
    f.write_text("x")
    with pytest.raises(Exception, match="is a file; a model is a directory"):
        flashnerd.Model.load(str(f))


@pytest.mark.parametrize("name, value", [("qpos", 1e300), ("qvel", -2e6), ("qpos", np.nan), ("qvel", np.inf)])
def test_set_state_refuses_implausible_states(name, value):
    env = flashnerd.make_vec("cartpole-swingup", num_envs=2, seed=1)
    env.reset()
    state = {"qpos": np.zeros(2), "qvel": np.zeros(2)}
    state[name][1] = value
    with pytest.raises(ValueError, match=rf"{name}\[1\] is .*magnitude at most 1e\+?0?6"):
        env.set_state(0, state["qpos"], state["qvel"])
    assert np.isfinite(env.set_state(0, np.zeros(2), np.array([0.0, 1e5]))).all()  # fast, but a state


def recorded_cartpole(n=2, steps=5):
    rng = np.random.default_rng(0)
    return rng.normal(0, 0.1, (n, steps + 1, 2)), rng.normal(0, 0.1, (n, steps + 1, 2)), rng.normal(0, 0.1, (n, steps, 1))


@pytest.mark.parametrize("array, index, value", [("qpos", (1, 3, 0), 1e300), ("qvel", (0, 5, 1), -3e7),
                                                 ("ctrl", (1, 4, 0), 1e9), ("qvel", (1, 0, 1), np.nan)])
def test_write_dataset_refuses_implausible_values_by_array_and_index(tmp_path, array, index, value):
    arrays = dict(zip(("qpos", "qvel", "ctrl"), recorded_cartpole()))
    arrays[array][index] = value
    out = tmp_path / "d.h5"
    where = ", ".join(map(str, index))
    with pytest.raises(ValueError, match=rf"{array}\[{where}\] is .*magnitude at most 1e\+?0?6"):
        flashnerd.write_dataset(str(out), "cartpole", arrays["qpos"], arrays["qvel"], arrays["ctrl"])
    assert not out.exists()
    valid = np.ones((2, 5), bool)
    valid[index[0], min(index[1], 4)] = False  # the transitions that hold it, marked invalid: written
    if index[1] > 0 and array != "ctrl":
        valid[index[0], index[1] - 1] = False
    flashnerd.write_dataset(str(out), "cartpole", arrays["qpos"], arrays["qvel"], arrays["ctrl"], valid=valid)
    assert flashnerd.load_dataset(str(out))["qpos"].shape == (2, 6, 2)


def test_write_dataset_refuses_sizes_beyond_memory_before_allocating(tmp_path):
    # views of a few bytes that stand for 10**7 trajectories of 1000 steps: hundreds of GB once written
    n, steps = 10**7, 1000
    qpos = np.broadcast_to(np.zeros(2), (n, steps + 1, 2))
    ctrl = np.broadcast_to(np.zeros(1), (n, steps, 1))
    with pytest.raises(ValueError, match=r"write_dataset: 10000000 trajectories of 1000 steps would need [\d.]+ GB "
                                         r"of memory, but this machine has [\d.]+ [GMk]B available"):
        flashnerd.write_dataset(str(tmp_path / "huge.h5"), "cartpole", qpos, qpos, ctrl)
    assert not (tmp_path / "huge.h5").exists()
