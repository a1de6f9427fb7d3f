"""Each adapter called exactly as its trainer's current source calls it, against the fake coordinator.

Trainer sources read (the call sites each helper below reproduces):
  TRL      huggingface/trl v1.9.0 (35def3ee): trl/trainer/grpo_trainer.py GRPOTrainer._calculate_rewards;
           trl/experimental/async_grpo/async_rollout_worker.py (_AsyncRolloutLoop._score_group, and
           AsyncRolloutWorker, which pickles reward_funcs into a multiprocessing "spawn" process);
           trl/trainer/utils.py get_callable_name.
  verl     volcengine/verl v0.7.0 (f9c855f7; unchanged on main b178a3cd): verl/trainer/ppo/reward.py
           get_custom_reward_fn; verl/utils/import_utils.py load_module;
           verl/experimental/reward_loop/reward_manager/naive.py run_single;
           verl/workers/reward_manager/batch.py verify; verl/workers/reward_manager/prime.py.
  OpenRLHF OpenRLHF/OpenRLHF v0.11.0 (3c3be623; same in v0.10.2): openrlhf/utils/agent.py
           SingleTurnAgentExecutor (__init__ loads the file, _fetch_rewards_via_func calls it).
These are reproductions: that the releases still call this way (TRL 1.16.0, verl 0.9.1, whose
naive run_single makes the same keyword call as 0.7.0, OpenRLHF 0.11.2) is checked in their wheels
by trainer_contracts.py (ctest python_trainer_contracts); tests/integration/ has recipes that run
the trainers' own reward paths.
"""
import asyncio
import concurrent.futures
import functools
import importlib.util
import inspect
import json
import logging
import math
import multiprocessing
import os
import pickle
import threading

import pytest

from conftest import PACKAGE_DIR
from hpcreward import Client, UnavailableError
from hpcreward.trl import AsyncGflopsReward, GflopsReward, completion_text, reward_function
from test_client import BROKEN, GOOD, fenced

OK = 1.0 + len(GOOD) % 10


