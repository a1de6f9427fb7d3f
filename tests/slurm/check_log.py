"""What the Slurm tests ask of a run's log (h5py; the log is read while it may be written).

  check_log.py rows LOG                   rows in /rewards (0 without a log)
  check_log.py exactly-once LOG JSONL     every candidate id of JSONL has exactly one row
  check_log.py unique LOG                 no candidate id has more than one row
  check_log.py hosts LOG                  the distinct hosts of benchmark rows, one per line
  check_log.py stage-events LOG           stage events logged
  check_log.py quarantined LOG            the quarantined ranks' events, one per line
"""
import collections
import json
import os
import sys

import h5py


def open_log(path):
    return h5py.File(path, "r", locking=False, swmr=True)


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def column(log, dataset, name):
    if dataset not in log or log[dataset].shape[0] == 0:
        return []
    return [text(v) for v in log[dataset][name]]


def main(argv):
    command, path = argv[1], argv[2]
    if command == "rows":
        if not os.path.exists(path):
            print(0)
            return 0
        with open_log(path) as log:
            print(log["rewards"].shape[0])
        return 0
    with open_log(path) as log:
        if command == "exactly-once":
            with open(argv[3]) as lines:
                expected = [json.loads(line)["id"] for line in lines if line.strip()]
            counts = collections.Counter(column(log, "rewards", "candidate_id"))
            missing = [i for i in expected if counts[i] == 0]
            twice = {i: n for i, n in counts.items() if n > 1}
            extra = [i for i in counts if i not in set(expected)]
            print(f"{len(expected)} candidates, {sum(counts.values())} rows, missing {missing}, "
                  f"logged more than once {twice}, unknown {extra}")
            return 0 if not missing and not twice and not extra else 1
        if command == "unique":
            counts = collections.Counter(column(log, "rewards", "candidate_id"))
            twice = {i: n for i, n in counts.items() if n > 1}
            print(f"{sum(counts.values())} rows, {len(counts)} ids, logged more than once {twice}")
            return 0 if not twice else 1
        if command == "hosts":
            ranks = column(log, "rewards", "rank")
            hosts = column(log, "rewards", "host")
            print("\n".join(sorted({h for h, r in zip(hosts, ranks) if r != "0"})))
            return 0
        if command == "devices":  # "problem device" of every row, counted
            counts = collections.Counter(zip(column(log, "rewards", "problem"), column(log, "rewards", "device")))
            print("\n".join(f"{problem} {device or '-'}: {n}" for (problem, device), n in sorted(counts.items())))
            return 0
        if command == "stage-events":
            print(log["stage_events"].shape[0] if "stage_events" in log else 0)
            return 0
        if command == "quarantined":
            if "rank_events" in log:
                for row in log["rank_events"][:]:
                    print(" ".join(f"{name}={text(row[name])}" for name in row.dtype.names))
            return 0
    print(f"unknown command {command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
