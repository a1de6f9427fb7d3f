"""jobs/local.sh's main job (the generator as the source) with and without --gpus, on a machine
without GPUs: the real launcher, mpirun and generator, against stand-ins for the executables
(fake_served_coordinator.py serves the generator; the benchmark ranks only record how they were
started). What it shows: which ranks start, which searches the generator runs against the one
served run, which problems their batches name, where the reports go. What it cannot show:
real CUDA candidates scored on GPU ranks (that needs a GPU: the generator's README says how)."""
import json
import os
import pathlib
import signal
import stat
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
LOCAL_SH = REPO / "jobs" / "local.sh"
FAKE_COORDINATOR = pathlib.Path(__file__).resolve().parent / "fake_served_coordinator.py"


def fake_bin(tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    calls = tmp_path / "bench-calls.txt"
    scripts = {
        "hpcreward-coordinator": f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_COORDINATOR}" "$@"\n',
        "hpcreward-bench": f'#!/bin/sh\nprintf "%s\\n" "hpcreward-bench $*" >> "{calls}"\n',
        "hpcreward-runner": "#!/bin/sh\nexit 0\n",
        # `export LOG --format jsonl`: a line per candidate the stand-in scored (local.sh --resume
        # counts them for the resumed searches' seed).
        "hpcreward-results": f'#!/bin/sh\n"{sys.executable}" -c "import json,os,sys; '
                             f'[print(c[\\"id\\"]) for l in (open(sys.argv[1]) if os.path.exists(sys.argv[1]) else []) '
                             f'for c in json.loads(l)[\\"candidates\\"]]" "$(dirname "$2")/fake-batches.jsonl"\n',
    }
    for name, text in scripts.items():
        script = folder / name
        script.write_text(text)
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder, calls


