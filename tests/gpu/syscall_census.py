#!/usr/bin/env python3
"""What executors (GPU, CPU) ask of the kernel once their seccomp filter is in: a census of strace logs.

Reads `strace -f -X raw -y` logs of hpcreward-gpu-runner (syscall_census.sh writes them, one a
runner), finds each executor (the process that execve'd hpcreward-gpu-executor, with its
threads; --executor hpcreward-executor for hpcreward-runner's logs, which
tests/honest/syscall_census_cpu.sh writes), and counts the system calls its threads entered
after the filter was installed (seccomp(SECCOMP_SET_MODE_FILTER) returning 0: the filter syncs
to every thread). Executors are told apart by how they ended: by exit_group; by a SIGKILL
from their runner (the CPU runner ends every executor so, a GPU runner one past its timeout);
or killed (the filter refused a call: a hostile case; or an end the log does not show), with
the last call of the killed one's main thread. For the calls whose arguments
gpu_seccomp_filter.cpp or seccomp_filter.cpp conditions, it keeps the argument patterns (ioctl's
device and request, mmap's and mprotect's protection and flags, open's flags and path, clone's
flags, ...).

  python3 tests/gpu/syscall_census.py TRACE... [--json OUT] [--executor NAME]
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
# How a parent saw its child end: waitid's siginfo (CLD_KILLED 2, CLD_DUMPED 3) or wait4's status.
WAITID_SIGNAL = re.compile(r"si_code=(?:0x)?[23], si_pid=(\d+),.*?si_status=(\w+)")
WAIT4_SIGNAL = re.compile(r"WTERMSIG\(s\) == (\w+)")
RUNNER_KILL = "SIGKILL from its runner"
EXECUTOR = "hpcreward-gpu-executor"  # the default of --executor

# Arguments worth keeping per call: (index, ...) into the comma-split argument list. Paths and
# device names come from -y (fd<path>); numbers are raw (-X raw).
KEEP = {
    "ioctl": (0, 1), "mmap": (2, 3, 4), "mprotect": (2,), "pkey_mprotect": (2,), "madvise": (2,),
    "openat": (1, 2), "open": (0, 1), "fcntl": (1,), "prctl": (0,), "clone": (1,), "clone3": (),
    "futex": (1,), "rt_sigaction": (0,), "rt_sigprocmask": (0,), "tgkill": (2,), "kill": (1,),
    "write": (0,), "writev": (0,), "read": (0,), "close": (), "prlimit64": (1, 2), "sched_setaffinity": (),
    "socket": (0, 1), "mremap": (3,), "poll": (), "ppoll": (), "epoll_wait": (0,), "eventfd2": (1,),
    "newfstatat": (0, 1), "fstat": (0,), "readlink": (0,), "getdents64": (0,), "lseek": (0,),
    "pread64": (0,), "pwrite64": (0,), "membarrier": (0,), "exit": (), "exit_group": (0,),
    "mbind": (2, 5),
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
    """'3</dev/nvidiactl>' -> '/dev/nvidiactl'; numbered devices and pipes folded (/dev/nvidia0 ->
    /dev/nvidiaN, pipe:[4242] -> pipe:[N]: one pattern however many runners)."""
    match = re.match(r"-?\d+<(.*)>$", argument)
    target = match.group(1) if match else argument
    target = re.sub(r"^(pipe|socket|anon_inode):\[\d+\]$", r"\1:[N]", target)
    return re.sub(r"^(/dev/nvidia)\d+$", r"\1N", target)


def signal_name(value):
    """strace's signal number (31, 0x1f) or name -> 'SIGSYS' for SIGSYS, else 'signal N'."""
    if value.startswith("SIG"):
        return value
    number = int(value, 0)
    return "SIGSYS" if number == 31 else f"signal {number}"


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
        self.ended = None  # "exit N", "SIGNAL" of the process's main thread, or RUNNER_KILL
        self.calls = collections.Counter()
        self.patterns = collections.defaultdict(collections.Counter)
        self.last_call = {}


def is_executor(execve_text, executor):
    """Whether execve's first argument (a quoted path) names `executor`, by its last component."""
    program = execve_text.split(",", 1)[0].strip().strip('"')
    return program.rsplit("/", 1)[-1] == executor


def read_trace(path, executor=EXECUTOR):
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
                arguments_text = rest.removesuffix("<unfinished ...>").rstrip()
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
            if name == "execve" and value == "0" and is_executor(finished_text, executor):
                ex = Executor(tid, str(path))
                executors.append(ex)
                owner[tid] = ex
            elif name in ("clone", "clone3", "fork", "vfork") and value and value.isdigit() and tid in owner:
                owner[int(value)] = owner[tid]
            elif name == "seccomp" and value == "0" and tid in owner:
                first = split_arguments(arguments_text)[:1]
                if first and first[0] in ("1", "0x1", "SECCOMP_SET_MODE_FILTER"):
                    owner[tid].filtered = True
            elif name == "kill" and tid not in owner:
                target, sig = (split_arguments(arguments_text) + ["", ""])[:2]
                ex = owner.get(int(target)) if target.isdigit() else None
                if ex is not None and ex.pid == int(target) and sig in ("9", "0x9", "SIGKILL"):
                    ex.ended = ex.ended or RUNNER_KILL
            elif name in ("waitid", "wait4", "waitpid") and tid not in owner:
                # strace prints no end for a tracee killed while stopped; its parent saw it.
                pid, sig = None, None
                if (match := WAITID_SIGNAL.search(finished_text)) is not None:
                    pid, sig = int(match.group(1)), match.group(2)
                elif (match := WAIT4_SIGNAL.search(finished_text)) is not None and value and value.isdigit():
                    pid, sig = int(value), match.group(1)
                ex = owner.get(pid)
                if ex is not None and ex.pid == pid:
                    ex.ended = ex.ended or signal_name(sig)
    return executors


def census(paths, executor=EXECUTOR):
    executors = [ex for path in paths for ex in read_trace(path, executor)]
    filtered = [ex for ex in executors if ex.filtered]
    # strace does not always print a process killed by the filter; one whose end neither the
    # log nor its parent shows was killed.
    exited = lambda ex: ex.ended is not None and ex.ended not in ("SIGSYS", RUNNER_KILL)
    groups = {"exited": [ex for ex in filtered if exited(ex)],
              "ended by its runner": [ex for ex in filtered if ex.ended == RUNNER_KILL],
              "killed": [ex for ex in filtered if not exited(ex) and ex.ended != RUNNER_KILL]}
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
    parser.add_argument("--executor", default=EXECUTOR, metavar="NAME",
                        help=f"the program whose processes are counted (default {EXECUTOR}; "
                             "hpcreward-executor for hpcreward-runner's logs)")
    args = parser.parse_args()
    if args.send:
        return send(args.send)
    if args.collect:
        collect(args.collect, args.socket)
        return 0
    report = census(args.traces, args.executor)
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
