"""Client against the fake coordinator: scoring, ids, retries with the same batch id, errors, submit/poll."""
import json
import os
import threading

import pytest

from hpcreward import (AuthError, BatchTimeout, Client, ConflictError, HpcrewardError, ProtocolError, RequestError,
                       UnavailableError)
from hpcreward.rendezvous import read_rendezvous, token_file_is_private

GOOD = "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { /* ok */ }"
BROKEN = "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { BROKEN }"


def fenced(code):
    return f"Here is my kernel.\n```c\n{code}\n```\nIt is fast."


def client_for(rendezvous, **options):
    options.setdefault("backoff_s", 0.01)
    return Client.from_rendezvous(rendezvous, **options)


def test_from_rendezvous_accepts_the_file_or_its_directory(fake, rendezvous):
    for path in (rendezvous, rendezvous.parent, str(rendezvous.parent)):
        client = Client.from_rendezvous(path)
        assert client.url == fake.url
    assert read_rendezvous(rendezvous).pid == 12345
    assert token_file_is_private(read_rendezvous(rendezvous).token_file)


def test_missing_rendezvous_says_how_to_start_the_pipeline(tmp_path):
    with pytest.raises(HpcrewardError, match="--serve"):
        Client.from_rendezvous(tmp_path)


def test_score_completions_in_order_with_one_problem_for_all(fake, rendezvous):
    client = client_for(rendezvous)
    rewards = client.score([fenced(GOOD), "no code at all", fenced(BROKEN)], problems="dgemm-256")
    assert rewards == [1.0 + len(GOOD) % 10, -1.0, -0.5]
    (_, _, batch_id), = fake.posts()
    assert batch_id.startswith("b-") and len(batch_id) == 34
    sent = json.loads(fake.batches[batch_id]["key"])
    assert [candidate["id"] for candidate in sent] == [f"{batch_id}-{i}" for i in range(3)]
    assert all("completion" in candidate and "source" not in candidate for candidate in sent)


def test_stages_reports_each_problems_current_stage(fake, rendezvous):
    assert client_for(rendezvous).stages() == {"dgemm-256": "o3"}
    assert client_for(rendezvous).reward_mode() == "fraction"


def test_score_sources_and_detailed_results(fake, rendezvous):
    client = client_for(rendezvous)
    results = client.score_sources_detailed([GOOD, BROKEN], problems=["dgemm-256", "sgemm-512"], stages="o3",
                                            batch_id="mine", ids=["good", "broken"])
    assert [(r["id"], r["status"], r["stage"]) for r in results] == [("good", "ok", "o3"), ("broken", "compile_error", "o3")]
    sent = json.loads(fake.batches["mine"]["key"])
    assert [c["problem"] for c in sent] == ["dgemm-256", "sgemm-512"]
    assert all("source" in c and c["stage"] == "o3" for c in sent)


def test_wrong_lengths_and_a_bare_string_are_refused_before_sending(fake, rendezvous):
    client = client_for(rendezvous)
    with pytest.raises(ValueError, match="problems"):
        client.score(["a", "b"], problems=["dgemm-256"])
    with pytest.raises(TypeError, match="list"):
        client.score("one string", problems="dgemm-256")
    assert client.score([], problems="dgemm-256") == []
    assert fake.requests == []


def test_dropped_connection_is_retried_with_the_same_batch_id_and_scored_once(fake, rendezvous):
    fake.drop_posts = 1
    client = client_for(rendezvous)
    rewards = client.score_sources([GOOD, BROKEN], problems="dgemm-256", batch_id="drop-1")
    assert rewards == [1.0 + len(GOOD) % 10, -0.5]
    assert [entry[2] for entry in fake.posts()] == ["drop-1", "drop-1"]
    assert sorted(fake.scored) == ["drop-1-0", "drop-1-1"]


def test_default_batch_id_is_kept_across_retries(fake, rendezvous):
    fake.drop_posts = 2
    client = client_for(rendezvous)
    client.score([fenced(GOOD)], problems="dgemm-256")
    ids = {entry[2] for entry in fake.posts()}
    assert len(fake.posts()) == 3 and len(ids) == 1
    assert len(fake.scored) == 1


