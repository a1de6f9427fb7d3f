#!/usr/bin/env python3
"""What GPU executors ask of the kernel once their seccomp filter is in: a census of strace logs.

Reads `strace -f -X raw -y` logs of hpcreward-gpu-runner (syscall_census.sh writes them, one a
runner), finds each executor (the process that execve'd hpcreward-gpu-executor, with its
threads), and counts the system calls its threads entered after the filter was installed
(seccomp(SECCOMP_SET_MODE_FILTER) returning 0: the filter syncs to every thread). Executors
are told apart by how they ended: by exit_group, or killed (the filter refused a call: a hostile
case; or the runner's timeout), with the last call of the killed one's main thread. For the calls whose arguments gpu_seccomp_filter.cpp conditions, it keeps the argument
patterns (ioctl's device and request, mmap's and mprotect's protection and flags, open's flags
and path, ...).

  python3 tests/gpu/syscall_census.py TRACE... [--json OUT]
  python3 tests/gpu/syscall_census.py --collect DIR --socket PATH   (syscall_census.sh's collector)
  python3 tests/gpu/syscall_census.py --send PATH                   (stdin to the collector)

The rank limits its runner's file size (RLIMIT_FSIZE, one page), and strace runs within that
limit; so strace writes to a pipe, --send forwards it over a UNIX socket (not a file: no limit),
and the collector, started outside the rank, writes one log per connection.
"""
import argparse
import collections
import json
import pathlib
import re
import socket
import sys
import threading

# "PID  name(args" or "PID  <... name resumed>rest"; strace -f prefixes each line with the tid.
START = re.compile(r"^(\d+)\s+(\w+)\((.*)$")
RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$")
ENDED = re.compile(r"^(\d+)\s+\+\+\+ (exited with (\d+)|killed by (\w+))")
RESULT = re.compile(r"\)\s+=\s+(-?\w+)")
EXECUTOR = "hpcreward-gpu-executor"

# Arguments worth keeping per call: (index, ...) into the comma-split argument list. Paths and
# device names come from -y (fd<path>); numbers are raw (-X raw).
KEEP = {
    "ioctl": (0, 1), "mmap": (2, 3, 4), "mprotect": (2,), "pkey_mprotect": (2,), "madvise": (2,),
    "openat": (1, 2), "open": (0, 1), "fcntl": (1,), "prctl": (0,), "clone": (0,), "clone3": (),
    "futex": (1,), "rt_sigaction": (0,), "rt_sigprocmask": (0,), "tgkill": (2,), "kill": (1,),
    "write": (0,), "read": (0,), "close": (), "prlimit64": (1, 2), "sched_setaffinity": (),
    "socket": (0, 1), "mremap": (3,), "poll": (), "ppoll": (), "epoll_wait": (0,), "eventfd2": (1,),
    "newfstatat": (0, 1), "fstat": (0,), "readlink": (0,), "getdents64": (0,), "lseek": (0,),
    "pread64": (0,), "pwrite64": (0,), "membarrier": (0,), "exit": (), "exit_group": (0,),
}


def split_arguments(text):
    """Top-level comma split of strace's argument text (brackets, braces and strings kept whole)."""
    parts, depth, current, quoted, escaped = [], 0, [], False, False
    for ch in text:
        if quoted:
            current.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
            continue
        if ch == '"':
            quoted = True
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            if depth == 0:
                break  # the call's own closing parenthesis
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    tail = "".join(current).strip()
    if tail:
        parts.append(tail)
    return parts


def fd_target(argument):
    """'3</dev/nvidiactl>' -> '/dev/nvidiactl'; numbered devices folded (/dev/nvidia0 -> /dev/nvidiaN)."""
    match = re.match(r"-?\d+<(.*)>$", argument)
    target = match.group(1) if match else argument
    return re.sub(r"^(/dev/nvidia)\d+$", r"\1N", target)


def pattern_of(name, arguments):
    keep = KEEP.get(name)
    if not keep:
        return None
    picked = []
    for index in keep:
        if index < len(arguments):
            value = arguments[index]
            if "<" in value and value.endswith(">"):
                value = fd_target(value)
            if name in ("openat", "open") and value.startswith('"'):
                value = re.sub(r"/\d+(?=/|\"$)", "/N", value)  # /proc/1234/... -> /proc/N/...
            picked.append(value)
    return ", ".join(picked)


class Executor:
    def __init__(self, pid, trace):
        self.pid, self.trace = pid, trace
        self.filtered = False
        self.ended = None  # "exit N" or "SIGNAL" of the process's main thread
        self.calls = collections.Counter()
        self.patterns = collections.defaultdict(collections.Counter)
        self.last_call = {}


