"""One generator per report: an exclusive lock on REPORT.lock, held while the generator runs.

Two searches writing one report replace each other's after every batch: the report then holds
whichever search wrote last, and --resume goes on from a search that is not the run's. (A
generator left running by a killed jobs/local.sh once followed the restarted pipeline on its
directory and did just that to the resumed search.) The kernel drops the lock when the process
ends, however it ends, so a stale lock file never blocks a later run.
"""
from __future__ import annotations

import errno
import fcntl
import os
import sys


def hold_report(out: str) -> int | None:
    """Locks `out`'s lock file for the rest of this process; returns its descriptor (keep it).
    Raises ValueError naming the process that holds it. On a file system without locks (some
    parallel file systems mounted without them) warns and returns None: nothing is enforced."""
    path = f"{out}.lock"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        raise ValueError(f"cannot open {path}, the lock that keeps a second generator off {out} ({error}): "
                         "give an --out in a folder you can write") from error
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            who = f"pid {holder}" if holder.isdigit() else "another process"
            stop = f"stop it (kill -TERM {holder})" if holder.isdigit() else "stop it"
            raise ValueError(f"another generator ({who}) is writing {out}: {stop} before starting one on this "
                             "report, or give another --out") from error
        print(f"hpcreward_generator: warning: cannot lock {path} ({error}): nothing keeps a second generator "
              f"off {out}; run one at a time", file=sys.stderr)
        return None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd
