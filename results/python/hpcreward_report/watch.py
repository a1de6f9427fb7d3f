"""A live terminal view of a reward log that a run is writing (SWMR): candidates per second, the
status mix, the summary table, the last stage events. It redraws in place on a terminal (one
frame after another otherwise) and ends when the writer lets go of the log.

Each refresh asks hpcreward-results for the summary and the writer's state (summary.py), then
reads the stage events; neither takes a lock, so watching never gets in a writer's way."""
import datetime
import sys
import time

import numpy as np

from .errors import LogError
from .log import read_stage_events
from .summary import NotReadableYet, read_summary

CLEAR = "\x1b[H\x1b[2J"
LAST_EVENTS = 5
WRITER_STATES = {"running": "writer running", "closed": "the writer closed the log",
                 "died": "no writer, and the log was not closed: its writer died"}


def clock(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%H:%M:%S")


def printable(value):
    """Text from the log (candidate ids come from trainers) without control characters, so no
    escape sequence in it reaches the terminal."""
    return "".join(c if c.isprintable() else "?" for c in str(value))


def columns(rows, right=()):
    """Rows of cells as aligned text, two spaces apart; the columns in `right` right-aligned."""
    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(width) if index in right else cell.ljust(width)
                               for index, (cell, width) in enumerate(zip(row, widths))).rstrip() for row in rows)


def summary_table(summary):
    """The table `hpcreward-results summary` prints."""
    header = [column["header"] for column in summary["table"]["columns"]]
    right = {index for index, column in enumerate(summary["table"]["columns"]) if column["align"] == "right"}
    return columns([header] + summary["table"]["rows"], right)


def frame(path, summary, events, rate):
    """The text of one refresh; `rate` is None on the first (no earlier count to compare);
    `events` is None for a log without stage events (schema 1)."""
    rows, total = summary["rows"], summary["total"]
    lines = [f"hpcreward watch  {printable(path)}  ({WRITER_STATES[summary['writer']]})  {clock(time.time())} UTC"]
    overall = ""
    if rows > 1 and total["last_time"] > total["first_time"]:
        overall = f", {(rows - 1) / (total['last_time'] - total['first_time']):.2f}/s over the run"
    now = "-" if rate is None else f"{rate:.2f}"
    lines.append(f"candidates scored: {rows}; now {now}/s{overall}")
    mix = " ".join(f"{printable(status)}={count}" for status, count in total["statuses"].items())
    lines.append(f"status mix: {mix or '-'}")
    lines.append("")
    lines.append(summary_table(summary) if rows else "no candidate scored yet")
    lines.append("")
    if events is None:
        lines.append("stage events: none in this log (schema 1)")
    elif len(events) == 0:
        lines.append("stage events: none yet")
    else:
        lines.append(f"last stage events ({len(events)} in all):")
        order = np.argsort(events["time"], kind="stable")[-LAST_EVENTS:]
        lines.append(columns([(clock(events["time"][i]), events["problem"][i],
                               f"{events['from'][i]} -> {events['to'][i]}", events["rule"][i], events["detail"][i])
                              for i in order]))
    return "\n".join(lines)


def watch(path, interval=1.0, out=sys.stdout):
    """Follows the log until its writer lets go; returns 0. LogError if it is not a reward log."""
    tty = out.isatty()
    previous_rows, previous_time, shown = None, None, None
    while True:
        live = False
        try:
            # The writer's state comes first, with the summary: once it is not running, what is
            # read after it is every record there will be.
            summary = read_summary(path)
            live = summary["writer"] == "running"
            events = read_stage_events(path)
        except NotReadableYet:
            summary = None
        except LogError:
            if not live:
                raise
            summary = None
        if summary is None:
            # A writer that is still creating the log (before SWMR starts) leaves it unreadable
            # for a moment: wait for it rather than give up.
            if shown != "waiting":
                out.write(f"hpcreward watch  {printable(path)}: waiting for the writer to start the log\n")
                out.flush()
            shown = "waiting"
            time.sleep(interval)
            continue
        now = time.monotonic()
        rows = summary["rows"]
        rate = None if previous_rows is None else (rows - previous_rows) / max(now - previous_time, 1e-9)
        previous_rows, previous_time = rows, now
        text = frame(path, summary, events, rate)
        body = text.split("\n", 1)[1]  # the first line carries the clock
        if tty:
            out.write(CLEAR + text + "\n")
        elif body != shown:
            out.write(text + "\n\n")
        shown = body
        out.flush()
        if not live:
            return 0
        time.sleep(interval)


__all__ = ["LogError", "watch"]
