"""python/flashnerd/plot.py draws the C++ side's plot specs: a PNG of the figure's size, gaps
for null points, log axes without non-positive points, and clear errors for bad specs."""
import json
import struct

import pytest

pytest.importorskip("matplotlib")
from flashnerd import plot  # noqa: E402


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def write_spec(path, **fields):
    spec = {"kind": "line", "title": "loss", "x_label": "update", "y_label": "mse", "log_y": True,
            "series": [{"label": "train", "color": "#1f77b4", "markers": False, "x": [1, 2, 3, 4], "y": [1, 0.1, None, 0]},
                       {"label": "valid", "color": "#d62728", "markers": True, "x": [2, 4], "y": [0.5, 0.2]}]}
    spec.update(fields)
    path.write_text(json.dumps(spec))
    return str(path)


def test_draws_a_png_beside_the_spec(tmp_path):
    spec = write_spec(tmp_path / "loss.plot.json")
    out = plot.draw(spec)
    assert out == str(tmp_path / "loss.png")
    assert png_size(out) == (800, 500)
    assert [p.name for p in tmp_path.iterdir() if ".tmp." in p.name] == []


def test_a_series_without_finite_points_is_left_out(tmp_path):
    spec = write_spec(tmp_path / "empty.plot.json", series=[{"label": "nan", "x": [1, 2], "y": [None, None]}])
    assert png_size(plot.draw(spec)) == (800, 500)


def test_bad_specs_are_refused_by_name(tmp_path):
    with pytest.raises(plot.SpecError, match="not a line plot"):
        plot.draw(write_spec(tmp_path / "bar.plot.json", kind="bar"))
    with pytest.raises(plot.SpecError, match="2 x and 1 y"):
        plot.draw(write_spec(tmp_path / "odd.plot.json", series=[{"label": "odd", "x": [1, 2], "y": [1]}]))
    (tmp_path / "junk.plot.json").write_text("{not json")
    with pytest.raises(plot.SpecError, match="junk.plot.json"):
        plot.draw(str(tmp_path / "junk.plot.json"))
    assert plot.main([str(tmp_path / "junk.plot.json")]) == 1
    assert plot.png_path("a/b.plot.json") == "a/b.png"


@pytest.mark.parametrize("fields, message", [
    ({"series": {"label": "train"}}, r'"series" is dict; expected a list'),
    ({"series": ["train"]}, r'series\[0\] is "train"; expected an object'),
    ({"series": [{"label": "t", "x": [1, "two"], "y": [1, 2]}]}, r'series\[0\].x\[1\] is "two"; expected a number'),
    ({"series": [{"label": "t", "x": [1, 2], "y": [1, [2]]}]}, r"series\[0\].y\[1\] is \[2\]; expected a number"),
    ({"series": [{"label": "t", "color": "blurple", "x": [1], "y": [1]}]}, r"series\[0\].color 'blurple' is not a color"),
    ({"series": [{"label": 7, "x": [1], "y": [1]}]}, r"series\[0\].label is 7; expected a string"),
    ({"title": ["loss"]}, r'"title" is \["loss"\]; expected a string'),
])
def test_a_malformed_spec_is_one_line_from_the_drawer_the_cli_runs(tmp_path, fields, message):
    """The CLI runs `python3 plot.py SPEC` (src/cli/plot_drawing.cpp): one line naming the field, no traceback."""
    import re
    import subprocess
    import sys

    spec = write_spec(tmp_path / "bad.plot.json", **fields)
    out = subprocess.run([sys.executable, plot.__file__, spec], capture_output=True, text=True)
    assert out.returncode == 1
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert re.search(message, out.stderr) and "bad.plot.json" in out.stderr, out.stderr
    assert not (tmp_path / "bad.png").exists()
