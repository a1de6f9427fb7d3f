"""OpenRLHF adapter: a reward function file for OpenRLHF's local-function mode.

    --remote_rm_url /abs/path/train_bridge/python/hpcreward/openrlhf_reward.py --label_key problem

OpenRLHF loads this file by path and calls reward_func(queries, prompts, labels) with the decoded
prompt+response texts, the prompts, and the --label_key values. Each label is a problem id
("dgemm-256"), a JSON object text with "problem" (and optionally "stage"), or empty for
HPCREWARD_DEFAULT_PROBLEM (default dgemm-256). The response is the query without its prompt, sent
as a `completion` (the coordinator takes the code from its fenced block). Returns OpenRLHF's dict:
rewards (the pipeline's rewards), scores (1 for status ok, else 0: for dynamic filtering) and
extra_logs, as torch tensors when torch is importable (it is inside OpenRLHF), else lists.

Why a file and not --remote_rm_url http://host:port/get_reward: OpenRLHF's remote reward call
sends only a Content-Type header, no bearer token, and the coordinator requires one. This file
reads the token through the client (HPCREWARD_RENDEZVOUS; see env_client).
"""
import json
import os
import pathlib
import sys

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from hpcreward.env_client import client_from_env  # noqa: E402
else:
    from .env_client import client_from_env


def response_of(query, prompt):
    """The model's response inside OpenRLHF's query (prompt + response, special tokens kept)."""
    if prompt:
        if query.startswith(prompt):
            return query[len(prompt):]
        at = query.rfind(prompt)
        if at >= 0:
            return query[at + len(prompt):]
    return query


def problem_and_stage(label):
    default = os.environ.get("HPCREWARD_DEFAULT_PROBLEM", "dgemm-256")
    if isinstance(label, dict):
        return label.get("problem") or default, label.get("stage") or None
    if label is None:
        return default, None
    text = str(label).strip()
    if text.startswith("{"):
        try:
            return problem_and_stage(json.loads(text))
        except ValueError:
            pass
    return text or default, None


def score_queries(queries, prompts, labels, client=None):
    """The detailed results of OpenRLHF's inputs (used by reward_func, and by tests)."""
    queries = list(queries)
    prompts = list(prompts) if prompts is not None else [None] * len(queries)
    labels = list(labels) if labels is not None else [None] * len(queries)
    if not queries:
        return []
    responses = [response_of(query, prompt) for query, prompt in zip(queries, prompts)]
    pairs = [problem_and_stage(label) for label in labels]
    stages = [stage for _, stage in pairs]
    client = client or client_from_env()
    return client.score_detailed(responses, [problem for problem, _ in pairs],
                                 None if all(stage is None for stage in stages) else stages)


def reward_func(queries, prompts, labels, **kwargs):
    results = score_queries(queries, prompts, labels)
    rewards = [float(result["reward"]) for result in results]
    scores = [1.0 if result.get("status") == "ok" else 0.0 for result in results]
    gflops = [float(result.get("gflops") or 0.0) for result in results]
    extra = {"hpcreward_ok_fraction": scores, "hpcreward_gflops": gflops}
    try:
        import torch
    except ImportError:
        return {"rewards": rewards, "scores": scores, "extra_logs": extra}
    return {"rewards": torch.tensor(rewards, dtype=torch.float32),
            "scores": torch.tensor(scores, dtype=torch.float32),
            "extra_logs": {key: torch.tensor(value, dtype=torch.float32) for key, value in extra.items()}}