def load_by_path(name, path):
    """importlib.util.spec_from_file_location + exec_module: how verl (load_module, module name
    custom_module_<hash>) and OpenRLHF (module name "reward_func") load a reward file."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- TRL -----------------------------------------------------------------------------------------

def get_callable_name(func):
    """trl/trainer/utils.py (v1.9.0)."""
    while isinstance(func, functools.partial):
        func = func.func
    return getattr(func, "__name__", type(func).__name__)


class TrlTrainer:
    """The parts of GRPOTrainer (v1.9.0) around _calculate_rewards: the async loop thread, the
    pending metrics and extra columns, the None -> NaN conversion."""

    def __init__(self, reward_funcs):
        self.reward_funcs = reward_funcs
        self.reward_func_names = [get_callable_name(func) for func in reward_funcs]
        self.metrics, self.extra = {}, {}
        self.state = object()  # transformers.TrainerState
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def _log_metric(self, name, value):
        self.metrics.setdefault(name, []).append(value)

    def _log_completion_extra(self, column, values):
        self.extra.setdefault(column, []).extend(values)

    def calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]
        reward_kwargs = {key: [example[key] for example in inputs] for key in keys}
        reward_kwargs["trainer_state"] = self.state
        reward_kwargs["log_extra"] = self._log_completion_extra
        reward_kwargs["log_metric"] = self._log_metric
        columns = [None] * len(self.reward_funcs)
        async_funcs_info = []
        for i, reward_func in enumerate(self.reward_funcs):
            if inspect.iscoroutinefunction(reward_func):
                async_funcs_info.append((i, reward_func))
            else:
                output = reward_func(prompts=prompts, completions=completions, completion_ids=completion_ids_list,
                                     **reward_kwargs)
                columns[i] = [reward if reward is not None else math.nan for reward in output]
        if async_funcs_info:
            async def invoke(index, func):
                output = await func(prompts=prompts, completions=completions, completion_ids=completion_ids_list,
                                    **reward_kwargs)
                return index, [r if r is not None else math.nan for r in output]

            async def run_all():
                return await asyncio.gather(*[invoke(i, func) for i, func in async_funcs_info])

            for index, output in asyncio.run_coroutine_threadsafe(run_all(), self.loop).result():
                columns[index] = output
        return columns

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)


def trl_step(reward, inputs, completions):
    trainer = TrlTrainer([reward])
    try:
        (rewards,) = trainer.calculate_rewards(inputs, [example["prompt"] for example in inputs], completions,
                                               [[1, 2, 3] for _ in completions])
    finally:
        trainer.close()
    return rewards, trainer


def sent_candidates(fake):
    return [candidate for batch in fake.batches.values() for candidate in json.loads(batch["key"])]


def test_trl_grpo_trainer_sync_standard_format_metrics_and_columns(fake, rendezvous):
    """GRPOTrainer._calculate_rewards (TRL v1.9.0), standard format, a problem column."""
    reward = GflopsReward(str(rendezvous))
    assert get_callable_name(reward) == "hpcreward_gflops" and not inspect.iscoroutinefunction(reward)
    inputs = [{"prompt": "Write matmul", "problem": "dgemm-256", "level": 1},
              {"prompt": "Write matmul", "problem": "sgemm-512", "level": 1},
              {"prompt": "Write matmul", "problem": "dgemm-256", "level": 2}]
    completions = [fenced(GOOD), fenced(BROKEN), "I cannot."]
    rewards, trainer = trl_step(reward, inputs, completions)
    assert rewards == [OK, -0.5, -1.0] and all(isinstance(value, float) for value in rewards)
    (_, _, batch_id), = fake.posts()  # one batch for the whole call
    sent = json.loads(fake.batches[batch_id]["key"])
    assert [c["problem"] for c in sent] == ["dgemm-256", "sgemm-512", "dgemm-256"]
    assert [c["completion"] for c in sent] == completions and all("stage" not in c for c in sent)
    assert trainer.metrics == {"hpcreward_gflops/gflops_mean": [OK / 3], "hpcreward_gflops/ok_fraction": [1 / 3],
                               "hpcreward_gflops/unavailable": [0.0]}
    assert trainer.extra == {"hpcreward_gflops/status": ["ok", "compile_error", "format_error"],
                             "hpcreward_gflops/gflops": [OK, 0.0, 0.0]}


def test_trl_conversational_last_assistant_message_default_problem_and_stage(fake, rendezvous):
    """Conversational completions (TRL v1.9.0 _generate: [{"role": "assistant", ...}], tool calls append
    messages): only the last assistant message is scored, so code in an earlier turn is no format_error."""
    reward = reward_function(Client.from_rendezvous(rendezvous), default_problem="sgemm-256", name="gflops")
    assert get_callable_name(reward) == "gflops"
    prompts = [[{"role": "user", "content": "Write matmul"}]] * 3
    completions = [[{"role": "assistant", "content": fenced(GOOD)}],
                   [{"role": "assistant", "content": [{"type": "text", "text": fenced(BROKEN)}]}],
                   [{"role": "assistant", "content": "draft " + fenced(BROKEN), "tool_calls": [{"name": "compile"}]},
                    {"role": "tool", "content": "error: expected ';'"},
                    {"role": "assistant", "content": "fixed " + fenced(GOOD)}]]
    inputs = [{"prompt": p, "stage": s} for p, s in zip(prompts, ["o3", None, None])]
    rewards, trainer = trl_step(reward, inputs, completions)
    assert rewards == [OK, -0.5, OK]
    sent = sent_candidates(fake)
    assert [c["problem"] for c in sent] == ["sgemm-256"] * 3
    assert sent[0]["stage"] == "o3" and "stage" not in sent[1]
    assert sent[2]["completion"] == "fixed " + fenced(GOOD)
    assert trainer.metrics["gflops/ok_fraction"] == [2 / 3]


def test_trl_async_variant_awaited_with_another_async_reward(fake, rendezvous):
    """GRPOTrainer (TRL v1.9.0) awaits every function that inspect.iscoroutinefunction() accepts, with
    asyncio.gather on its loop thread; ours must not block that loop."""
    reward = AsyncGflopsReward(str(rendezvous), name="gflops_async")
    assert inspect.iscoroutinefunction(reward) and get_callable_name(reward) == "gflops_async"
    # Our request is answered only once the other function has run: if ours blocked the loop, it
    # could not, and the request would wait out its 30 s.
    other_ran = threading.Event()
    fake.first_post_waits_for = other_ran

    async def other_reward(completions, **kwargs):
        for _ in range(5):
            await asyncio.sleep(0.01)
        other_ran.set()
        return [1.0 for _ in completions]

    trainer = TrlTrainer([reward, other_reward])
    try:
        inputs = [{"prompt": "p", "problem": "dgemm-256"}] * 2
        columns = trainer.calculate_rewards(inputs, ["p", "p"], [fenced(GOOD), "no"], [[1], [2]])
    finally:
        trainer.close()
    assert columns == [[OK, -1.0], [1.0, 1.0]]
    assert fake.first_post_released, "the other reward function did not run while ours waited for the pipeline"
    assert trainer.metrics["gflops_async/ok_fraction"] == [0.5]


def test_trl_async_variant_under_asyncio_run(fake, rendezvous):
    reward = AsyncGflopsReward(str(rendezvous))

    async def main():
        return await asyncio.gather(reward(prompts=["p"], completions=[fenced(GOOD)], completion_ids=[[1]]),
                                    reward(prompts=["p"], completions=[fenced(BROKEN)], completion_ids=[[1]]))
    assert asyncio.run(main()) == [[OK], [-0.5]]


def test_trl_none_on_unavailable_and_default_raise(fake, tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    rendezvous = fake.write_rendezvous(gone)
    fake.stop()  # nothing listens at the rendezvous's URL now
    options = dict(retries=1, follow_s=0.0, timeout=2.0)
    with pytest.raises(UnavailableError):
        GflopsReward(str(rendezvous), **options)(prompts=["p"], completions=[fenced(GOOD)], completion_ids=[[1]])
    reward = GflopsReward(str(rendezvous), none_on_unavailable=True, **options)
    rewards, trainer = trl_step(reward, [{"prompt": "p"}, {"prompt": "p"}], [fenced(GOOD), fenced(GOOD)])
    assert all(math.isnan(value) for value in rewards)  # TRL leaves the function out for these samples
    assert trainer.metrics == {"hpcreward_gflops/gflops_mean": [0.0], "hpcreward_gflops/ok_fraction": [0.0],
                               "hpcreward_gflops/unavailable": [1.0]}  # the same keys as a good step
    monkeypatch.setenv("HPCREWARD_WAIT_S", "0")  # no rendezvous file at all: also unavailable
    missing = GflopsReward(str(tmp_path / "never"), none_on_unavailable=True)
    assert missing(prompts=["p"], completions=["x"], completion_ids=[[1]]) == [None]


def test_trl_reward_from_the_environment(fake, rendezvous, monkeypatch):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous.parent))
    reward = GflopsReward()
    assert reward(prompts=["p"], completions=[fenced(GOOD)], completion_ids=[[1]], problem=[None]) == [OK]


def test_trl_reward_objects_pickle_without_a_client(fake, rendezvous):
    for cls in (GflopsReward, AsyncGflopsReward):
        reward = cls(str(rendezvous), name="gf")
        reward.client()  # a client made in this process is not pickled
        copy = pickle.loads(pickle.dumps(reward))
        assert copy.__name__ == "gf" and copy._clients == {}
        assert inspect.iscoroutinefunction(copy) == (cls is AsyncGflopsReward)
    with pytest.raises(TypeError, match="rendezvous path"):
        pickle.dumps(GflopsReward(Client.from_rendezvous(rendezvous)))


def _spawned_async_grpo_worker(rewards, queue):
    """In a "spawn" child, what _AsyncRolloutLoop._score_group (TRL v1.9.0 AsyncGRPOTrainer) does:
    asyncio.gather of each function, awaited when it is a coroutine function, else asyncio.to_thread,
    with prompts, completions, completion_ids and the dataset columns (no trainer_state or log_*)."""
    async def score_group():
        kwargs = dict(completions=[fenced(GOOD), fenced(BROKEN)], prompts=["p", "p"], completion_ids=[[1], [2]],
                      problem=["dgemm-256", "sgemm-256"])
        return await asyncio.gather(*[func(**kwargs) if inspect.iscoroutinefunction(func)
                                      else asyncio.to_thread(func, **kwargs) for func in rewards])
    queue.put((asyncio.run(score_group()), [get_callable_name(func) for func in rewards]))


def test_trl_reward_objects_called_in_a_spawned_process(fake, rendezvous):
    """AsyncGRPOTrainer (TRL v1.9.0) pickles reward_funcs into a multiprocessing "spawn" process."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    rewards = [GflopsReward(str(rendezvous), name="sync_gf"), AsyncGflopsReward(str(rendezvous), name="async_gf")]
    process = context.Process(target=_spawned_async_grpo_worker, args=(rewards, queue))
    process.start()
    try:
        columns, names = queue.get(timeout=60)
    finally:
        process.join(30)
    assert process.exitcode == 0
    assert columns == [[OK, -0.5], [OK, -0.5]] and names == ["sync_gf", "async_gf"]
    assert len(fake.posts()) == 2


