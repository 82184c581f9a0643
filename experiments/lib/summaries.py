"""What the summary scripts of experiments/ read and write: the --json summaries flashnerd
prints (and the pipelines keep as files), eval's per-model results, PPO and training logs,
and summary.md. Standard library only. A script imports it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    from summaries import ...
"""
import csv
import json
import os
import sys


def load(*path):
    """The JSON file at os.path.join(*path)."""
    with open(os.path.join(*path)) as f:
        return json.load(f)


def load_if(*path, default=None):
    """load(*path), or default when the file does not exist (a stage that did not run)."""
    return load(*path) if os.path.exists(os.path.join(*path)) else default


def models(result):
    """The per-model results of an eval summary (a path or the loaded object): eval prints one
    model's result as the object itself, several as a "models" list."""
    j = load(result) if isinstance(result, str) else result
    return j.get("models", [j])


def read_log(*path):
    """The rows of a CSV log (ppo's or train's log.csv) as dicts of strings."""
    with open(os.path.join(*path)) as f:
        return list(csv.DictReader(f))


def out_dir(default):
    """The results directory: the first argument, else default."""
    return sys.argv[1] if len(sys.argv) > 1 else default


def write_summary(out, text, name="summary.md"):
    """Prints text and writes it to out/name (through a temporary name)."""
    print(text)
    path = os.path.join(out, name)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
