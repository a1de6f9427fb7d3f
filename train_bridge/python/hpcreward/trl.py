"""TRL adapter: a reward function for GRPOTrainer(reward_funcs=[...]).

TRL calls a reward function with keyword arguments: prompts, completions, completion ids, the
trainer state, and every dataset column but "prompt" as a list (one entry per completion).
Completions are strings (standard format) or message lists [{"role": "assistant", "content": ...}]
(conversational format). It must return one float per completion. The coordinator extracts the
code from the completion's fenced code block, so the raw text is sent as a `completion`.
"""
from .env_client import resolve_client


def completion_text(completion):
    """The text of a TRL completion: a string, or the assistant content of a message list."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return _content_text(completion.get("content"))
    messages = list(completion)
    assistant = [message for message in messages if isinstance(message, dict) and message.get("role") == "assistant"]
    chosen = assistant or [message for message in messages if isinstance(message, dict)]
    if not chosen:
        raise TypeError(f"cannot read a completion from {completion!r:.200}")
    return "\n".join(_content_text(message.get("content")) for message in chosen)


def _content_text(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    # Multimodal content: [{"type": "text", "text": ...}, ...]
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def reward_function(client_or_rendezvous=None, problem_column="problem", default_problem="dgemm-256",
                    stage_column="stage", name="hpcreward_gflops"):
    """A GRPOTrainer reward function that scores completions on the served pipeline.

    client_or_rendezvous: a Client, a path to coordinator.json or its run directory, or None for the
    HPCREWARD_RENDEZVOUS environment variable (the client is made on first use, in the process that
    calls it). The problem of each completion is its dataset column `problem_column`, else
    default_problem; a `stage_column` column, when the dataset has one, names the stage.
    """
    get_client = resolve_client(client_or_rendezvous)

    def reward(prompts=None, completions=None, **kwargs):
        if completions is None:
            raise TypeError("reward function called without completions")
        texts = [completion_text(completion) for completion in completions]
        problems = _column(kwargs.get(problem_column), len(texts), default_problem)
        stages = _column(kwargs.get(stage_column), len(texts), None) if stage_column else None
        if stages is not None and all(stage is None for stage in stages):
            stages = None
        if not texts:
            return []
        return get_client().score(texts, problems, stages)

    reward.__name__ = name
    reward.__qualname__ = name
    reward.__doc__ = f"hpcreward GFLOPS reward (problem column {problem_column!r}, default {default_problem!r})"
    return reward


def _column(values, count, default):
    if values is None:
        return [default] * count
    if isinstance(values, str):
        return [values] * count
    values = list(values)
    if len(values) != count:
        raise ValueError(f"dataset column has {len(values)} values for {count} completions")
    return [default if value is None or value == "" else value for value in values]