def test_completion_text():
    assert completion_text("x") == "x"
    assert completion_text([{"role": "assistant", "content": "y"}]) == "y"
    assert completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]) == "a"
    assert completion_text([{"role": "assistant", "content": "a"}, {"role": "tool", "content": "t"},
                            {"role": "assistant", "content": "b"}]) == "b"


# -- verl ----------------------------------------------------------------------------------------

VERL_FILE = PACKAGE_DIR / "hpcreward" / "verl.py"


def _call_with_kwargs(raw_fn, extra_kwargs, *args, **kwargs):
    return raw_fn(*args, **{**kwargs, **extra_kwargs})


async def _call_with_kwargs_async(raw_fn, extra_kwargs, *args, **kwargs):
    return await raw_fn(*args, **{**kwargs, **extra_kwargs})


def get_custom_reward_fn(name, reward_kwargs=None):
    """verl/trainer/ppo/reward.py get_custom_reward_fn (v0.7.0): load_module by path (a module named
    custom_module_<hash>, not in sys.modules), then a partial, async when the function is a coroutine."""
    module = load_by_path(f"custom_module_{hash(os.path.abspath(VERL_FILE))}", VERL_FILE)
    raw_fn = getattr(module, name)
    if not inspect.iscoroutinefunction(raw_fn):
        return functools.partial(_call_with_kwargs, raw_fn, dict(reward_kwargs or {}))
    return functools.partial(_call_with_kwargs_async, raw_fn, dict(reward_kwargs or {}))