def main_job(tmp_path, *args):
    folder, calls = fake_bin(tmp_path)
    out = tmp_path / "run"
    result = subprocess.run([str(LOCAL_SH), *args, "--out", str(out)], capture_output=True, text=True,
                            env=dict(os.environ, HPCREWARD_BIN=str(folder)), timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    batches = [json.loads(line) for line in (out / "fake-batches.jsonl").read_text().splitlines()]
    coordinator = json.loads((out / "fake-coordinator-argv.json").read_text())
    ranks = sorted(line.split() for line in calls.read_text().splitlines())  # one per benchmark rank
    return out, result.stdout, ranks, batches, coordinator


def problems_of(batches):
    return [sorted({c["problem"] for c in batch["candidates"]}) for batch in batches]


def test_with_gpus_a_c_and_a_cuda_search_send_their_own_batches_to_the_served_run(tmp_path):
    out, stdout, ranks, batches, coordinator = main_job(
        tmp_path, "--np", "1", "--gpus", "1", "--evaluations", "32", "--cuda-evaluations", "48")
    assert ranks == [["hpcreward-bench"], ["hpcreward-bench", "--gpu"]]
    assert "--serve" in coordinator and coordinator[coordinator.index("--listen") + 1] == "127.0.0.1:0"
    # Each search its own batches (the coordinator scores batches in flight together, so CPU
    # and GPU ranks work at once without sharing one): 2 of the C search, 3 of the CUDA search,
    # in whatever order they arrived.
    assert sorted(map(tuple, problems_of(batches))) == [("cuda-sgemm-4096",)] * 3 + [("dgemm-256",)] * 2
    assert "each search keeps up to 2 batches of its own in flight" in stdout
    cuda = [c for batch in batches for c in batch["candidates"] if c["problem"] == "cuda-sgemm-4096"]
    assert len(cuda) == 48 and all('extern "C" void matmul' in c["source"] for c in cuda)
    c_report = json.loads((out / "generator.json").read_text())
    cuda_report = json.loads((out / "generator-cuda.json").read_text())
    assert (c_report["problem"], c_report["language"], c_report["evaluations"]) == ("dgemm-256", "c", 32)
    assert (cuda_report["problem"], cuda_report["language"], cuda_report["evaluations"]) == ("cuda-sgemm-4096", "cuda", 48)
    # The CUDA search's batches were scored on the served run's ladder (16 candidates a stage in
    # the stand-in: each batch in the stage of its arrival) and filed under those stages.
    stages = sorted(row[3] for row in cuda_report["gflops_over_evaluations"])
    assert stages == ["cuda-naive"] * 16 + ["cuda-smem"] * 16 + ["cuda-tensor"] * 16
    assert "cuda-sgemm-4096: evaluations 48" in stdout and "dgemm-256: evaluations 32" in stdout
    assert not (out / "coordinator.json").exists(), "the served run was stopped once the searches ended"


def test_gpu_ranks_alone_run_only_the_cuda_search(tmp_path):
    out, _, ranks, batches, coordinator = main_job(
        tmp_path, "--np", "0", "--gpus", "2", "--cuda-problem", "cuda-hgemm-1024", "--cuda-evaluations", "20",
        "--evaluations", "999")
    assert ranks == [["hpcreward-bench", "--gpu"]] * 2
    # A served coordinator refuses at start a default problem no rank can score: it gets the CUDA one.
    assert coordinator[coordinator.index("--problem") + 1] == "cuda-hgemm-1024"
    assert problems_of(batches) == [["cuda-hgemm-1024"]] * 2
    assert sum(len(batch["candidates"]) for batch in batches) == 20
    assert json.loads((out / "generator-cuda.json").read_text())["evaluations"] == 20
    assert not (out / "generator.json").exists()


def test_without_gpus_the_main_job_is_the_c_search_alone(tmp_path):
    out, stdout, ranks, batches, coordinator = main_job(tmp_path, "--np", "2", "--evaluations", "16",
                                                        "--problem", "sgemm-256", "--in-flight", "1")
    assert ranks == [["hpcreward-bench"]] * 2
    assert "each search keeps up to 1 batch of its own in flight" in stdout  # --in-flight passed on
    assert problems_of(batches) == [["sgemm-256"]]
    assert "float" in batches[0]["candidates"][0]["source"]
    assert json.loads((out / "generator.json").read_text())["problem"] == "sgemm-256"
    assert not (out / "generator-cuda.json").exists()


def test_generator_options_say_what_to_fix(tmp_path):
    out = str(tmp_path / "run")
    for args, message in [
            (["--cuda-problem", "cuda-sgemm-4096"], "needs GPU ranks: add --gpus G"),
            (["--gpus", "1", "--cuda-evaluations", "0"], "--cuda-evaluations must be a positive integer"),
            (["--gpus", "1", "--cuda-problem", "sgemm-256"], "--cuda-problem names a CUDA problem"),
            (["--gpus", "1", "--serve", "--cuda-evaluations", "5"], "are for the built-in generator"),
            (["--in-flight", "0"], "--in-flight must be a positive integer, not '0'"),
            (["--serve", "--in-flight", "2"], "--in-flight is the built-in generator's")]:
        result = subprocess.run([str(LOCAL_SH), *args, "--out", out], capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)


def resume(tmp_path, *args, env=None):
    """jobs/local.sh --resume of main_job's run directory, with main_job's stand-ins."""
    return subprocess.run([str(LOCAL_SH), *args, "--out", str(tmp_path / "run"), "--resume"], capture_output=True,
                          text=True, env=dict(os.environ, HPCREWARD_BIN=str(tmp_path / "bin"), **(env or {})),
                          timeout=300)


def test_a_resumed_cuda_search_starts_where_the_ladder_stands(tmp_path):
    out, _, _, batches, _ = main_job(tmp_path, "--np", "0", "--gpus", "1", "--cuda-evaluations", "48")
    assert len(batches) == 3  # 48 candidates: the stand-in's cuda-async from the 49th on
    result = resume(tmp_path, "--np", "0", "--gpus", "1", "--cuda-evaluations", "64")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    resumed = [json.loads(line) for line in (out / "fake-batches.jsonl").read_text().splitlines()][3:]
    assert len(resumed) == 1  # 16 more: 64 in all
    # Made for cuda-async (cp.async in every source), not for the ladder's first stage, and
    # under new ids (seed 1 + the 48 candidates logged; the search's 4th batch).
    assert all("__pipeline_memcpy_async" in c["source"] for c in resumed[0]["candidates"])
    assert all(c["id"].startswith("cuda-s49-b0004-") for c in resumed[0]["candidates"])
    assert "the pipeline's ladder stands at cuda-async" in result.stdout


def test_a_main_job_cut_off_goes_on_with_its_searches(tmp_path):
    # The stand-in answers two batches of each search, then stops (as a time limit would stop
    # it) with a third batch of each in flight: both reports hold 32 evaluations, the batches
    # still out are given up. The resumed job goes on with each search to its total, archive
    # and all.
    folder, _ = fake_bin(tmp_path)
    out = tmp_path / "run"
    options = ["--np", "1", "--gpus", "1", "--evaluations", "48", "--cuda-evaluations", "64"]
    stopped = subprocess.run([str(LOCAL_SH), *options, "--out", str(out)], capture_output=True, text=True,
                             env=dict(os.environ, HPCREWARD_BIN=str(folder),
                                      FAKE_COORDINATOR_STOPS_AFTER_BATCHES_OF="dgemm-256=2,cuda-sgemm-4096=2"),
                             timeout=300)
    assert stopped.returncode == 75, stopped.stdout[-3000:] + stopped.stderr[-3000:]
    assert "--resume goes on with the search" in stopped.stderr
    before = {name: json.loads((out / name).read_text()) for name in ("generator.json", "generator-cuda.json")}
    assert [(report["evaluations"], report["batches"]) for report in before.values()] == [(32, 2), (32, 2)]
    logged = [c["id"] for line in (out / "fake-batches.jsonl").read_text().splitlines()
              for c in json.loads(line)["candidates"]]
    assert len(logged) == 64

    result = resume(tmp_path, *options)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for name, problem in (("generator.json", "dgemm-256"), ("generator-cuda.json", "cuda-sgemm-4096")):
        assert f"{problem}: goes on from {out / name}: 32 evaluations, 2 batches" in result.stdout
    batches = [json.loads(line)["candidates"] for line in (out / "fake-batches.jsonl").read_text().splitlines()][4:]
    new_ids = [c["id"] for batch in batches for c in batch]
    # Seed 1 + the 64 rows logged, batch numbers going on from each report's batches filed
    # (b0003 was out under seed 1 when the run stopped): no logged id again.
    assert sorted(new_ids) == sorted([f"s65-b0003-{i:02d}" for i in range(16)]
                                     + [f"cuda-s65-b{b:04d}-{i:02d}" for b in (3, 4) for i in range(16)])
    assert not set(new_ids) & set(logged)
    for name, total in (("generator.json", 48), ("generator-cuda.json", 64)):
        report = json.loads((out / name).read_text())
        assert report["evaluations"] == total and report["seed"] == 65
        assert report["earlier_runs"] == [{"seed": 1, "evaluations": 32, "batches": 2}]
        rows = report["gflops_over_evaluations"]
        assert rows[:32] == before[name]["gflops_over_evaluations"]
        assert [row[0] for row in rows] == list(range(1, total + 1))
        kept = {(e["stage"], e["niche"]): e["gflops"] for e in report["archive"]}
        for elite in before[name]["archive"]:  # every niche kept, its elite replaced only by a better one
            assert kept[(elite["stage"], elite["niche"])] >= elite["gflops"]


def test_a_resumed_main_job_without_reports_starts_new_searches(tmp_path):
    folder, _ = fake_bin(tmp_path)
    stopped = subprocess.run([str(LOCAL_SH), "--np", "1", "--evaluations", "32", "--out", str(tmp_path / "run")],
                             capture_output=True, text=True, timeout=300,
                             env=dict(os.environ, HPCREWARD_BIN=str(folder), FAKE_COORDINATOR_STOPS_AFTER_BATCHES="0"))
    assert stopped.returncode == 75 and not (tmp_path / "run" / "generator.json").exists(), stopped.stderr[-3000:]
    result = resume(tmp_path, "--np", "1", "--evaluations", "32")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert f"dgemm-256: no report {tmp_path / 'run' / 'generator.json'} (stopped before its first batch came back): " \
           "a new search" in result.stdout
    assert json.loads((tmp_path / "run" / "generator.json").read_text())["evaluations"] == 32


def test_a_resumed_main_job_stops_on_a_report_it_cannot_go_on_from(tmp_path):
    out, _, _, _, _ = main_job(tmp_path, "--np", "1", "--evaluations", "16")
    (out / "generator.json").write_text('{"problem": "dgemm-256", "archive": [')
    result = resume(tmp_path, "--np", "1", "--evaluations", "32")
    assert result.returncode == 2, result.stdout[-3000:] + result.stderr[-3000:]
    assert f"hpcreward_generator: error: --resume: cannot read {out / 'generator.json'} as a report" in result.stderr
    assert "move it away to start a new search" in result.stderr


def test_a_pipeline_that_fails_at_start_ends_the_generator_at_once(tmp_path):
    folder, _ = fake_bin(tmp_path)
    env = dict(os.environ, HPCREWARD_BIN=str(folder), FAKE_COORDINATOR_FAILS_AT_START="1")
    # Without the watch the generator waits 300 s for the rendezvous file: past this timeout.
    result = subprocess.run([str(LOCAL_SH), "--np", "1", "--evaluations", "16", "--out", str(tmp_path / "run")],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode != 0
    assert "the stand-in was told to fail at start" in result.stderr
    assert "the pipeline ended before the generator" in result.stderr


def stop_an_endless_main_job(tmp_path, stop, args=("--evaluations", "1000000"), started="fake-batches.jsonl"):
    """Starts a main job with more evaluations than it will ever do (or another source: args),
    calls stop(job) once its first batch is in (the file `started` is in the run directory), and
    returns (exit status, stdout, stderr, the coordinator's outcome)."""
    folder, _ = fake_bin(tmp_path)
    out = tmp_path / "run"
    job = subprocess.Popen([str(LOCAL_SH), "--np", "1", *args, "--out", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, HPCREWARD_BIN=str(folder)), start_new_session=True)
    groups = {job.pid}
    try:
        deadline = time.monotonic() + 120
        while not (out / started).exists():
            assert time.monotonic() < deadline and job.poll() is None, "the run never started"
            time.sleep(0.2)
        groups.add(os.getpgid(int((out / "coordinator.pid").read_text())))
        assert groups != {job.pid}, "the coordinator is in local.sh's process group"
        stop(job)
        stdout, stderr = job.communicate(timeout=120)
    finally:  # whatever is left (on a failure: the generator, mpirun and the stand-in)
        for group in groups:
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass
        job.wait()
    return job.returncode, stdout, stderr, json.loads((out / "coordinator.outcome.json").read_text())


def test_a_sigterm_stops_the_main_job_through_the_coordinator(tmp_path):
    # What a time limit (timeout, Slurm) sends: the coordinator stops after the batch in flight
    # and closes its log, then the generator is ended; before, the signal waited for the
    # generator's last evaluation.
    status, stdout, stderr, outcome = stop_an_endless_main_job(tmp_path, lambda job: job.send_signal(signal.SIGTERM))
    assert outcome["message"] == "stopped by SIGTERM", stdout[-2000:] + stderr[-2000:]
    assert "the pipeline ended before the generator" in stderr
    assert status == 75, stderr[-2000:]  # stopped before the end: --resume goes on


def test_a_signal_to_the_whole_process_group_stops_the_main_job_in_order(tmp_path):
    # What `timeout` and Ctrl-C send: the signal to every process of local.sh's group. Before,
    # mpirun got it too and killed the coordinator with its batch in flight, leaving the log
    # open for writing (on an H200: `--resume` then needed h5clear).
    status, stdout, stderr, outcome = stop_an_endless_main_job(tmp_path,
                                                               lambda job: os.killpg(job.pid, signal.SIGTERM))
    assert outcome["message"] == "stopped by SIGTERM", stdout[-2000:] + stderr[-2000:]
    assert "the pipeline ended before the generator" in stderr
    assert status == 75, stderr[-2000:]  # stopped before the end: --resume goes on


def test_a_signal_to_the_whole_process_group_stops_a_file_run_in_order(tmp_path):
    # A candidate file under `timeout`: before, mpirun got the signal too and killed the
    # coordinator with tasks in flight, leaving the log open for writing (on an H200: `--resume`
    # then needed h5clear).
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(json.dumps({"id": "c1", "problem": "dgemm-256", "source": "void matmul(void) {}"}) + "\n")
    status, stdout, stderr, outcome = stop_an_endless_main_job(
        tmp_path, lambda job: os.killpg(job.pid, signal.SIGTERM), args=("--candidates", str(candidates)),
        started="coordinator.pid")
    assert outcome["message"] == "stopped by SIGTERM", stdout[-2000:] + stderr[-2000:]
    assert status == 75, stderr[-2000:]  # stopped before the end: --resume goes on


def test_a_sigkill_to_the_script_alone_stops_the_main_job_in_order(tmp_path):
    # An OOM kill or a harness's hard limit skips the script's trap. Before, the coordinator went
    # on serving and the generator on searching; on an H200 that generator then followed the run
    # started next on the directory with --resume and wrote its report beside that run's own.
    # The pipes close only once every process holding them ended: the generator and mpirun too.
    status, stdout, stderr, outcome = stop_an_endless_main_job(tmp_path, lambda job: job.send_signal(signal.SIGKILL))
    assert outcome["message"] == "stopped by SIGTERM", stdout[-2000:] + stderr[-2000:]
    assert "local.sh: ended without stopping its pipeline (killed): stopping it" in stderr
    assert status == -signal.SIGKILL
