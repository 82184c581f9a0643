#!/usr/bin/env python3
"""Draws the plot specs the C++ side writes (``NAME.plot.json``, core/plot_spec.h) as PNG with
matplotlib: loss curves, error-vs-horizon curves, reward curves, benchmark scaling.

    python3 plot.py out/run/loss.plot.json [MORE.plot.json ...]   # writes out/run/loss.png
    flashnerd.plot.draw("loss.plot.json")                          # the same from Python

Needs only the standard library and matplotlib, so the CLI runs this file by its path (no
compiled module). Each PNG is written under a temporary name and renamed.
"""
import json
import math
import os
import sys

SUFFIX = ".plot.json"


class SpecError(ValueError):
    """A plot spec that cannot be drawn, named by its path."""


def png_path(spec_path):
    """NAME.png for NAME.plot.json (any other name: NAME + '.png')."""
    if spec_path.endswith(SUFFIX) and len(spec_path) > len(SUFFIX):
        return spec_path[: -len(SUFFIX)] + ".png"
    return spec_path + ".png"


def _values(series, key, where, index):
    values = series.get(key)
    if not isinstance(values, list):
        raise SpecError("%s: series[%d] ('%s') has no list '%s'" % (where, index, series.get("label", "?"), key))
    for i, v in enumerate(values):
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
            raise SpecError("%s: series[%d].%s[%d] is %s; expected a number or null"
                            % (where, index, key, i, json.dumps(v)))
    return [math.nan if v is None else float(v) for v in values]


def _series(spec, where):
    """The spec's series, each checked: an object with lists x and y of numbers (or null), an
    optional string label and a matplotlib color."""
    from matplotlib.colors import is_color_like

    series = spec.get("series", [])
    if not isinstance(series, list):
        raise SpecError("%s: \"series\" is %s; expected a list of series objects" % (where, type(series).__name__))
    for i, s in enumerate(series):
        if not isinstance(s, dict):
            raise SpecError("%s: series[%d] is %s; expected an object with \"x\" and \"y\" lists"
                            % (where, i, json.dumps(s)))
        for key in ("label", "color"):
            if s.get(key) is not None and not isinstance(s[key], str):
                raise SpecError("%s: series[%d].%s is %s; expected a string" % (where, i, key, json.dumps(s[key])))
        if s.get("color") is not None and not is_color_like(s["color"]):
            raise SpecError("%s: series[%d].color '%s' is not a color; use a name (\"red\") or \"#rrggbb\""
                            % (where, i, s["color"]))
    for key in ("title", "x_label", "y_label"):
        if spec.get(key) is not None and not isinstance(spec[key], str):
            raise SpecError("%s: \"%s\" is %s; expected a string" % (where, key, json.dumps(spec[key])))
    return series


def _draw_line(spec, where, axes):
    drawn = 0
    for i, s in enumerate(_series(spec, where)):
        x, y = _values(s, "x", where, i), _values(s, "y", where, i)
        if len(x) != len(y):
            raise SpecError("%s: series[%d] ('%s') has %d x and %d y values"
                            % (where, i, s.get("label", "?"), len(x), len(y)))
        if spec.get("log_y"):  # points at or below zero have no place on a log axis
            y = [v if v > 0 else math.nan for v in y]
        if not any(math.isfinite(v) for v in y):
            continue
        axes.plot(x, y, label=s.get("label", ""), color=s.get("color"), marker="o" if s.get("markers") else None,
                  markersize=3.5, linewidth=1.4)
        drawn += 1
    if spec.get("log_y") and drawn:
        axes.set_yscale("log")
    axes.set_title(spec.get("title", ""), fontsize=11)
    axes.set_xlabel(spec.get("x_label", ""))
    axes.set_ylabel(spec.get("y_label", ""))
    axes.grid(True, which="major", alpha=0.3)
    if drawn:
        axes.legend(fontsize=8, frameon=False)
    else:
        axes.text(0.5, 0.5, "no finite points", ha="center", va="center", transform=axes.transAxes, color="gray")


def draw(spec_path, out=None):
    """Draws one spec; returns the PNG's path (default NAME.png beside NAME.plot.json)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        with open(spec_path) as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        raise SpecError("%s: cannot read a plot spec (%s)" % (spec_path, e)) from None
    if not isinstance(spec, dict) or spec.get("kind") != "line":
        raise SpecError("%s: not a line plot spec (expected \"kind\": \"line\")" % spec_path)
    out = out or png_path(spec_path)
    fig, axes = plt.subplots(figsize=(8, 5), dpi=100)
    try:
        _draw_line(spec, spec_path, axes)
        fig.tight_layout()
        tmp = "%s.tmp.%d" % (out, os.getpid())
        fig.savefig(tmp, format="png")
        os.replace(tmp, out)
    finally:
        plt.close(fig)
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot.py: matplotlib is not installed (Debian: apt install python3-matplotlib)", file=sys.stderr)
        return 3
    failed = 0
    for spec in argv:
        try:
            draw(spec)
        except (SpecError, OSError) as e:
            print("plot.py: %s" % e, file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