def read_trace(path):
    """Every executor in one strace log, with what its threads did after the filter."""
    owner = {}        # tid -> Executor (threads and children of an executor)
    executors = []
    pending = {}      # tid -> (name, argument text) of a call not yet finished
    with open(path, errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            ended = ENDED.match(line)
            if ended:
                tid = int(ended.group(1))
                ex = owner.get(tid)
                if ex is not None and tid == ex.pid:
                    ex.ended = f"exit {ended.group(3)}" if ended.group(3) is not None else ended.group(4)
                continue
            start, resumed = START.match(line), RESUMED.match(line)
            if start:
                tid, name, rest = int(start.group(1)), start.group(2), start.group(3)
                if rest.endswith("<unfinished ...>"):
                    pending[tid] = (name, rest)
                    finished_text = None
                else:
                    finished_text = rest
                arguments_text = rest
                ex = owner.get(tid)
                if ex is not None and name == "exit_group":
                    ex.ended = ex.ended or "exit_group"
                if ex is not None and ex.filtered:
                    ex.calls[name] += 1
                    ex.last_call[tid] = name
                    pattern = pattern_of(name, split_arguments(arguments_text))
                    if pattern is not None:
                        ex.patterns[name][pattern] += 1
            elif resumed:
                tid, name, rest = int(resumed.group(1)), resumed.group(2), resumed.group(3)
                arguments_text = pending.pop(tid, (name, ""))[1].removesuffix("<unfinished ...>") + rest
                finished_text = arguments_text
            else:
                continue
            if finished_text is None:
                continue
            result = RESULT.search(finished_text)
            value = result.group(1) if result else None
            if name == "execve" and value == "0" and EXECUTOR in finished_text.split(",", 1)[0]:
                ex = Executor(tid, str(path))
                executors.append(ex)
                owner[tid] = ex
            elif name in ("clone", "clone3", "fork", "vfork") and value and value.isdigit() and tid in owner:
                owner[int(value)] = owner[tid]
            elif name == "seccomp" and value == "0" and tid in owner:
                first = split_arguments(arguments_text)[:1]
                if first and first[0] in ("1", "0x1", "SECCOMP_SET_MODE_FILTER"):
                    owner[tid].filtered = True
    return executors


def census(paths):
    executors = [ex for path in paths for ex in read_trace(path)]
    filtered = [ex for ex in executors if ex.filtered]
    # strace does not always print a process killed by the filter; one that never called
    # exit_group was killed (by the filter, or by its runner on a timeout).
    exited = lambda ex: ex.ended is not None and ex.ended != "SIGSYS"
    groups = {"exited": [ex for ex in filtered if exited(ex)],
              "killed": [ex for ex in filtered if not exited(ex)]}
    report = {"executors": len(executors), "filtered": len(filtered), "groups": {}}
    for group, members in groups.items():
        calls = collections.Counter()
        made_by = collections.Counter()
        patterns = collections.defaultdict(collections.Counter)
        for ex in members:
            calls.update(ex.calls)
            made_by.update(ex.calls.keys())
            for name, counter in ex.patterns.items():
                patterns[name].update(counter)
        report["groups"][group] = {
            "executors": len(members),
            "calls": {name: {"count": calls[name], "executors": made_by[name],
                             "patterns": dict(patterns[name].most_common(40))}
                      for name in sorted(calls)},
            "last_calls": dict(collections.Counter(
                ex.last_call.get(ex.pid, "") for ex in members).most_common()),
        }
    return report


def collect(directory, path):
    directory.mkdir(parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(64)
    count = 0

    def keep(connection, target):
        with connection, open(target, "wb") as log:
            while chunk := connection.recv(1 << 16):
                log.write(chunk)
                log.flush()

    while True:
        connection, _ = server.accept()
        count += 1
        threading.Thread(target=keep, args=(connection, directory / f"runner.{count}"), daemon=True).start()


def send(path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(str(path))
        while chunk := sys.stdin.buffer.read1(1 << 16):
            connection.sendall(chunk)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="*", type=pathlib.Path)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--collect", type=pathlib.Path, metavar="DIR")
    parser.add_argument("--socket", type=pathlib.Path)
    parser.add_argument("--send", type=pathlib.Path, metavar="SOCKET")
    args = parser.parse_args()
    if args.send:
        return send(args.send)
    if args.collect:
        collect(args.collect, args.socket)
        return 0
    report = census(args.traces)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(f"executors {report['executors']}, with the filter installed {report['filtered']}")
    for group, data in report["groups"].items():
        print(f"\n{group}: {data['executors']} executors; main threads' last calls {data['last_calls']}")
        for name, entry in data["calls"].items():
            print(f"  {name:20s} {entry['count']:8d} calls in {entry['executors']:3d} executors")
            for pattern, count in list(entry["patterns"].items())[:12]:
                print(f"      {count:8d}  {pattern[:150]}")
    return 0 if report["filtered"] else 1


if __name__ == "__main__":
    sys.exit(main())
