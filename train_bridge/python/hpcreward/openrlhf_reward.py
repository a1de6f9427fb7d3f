"""OpenRLHF adapter: a reward function file for OpenRLHF's --reward.remote_url FILE.py.

    --reward.remote_url /abs/path/train_bridge/python/hpcreward/openrlhf_reward.py --data.label_key problem

Contract checked in OpenRLHF/OpenRLHF v0.11.0 (commit 3c3be623, 2026-08-13) and v0.10.2 (64c1cc4f):
  * openrlhf/cli/train_ppo_ray.py: --reward.remote_url (was --remote_rm_url before 0.10.2),
    --data.label_key, --data.input_key, --data.apply_chat_template, --data.prompt_dataset.
  * openrlhf/utils/agent.py, SingleTurnAgentExecutor: a remote_url ending in .py is loaded with
    importlib (module name "reward_func") and its reward_func(queries, prompts, labels) is called
    positionally once per sample, with one-element lists (the decoded prompt + response with
    special tokens, the prompt, the label), in asyncio.to_thread: samples are scored concurrently,
    one call each. The result's "rewards", "scores" (used for dynamic filtering; "rewards" when
    missing) and "extra_logs" (each value's first element is logged) are read.
  * An exception is caught there and logged at INFO level only ("Failed to fetch reward from
    remote RM"); the sample is left without a reward (openrlhf/trainer/ppo_utils/samples_generator.py:
    rewards=None), which breaks the batch later. So this function logs the failure at ERROR level
    with its reason (logger "hpcreward.openrlhf", to stderr unless configured) before raising.

Each label is a problem id ("dgemm-256"), a JSON object text with "problem" (and optionally
"stage"), or empty for HPCREWARD_DEFAULT_PROBLEM (default dgemm-256). The response is the query
without its prompt, sent as a `completion` (the coordinator takes the code from its fenced block).
Each call sends one request (the coordinator coalesces concurrent ones into batches). Returns
OpenRLHF's dict: rewards (the pipeline's rewards), scores (1 for status ok, else 0) and extra_logs
(hpcreward_gflops, hpcreward_ok), as torch tensors when torch is importable (it is inside
OpenRLHF), else lists.

Why a file and not --reward.remote_url http://host:port/get_reward: OpenRLHF's HTTP call
(_fetch_rewards_via_http, aiohttp) sends no Authorization header, and the coordinator requires a
bearer token. This file reads the token through the client (HPCREWARD_RENDEZVOUS; see env_client).
"""
import json
import logging
import os
import pathlib
import sys

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from hpcreward.env_client import client_from_env  # noqa: E402
else:
    from .env_client import client_from_env

logger = logging.getLogger("hpcreward.openrlhf")


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
    try:
        results = score_queries(queries, prompts, labels)
    except Exception as error:
        logger.error("hpcreward: no reward for %d queries (labels %s): %s: %s", len(queries), list(labels or [])[:4],
                     type(error).__name__, error)
        raise
    rewards = [float(result["reward"]) for result in results]
    scores = [1.0 if result.get("status") == "ok" else 0.0 for result in results]
    gflops = [float(result.get("gflops") or 0.0) for result in results]
    extra = {"hpcreward_gflops": gflops, "hpcreward_ok": scores}
    try:
        import torch
    except ImportError:
        return {"rewards": rewards, "scores": scores, "extra_logs": extra}
    return {"rewards": torch.tensor(rewards, dtype=torch.float32),
            "scores": torch.tensor(scores, dtype=torch.float32),
            "extra_logs": {key: torch.tensor(value, dtype=torch.float32) for key, value in extra.items()}}


if __package__ in (None, ""):
    # Loaded by path (as OpenRLHF does): use the package module's functions.
    from hpcreward.openrlhf_reward import problem_and_stage, response_of, reward_func, score_queries  # noqa: E402,F811