async def naive_run_single(compute_score, loop, data_source, response_str, ground_truth, extra_info):
    """verl/experimental/reward_loop/reward_manager/naive.py NaiveRewardManager.run_single (v0.7.0)."""
    extra_info = dict(extra_info or {}, num_turns=None, rollout_reward_scores={})
    if inspect.iscoroutinefunction(compute_score):
        result = await compute_score(data_source=data_source, solution_str=response_str, ground_truth=ground_truth,
                                     extra_info=extra_info)
    else:
        result = await loop.run_in_executor(None, lambda: compute_score(
            data_source=data_source, solution_str=response_str, ground_truth=ground_truth, extra_info=extra_info))
    if isinstance(result, dict):
        score, reward_extra_info = result["score"], dict(result)
    else:
        score, reward_extra_info = result, {"acc": result}
    return {"reward_score": score, "reward_extra_info": reward_extra_info}


def reward_loop_batch(compute_score, samples):
    """Each sample through run_single concurrently (RewardLoopWorker.compute_score_batch), then the
    extra info gathered as RewardLoopManager.compute_rm_score does: the first sample's keys from all."""
    async def run():
        loop = asyncio.get_running_loop()
        return await asyncio.gather(*[naive_run_single(compute_score, loop, *sample) for sample in samples])
    outputs = asyncio.run(run())
    keys = list(outputs[0]["reward_extra_info"])
    return [output["reward_score"] for output in outputs], {
        key: [output["reward_extra_info"][key] for output in outputs] for key in keys}


