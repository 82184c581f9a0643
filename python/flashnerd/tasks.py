"""The tasks ``make_vec`` runs, described from their C++ definitions (the same data as
``flashnerd tasks`` and docs/TASKS.md): each observation slot, the action, every reward term
with its weight, when an episode ends and how it starts.

    flashnerd.task_info("cartpole-swingup")["observation"][1]
    # {'name': 'pole_sin', 'first': 1, 'width': 1, 'meaning': 'sin θ, θ the pole angle (rad), 0 upright'}
"""
import functools
import json

from . import _flashnerd


def task_names():
    """The task names ``make_vec`` accepts."""
    return list(_flashnerd.task_names())


@functools.lru_cache(maxsize=None)
def _info_json(name):
    return _flashnerd._task_info(name)


def task_info(name):
    """A task as a dict: task, robot, summary, policy_hz, episode_steps, episode_seconds,
    observation (slots: name, first, width, meaning), observation_dim, action (dim, bound,
    meaning), reward (terms: name, weight_per_step, objective, after_clip, meaning),
    clip_negative_reward, termination, reset. An unknown name raises ``flashnerd.Error``."""
    return json.loads(_info_json(name))


def describe(task):
    """A task (a name, or a ``task_info`` dict) in a few lines of text: what help() and
    ``VectorEnv.describe()`` show."""
    t = task if isinstance(task, dict) else task_info(task)
    name = t["task"]
    lines = ["%s (robot %s, %g Hz, %d steps): %s" % (name, t["robot"], t["policy_hz"], t["episode_steps"], t["summary"]),
             "  observation (%d):" % t["observation_dim"]]
    for o in t["observation"]:
        first, width = o["first"], o["width"]
        slots = "%d" % first if width == 1 else "%d-%d" % (first, first + width - 1)
        lines.append("    [%s] %s: %s" % (slots, o["name"], o["meaning"]))
    lines.append("  action (%d): %s" % (t["action"]["dim"], t["action"]["meaning"]))
    lines.append("  reward: " + ", ".join("%s %.3g" % (r["name"], r["weight_per_step"]) for r in t["reward"]))
    lines.append("  ends early: " + t["termination"])
    return "\n".join(lines)