def test_503_and_timeouts_are_retried(fake, rendezvous):
    fake.fail_503 = 2
    client = client_for(rendezvous)
    assert client.score_sources([GOOD], problems="dgemm-256", batch_id="busy") == [1.0 + len(GOOD) % 10]
    assert len(fake.posts()) == 3

    fake.requests.clear()
    fake.sleep_first_post_s = 0.0
    slow = client_for(rendezvous, timeout=0.3)
    fake.sleep_first_post_s = 1.0  # only the first POST of the log sleeps: clear made this the first
    assert slow.score_sources([GOOD], problems="dgemm-256", batch_id="slow") == [1.0 + len(GOOD) % 10]
    assert [entry[2] for entry in fake.posts()][:2] == ["slow", "slow"]
    assert fake.scored.count("slow-0") == 1


def test_retries_are_bounded_and_end_in_a_clear_error(tmp_path):
    import socket
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # nothing listens there now
    client = Client(f"http://127.0.0.1:{port}", "t", retries=2, backoff_s=0.01)
    with pytest.raises(UnavailableError, match="after 3 attempts") as error:
        client.score(["x"], problems="dgemm-256")
    assert "still running" in str(error.value)


def test_409_for_the_same_batch_id_with_other_content(fake, rendezvous):
    client = client_for(rendezvous)
    first = client.score_sources([GOOD], problems="dgemm-256", batch_id="same")
    assert client.score_sources([GOOD], problems="dgemm-256", batch_id="same") == first
    with pytest.raises(ConflictError) as error:
        client.score_sources([BROKEN], problems="dgemm-256", batch_id="same")
    assert error.value.status == 409 and "other candidates" in error.value.message
    assert fake.scored == ["same-0"]


@pytest.mark.parametrize("forbid", [False, True])
def test_401_and_403_raise_auth_error_naming_the_token_file(fake, rendezvous, forbid):
    fake.forbid = forbid
    if not forbid:
        fake.token = "another-run"
    client = client_for(rendezvous)
    with pytest.raises(AuthError) as error:
        client.score(["x"], problems="dgemm-256")
    assert error.value.status == (403 if forbid else 401)
    assert str(rendezvous.parent / "token") in str(error.value) and "check" in str(error.value)
    assert len(fake.posts()) == 1  # never retried


def test_4xx_is_raised_with_the_servers_message_and_not_retried(fake, rendezvous):
    client = client_for(rendezvous)
    with pytest.raises(RequestError, match="non-empty array") as error:
        client.score_candidates([], batch_id="empty")
    assert error.value.status == 400
    assert len(fake.posts()) == 1
    with pytest.raises(RequestError) as error:
        client.batch("never-submitted", [{"id": "x"}]).result(timeout=1)
    assert error.value.status == 404


def test_submit_returns_at_once_and_result_polls_until_done(fake, rendezvous):
    fake.polls_until_done = 3
    client = client_for(rendezvous)
    handle = client.submit([fenced(GOOD), fenced(BROKEN)], problems="dgemm-256", batch_id="async")
    (_, _, wait_id), = fake.posts()
    assert wait_id == "async" and json.loads(fake.batches["async"]["key"])
    assert not handle.done()
    seen = []
    results = handle.result(timeout=10, on_progress=lambda done, total: seen.append((done, total)))
    assert [r["status"] for r in results] == ["ok", "compile_error"]
    assert handle.done() and handle.rewards() == [1.0 + len(GOOD) % 10, -0.5]
    gets = [entry for entry in fake.requests if entry[0] == "GET"]
    assert len(gets) == 3  # done() then two polls; finished handles ask no more
    assert seen[-1] == (2, 2)
    body = [entry for entry in fake.requests if entry[0] == "POST"]
    assert len(body) == 1