@pytest.fixture
def verl_env(rendezvous, monkeypatch):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous))


def verl_samples(count):
    responses = [fenced(GOOD), fenced(BROKEN), "no code"]
    return [("hpc/matmul", responses[i % 3], "dgemm-256" if i % 2 else "sgemm-256",
             {"index": i, "stage": "o3" if i == 0 else None}) for i in range(count)]


@pytest.mark.parametrize("name", ["compute_score", "compute_score_async"])
def test_verl_reward_loop_concurrent_per_sample_calls(fake, verl_env, name):
    """The default reward loop (verl v0.7.0, use_reward_loop=True, naive manager): per-sample calls,
    concurrent (threads for the sync function, awaited coroutines for the async one)."""
    compute_score = get_custom_reward_fn(name)
    assert inspect.iscoroutinefunction(compute_score) == (name == "compute_score_async")
    fake.gather_posts = 2  # each request waits until two are in flight: only concurrent calls get there
    samples = verl_samples(12)
    scores, extra = reward_loop_batch(compute_score, samples)
    assert fake.max_in_flight >= 2, "the per-sample calls were sent one after another"
    assert scores == [[OK, -0.5, -1.0][i % 3] for i in range(12)]
    assert list(extra) == ["score", "gflops", "ok", "status", "stage"]
    assert extra["status"][:3] == ["ok", "compile_error", "format_error"] and extra["ok"][:3] == [1.0, 0.0, 0.0]
    assert extra["gflops"][:3] == [OK, 0.0, 0.0]
    assert len(fake.posts()) == 12  # one request per sample (the coordinator coalesces them)
    sent = sent_candidates(fake)
    assert sorted(c["problem"] for c in sent) == sorted("dgemm-256" if i % 2 else "sgemm-256" for i in range(12))
    assert [c for c in sent if c.get("stage")] and all(c.get("stage") in (None, "o3") for c in sent)


def test_verl_compute_score_from_threads_shares_one_client(fake, verl_env):
    from hpcreward import env_client
    compute_score = get_custom_reward_fn("compute_score")
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda i: compute_score("d", fenced(GOOD), "dgemm-256", {"index": i}), range(32)))
    assert all(result["score"] == OK for result in results)
    first = env_client.client_from_env()
    compute_score("d", fenced(GOOD), "dgemm-256")
    assert env_client.client_from_env() is first


def test_verl_batch_manager(fake, verl_env):
    """reward_model.use_reward_loop=False reward_model.reward_manager=batch: BatchRewardManager.verify
    (verl v0.7.0) calls compute_score_batch with keyword lists once per batch."""
    compute_score = get_custom_reward_fn("compute_score_batch", {"unused_option": 1})
    scores = compute_score(data_sources=["hpc/matmul"] * 3, solution_strs=[fenced(GOOD), fenced(BROKEN), "prose"],
                           ground_truths=["dgemm-256", {"problem": "sgemm-1024"}, None],
                           extra_infos=[{"rollout_reward_scores": {}}, {"stage": "o2"}, {"index": 2}])
    assert [score["score"] for score in scores] == [OK, -0.5, -1.0]
    assert [score["status"] for score in scores] == ["ok", "compile_error", "format_error"]
    (batch,) = fake.batches.values()
    sent = json.loads(batch["key"])
    assert [c["problem"] for c in sent] == ["dgemm-256", "sgemm-1024", "dgemm-256"] and sent[1]["stage"] == "o2"


def test_verl_prime_manager_process_pool(fake, verl_env):
    """reward_manager=prime (verl v0.7.0 prime.py): the wrapped function is pickled to a process pool and
    called positionally (task, completion, reference, task_extra_info); the result must be a number."""
    compute_score = get_custom_reward_fn("compute_score_float")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(compute_score, "hpc/matmul", fenced(code), "dgemm-256", None) for code in (GOOD, BROKEN)]
        results = [future.result(timeout=60) for future in futures]
    assert results == [OK, -0.5]
    assert [float(result) for result in results] == results


# -- OpenRLHF ------------------------------------------------------------------------------------

