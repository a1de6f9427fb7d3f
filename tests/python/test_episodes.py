"""Multi-turn episodes (hpcreward.episodes) against the fake coordinator: every turn a scored,
labelled candidate; the episode's reward in each mode; TRL's environment contract (reset,
a documented tool, get_reward)."""
import inspect

import pytest

from hpcreward import Client
from hpcreward.episodes import KernelEnvironment, KernelEpisode, episode_reward, turn_returns

GOOD = "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { /* ok */ }"


def test_episode_rewards_in_every_mode():
    assert episode_reward([-0.5, 2.0, 1.0], "last") == 1.0
    assert episode_reward([-0.5, 2.0, 1.0], "best") == 2.0
    assert episode_reward([-0.5, 2.0, 1.0], "discounted", discount=0.5) == pytest.approx((-0.5 + 1.0 + 0.25) / 1.75)
    assert episode_reward([3.0], "discounted") == 3.0, "one turn: its own reward"
    assert episode_reward([], "best") is None
    assert turn_returns([1.0, 0.0, 2.0], discount=0.5) == [1.5, 1.0, 2.0]
    with pytest.raises(ValueError):
        episode_reward([1.0], "mean")


def test_each_turn_is_scored_with_its_episode_and_turn(fake, rendezvous):
    episode = KernelEpisode(Client.from_rendezvous(rendezvous), "dgemm-256", max_turns=2)
    assert episode.stage == "o3", "the problem's current stage when the episode starts"
    first = episode.submit(GOOD.replace("ok", "BROKEN"))
    assert first.startswith("Turn 1 of 2: compile_error. error: expected ';'") and "1 turn left" in first
    second = episode.submit(GOOD)
    assert second.startswith("Turn 2 of 2: ok. Correct.") and second.endswith("That was the last turn.")
    assert episode.submit(GOOD).startswith("No turns left")
    assert [(t["episode"], t["turn"], t["stage"]) for t in episode.turns] == [(episode.episode_id, 1, "o3"),
                                                                              (episode.episode_id, 2, "o3")]
    assert episode.reward("last") == episode.turns[1]["reward"] and episode.reward("best") == episode.turns[1]["reward"]
    assert len(fake.scored) == 2, "the third submission was not scored"


def test_the_trl_environment_contract(fake, rendezvous):
    environment = KernelEnvironment(rendezvous, max_turns=3, episode_reward="best")
    # TRL 1.16 (GRPOTrainer, environment_factory): public methods besides reset and get_reward are
    # the model's tools, described by their type hints and docstring (Args).
    tools = [name for name, _ in inspect.getmembers(KernelEnvironment, predicate=inspect.isfunction)
             if name not in ("reset", "get_reward") and not name.startswith("_")]
    assert tools == ["submit_kernel"]
    doc = inspect.getdoc(KernelEnvironment.submit_kernel)
    assert "Args:" in doc and "code: The complete source file" in doc
    assert inspect.signature(KernelEnvironment.submit_kernel).parameters["code"].annotation is str
    assert environment.get_reward() is None, "no episode yet"
    note = environment.reset(prompt="...", problem="sgemm-512", stage="o0")
    assert "submit_kernel" in note and "3 submissions" in note
    assert environment.get_reward() is None, "no submission: left out"
    environment.submit_kernel(GOOD.replace("ok", "WRONG"))
    environment.submit_kernel(GOOD)
    assert environment.episode.problem == "sgemm-512" and environment.episode.stage == "o0"
    assert environment.get_reward() == max(environment.episode.rewards())
    environment.reset(prompt="...")
    assert environment.episode.problem == "dgemm-256" and environment.episode.turns == []
    assert KernelEnvironment(rendezvous, no_submission_reward=-1.0).get_reward() == -1.0
