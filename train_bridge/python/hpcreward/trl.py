"""TRL adapter: reward functions for GRPOTrainer and AsyncGRPOTrainer (reward_funcs=[...]).

Contract checked in huggingface/trl v1.9.0 (commit 35def3ee, and main f2cd5771 of 2026-07-24):
  * trl/trainer/grpo_trainer.py, GRPOTrainer._calculate_rewards: every custom reward function is
    called with keyword arguments prompts, completions, completion_ids, trainer_state, log_extra,
    log_metric (and environments with environment_factory), plus every dataset column but "prompt"
    as a list with one entry per completion. A function for which inspect.iscoroutinefunction() is
    true is awaited (all async ones together, asyncio.gather, on the trainer's own event-loop
    thread); the others are called directly. A None in the returned list becomes NaN: that function
    is left out for that sample (a sample where every function gave None gets advantage 0).
  * Its metric name is get_callable_name(func) (trl/trainer/utils.py): func.__name__, else the class
    name; the mean is logged as rewards/<name>/mean (and rewards/<name>/std).
  * log_metric(name, value) logs a scalar averaged over the logging step and over processes;
    log_extra(column, values) adds a column to the completions table. Every process must log the
    same keys each step, so these functions always log the same ones.
  * Completions are strings (standard format) or message lists (conversational format):
    [{"role": "assistant", "content": ...}], with tool calls followed by more messages; the code is
    taken from the last assistant message.
  * trl/experimental/async_grpo/async_rollout_worker.py (AsyncGRPOTrainer): reward functions are
    pickled into a process started with multiprocessing "spawn" and called there with prompts,
    completions, completion_ids and the dataset columns (no trainer_state, log_metric, log_extra);
    async ones are awaited, the others run in asyncio.to_thread. Closures and lambdas fail there.

GflopsReward (sync) and AsyncGflopsReward (async) are picklable: they hold only their settings (a
rendezvous path, or a URL and a token file), and make their Client on first use in each process.
"""
import asyncio
import inspect
import logging
import math
import os
import sys
import threading

from .client import Client
from .env_client import make_client
from .errors import BatchFailed, HpcrewardError, UnavailableError

logger = logging.getLogger("hpcreward.trl")


