"""flashnerd import: recorded logs (CSV, .npz) into datasets. A MuJoCo-generated dataset
written out as a log and imported again gives the same transitions; joint-name mapping and
resampling are right on synthetic logs; irregular, coarse or mislabelled logs are refused
naming the column. Run by ctest with the Python module tests."""
import json
import os
import subprocess

import numpy as np
import pytest

import flashnerd

FN = os.environ.get("FLASHNERD_BIN", "flashnerd")


def fn(*args, check=True):
    r = subprocess.run([FN, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(r.stderr)
    return r


def write_csv(path, columns):
    names = list(columns)
    rows = np.column_stack([np.asarray(columns[n], dtype=np.float64) for n in names])
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for row in rows:
            f.write(",".join("" if np.isnan(x) else repr(float(x)) for x in row) + "\n")


def dataset_as_log(d, info, gap=1.0):
    """Every trajectory of a dataset, one after another with a `gap` between them."""
    dt = info["control_timestep"]
    cols = {n: [] for n in ["time"] + info["log_columns"]["q"] + info["log_columns"]["v"] + info["log_columns"]["u"]}
    t0 = 0.0
    for n in range(d["qpos"].shape[0]):
        frames = d["qpos"].shape[1]
        cols["time"] += list(t0 + dt * np.arange(frames))
        for i, name in enumerate(info["log_columns"]["q"]):
            cols[name] += list(d["qpos"][n, :, i])
        for i, name in enumerate(info["log_columns"]["v"]):
            cols[name] += list(d["qvel"][n, :, i])
        for i, name in enumerate(info["log_columns"]["u"]):  # the last frame has no command of its own
            cols[name] += list(d["ctrl"][n, :, i]) + [d["ctrl"][n, -1, i]]
        t0 += dt * frames + gap
    return cols


def test_round_trip_of_a_generated_dataset(tmp_path):
    fn("gen", "--robot", "quadruped", "--trajectories", "3", "--steps", "12", "--seed", "5", "--out",
       str(tmp_path / "g.h5"))
    g = flashnerd.load_dataset(str(tmp_path / "g.h5"))
    info = flashnerd.robot_info("quadruped")
    cols = dataset_as_log(g, info)
    order = list(cols)
    order = order[:1] + order[1:][::-1]  # any column order
    write_csv(tmp_path / "log.csv", {k: cols[k] for k in order})
    r = fn("import", "--robot", "quadruped", "--log", str(tmp_path / "log.csv"), "--steps", "12", "--out",
           str(tmp_path / "i.h5"), "--json")
    summary = json.loads(r.stdout)
    assert summary["segments"] == 3 and summary["gaps"] == 2 and summary["trajectories"] == 3
    i = flashnerd.load_dataset(str(tmp_path / "i.h5"))
    for k in ("qpos", "qvel", "ctrl"):
        assert i[k].shape == g[k].shape, k
        assert np.allclose(i[k], g[k], rtol=0, atol=1e-9), k
    assert np.array_equal(i["valid"], g["valid"])
    assert np.allclose(i["probes"], g["probes"], atol=1e-5)
    # the same log as .npz (numpy.savez_compressed) imports to the same dataset
    np.savez_compressed(tmp_path / "log.npz", **{k: np.asarray(v) for k, v in cols.items()})
    fn("import", "--robot", "quadruped", "--log", str(tmp_path / "log.npz"), "--steps", "12", "--out",
       str(tmp_path / "n.h5"))
    n = flashnerd.load_dataset(str(tmp_path / "n.h5"))
    assert all(np.array_equal(n[k], i[k]) for k in ("qpos", "qvel", "ctrl", "valid"))


def test_resampling_and_gaps_on_a_synthetic_log(tmp_path):
    dt = flashnerd.robot_info("cartpole")["control_timestep"]
    rng = np.random.default_rng(0)
    steps = np.full(400, dt / 2) * (1 + 0.1 * rng.uniform(-1, 1, 400))  # twice the rate, 10% jitter
    steps[200] = 0.5  # a gap
    t = 1.0 + np.concatenate([[0], np.cumsum(steps)])
    u = np.floor(t / (4 * dt))  # a command that changes every 4 control steps
    write_csv(tmp_path / "log.csv", {"time": t, "q/hinge": np.sin(t), "q/slider": 0.1 * t, "v/slider": np.full_like(t, 0.1),
                                      "v/hinge": np.cos(t), "u/cart_force": u, "battery": np.ones_like(t)})
    r = json.loads(fn("import", "--robot", "cartpole", "--log", str(tmp_path / "log.csv"), "--steps", "20",
                      "--out", str(tmp_path / "c.h5"), "--json").stdout)
    assert r["gaps"] == 1 and r["segments"] == 2 and r["ignored_columns"] == ["battery"]
    assert abs(r["median_step_s"] - dt / 2) < 0.1 * dt
    d = flashnerd.load_dataset(str(tmp_path / "c.h5"))
    # the first segment starts at t = 1.0, on the control grid from there
    grid = 1.0 + dt * np.arange(21)
    assert np.allclose(d["qpos"][0, :, 0], 0.1 * grid, atol=1e-9)  # linear: exact
    assert np.allclose(d["qpos"][0, :, 1], np.sin(grid), atol=2e-4)  # interpolated sin
    held = u[np.searchsorted(t, grid[:-1] + 1e-12, side="right") - 1]  # the last sample at or before
    assert np.array_equal(d["ctrl"][0, :, 0], held)  # held, not interpolated
    assert d["valid"][0].all()
    # the padded end of each segment is masked; nothing is valid across the gap
    assert not d["valid"].all() and d["valid"].sum() == r["valid_transitions"]


def test_bad_logs_are_refused_naming_the_column(tmp_path):
    dt = flashnerd.robot_info("cartpole")["control_timestep"]
    t = dt * np.arange(50)
    good = {"time": t, "q/slider": t, "q/hinge": t, "v/slider": t, "v/hinge": t, "u/cart_force": t}

    def refused(columns, needle, name="bad.csv"):
        write_csv(tmp_path / name, columns)
        r = fn("import", "--robot", "cartpole", "--log", str(tmp_path / name), "--out", str(tmp_path / "x.h5"),
               "--overwrite", check=False)
        assert r.returncode != 0 and needle in r.stderr, r.stderr

    refused({**good, "q/hinge2": t}, "column 'q/hinge2' names nothing of robot 'cartpole'")
    refused({k: v for k, v in good.items() if k != "u/cart_force"}, "column 'u/cart_force' is missing")
    back = t.copy()
    back[10] = back[9] - 0.001
    refused({**good, "time": back}, "column 'time', row 11")
    refused({**good, "time": 3 * t}, "too coarse")
    jitter = np.concatenate([[0], np.cumsum(dt * np.where(np.arange(49) % 3 == 0, 0.2, 1.4))])
    refused({**good, "time": jitter}, "too irregular")
    with open(tmp_path / "text.csv", "w") as f:
        f.write("time,q/slider\n0,abc\n")
    r = fn("import", "--robot", "cartpole", "--log", str(tmp_path / "text.csv"), "--out", str(tmp_path / "y.h5"),
           check=False)
    assert "line 2, column 'q/slider': 'abc' is not a number" in r.stderr
