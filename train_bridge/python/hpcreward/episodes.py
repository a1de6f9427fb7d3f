"""Multi-turn episodes: the model writes a kernel, the pipeline answers with its feedback, the
model revises (Dr. Kernel / KernelGYM's loop). Every turn is scored like any candidate and logged
with its episode and turn (the log's `episode` and `turn` columns); the episode's reward is
computed from its turns' rewards in one of EPISODE_REWARDS:

  last        the last turn's reward (what the episode ended with)
  best        the best turn's reward
  discounted  every turn counts, later ones less: sum(d^(t-1) r_t) / sum(d^(t-1)) with the
              discount d (default 0.7): the scale of one turn's reward, more for getting there early

`turn_returns` gives per-turn returns (r_t + d * G_(t+1)) for trainers that credit each turn.

    episode = KernelEpisode(client, "dgemm-256", max_turns=3)
    message = episode.submit(code)            # "Turn 1 of 3: wrong_answer. Wrong answer: ..."
    ...
    episode.reward("best")

`KernelEnvironment` is the same for TRL's GRPOTrainer (`environment_factory`, TRL 1.16): the
model calls its tool `submit_kernel(code)` and reads the answer; `get_reward()` is the episode's.
"""
import uuid

from .env_client import make_client

EPISODE_REWARDS = ("last", "best", "discounted")


def episode_reward(turn_rewards, mode="last", discount=0.7):
    """The episode's reward from its turns' rewards, in order; None for an episode without a turn."""
    rewards = [float(r) for r in turn_rewards]
    if mode not in EPISODE_REWARDS:
        raise ValueError(f"episode reward {mode!r}: one of {', '.join(EPISODE_REWARDS)}")
    if not 0 < discount <= 1:
        raise ValueError(f"discount {discount}: in (0, 1]")
    if not rewards:
        return None
    if mode == "last":
        return rewards[-1]
    if mode == "best":
        return max(rewards)
    weights = [discount ** t for t in range(len(rewards))]
    return sum(w * r for w, r in zip(weights, rewards)) / sum(weights)


def turn_returns(turn_rewards, discount=0.7):
    """Per-turn returns G_t = r_t + d * G_(t+1), for trainers that give each turn its own credit."""
    returns, following = [], 0.0
    for reward in reversed([float(r) for r in turn_rewards]):
        following = reward + discount * following
        returns.append(following)
    return returns[::-1]


class KernelEpisode:
    """One episode against a served run: up to `max_turns` scored kernels of one problem.

    client: an hpcreward Client. stage: the stage every turn is judged in (default: the problem's
    current one when the episode starts, so a stage change mid-episode does not move its goal)."""

    def __init__(self, client, problem, *, stage=None, max_turns=4, episode_id=None):
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        self.client = client
        self.problem = problem
        self.stage = stage or client.stages().get(problem) or client.prompts(problem)[0]["stage"]
        self.max_turns = max_turns
        self.episode_id = episode_id or f"ep-{uuid.uuid4().hex[:24]}"
        self.turns = []  # result dicts, as the pipeline answered them

    @property
    def done(self):
        return len(self.turns) >= self.max_turns

    def submit(self, code, *, completion=False):
        """Scores `code` (a source, as it is or in one fenced block, or with completion=True model
        output, read as the pipeline reads completions) as the next turn; returns the message for
        the model: the turn, the status and the feedback."""
        if self.done:
            return (f"No turns left: this episode had {self.max_turns}; its reward is already decided.")
        turn = len(self.turns) + 1
        candidate = {"id": f"{self.episode_id}-t{turn}", "problem": self.problem, "stage": self.stage,
                     "episode": self.episode_id, "turn": turn, ("completion" if completion else "source"): code}
        result = self.client.score_candidates([candidate], batch_id=f"{self.episode_id}-t{turn}")[0]
        self.turns.append(result)
        left = self.max_turns - turn
        return (f"Turn {turn} of {self.max_turns}: {result['status']}. {result.get('feedback') or result.get('reason', '')}"
                + (f" You may submit a revised kernel ({left} turn{'s' if left != 1 else ''} left)." if left else
                   " That was the last turn."))

    def rewards(self):
        return [float(result["reward"]) for result in self.turns]

    def reward(self, mode="last", discount=0.7):
        return episode_reward(self.rewards(), mode, discount)


class KernelEnvironment:
    """A TRL GRPOTrainer environment (environment_factory=KernelEnvironment, or a functools.partial
    of it with options): one episode per rollout. TRL calls reset(**row) with the dataset row
    (its `problem` and `stage` columns choose the problem and the stage; missing: default_problem
    and its current stage), exposes submit_kernel as the model's tool, and calls get_reward()
    once the rollout ends.

    rendezvous: the served run (or the environment's HPCREWARD_RENDEZVOUS). episode_reward: one of
    EPISODE_REWARDS. no_submission_reward: the reward of a rollout that never called the tool
    (default None: TRL leaves this source out for it; give a number, e.g. the run's format_error
    penalty, to punish it)."""

    def __init__(self, rendezvous=None, *, default_problem="dgemm-256", max_turns=3, episode_reward="last",
                 discount=0.7, no_submission_reward=None):
        if episode_reward not in EPISODE_REWARDS:
            raise ValueError(f"episode_reward {episode_reward!r}: one of {', '.join(EPISODE_REWARDS)}")
        self.rendezvous = rendezvous
        self.default_problem = default_problem
        self.max_turns = max_turns
        self.episode_reward = episode_reward
        self.discount = discount
        self.no_submission_reward = no_submission_reward
        self.episode = None
        self._client = None

    def _client_now(self):
        if self._client is None:
            self._client = make_client(self.rendezvous)
        return self._client

    def reset(self, **row):
        self.episode = KernelEpisode(self._client_now(), row.get("problem") or self.default_problem,
                                     stage=row.get("stage") or None, max_turns=self.max_turns)
        return (f"\n\nSubmit each version of your kernel with the tool submit_kernel; it is compiled, checked "
                f"and timed, and you get the result and feedback. You have {self.max_turns} submissions.")

    def submit_kernel(self, code: str) -> str:
        """Compile, check and time a matmul kernel on the benchmark machines, and get the verdict.

        Args:
            code: The complete source file that defines matmul, as the task asks (as it is, or in one fenced block).

        Returns:
            The turn's status and feedback: compiler errors, the rule broken, where the answer was wrong, or the speed.
        """
        if self.episode is None:
            return "No episode: the environment was not reset."
        return self.episode.submit(code)

    def get_reward(self) -> float:
        if self.episode is None or not self.episode.turns:
            return self.no_submission_reward
        return self.episode.reward(self.episode_reward, self.discount)
