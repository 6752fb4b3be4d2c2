# env.py: settings and test data from the environment (written by swipium qa_generate; edit freely).
# Secrets and placeholders are read from the environment at run time and never stored in this suite.
import os


def require_env(name):
    """The value of `name`; fails the test when it is not set."""
    value = os.environ.get(name, "")
    if value == "":
        raise RuntimeError("Set %s in the environment: this suite reads the value from there and never stores it." % name)
    return value


def env_or(name, fallback):
    """The value of `name`, or the recorded `fallback` when it is not set."""
    value = os.environ.get(name)
    return fallback if value is None else value


def env_flag(name):
    """True when `name` is 1, true or yes."""
    return env_or(name, "").strip().lower() in ("1", "true", "yes")
