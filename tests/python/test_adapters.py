"""Each adapter called exactly as its trainer calls it, against the fake coordinator."""
import importlib.util
import json

import pytest

from conftest import PACKAGE_DIR
from hpcreward import Client
from hpcreward.trl import completion_text, reward_function
from test_client import BROKEN, GOOD, fenced

OK = 1.0 + len(GOOD) % 10


def load_by_path(name, path):
    """How verl (custom_reward_function.path) and OpenRLHF (--remote_rm_url FILE.py) load a file."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- TRL -----------------------------------------------------------------------------------------

def trl_call(reward_func, inputs, prompts, completions):
    """What GRPOTrainer._calculate_rewards does for a custom reward function."""
    keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
    reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
    reward_kwargs["trainer_state"] = object()
    completion_ids = [[1, 2, 3] for _ in completions]
    return reward_func(prompts=prompts, completions=completions, completion_ids=completion_ids, **reward_kwargs)


def test_trl_standard_format_with_a_problem_column(fake, rendezvous):
    reward = reward_function(str(rendezvous))
    assert reward.__name__ == "hpcreward_gflops"
    inputs = [{"prompt": "Write matmul", "problem": "dgemm-256", "level": 1},
              {"prompt": "Write matmul", "problem": "sgemm-512", "level": 1},
              {"prompt": "Write matmul", "problem": "dgemm-256", "level": 2}]
    completions = [fenced(GOOD), fenced(BROKEN), "I cannot."]
    rewards = trl_call(reward, inputs, [i["prompt"] for i in inputs], completions)
    assert rewards == [OK, -0.5, -1.0]
    assert all(isinstance(value, float) for value in rewards)
    (_, _, batch_id), = fake.posts()  # one batch for the whole call
    sent = json.loads(fake.batches[batch_id]["key"])
    assert [c["problem"] for c in sent] == ["dgemm-256", "sgemm-512", "dgemm-256"]
    assert [c["completion"] for c in sent] == completions
    assert all("stage" not in c for c in sent)


def test_trl_conversational_format_default_problem_and_stage_column(fake, rendezvous):
    reward = reward_function(Client.from_rendezvous(rendezvous), default_problem="sgemm-256", name="gflops")
    assert reward.__name__ == "gflops"
    prompts = [[{"role": "user", "content": "Write matmul"}]] * 2
    completions = [[{"role": "assistant", "content": fenced(GOOD)}],
                   [{"role": "assistant", "content": [{"type": "text", "text": fenced(BROKEN)}]}]]
    inputs = [{"prompt": p, "stage": s} for p, s in zip(prompts, ["o3", None])]
    assert trl_call(reward, inputs, prompts, completions) == [OK, -0.5]
    (_, _, batch_id), = fake.posts()
    sent = json.loads(fake.batches[batch_id]["key"])
    assert [c["problem"] for c in sent] == ["sgemm-256", "sgemm-256"]
    assert sent[0]["stage"] == "o3" and "stage" not in sent[1]


def test_trl_reward_from_the_environment(fake, rendezvous, monkeypatch):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous.parent))
    reward = reward_function()
    assert reward(prompts=["p"], completions=[fenced(GOOD)], completion_ids=[[1]], problem=[None]) == [OK]


def test_completion_text():
    assert completion_text("x") == "x"
    assert completion_text([{"role": "assistant", "content": "y"}]) == "y"
    assert completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]) == "a"


# -- verl ----------------------------------------------------------------------------------------

@pytest.fixture
def verl_module(rendezvous, monkeypatch):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous))
    return load_by_path("custom_module", PACKAGE_DIR / "hpcreward" / "verl.py")


def test_verl_compute_score_as_the_naive_reward_manager_calls_it(fake, verl_module):
    score = verl_module.compute_score(data_source="hpc/matmul", solution_str=fenced(GOOD), ground_truth="sgemm-256",
                                      extra_info={"index": 0, "split": "train"})
    assert score == OK and isinstance(score, float)
    score = verl_module.compute_score("hpc/matmul", fenced(BROKEN), "dgemm-256", {"problem": "dgemm-512", "stage": "o3"})
    assert score == -0.5
    sent = [json.loads(batch["key"])[0] for batch in fake.batches.values()]
    assert [c["problem"] for c in sent] == ["sgemm-256", "dgemm-512"]
    assert sent[1]["stage"] == "o3" and "stage" not in sent[0]


def test_verl_compute_score_batch_as_the_batch_reward_manager_calls_it(fake, verl_module):
    scores = verl_module.compute_score_batch(
        data_sources=["hpc/matmul"] * 3, solution_strs=[fenced(GOOD), fenced(BROKEN), "prose"],
        ground_truths=["dgemm-256", {"problem": "sgemm-1024"}, None], extra_infos=[None, {}, {"index": 2}])
    assert scores == [OK, -0.5, -1.0]
    (batch,) = fake.batches.values()
    assert [c["problem"] for c in json.loads(batch["key"])] == ["dgemm-256", "sgemm-1024", "dgemm-256"]


def test_verl_client_is_made_once_per_process(fake, verl_module):
    from hpcreward import env_client
    verl_module.compute_score("d", fenced(GOOD), "dgemm-256")
    first = env_client.client_from_env()
    verl_module.compute_score("d", fenced(GOOD), "dgemm-256")
    assert env_client.client_from_env() is first


# -- OpenRLHF ------------------------------------------------------------------------------------

def test_openrlhf_reward_func_as_openrlhf_loads_and_calls_it(fake, rendezvous, monkeypatch):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous))
    module = load_by_path("reward_func", PACKAGE_DIR / "hpcreward" / "openrlhf_reward.py")
    prompt = "<|im_start|>user\nWrite matmul like ```c\nvoid matmul(...);\n```<|im_end|>\n<|im_start|>assistant\n"
    queries = [prompt + fenced(GOOD) + "<|im_end|>", prompt + fenced(BROKEN) + "<|im_end|>", prompt + "no"]
    labels = ["dgemm-256", json.dumps({"problem": "sgemm-256", "stage": "o3"}), ""]
    out = module.reward_func(queries, [prompt] * 3, labels)
    rewards = out["rewards"]
    rewards = rewards.tolist() if hasattr(rewards, "tolist") else rewards
    scores = out["scores"].tolist() if hasattr(out["scores"], "tolist") else out["scores"]
    assert rewards == [OK, -0.5, -1.0]
    assert scores == [1.0, 0.0, 0.0]
    assert set(out["extra_logs"]) == {"hpcreward_ok_fraction", "hpcreward_gflops"}
    (batch,) = fake.batches.values()
    sent = json.loads(batch["key"])
    assert [c["problem"] for c in sent] == ["dgemm-256", "sgemm-256", "dgemm-256"]
    assert not sent[0]["completion"].startswith("<|im_start|>user")  # the prompt's own code block is cut off
    assert sent[1]["stage"] == "o3"


def test_openrlhf_remote_route_is_the_coordinators_get_reward(fake, rendezvous):
    # What OpenRLHF's remote_rm_fn posts, sent with the token (OpenRLHF itself sends none).
    client = Client.from_rendezvous(rendezvous)
    assert client.get_reward(["p" + fenced(GOOD)], ["p"], ["dgemm-256"]) == [OK]
