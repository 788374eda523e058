"""Shared helpers for lab_check's Python probes.

Every probe prints exactly one result line, `LABCHECK_RESULT {json}`, as its last act; lab_check
reads that line and ignores whatever else libraries print. Probes must work on Python 3.8+ and
must not import anything heavy at module level here.
"""
import json
import sys

MARKER = "LABCHECK_RESULT "
ALIVE = "LABCHECK_ALIVE"
STAGE = "LABCHECK_STAGE "


def emit(result):
    """Print the probe's result object (a dict) as the marker line and flush."""
    if not isinstance(result, dict):
        raise TypeError("probe result must be a dict")
    sys.stdout.write("\n" + MARKER + json.dumps(result, default=str, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def alive():
    """The handshake: this interpreter runs and the probe's imports are done. lab_check kills a
    probe that has not said so within its start-up budget and skips the later ones."""
    sys.stdout.write(ALIVE + "\n")
    sys.stdout.flush()


def stage(what):
    """Say what comes next that may hang ("import torch"), so a missed handshake can name it."""
    sys.stdout.write(STAGE + what + "\n")
    sys.stdout.flush()


def error_text(exc):
    """A one-line description of an exception: its type and message."""
    return "%s: %s" % (type(exc).__name__, exc)
