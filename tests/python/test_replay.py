"""hpcreward-replay against the fake coordinator: batching, progress, summary, exit status."""
import json
import subprocess
import sys

from conftest import REPO
from hpcreward.replay import read_batches
from test_client import BROKEN, GOOD, fenced

SCRIPT = REPO / "train_bridge" / "bin" / "hpcreward-replay"


def write_lines(path, items):
    path.write_text("".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in items))
    return path


def run(*args):
    # Bytes, not text=True: universal newlines would turn the progress bar's \r into \n.
    result = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, timeout=60)
    result.stdout, result.stderr = result.stdout.decode(), result.stderr.decode()
    return result


def test_batches_keep_batch_ids_together_and_group_the_rest(tmp_path):
    items = ([{"id": f"a{i}", "source": GOOD} for i in range(5)]
             + [{"id": f"x{i}", "batch_id": "explicit", "source": GOOD} for i in range(3)]
             + [{"id": "y0", "batch_id": "other", "completion": "c"}]
             + [{"id": f"b{i}", "problem": "sgemm-256", "source": GOOD} for i in range(2)])
    batches, problems = read_batches(write_lines(tmp_path / "cands.jsonl", items), batch_size=2)
    assert problems == []
    assert [(b.batch_id, [c["id"] for c in b.candidates]) for b in batches] == [
        ("cands-1", ["a0", "a1"]), ("cands-2", ["a2", "a3"]), ("cands-3", ["a4"]),
        ("explicit", ["x0", "x1", "x2"]), ("other", ["y0"]), ("cands-4", ["b0", "b1"])]
    assert batches[0].candidates[0]["problem"] == "dgemm-256"
    assert batches[-1].candidates[0]["problem"] == "sgemm-256"


def test_replay_scores_everything_shows_progress_and_a_summary(fake, rendezvous, tmp_path):
    items = [{"id": "good", "problem": "dgemm-256", "stage": "o0", "source": GOOD},
             {"id": "broken", "problem": "dgemm-256", "source": BROKEN},
             {"id": "fenced", "completion": fenced(GOOD)},
             {"id": "prose", "completion": "no code"},
             {"id": "x", "batch_id": "mine", "source": GOOD}]
    file = write_lines(tmp_path / "run1.jsonl", items)
    out = tmp_path / "results.jsonl"
    result = run(file, "--rendezvous", rendezvous.parent, "--batch-size", "3", "--results", out, "--wait-s", "5")
    assert result.returncode == 0, result.stderr
    assert "\r[" in result.stderr and "5/5 scored" in result.stderr
    assert "scored 5 candidates" in result.stdout and "ok" in result.stdout and "compile_error" in result.stdout
    assert sorted(fake.batches) == ["mine", "run1-1", "run1-2"]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["status"], r["batch_id"]) for r in rows] == [
        ("good", "ok", "run1-1"), ("broken", "compile_error", "run1-1"), ("fenced", "ok", "run1-1"),
        ("prose", "format_error", "run1-2"), ("x", "ok", "mine")]

    # Replaying the same file is answered from the log: nothing is scored twice.
    again = run(file, "--url", fake.url, "--token-file", rendezvous.parent / "token", "--quiet", "--batch-size", "3")
    assert again.returncode == 0, again.stderr
    assert len(fake.scored) == 5 and "\r" not in again.stderr


def test_replay_reports_bad_lines_and_refused_batches_and_exits_1(fake, rendezvous, tmp_path):
    items = ["not json", {"id": "both", "source": "a", "completion": "b"}, {"id": "ok", "source": GOOD},
             {"id": "z", "batch_id": "dup", "source": GOOD}, {"id": "w", "source": GOOD},
             {"id": "z2", "batch_id": "dup", "source": BROKEN}]
    result = run(write_lines(tmp_path / "bad.jsonl", items), "--rendezvous", rendezvous, "--quiet")
    assert result.returncode == 1
    assert "line 1: not JSON" in result.stdout and "line 2: both: needs exactly one" in result.stdout
    assert "batch dup" in result.stdout and "409" in result.stdout
    assert "scored 3 candidates" in result.stdout


def test_replay_exit_2_for_a_bad_token_or_no_coordinator(fake, rendezvous, tmp_path):
    file = write_lines(tmp_path / "one.jsonl", [{"id": "a", "source": GOOD}])
    fake.token = "rotated"
    result = run(file, "--rendezvous", rendezvous, "--quiet")
    assert result.returncode == 2 and "check the token file" in result.stderr
    result = run(file, "--quiet")
    assert result.returncode == 2 and "--rendezvous" in result.stderr
    result = run(file, "--rendezvous", tmp_path / "nowhere", "--quiet")
    assert result.returncode == 2 and "no rendezvous file" in result.stderr
