"""The trainer's client of a served hpcreward pipeline (docs/design.md, "Trainer endpoint").

    client = Client.from_rendezvous("runs/serve")          # or Client(url, token)
    rewards = client.score(completions, problems="dgemm-256")
    handle = client.submit(completions, problems)          # returns at once
    ...                                                    # generate the next batch meanwhile
    rewards = handle.rewards(timeout=600)

Every batch has an id (default: a fresh uuid4-based one); a request that fails on the way is sent
again with the same id, and the coordinator answers a repeated batch from its log instead of
benchmarking it again.

HTTPS (a coordinator started with --tls-cert/--tls-key): the URL is https://, and the client
verifies the coordinator's certificate and host name. from_rendezvous trusts the certificate that
coordinator.json names (tls_cert); ca_file= or the environment variable HPCREWARD_CA_FILE adds a CA
bundle (e.g. a site CA). A certificate that does not verify raises TlsError at once, never retried.
"""
import urllib.parse

from .batch import BatchHandle, check_results
from .candidates import build_candidates, new_batch_id
from .errors import HpcrewardError, ProtocolError
from .rendezvous import read_rendezvous, read_token
from .tls import Trust
from .transport import RetryPolicy, Transport


class Client:
    def __init__(self, url, token, timeout=600.0, retries=6, backoff_s=0.5, max_backoff_s=30.0,
                 token_file=None, poll_max_s=2.0, ca_file=None, tls_cert=None, _follow=None, follow_s=0.0):
        """url: http://host:port (or https://host:port) of the coordinator; token: the bearer token (not the file).

        timeout: seconds one HTTP request may take; a waiting score() holds its request while the
        batch is benchmarked, so keep it above the time of your largest batch (on a time-out the
        request is sent again with the same batch id, which is safe but waits again).
        retries, backoff_s, max_backoff_s: retries after connection loss, time-out or 5xx, with
        exponential back-off; then UnavailableError.
        https:// only: ca_file, a PEM CA bundle to trust (default: $HPCREWARD_CA_FILE); tls_cert, the
        coordinator's own certificate to trust (coordinator.json's tls_cert; from_rendezvous passes it).
        With neither, the system's CA certificates are trusted. A certificate that does not verify
        raises TlsError (not retried).
        """
        self._transport = Transport(url, token, timeout, RetryPolicy(retries, backoff_s, max_backoff_s),
                                    token_file=token_file, trust=Trust(ca_file, tls_cert),
                                    follow=_follow, follow_s=follow_s)
        self.poll_max_s = poll_max_s

    def __repr__(self):
        return f"Client({self.url!r}, token_file={self._transport.token_file!r})"  # never the token

    @property
    def url(self):
        return self._transport.url

    @classmethod
    def from_rendezvous(cls, path, wait_s=0.0, follow_s=600.0, **options):
        """A client for the pipeline whose coordinator.json is PATH (or lies in the run directory PATH).

        wait_s: how long to wait for the file to appear (a pipeline still starting). An https://
        pipeline's certificate (tls_cert in the file) is trusted; options may add ca_file.
        follow_s: when a request fails, how long to wait for the file to name a restarted pipeline
        (a lost rank, a Slurm requeue: jobs/README.md); the request then goes there, same batch id.
        """
        rendezvous = read_rendezvous(path, wait_s)
        options.setdefault("tls_cert", rendezvous.tls_cert)

        def follow(wait):
            try:
                current = read_rendezvous(path, wait)
                return current.url, read_token(current.token_file), current.token_file, current.tls_cert
            except HpcrewardError:
                return None

        return cls(rendezvous.url, read_token(rendezvous.token_file), token_file=rendezvous.token_file,
                   _follow=follow, follow_s=follow_s, **options)

    @classmethod
    def from_token_file(cls, url, token_file, **options):
        return cls(url, read_token(token_file), token_file=str(token_file), **options)

    # -- waiting calls ---------------------------------------------------------------------------

    def score(self, completions, problems, stages=None, batch_id=None, ids=None):
        """Rewards (floats, in order) of raw model outputs; each one's code is its fenced code block."""
        return _rewards(self.score_detailed(completions, problems, stages, batch_id, ids))

    def score_detailed(self, completions, problems, stages=None, batch_id=None, ids=None):
        """Result dicts, in order, of raw model outputs.

        Each has id, status, reason, reward, gflops, stage, device, measured_as and measured_batch
        (the earlier identical candidate whose measurement answered this one; empty if none), and
        yardsticks: {"openblas", "cublas", "cublaslt"} GFLOPS of the libraries at the problem's
        shape on the scoring rank (0 where not measured; docs/problems.md).
        """
        return self._score("completion", completions, problems, stages, batch_id, ids)

    def score_sources(self, sources, problems, stages=None, batch_id=None, ids=None):
        """Rewards of C sources (the code itself, no fenced block)."""
        return _rewards(self.score_sources_detailed(sources, problems, stages, batch_id, ids))

    def score_sources_detailed(self, sources, problems, stages=None, batch_id=None, ids=None):
        return self._score("source", sources, problems, stages, batch_id, ids)

    def score_candidates(self, candidates, batch_id=None):
        """Result dicts of ready-made candidate objects ({"id", "problem", "source"|"completion", "stage"?})."""
        batch_id = batch_id or new_batch_id()
        _, answer = self._transport.request("POST", "/v1/batches", self._body(batch_id, candidates, True))
        return self._results_of(batch_id, candidates, answer)

    # -- non-waiting calls -----------------------------------------------------------------------

    def submit(self, completions, problems, stages=None, batch_id=None, ids=None):
        """Queues raw model outputs and returns a BatchHandle at once."""
        return self._submit("completion", completions, problems, stages, batch_id, ids)

    def submit_sources(self, sources, problems, stages=None, batch_id=None, ids=None):
        return self._submit("source", sources, problems, stages, batch_id, ids)

    def submit_candidates(self, candidates, batch_id=None):
        batch_id = batch_id or new_batch_id()
        _, answer = self._transport.request("POST", "/v1/batches", self._body(batch_id, candidates, False))
        return BatchHandle(self, batch_id, list(candidates), first_answer=answer, poll_max_s=self.poll_max_s)

    def batch(self, batch_id, candidates):
        """A handle on a batch submitted earlier (e.g. by another process) with these candidates."""
        return BatchHandle(self, batch_id, list(candidates), poll_max_s=self.poll_max_s)

    # -- the stage ladder ------------------------------------------------------------------------

    def stages(self):
        """Each problem's current ladder stage, {"dgemm-256": "openmp", ...} (GET /v1/stages).

        Published after a batch's stage advances and before its results, so a trainer that
        writes the next batch after reading these writes it for the right stage.
        """
        _, answer = self._transport.request("GET", "/v1/stages", None)
        if not isinstance(answer, dict) or not isinstance(answer.get("stages"), dict):
            raise ProtocolError("/v1/stages answered without a stages object")
        return {str(problem): str(stage) for problem, stage in answer["stages"].items()}

    def reward_mode(self):
        """What an `ok` candidate's reward is in this run (GET /v1/stages, docs/problems.md):
        "gflops" (the measured GFLOPS), "fraction" (its ratio to the best library yardstick at
        the problem's shape) or "speedup:NAME"; "gflops" from a coordinator that does not say."""
        _, answer = self._transport.request("GET", "/v1/stages", None)
        mode = answer.get("reward_mode") if isinstance(answer, dict) else None
        return str(mode) if mode else "gflops"

    # -- the problems --------------------------------------------------------------------------

    def problems(self):
        """The run's problem catalog (GET /v1/problems, docs/problems.md): {"catalog", "source",
        "problems": [{"id", "language", "precision", "layout", "nominal", "check_shapes",
        "tolerance", "element_tolerance", "accumulation"? (f16 problems: "f32" or "f16"), "abi",
        "description"?}, ...]}, what each problem id a
        batch names means (its "abi": the entry point and operand layout a candidate must have)."""
        _, answer = self._transport.request("GET", "/v1/problems", None)
        if not isinstance(answer, dict) or not isinstance(answer.get("problems"), list):
            raise ProtocolError("/v1/problems answered without a problems list")
        return answer

    # -- the prompts ---------------------------------------------------------------------------

    def prompts(self, problem=None, stage=None):
        """Prompts built from the run's own configuration (GET /v1/prompts, prompts/README.md):
        [{"problem", "stage", "current_stage", "prompt"}, ...]. `problem` None: every problem the
        run can score; `stage` None: where each problem stands now, so the prompts follow the
        ladder as it advances."""
        query = urllib.parse.urlencode({key: value for key, value in (("problem", problem), ("stage", stage)) if value})
        _, answer = self._transport.request("GET", "/v1/prompts" + (f"?{query}" if query else ""), None)
        if not isinstance(answer, dict) or not isinstance(answer.get("prompts"), list):
            raise ProtocolError("/v1/prompts answered without a prompts list")
        return answer["prompts"]

    def prompt(self, problem, stage=None):
        """The prompt text of one problem at its current stage (or `stage`)."""
        return self.prompts(problem, stage)[0]["prompt"]

    # -- OpenRLHF's format -----------------------------------------------------------------------

    def get_reward(self, queries, prompts=None, labels=None):
        """POST /get_reward as OpenRLHF's remote reward model call does; returns the rewards list."""
        body = {"query": list(queries)}
        if prompts is not None:
            body["prompts"] = list(prompts)
        if labels is not None:
            body["labels"] = list(labels)
        _, answer = self._transport.request("POST", "/get_reward", body)
        if not isinstance(answer, dict) or not isinstance(answer.get("rewards"), list):
            raise ProtocolError("/get_reward answered without a rewards list")
        return [float(reward) for reward in answer["rewards"]]

    # -- helpers ---------------------------------------------------------------------------------

    def _score(self, field, texts, problems, stages, batch_id, ids):
        batch_id = batch_id or new_batch_id()
        candidates = build_candidates(texts, field, problems, stages, ids, batch_id)
        if not candidates:
            return []  # nothing to score: no request (the coordinator refuses empty batches)
        return self.score_candidates(candidates, batch_id)

    def _submit(self, field, texts, problems, stages, batch_id, ids):
        batch_id = batch_id or new_batch_id()
        candidates = build_candidates(texts, field, problems, stages, ids, batch_id)
        return self.submit_candidates(candidates, batch_id)

    @staticmethod
    def _body(batch_id, candidates, wait):
        return {"batch_id": batch_id, "candidates": list(candidates), "wait": wait}

    @staticmethod
    def _results_of(batch_id, candidates, answer):
        if not isinstance(answer, dict) or "results" not in answer:
            raise ProtocolError(f"batch {batch_id}: the coordinator answered without results")
        return check_results(batch_id, candidates, answer["results"])


def _rewards(results):
    return [float(result["reward"]) for result in results]
