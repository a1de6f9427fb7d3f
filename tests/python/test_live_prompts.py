"""Prompts that follow the ladder (hpcreward.live_prompts) against the fake coordinator: a
stage change reaches the next rows read; prompts are fetched again only when a stage moved."""
import pickle

import pytest

from hpcreward.live_prompts import LivePrompts


def prompt_requests(fake):
    return [path for method, path, _ in fake.requests if path.startswith("/v1/prompts")]


def test_a_stage_change_reaches_the_next_prompt_read(fake, rendezvous):
    live = LivePrompts(rendezvous)
    assert live("dgemm-256") == ("dgemm-256 in stage o3", "o3")
    assert live("dgemm-256") == ("dgemm-256 in stage o3", "o3")
    assert len(prompt_requests(fake)) == 1, "the same stage: the prompt is not fetched again"
    with fake.lock:
        fake.stages["dgemm-256"] = "openmp"
    assert live("dgemm-256") == ("dgemm-256 in stage openmp", "openmp")
    assert live("sgemm-512") == ("sgemm-512 in stage o0", "o0"), "a problem no batch used: its first stage"
    assert len(prompt_requests(fake)) == 3


def test_the_transform_fills_prompt_and_stage_per_row_and_survives_pickling(fake, rendezvous):
    live = pickle.loads(pickle.dumps(LivePrompts(rendezvous, chat=True)))
    batch = live.transform({"prompt": ["", ""], "problem": ["dgemm-256", "sgemm-512"], "stage": ["", ""]})
    assert batch["stage"] == ["o3", "o0"]
    assert batch["prompt"][0] == [{"role": "user", "content": "dgemm-256 in stage o3"}]
    assert batch["problem"] == ["dgemm-256", "sgemm-512"]


def test_a_live_dataset_reads_the_stage_when_a_row_is_read(fake, rendezvous):
    datasets = pytest.importorskip("datasets")  # installed with the trainers, not in CI
    from hpcreward.live_prompts import live_dataset
    dataset = live_dataset(rendezvous, ["dgemm-256"], rows=3)
    assert isinstance(dataset, datasets.Dataset) and len(dataset) == 3
    assert dataset[0]["stage"] == "o3"
    with fake.lock:
        fake.stages["dgemm-256"] = "avx512"
    assert dataset[1] == {"prompt": "dgemm-256 in stage avx512", "problem": "dgemm-256", "stage": "avx512"}
