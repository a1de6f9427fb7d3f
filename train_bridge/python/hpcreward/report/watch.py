"""A live terminal view of a reward log that a run is writing (SWMR): candidates per second, the
status mix, the best GFLOPS per problem and stage, the last stage events. It redraws in place on
a terminal (one frame after another otherwise) and ends when the writer lets go of the log."""
import datetime
import sys
import time

import numpy as np

from .figure import ordered_statuses, stage_keys
from .log import LogError, read_log
from .writer_state import closed_cleanly, writer_holds

CLEAR = "\x1b[H\x1b[2J"
LAST_EVENTS = 5


def clock(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%H:%M:%S")


def printable(value):
    """Text from the log (candidate ids come from trainers) without control characters, so no
    escape sequence in it reaches the terminal."""
    return "".join(c if c.isprintable() else "?" for c in str(value))


def columns(rows):
    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


def frame(log, state, rate):
    """The text of one refresh; `rate` is None on the first (no earlier count to compare)."""
    rewards = log.rewards
    lines = [f"hpcreward watch  {printable(log.path)}  ({state})  {clock(time.time())} UTC"]
    overall = ""
    if len(rewards) > 1 and np.ptp(rewards["time"]) > 0:
        overall = f", {(len(rewards) - 1) / np.ptp(rewards['time']):.2f}/s over the run"
    now = "-" if rate is None else f"{rate:.2f}"
    lines.append(f"candidates scored: {len(rewards)}; now {now}/s{overall}")
    mix = " ".join(f"{printable(s)}={int(np.sum(rewards['status'] == s))}"
                   for s in ordered_statuses(set(rewards["status"])))
    lines.append(f"status mix: {mix or '-'}")
    lines.append("")
    table = [("problem", "stage", "candidates", "ok", "best GFLOPS", "best candidate")]
    for problem, stage in stage_keys(rewards):
        part = rewards.where((rewards["problem"] == problem) & (rewards["stage"] == stage))
        ok = part.where(part["status"] == "ok")
        best = int(np.argmax(ok["gflops"])) if len(ok) else None
        table.append((problem, stage, len(part), len(ok), f"{ok['gflops'][best]:.2f}" if best is not None else "-",
                      ok["candidate_id"][best] if best is not None else "-"))
    lines.append(columns(table) if len(table) > 1 else "no candidate scored yet")
    lines.append("")
    events = log.stage_events
    if not log.has_stage_events:
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
        live = writer_holds(path)  # before reading: the last read then sees every record
        try:
            log = read_log(path)
        except LogError:
            if not live:
                raise
            # A writer that is still creating the log (before SWMR starts) leaves it unreadable
            # for a moment: wait for it rather than give up.
            if shown != "waiting":
                out.write(f"hpcreward watch  {path}: waiting for the writer to start the log\n")
                out.flush()
            shown = "waiting"
            time.sleep(interval)
            continue
        now = time.monotonic()
        rate = None if previous_rows is None else (len(log.rewards) - previous_rows) / max(now - previous_time, 1e-9)
        previous_rows, previous_time = len(log.rewards), now
        if live:
            state = "writer running"
        elif closed_cleanly(path):
            state = "the writer closed the log"
        else:
            state = "no writer, and the log was not closed: its writer died"
        text = frame(log, state, rate)
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
