"""hpcreward.verl_data.LivePromptDataset's override, against a stand-in for verl's RLHFDataset
(the real one needs verl; tests/integration/verl_live_prompts.py runs it) and the fake
coordinator: rows get the problem's prompt at its current stage and extra_info says which."""
import importlib
import sys
import types

import pytest


class FakeRLHFDataset:
    """verl 0.9.1's RLHFDataset as LivePromptDataset uses it: __init__(data_files, tokenizer,
    config, processor) and __getitem__ returning the row with raw_prompt and extra_info."""

    rows = [{"raw_prompt": [{"role": "user", "content": "placeholder"}], "extra_info": {"problem": "sgemm-512"},
             "reward_model": {"ground_truth": "sgemm-512"}},
            {"raw_prompt": [{"role": "user", "content": "placeholder"}], "extra_info": None,
             "reward_model": {"ground_truth": "dgemm-256"}},
            {"raw_prompt": [{"role": "user", "content": "placeholder"}], "problem": "dgemm-512", "stage": "o0"}]

    def __init__(self, data_files, tokenizer, config, processor=None):
        self.data_files = data_files

    def __getitem__(self, item):
        return dict(self.rows[item])


@pytest.fixture
def live_dataset_class(monkeypatch):
    stand_in = types.ModuleType("verl.utils.dataset.rl_dataset")
    stand_in.RLHFDataset = FakeRLHFDataset
    for name in ("verl", "verl.utils", "verl.utils.dataset"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "verl.utils.dataset.rl_dataset", stand_in)
    monkeypatch.delitem(sys.modules, "hpcreward.verl_data", raising=False)
    return importlib.import_module("hpcreward.verl_data").LivePromptDataset


def test_rows_carry_the_live_prompt_and_its_stage(fake, rendezvous, monkeypatch, live_dataset_class):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous))
    dataset = live_dataset_class(["train.parquet"], tokenizer=None, config={})
    first = dataset[0]
    assert first["raw_prompt"] == [{"role": "user", "content": "sgemm-512 in stage o0"}]
    assert first["extra_info"] == {"problem": "sgemm-512", "stage": "o0"}
    assert dataset[1]["extra_info"] == {"problem": "dgemm-256", "stage": "o3"}, "the problem from the ground truth"
    with fake.lock:
        fake.stages["dgemm-256"] = "openmp"
    assert dataset[1]["raw_prompt"][0]["content"] == "dgemm-256 in stage openmp"
    assert FakeRLHFDataset.rows[1]["extra_info"] is None, "the underlying rows are left as they were"
    assert dataset[2]["extra_info"] == {"problem": "dgemm-512", "stage": "o0"}, "a dataset command row's problem column"
