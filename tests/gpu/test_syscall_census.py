"""syscall_census.py on strace lines written by hand (no GPU, no strace needed)."""
import json
import pathlib

import syscall_census

TRACE = """\
100  execve("/bin/runner", ["runner"], 0x7ffe /* 3 vars */) = 0
100  clone(child_stack=NULL, flags=0x1200011, child_tidptr=0x7f) = 101
101  execve("/build/bin/hpcreward-gpu-executor", ["hpcreward-gpu-executor"], 0x7ffd /* 3 vars */) = 0
101  openat(-100</run>, "/dev/nvidiactl", 0x80002) = 3</dev/nvidiactl>
101  clone3({flags=0x3d0f00, exit_signal=0, stack=0x7f}, 88) = 102
102  poll([{fd=4</dev/nvidia0>, events=0x1}], 1, -1 <unfinished ...>
101  seccomp(0x2, 0, [0x80000000]) = 0
101  seccomp(0x1, 0x1, {len=40, filter=0x55}) = 0
102  <... poll resumed>) = 1 ([{fd=4, revents=0x1}])
102  ioctl(4</dev/nvidia0>, 0xc020462a, 0x7f12) = 0
101  ioctl(3</dev/nvidiactl>, 0xc030462b, 0x7ffd) = 0
101  mmap(NULL, 2097152, 0x3, 0x1, 5</dev/nvidia-uvm>, 0) = 0x7f0000
101  openat(-100</run>, "/proc/4242/maps", 0x80000) = 6</proc/4242/maps>
101  futex(0x55, 0x81, 0x1) = 0
101  exit_group(0) = ?
101  +++ exited with 0 +++
100  clone(child_stack=NULL, flags=0x1200011, child_tidptr=0x7f) = 103
103  execve("/build/bin/hpcreward-gpu-executor", ["hpcreward-gpu-executor"], 0x7ffd /* 3 vars */) = 0
103  seccomp(0x1, 0x1, {len=40, filter=0x55}) = 0
103  ioctl(3</dev/nvidiactl>, 0xc030462b, 0x7ffd) = 0
103  fchmodat2(-100, "/dev/nvidiactl", 0, 0 <unfinished ...>
100  wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == 0x1f}], 0, NULL) = 103
"""


def test_counts_only_what_executors_entered_after_their_filter(tmp_path):
    log = tmp_path / "runner.1"
    log.write_text(TRACE)
    report = syscall_census.census([log])
    assert report["executors"] == 2 and report["filtered"] == 2
    exited, killed = report["groups"]["exited"], report["groups"]["killed"]
    assert exited["executors"] == 1 and killed["executors"] == 1
    # Not the runner's clone, the executor's opens before the filter, nor the poll entered before it.
    assert set(exited["calls"]) == {"ioctl", "mmap", "openat", "futex", "exit_group"}
    assert exited["calls"]["ioctl"]["count"] == 2  # one from the driver's thread
    assert exited["calls"]["ioctl"]["patterns"] == {"/dev/nvidiaN, 0xc020462a": 1, "/dev/nvidiactl, 0xc030462b": 1}
    assert exited["calls"]["mmap"]["patterns"] == {"0x3, 0x1, /dev/nvidia-uvm": 1}
    assert exited["calls"]["openat"]["patterns"] == {'"/proc/N/maps", 0x80000': 1}
    assert killed["last_calls"] == {"fchmodat2": 1} and set(killed["calls"]) == {"ioctl", "fchmodat2"}


def test_arguments_split_at_top_level_only():
    assert syscall_census.split_arguments('3</a, b>, "x, y", {a=1, b=[2, 3]}, 0x1) = 0') == [
        "3</a, b>", '"x, y"', "{a=1, b=[2, 3]}", "0x1"]


