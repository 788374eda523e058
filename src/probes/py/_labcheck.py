"""Shared helpers for lab_check's Python probes.

Every probe prints exactly one result line, `LABCHECK_RESULT {json}`, as its last act; lab_check
reads that line and ignores whatever else libraries print. Probes must work on Python 3.8+ and
must not import anything heavy at module level here.
"""
import json
import sys

MARKER = "LABCHECK_RESULT "


def emit(result):
    """Print the probe's result object (a dict) as the marker line and flush."""
    if not isinstance(result, dict):
        raise TypeError("probe result must be a dict")
    sys.stdout.write("\n" + MARKER + json.dumps(result, default=str, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def error_text(exc):
    """A one-line description of an exception: its type and message."""
    return "%s: %s" % (type(exc).__name__, exc)
