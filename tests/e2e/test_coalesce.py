"""End-to-end coalescing (coordinator/README.md, "Coalescing per-sample requests").

16 trainer threads call POST /get_reward with one query each, as OpenRLHF >= 0.9.1 and verl's
per-sample reward loop do, against jobs/local.sh --serve with 2 CPU ranks. The coordinator
scores them as one pipeline batch: one stage for all 16 (the ladder here would move o0 on after
2 candidates), the advance logged once after them; every caller gets its own reward, every
candidate is logged once under its own batch id.
"""
import concurrent.futures
import hashlib
import json

import h5py

from corpus import GOOD_IKJ, SIG
from test_serve import REPO, Coordinator, decode, read_rows

CALLERS = 16


def queries():
    # 4 that run, 4 that do not compile, 8 without code: each caller's reward tells its kind.
    out = []
    for i in range(CALLERS):
        if i % 4 == 0:
            out.append(("ok", "```c\n" + GOOD_IKJ + f"// caller {i}\n```"))
        elif i % 4 == 1:
            out.append(("compile_error", "```c\n" + SIG + "{ int x = }" + f"// caller {i}\n```"))
        else:
            out.append(("format_error", f"caller {i} tiles it for matmul, but shows no code"))
    return out


def test_concurrent_single_query_requests_are_one_batch(tmp_path):
    ladder = json.loads((REPO / "stages" / "default_ladder.json").read_text())
    for stage in ladder["stages"]:
        if stage["name"] == "o0":
            stage["advance"] = [{"type": "max_candidates", "window": 2}]
    (tmp_path / "ladder.json").write_text(json.dumps(ladder))
    # The cap (16) sends the group, not the window: the test does not depend on how fast
    # 16 threads connect on a busy machine.
    config = tmp_path / "coordinator.ini"
    config.write_text(f"ladder = {tmp_path / 'ladder.json'}\ncoalesce-window-ms = 20000\ncoalesce-max = {CALLERS}\n")
    run_dir = tmp_path / "run"
    coordinator = Coordinator(run_dir, "--config", str(config))
    try:
        cases = queries()
        bodies = [{"query": [query], "labels": ["dgemm-256"]} for _, query in cases]
        with concurrent.futures.ThreadPoolExecutor(CALLERS) as pool:
            answers = list(pool.map(lambda body: coordinator.request("POST", "/get_reward", body), bodies))
        for (kind, _), (status, answer) in zip(cases, answers):
            assert status == 200, answer
            [reward] = answer["rewards"]
            assert {"ok": reward > 0, "compile_error": reward == -10, "format_error": reward == -10}[kind], answer

        batch_ids = ["openrlhf-" + hashlib.sha256(json.dumps(body).encode()).hexdigest()[:16] for body in bodies]
        rows = read_rows(run_dir / "rewards.h5")
        assert sorted(r["batch_id"] for r in rows) == sorted(batch_ids), "each candidate logged once, by its own id"
        assert {r["stage"] for r in rows} == {"o0"}, "one stage for the whole group"
        with h5py.File(run_dir / "rewards.h5", "r", swmr=True) as log:
            events = [(decode(e["from"]), decode(e["to"]), int(e["rows_before"])) for e in log["stage_events"][()]]
        assert events == [("o0", "o3", CALLERS)], "the advance the group earned, once, after it"
        status, stages = coordinator.request("GET", "/v1/stages")
        assert status == 200 and stages["stages"]["dgemm-256"] == "o3"

        # Each caller's batch id answers on its own; a retry is answered without scoring.
        status, progress = coordinator.request("GET", "/v1/batches/" + batch_ids[0])
        assert status == 200 and progress["state"] == "done" and progress["results"][0]["id"] == "q0"
        assert progress["results"][0]["reward"] == answers[0][1]["rewards"][0]
        status, again = coordinator.request("POST", "/get_reward", bodies[5])
        assert status == 200 and again == answers[5][1]
        assert len(read_rows(run_dir / "rewards.h5")) == CALLERS
    finally:
        code, output = coordinator.stop()
    assert code == 0, output
    assert f"coalesced {CALLERS} single-candidate requests into one batch" in output, output