def test_submit_overlaps_with_other_work_and_result_times_out(fake, rendezvous):
    fake.polls_until_done = 10 ** 6
    client = client_for(rendezvous)
    handle = client.submit_sources([GOOD], problems="dgemm-256")
    with pytest.raises(BatchTimeout, match="call result"):
        handle.result(timeout=0.2)
    fake.polls_until_done = 0
    assert handle.result(timeout=5)[0]["status"] == "ok"


def test_submit_is_retried_with_the_same_batch_id(fake, rendezvous):
    fake.drop_posts = 1
    client = client_for(rendezvous)
    handle = client.submit_sources([GOOD, BROKEN], problems="dgemm-256", batch_id="async-drop")
    assert [r["status"] for r in handle.result(timeout=10)] == ["ok", "compile_error"]
    assert [entry[2] for entry in fake.posts()] == ["async-drop", "async-drop"]
    assert len(fake.scored) == 2


def test_many_threads_share_one_client(fake, rendezvous):
    client = client_for(rendezvous)
    out = {}

    def work(index):
        out[index] = client.score_sources([GOOD] * 3, problems="dgemm-256")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(out) == 8 and len(fake.batches) == 8 and len(fake.scored) == 24


def test_results_out_of_order_are_a_protocol_error(fake, rendezvous):
    client = client_for(rendezvous)
    original = fake.submit

    def swapped(body):
        status, answer, drop = original(body)
        if "results" in answer:
            answer = dict(answer, results=list(reversed(answer["results"])))
        return status, answer, drop
    fake.submit = swapped
    with pytest.raises(ProtocolError, match="order"):
        client.score_sources([GOOD, BROKEN], problems="dgemm-256")


def test_get_reward_speaks_openrlhfs_format(fake, rendezvous):
    client = client_for(rendezvous)
    rewards = client.get_reward(["P:" + fenced(GOOD), "P:nothing"], prompts=["P:", "P:"], labels=["dgemm-256"] * 2)
    assert rewards == [1.0 + len(GOOD) % 10, -1.0]


def test_token_comes_from_the_file_not_the_rendezvous(fake, rendezvous):
    data = json.loads(rendezvous.read_text())
    assert "token" not in data
    assert os.stat(data["token_file"]).st_mode & 0o777 == 0o600


def test_a_failed_batch_raises_instead_of_polling_forever(fake, rendezvous):
    from hpcreward import BatchFailed
    client = client_for(rendezvous)
    handle = client.submit_sources([GOOD], problems="dgemm-256", batch_id="doomed")
    fake.state = lambda batch_id, count_poll=True: {"batch_id": batch_id, "state": "failed", "done": 0, "total": 1,
                                                    "error": "rank 1 died"}
    with pytest.raises(BatchFailed, match="rank 1 died"):
        handle.result(timeout=5)


def test_a_restarted_pipeline_is_followed_through_its_rendezvous(tmp_path):
    """A lost rank or a Slurm requeue restarts the coordinator on another port with another token
    and a new coordinator.json: a client from the rendezvous sends the same batch there."""
    from fake_coordinator import FakeCoordinator
    first = FakeCoordinator(token="first-token").start()
    rendezvous = first.write_rendezvous(tmp_path)
    client = client_for(rendezvous, follow_s=20, retries=1)
    assert client.score_sources([GOOD], problems="dgemm-256", batch_id="before") == [1.0 + len(GOOD) % 10]
    first.stop()
    second = FakeCoordinator(token="second-token")
    restarted = threading.Timer(0.5, lambda: (second.start(), second.write_rendezvous(tmp_path)))
    restarted.start()
    try:
        assert client.score_sources([GOOD], problems="dgemm-256", batch_id="after") == [1.0 + len(GOOD) % 10]
        assert client.url == second.url != first.url
        assert [batch_id for _, _, batch_id in second.posts()] == ["after"]
    finally:
        restarted.join()
        second.stop()


def test_without_a_rendezvous_a_lost_coordinator_is_retried_then_unavailable(fake, rendezvous):
    client = Client(fake.url, fake.token, retries=2, backoff_s=0.01)
    fake.stop()
    with pytest.raises(UnavailableError, match="3 attempts"):
        client.stages()