def completion_text(completion):
    """The text of a TRL completion: a string, or the last assistant message of a message list."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return _content_text(completion.get("content"))
    messages = [message for message in completion if isinstance(message, dict)]
    assistant = [message for message in messages if message.get("role") == "assistant"]
    chosen = assistant or messages
    if not chosen:
        raise TypeError(f"cannot read a completion from {completion!r:.200}")
    return _content_text(chosen[-1].get("content"))


def _content_text(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # Multimodal content: [{"type": "text", "text": ...}, ...]
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


class GflopsReward:
    """A GRPOTrainer reward function: the pipeline's reward (GFLOPS, or a status penalty) per completion.

    rendezvous: the served pipeline's coordinator.json or run directory; or url= and token_file=;
    with neither, the environment (HPCREWARD_RENDEZVOUS, see env_client). The problem of each
    completion is its dataset column `problem_column`, else default_problem; a `stage_column`
    column, when the dataset has one, names the stage. name: the metric name (rewards/<name>/mean).
    none_on_unavailable: when the pipeline cannot be reached (UnavailableError after the client's
    retries, a failed batch, no rendezvous file), return None for every completion (TRL leaves this
    function out for them) and log a warning, instead of raising (the default: training stops).
    timeout, retries, follow_s, ca_file: passed to the Client.
    With log_metric (GRPOTrainer passes it) it logs <name>/gflops_mean (over all completions, 0 for
    failed ones), <name>/ok_fraction and <name>/unavailable (1 for a call that got no rewards); with
    log_extra the columns <name>/status and <name>/gflops of the completions table.
    """

    def __init__(self, rendezvous=None, *, url=None, token_file=None, problem_column="problem",
                 default_problem="dgemm-256", stage_column="stage", name="hpcreward_gflops",
                 none_on_unavailable=False, timeout=None, retries=None, follow_s=None, ca_file=None):
        if rendezvous is not None and url is not None:
            raise ValueError("give either a rendezvous path or url= with token_file=, not both")
        if (url is None) != (token_file is None):
            raise ValueError("url= needs token_file= (and the reverse)")
        self._live_client = None
        if isinstance(rendezvous, Client):  # in-process use only: a live client is not picklable
            self._live_client, rendezvous = rendezvous, None
        self.rendezvous = None if rendezvous is None else os.fspath(rendezvous)
        self.url = url
        self.token_file = None if token_file is None else os.fspath(token_file)
        self.problem_column = problem_column
        self.default_problem = default_problem
        self.stage_column = stage_column
        self.__name__ = self.__qualname__ = name
        self.none_on_unavailable = none_on_unavailable
        self.client_options = {key: value for key, value in
                               (("timeout", timeout), ("retries", retries), ("ca_file", ca_file)) if value is not None}
        self.follow_s = follow_s
        self._clients = {}
        self._lock = threading.Lock()

    def __repr__(self):
        where = self.rendezvous or self.url or ("a Client" if self._live_client else "$HPCREWARD_RENDEZVOUS")
        return f"{type(self).__name__}({where!r}, name={self.__name__!r})"

    # -- pickling: settings only; each process makes its own client ------------------------------

    def __getstate__(self):
        if self._live_client is not None:
            raise TypeError(f"{self.__name__}: a reward function made with a Client cannot be pickled (AsyncGRPOTrainer "
                            "sends reward functions to another process); pass the rendezvous path instead")
        state = dict(self.__dict__)
        state.pop("_clients")
        state.pop("_lock")
        state.pop("_is_coroutine_marker", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._clients = {}
        self._lock = threading.Lock()
        self._mark()

    def _mark(self):
        pass

    def client(self):
        """This process's client (made on first use)."""
        if self._live_client is not None:
            return self._live_client
        pid = os.getpid()
        with self._lock:
            client = self._clients.get(pid)
            if client is None:
                client = self._make_client()
                self._clients = {pid: client}
            return client

    def _make_client(self):
        options = dict(self.client_options)
        if self.url is None and self.rendezvous is not None and self.follow_s is not None:
            options["follow_s"] = self.follow_s
        return make_client(self.rendezvous, self.url, self.token_file, **options)

    # -- the call ---------------------------------------------------------------------------------

    def __call__(self, prompts=None, completions=None, completion_ids=None, log_metric=None, log_extra=None,
                 **kwargs):
        return self._score(completions, kwargs, log_metric, log_extra)

    def _score(self, completions, columns, log_metric, log_extra):
        if completions is None:
            raise TypeError(f"{self.__name__} called without completions")
        texts = [completion_text(completion) for completion in completions]
        problems = _column(columns.get(self.problem_column), len(texts), self.default_problem)
        stages = _column(columns.get(self.stage_column), len(texts), None) if self.stage_column else None
        if stages is not None and all(stage is None for stage in stages):
            stages = None
        if not texts:
            return []
        try:
            results = self.client().score_detailed(texts, problems, stages)
        except (UnavailableError, BatchFailed) as error:
            return self._unavailable(error, len(texts), log_metric, log_extra)
        except HpcrewardError as error:
            if not self.none_on_unavailable or not _no_rendezvous(error):
                raise
            return self._unavailable(error, len(texts), log_metric, log_extra)
        gflops = [float(result.get("gflops") or 0.0) for result in results]
        statuses = [str(result.get("status")) for result in results]
        self._log(log_metric, log_extra, gflops, statuses, unavailable=0.0)
        return [float(result["reward"]) for result in results]

    def _unavailable(self, error, count, log_metric, log_extra):
        if not self.none_on_unavailable:
            raise error
        logger.warning("%s: no rewards for %d completions, the pipeline is unavailable: %s", self.__name__, count, error)
        self._log(log_metric, log_extra, [0.0] * count, ["unavailable"] * count, unavailable=1.0)
        return [None] * count

    def _log(self, log_metric, log_extra, gflops, statuses, unavailable):
        name = self.__name__
        if log_metric is not None:
            log_metric(f"{name}/gflops_mean", sum(gflops) / len(gflops))
            log_metric(f"{name}/ok_fraction", sum(status == "ok" for status in statuses) / len(statuses))
            log_metric(f"{name}/unavailable", unavailable)
        if log_extra is not None:
            log_extra(f"{name}/status", statuses)
            log_extra(f"{name}/gflops", gflops)


class AsyncGflopsReward(GflopsReward):
    """GflopsReward as an `async` reward function: TRL awaits it together with its other async reward
    functions. The blocking HTTP request runs in a worker thread (asyncio.to_thread), so the event
    loop stays free. inspect.iscoroutinefunction() is true for an instance (TRL checks that), also
    after pickling."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._mark()

    def _mark(self):
        if hasattr(inspect, "markcoroutinefunction"):  # Python 3.12+
            inspect.markcoroutinefunction(self)

    async def __call__(self, prompts=None, completions=None, completion_ids=None, log_metric=None, log_extra=None,
                       **kwargs):
        return await asyncio.to_thread(self._score, completions, kwargs, log_metric, log_extra)

    if sys.version_info < (3, 12):
        # Before Python 3.12 inspect.iscoroutinefunction() accepts an object that looks like a
        # function (inspect._signature_is_functionlike: __code__, __name__, __defaults__,
        # __kwdefaults__, __annotations__) and reads the coroutine flag of its __code__.
        __code__ = property(lambda self: type(self).__call__.__code__)
        __defaults__ = None
        __kwdefaults__ = None


def reward_function(client_or_rendezvous=None, problem_column="problem", default_problem="dgemm-256",
                    stage_column="stage", name="hpcreward_gflops", **options):
    """A GflopsReward (kept for the earlier API): client_or_rendezvous is a rendezvous path, a Client
    (not picklable), or None for the environment's HPCREWARD_RENDEZVOUS."""
    return GflopsReward(client_or_rendezvous, problem_column=problem_column, default_problem=default_problem,
                        stage_column=stage_column, name=name, **options)


def _no_rendezvous(error):
    return str(error).startswith("no rendezvous file")


def _column(values, count, default):
    if values is None:
        return [default] * count
    if isinstance(values, str):
        return [values] * count
    values = list(values)
    if len(values) != count:
        raise ValueError(f"dataset column has {len(values)} values for {count} completions")
    return [default if value is None or value == "" or (isinstance(value, float) and math.isnan(value)) else value
            for value in values]
