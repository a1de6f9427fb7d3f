"""The adversarial corpus through the real pipeline (jobs/local.sh, 2 benchmark ranks).

Asserts each hostile candidate's status, that no hostile case broke a rank (a good "canary"
candidate follows every hostile one and must score ok, and a last batch of one canary per rank,
which starts only when every hostile case is done, must score ok on every rank), and that
nothing outside the sandbox changed: no files written or deleted, no processes left behind,
work directories gone.
Hostile code runs only inside the benchmark rank's sandbox; on top of it the whole run is put in
a cgroup with a process and memory cap where the machine offers one (cgroup v1 pids/memory).
"""
import json
import os
import pathlib
import subprocess
import sys

import h5py
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from corpus import GOOD, all_cases  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
SENTINEL = pathlib.Path("/tmp/hpcreward-adversarial-sentinel")
PWNED_PREFIX = "hpcreward-adversarial-pwned-"
BENCH_OPTIONS = ["--run-timeout", "5", "--compile-timeout", "10", "--warmup-s", "0.02",
                 "--time-cap-s", "0.2", "--memory-limit-mb", "1024"]
NP = 2
FINAL_BATCH = "final-canaries"


def cgroup_prefix(name):
    """Shell commands that move the shell into capped cgroups, if the machine lets us."""
    commands = []
    for controller, settings in (("pids", {"pids.max": "512"}),
                                 ("memory", {"memory.limit_in_bytes": str(8 << 30)})):
        group = pathlib.Path("/sys/fs/cgroup") / controller / name
        try:
            group.mkdir(exist_ok=True)
            for key, value in settings.items():
                (group / key).write_text(value)
        except OSError:
            continue
        commands.append(f"echo $$ > {group}/cgroup.procs")
    return commands


def decode(value):
    return value.decode() if isinstance(value, bytes) else value


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("adversarial")
    for stale in pathlib.Path("/tmp").glob(PWNED_PREFIX + "*"):
        stale.unlink()
    SENTINEL.write_text("untouched\n")
    # Each canary's source is its own, so the repeat cache (coordinator/README.md) cannot answer
    # it from an earlier measurement: every canary really runs on a rank after a hostile case.
    def canary(number):
        return f"/* canary {number} */\n" + GOOD
    cases = all_cases()
    lines = []
    for index, case in enumerate(cases):
        lines.append({**case.line(), "batch_id": "hostile"})
        lines.append({"id": f"canary-{index}", "problem": "dgemm-256", "stage": "o3", "source": canary(index),
                      "batch_id": "hostile"})
    # Which rank ran which hostile case depends on timing. The coordinator starts a batch only
    # when the previous one is done, and hands its first tasks to the idle ranks one each
    # (coordinator/ranks/scheduler.hpp; tests/coordinator, ScoringRun.ABatchOfOnePerRank...), so
    # this batch reaches every rank after every hostile case, whatever the order was.
    lines += [{"id": f"canary-final-{i}", "problem": "dgemm-256", "stage": "o3", "source": canary(1000 + i),
               "batch_id": FINAL_BATCH} for i in range(NP)]
    candidates = tmp / "adversarial.jsonl"
    candidates.write_text("".join(json.dumps(line) + "\n" for line in lines))
    work = tmp / "work"
    bin_dir = os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin"))
    # gemm-kinds: dgemm-256 as the default catalog has it, and the transposed and batched kinds.
    launch = (f"{REPO}/jobs/local.sh --candidates {candidates} --np {NP} --problems gemm-kinds --seed 7 "
              f"--out {tmp}/run "
              f"-- --workdir {work} " + " ".join(BENCH_OPTIONS))
    cgroup = f"hpcreward-adversarial-{os.getpid()}"
    script = "; ".join(cgroup_prefix(cgroup) + [f"exec {launch}"])
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=1200,
                            env=dict(os.environ, HPCREWARD_BIN=bin_dir))
    with h5py.File(tmp / "run" / "rewards.h5", "r", swmr=True) as log:
        rows = [{name: decode(row[name]) for name in log["rewards"].dtype.names}
                for row in log["rewards"][()]]
    for controller in ("pids", "memory"):
        try:
            (pathlib.Path("/sys/fs/cgroup") / controller / cgroup).rmdir()
        except OSError:
            pass
    return {"result": result, "rows": rows, "cases": cases, "work": work, "lines": lines}


def test_run_completes_with_a_row_per_candidate(run):
    result = run["result"]
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert len(run["rows"]) == len(run["lines"])
    assert len(run["cases"]) >= 30


def test_every_hostile_case_gets_its_status(run):
    by_id = {row["candidate_id"]: row for row in run["rows"]}
    failures = []
    for case in run["cases"]:
        row = by_id[case.name]
        if row["status"] not in case.expect:
            failures.append(f"{case.name}: {row['status']} ({row['reason']}), want {'|'.join(case.expect)}")
        elif row["status"] != "ok" and not row["reason"]:
            failures.append(f"{case.name}: {row['status']} without a reason")
    assert not failures, "\n".join(failures)


def test_ranks_keep_working_after_every_hostile_case(run):
    rows = run["rows"]
    canaries = [row for row in rows if row["candidate_id"].startswith("canary")]
    bad = [f"{row['candidate_id']}: {row['status']} {row['reason']}" for row in canaries if row["status"] != "ok"]
    assert not bad, "\n".join(bad)
    final = [row for row in rows if row["batch_id"] == FINAL_BATCH]
    assert len(final) == NP
    assert sorted(row["rank"] for row in final if row["status"] == "ok") == list(range(1, NP + 1)), \
        "every rank scores a good candidate after all hostile ones: " + \
        ", ".join(f"{row['candidate_id']} rank {row['rank']} {row['status']}" for row in final)


def test_nothing_outside_the_sandbox_changed(run):
    assert SENTINEL.read_text() == "untouched\n", "the sentinel file was changed"
    written = sorted(p.name for p in pathlib.Path("/tmp").glob(PWNED_PREFIX + "*"))
    assert not written, f"hostile candidates wrote files: {written}"
    work = run["work"]
    leftovers = list(work.iterdir()) if work.exists() else []
    assert not leftovers, f"work directories left behind: {leftovers}"
    stray = []
    for proc in pathlib.Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cwd = os.readlink(proc / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(work)):
            stray.append((proc.name, (proc / "cmdline").read_bytes().replace(b"\0", b" ")[:80]))
    assert not stray, f"processes left behind in the sandbox: {stray}"
