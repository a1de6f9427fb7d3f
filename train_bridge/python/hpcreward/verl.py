"""verl adapter: custom reward functions.

Per sample (verl's default "naive" reward manager), in the trainer config:
    custom_reward_function.path=train_bridge/python/hpcreward/verl.py
    custom_reward_function.name=compute_score
verl calls compute_score(data_source, solution_str, ground_truth, extra_info) and expects a float.

Batched (one request per training batch, much faster since the ranks score it in parallel):
    reward_model.reward_manager=batch
    custom_reward_function.name=compute_score_batch
verl's BatchRewardManager calls compute_score_batch(data_sources=..., solution_strs=...,
ground_truths=..., extra_infos=...) and expects one float per response.

The problem id is extra_info["problem"] when given, else ground_truth (the id itself, or a dict with
"problem"); extra_info["stage"] names a stage. The client comes from HPCREWARD_RENDEZVOUS (see
env_client), made once per process. verl loads this file by path, so it adds its own folder's
parent to sys.path to import the package.
"""
import pathlib
import sys

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from hpcreward.env_client import client_from_env  # noqa: E402
else:
    from .env_client import client_from_env

DEFAULT_PROBLEM = "dgemm-256"


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


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """The reward (float) of one response; one batch of one candidate on the pipeline."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info])[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):
    """The rewards (floats, in order) of a whole batch of responses, scored as one pipeline batch."""
    solution_strs = list(solution_strs)
    ground_truths = list(ground_truths) if ground_truths is not None else [None] * len(solution_strs)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if not solution_strs:
        return []
    pairs = [problem_and_stage(truth, extra) for truth, extra in zip(ground_truths, extra_infos)]
    problems = [problem for problem, _ in pairs]
    stages = [stage for _, stage in pairs]
    return client_from_env().score(solution_strs, problems, None if all(s is None for s in stages) else stages)
