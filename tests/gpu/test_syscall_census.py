"""syscall_census.py on strace lines written by hand (no GPU, no strace needed)."""
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