# hpcreward-runner's log: an executor starting threads (through clone, once clone3 is refused)
# that its runner ends with SIGKILL while it is stopped (strace prints no end then), one killed
# by the filter (its runner's waitid shows it), beside a GPU executor whose name ends the same way.
CPU_TRACE = """\
200  execve("/build/bin/hpcreward-runner", ["hpcreward-runner"], 0x7ffe /* 3 vars */) = 0
200  clone(child_stack=NULL, flags=0x1200011, child_tidptr=0x7f) = 201
201  execve("/build/bin/hpcreward-executor", ["hpcreward-executor"], 0x7ffd /* 3 vars */) = 0
201  seccomp(0x1, 0x15, {len=146, filter=0x55} <unfinished ...>
200  waitid(0x1, 201,  <unfinished ...>
201  <... seccomp resumed>) = 0
201  clone3({flags=0x3d0f00, exit_signal=0, stack=0x7f}, 88) = -1 ENOSYS (Function not implemented)
201  clone(child_stack=0x7f10, flags=0x3d0f00, parent_tid=0x7f20, tls=0x7f30, child_tidptr=0x7f20) = 202
202  madvise(0x7f00, 8368128, 0x4) = 0
202  exit(0) = ?
201  write(2<pipe:[4242]>, "x", 1) = 1
201  tgkill(201, 201, 19 <unfinished ...>
200  <... waitid resumed>{si_signo=17, si_code=0x5, si_pid=201, si_uid=65534, si_status=19, si_utime=0, si_stime=0}, 0x6, NULL) = 0
200  kill(201, 9) = 0
200  wait4(201, NULL, 0, NULL) = 201
200  clone(child_stack=NULL, flags=0x1200011, child_tidptr=0x7f) = 203
203  execve("/build/bin/hpcreward-gpu-executor", ["hpcreward-gpu-executor"], 0x7ffd /* 3 vars */) = 0
203  seccomp(0x1, 0x1, {len=40, filter=0x55}) = 0
203  ioctl(3</dev/nvidiactl>, 0xc030462b, 0x7ffd) = 0
203  exit_group(0) = ?
200  clone(child_stack=NULL, flags=0x1200011, child_tidptr=0x7f) = 204
204  execve("/build/bin/hpcreward-executor", ["/build/bin/hpcreward-executor"], 0x7ffd /* 3 vars */) = 0
204  seccomp(0x1, 0x15, {len=146, filter=0x55}) = 0
204  socket(0x2, 0x1, 0) = ?
200  waitid(0x1, 204, {si_signo=17, si_code=0x2, si_pid=204, si_uid=65534, si_status=31, si_utime=0, si_stime=0}, 0x6, NULL) = 0
"""


def test_executor_names_the_program_counted(tmp_path):
    log = tmp_path / "runner.1"
    log.write_text(CPU_TRACE)
    cpu = syscall_census.census([log], "hpcreward-executor")
    assert cpu["executors"] == 2 and cpu["filtered"] == 2
    groups = cpu["groups"]
    assert groups["exited"]["executors"] == 0
    by_runner = groups["ended by its runner"]
    assert by_runner["executors"] == 1
    assert set(by_runner["calls"]) == {"clone3", "clone", "madvise", "exit", "write", "tgkill"}
    assert by_runner["calls"]["clone"]["patterns"] == {"flags=0x3d0f00": 1}
    assert by_runner["calls"]["madvise"]["patterns"] == {"0x4": 1}  # the thread's, through clone's result
    assert by_runner["calls"]["write"]["patterns"] == {"pipe:[N]": 1}
    assert by_runner["calls"]["tgkill"]["patterns"] == {"19": 1}  # entered, not finished, before the stop
    assert groups["killed"]["executors"] == 1 and groups["killed"]["last_calls"] == {"socket": 1}
    gpu = syscall_census.census([log])  # the default: the GPU executor only
    assert gpu["executors"] == 1 and set(gpu["groups"]["exited"]["calls"]) == {"ioctl", "exit_group"}


def test_executor_option_on_the_command_line(tmp_path, monkeypatch, capsys):
    log, out = tmp_path / "runner.1", tmp_path / "census.json"
    log.write_text(CPU_TRACE)
    monkeypatch.setattr("sys.argv", ["syscall_census.py", str(log), "--json", str(out),
                                     "--executor", "hpcreward-executor"])
    assert syscall_census.main() == 0
    assert "madvise" in json.loads(out.read_text())["groups"]["ended by its runner"]["calls"]
    monkeypatch.setattr("sys.argv", ["syscall_census.py", str(log), "--executor", "hpcreward-runner-none"])
    assert syscall_census.main() == 1  # no executor of that name: nothing to report
    capsys.readouterr()