def openrlhf_executor_load():
    """SingleTurnAgentExecutor.__init__ (OpenRLHF v0.11.0): a .py remote_url is loaded as module "reward_func"."""
    return load_by_path("reward_func", PACKAGE_DIR / "hpcreward" / "openrlhf_reward.py").reward_func


def openrlhf_fetch_each(reward_func, queries, prompts, labels):
    """Each sample's execute() calls _fetch_rewards_via_func([query], [prompt], [label]): asyncio.to_thread,
    one-element lists, samples concurrently; then reads rewards/scores/extra_logs, or logs a failure at INFO."""
    async def one(query, prompt, label):
        try:
            (info,) = await asyncio.gather(asyncio.to_thread(reward_func, [query], [prompt], [label]))
        except Exception as error:  # agent.py: logger.info("... Failed to fetch reward from remote RM: ...")
            return {"reward": None, "error": error}
        score = info.get("scores")
        return {"reward": info.get("rewards"), "scores": info.get("rewards") if score is None else score,
                "extra_logs": info.get("extra_logs") or {}}

    async def run():
        return await asyncio.gather(*[one(*args) for args in zip(queries, prompts, labels)])
    return asyncio.run(run())


def _first(value):
    return float(value[0]) if not isinstance(value, (int, float)) else float(value)


def test_openrlhf_reward_func_per_sample_calls(fake, rendezvous, monkeypatch):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous))
    reward_func = openrlhf_executor_load()
    prompt = "<|im_start|>user\nWrite matmul like ```c\nvoid matmul(...);\n```<|im_end|>\n<|im_start|>assistant\n"
    queries = [prompt + fenced(GOOD) + "<|im_end|>", prompt + fenced(BROKEN) + "<|im_end|>", prompt + "no"]
    labels = ["dgemm-256", json.dumps({"problem": "sgemm-256", "stage": "o3"}), ""]
    fake.gather_posts = 2  # each request waits until two are in flight: only concurrent calls get there
    outputs = openrlhf_fetch_each(reward_func, queries, [prompt] * 3, labels)
    assert fake.max_in_flight >= 2, "the samples' calls were sent one after another"
    assert [_first(out["reward"]) for out in outputs] == [OK, -0.5, -1.0]
    assert [_first(out["scores"]) for out in outputs] == [1.0, 0.0, 0.0]
    assert all(set(out["extra_logs"]) == {"hpcreward_gflops", "hpcreward_ok"} for out in outputs)
    assert _first(outputs[0]["extra_logs"]["hpcreward_gflops"]) == OK
    assert len(fake.posts()) == 3  # one request per sample
    sent = {c["problem"] + c.get("stage", ""): c for c in sent_candidates(fake)}
    assert set(sent) == {"dgemm-256", "sgemm-256o3"}
    assert all(not c["completion"].startswith("<|im_start|>user") for c in sent.values())  # prompt cut off


def test_openrlhf_failure_is_logged_at_error_and_raised(fake, rendezvous, monkeypatch, caplog):
    monkeypatch.setenv("HPCREWARD_RENDEZVOUS", str(rendezvous))
    monkeypatch.setenv("HPCREWARD_RETRIES", "0")
    monkeypatch.setenv("HPCREWARD_FOLLOW_S", "0")
    fake.stop()
    reward_func = openrlhf_executor_load()
    with caplog.at_level(logging.ERROR, logger="hpcreward.openrlhf"):
        (out,) = openrlhf_fetch_each(reward_func, ["p" + fenced(GOOD)], ["p"], ["dgemm-256"])
    assert out["reward"] is None and isinstance(out["error"], UnavailableError)
    (record,) = [r for r in caplog.records if r.name == "hpcreward.openrlhf"]
    assert record.levelno == logging.ERROR and "UnavailableError" in record.getMessage()
    assert "dgemm-256" in record.getMessage()


def test_openrlhf_remote_route_is_the_coordinators_get_reward(fake, rendezvous):
    # What OpenRLHF's _fetch_rewards_via_http posts, sent with the token (OpenRLHF itself sends none).
    client = Client.from_rendezvous(rendezvous)
    assert client.get_reward(["p" + fenced(GOOD)], ["p"], ["dgemm-256"]) == [OK]
