"""verl adapter: custom reward functions (reward.custom_reward_function.path / .name).

Contract read in the verl 0.9.1 wheel from PyPI (same call in 0.7.0-0.8.0; the keys and call
sites are entries of tests/python/trainer_contracts.py, checked in the wheels by ctest
python_trainer_contracts):
  * verl/trainer/ppo/reward.py, get_custom_reward_fn: reads config.reward.custom_reward_function
    (path, name, reward_kwargs). 0.9.x main_ppo no longer migrates the top-level
    custom_reward_function.* (verl 0.7.0's keys; 0.7.1 and 0.8.0 migrate them): set there, they are
    ignored and verl's default scorer raises NotImplementedError for our data_source. The file is
    loaded by path (verl/utils/import_utils.py, load_module: a module named custom_module_<hash>,
    not put in sys.modules) or as pkg://hpcreward.verl when the package is installed; an
    `async def` (inspect.iscoroutinefunction, through the functools.partial) is awaited.
  * The reward loop (the only path from 0.7.1 on): verl/experimental/reward_loop/reward_loop.py,
    RewardLoopWorker (reward.num_workers Ray actors), scores each sample as its generation ends
    through the manager reward.reward_manager.name (registry: naive, dapo, gdpo, rate_limited,
    remote; "batch" and "prime" are gone). NaiveRewardManager.run_single
    (reward_loop/reward_manager/naive.py) calls compute_score(data_source=..., solution_str=...,
    ground_truth=..., extra_info=...) by keyword for one sample, plus reward_router_address and
    reward_model_tokenizer when a reward model runs (taken by **kwargs here): an async function
    awaited, a sync one in loop.run_in_executor(None, ...). A dict result's "score" is the reward
    and every key goes to reward_extra_info (the first sample's keys are read from every sample,
    so each call returns the same keys).
  * rate_limited (reward_manager/limited.py): the same call, at most config.reward.max_concurrent
    (default 1) at once per process, each cut by asyncio.wait_for after config.reward.timeout
    (default 300 s) and scored 0.0; an exception is scored 0.0 too. Neither key is in the
    config: +reward.max_concurrent=N +reward.timeout=S.
  * remote (reward_manager/remote.py) asserts the function is not async: use compute_score.
  * verl 0.7.0 only: reward_model.use_reward_loop=False with reward_model.reward_manager=batch
    (verl/workers/reward_manager/batch.py) calls compute_score_batch(data_sources=...,
    solution_strs=..., ground_truths=..., extra_infos=...) once per training batch; =prime calls
    compute_score positionally in 64 processes, cut after a fixed 300 s, and needs a number
    (compute_score_float).

Functions (the problem id is extra_info["problem"] when given, else ground_truth: the id itself or
a dict with "problem"; extra_info["stage"] names a stage):
  compute_score        one sample -> {"score", "gflops", "ok", "status", "stage"} (naive, dapo, remote)
  compute_score_async  the same as a coroutine: the HTTP request runs in this module's thread pool
                       of HPCREWARD_MAX_CONCURRENCY threads (default 64), not in verl's default
                       executor, so a whole training batch can be in flight at once
  compute_score_batch  a batch -> a list of those dicts, one pipeline batch (verl 0.7.0's batch manager)
  compute_score_float  one sample -> the reward as a float (verl 0.7.0's prime)
Per-sample calls each send one request with one candidate; concurrent ones are coalesced into
batches by the coordinator. The client comes from HPCREWARD_RENDEZVOUS (env_client), one per process.
A pipeline that cannot be reached raises (UnavailableError after the client's retries).

verl loads this file by path: then it imports the package's own module (hpcreward.verl) and uses
its functions, so they pickle by reference (the prime manager's process pool).
"""
import asyncio
import concurrent.futures
import os
import pathlib
import sys
import threading

_BY_PATH = __package__ in (None, "")
if _BY_PATH:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from hpcreward.env_client import client_from_env  # noqa: E402
else:
    from .env_client import client_from_env

__all__ = ["compute_score", "compute_score_async", "compute_score_batch", "compute_score_float", "problem_and_stage"]

DEFAULT_PROBLEM = "dgemm-256"
EXTRA_KEYS = ("score", "gflops", "ok", "status", "stage")


def problem_and_stage(ground_truth, extra_info):
    problem = stage = None
    if isinstance(extra_info, dict):
        problem = extra_info.get("problem") or None
        stage = extra_info.get("stage") or None
    if problem is None:
        if isinstance(ground_truth, dict):
            problem = ground_truth.get("problem") or None
            stage = stage or ground_truth.get("stage") or None
        elif isinstance(ground_truth, str) and ground_truth.strip():
            problem = ground_truth.strip()
    return problem or DEFAULT_PROBLEM, stage


def _as_dict(result):
    return {"score": float(result["reward"]), "gflops": float(result.get("gflops") or 0.0),
            "ok": 1.0 if result.get("status") == "ok" else 0.0, "status": str(result.get("status")),
            "stage": str(result.get("stage") or "")}


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """One response's reward and measurement, {"score", "gflops", "ok", "status", "stage"}."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def compute_score_float(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """One response's reward as a float (for the prime reward manager, which needs a number)."""
    return compute_score(data_source, solution_str, ground_truth, extra_info)["score"]


_pool_lock = threading.Lock()
_pool = {}


def _executor():
    pid = os.getpid()
    with _pool_lock:
        executor = _pool.get(pid)
        if executor is None:
            workers = int(os.environ.get("HPCREWARD_MAX_CONCURRENCY", "64"))
            executor = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hpcreward")
            _pool.clear()
            _pool[pid] = executor
        return executor


async def compute_score_async(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """compute_score as a coroutine (verl awaits an async compute_score)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_executor(), compute_score, data_source, solution_str, ground_truth, extra_info)


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):
    """A whole batch scored as one pipeline batch: a list of compute_score's dicts, in order."""
    solution_strs = list(solution_strs)
    ground_truths = list(ground_truths) if ground_truths is not None else [None] * len(solution_strs)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if not solution_strs:
        return []
    pairs = [problem_and_stage(truth, extra) for truth, extra in zip(ground_truths, extra_infos)]
    problems = [problem for problem, _ in pairs]
    stages = [stage for _, stage in pairs]
    results = client_from_env().score_detailed(solution_strs, problems,
                                               None if all(s is None for s in stages) else stages)
    return [_as_dict(result) for result in results]


if _BY_PATH:
    # Loaded by path (as verl does): use the package module's functions, which pickle by reference.
    from hpcreward.verl import (compute_score, compute_score_async, compute_score_batch,  # noqa: E402,F401,F811
                                compute_score_float, problem_and_stage)
