"""Nothing silently wrong from Python: sizes and thread counts the CLI refuses are refused, a
precision that does not exist is refused whatever the backend, a policy with a NaN weight is
refused by tensor name, and a file where a model directory belongs is called a file. Run by
ctest (PYTHONPATH=build/python, FLASHNERD_BIN=the flashnerd executable)."""
import json
import os
import shutil
import struct
import subprocess

import pytest

import flashnerd

FN = os.environ.get("FLASHNERD_BIN", "flashnerd")


def test_sizes_and_threads_are_refused_before_allocation():
    with pytest.raises(Exception, match="would need"):
        flashnerd.make_vec("cartpole-balance", num_envs=10**8)
    for threads in (-1, 4096):
        with pytest.raises(Exception, match="threads"):
            flashnerd.make_vec("cartpole-balance", num_envs=2, threads=threads)


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
