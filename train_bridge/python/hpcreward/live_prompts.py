"""Prompts that follow the stage ladder while a trainer trains.

A dataset of problems whose `prompt` and `stage` are read from the served run when a row is
read, not when the dataset is made: once the pipeline advances a problem's stage, the next rows
the trainer reads carry the new stage's prompt (GET /v1/prompts) and its name, and the reward
adapters send that stage with the completions, so every candidate is judged in the stage its
prompt described.

    from hpcreward.live_prompts import live_dataset
    dataset = live_dataset("runs/serve", ["dgemm-256", "sgemm-512"], rows=256)   # a datasets.Dataset
    trainer = GRPOTrainer(..., train_dataset=dataset, reward_funcs=[GflopsReward("runs/serve")])

TRL's GRPOTrainer reads rows through a DataLoader that accelerate runs one batch ahead, so a
stage change reaches the prompts one generation batch after the batch that earned it (each
candidate still judged in the stage its own prompt named). `LivePrompts` is the source on its
own (for verl's or a custom data path): `LivePrompts(rendezvous)("dgemm-256")` gives
(prompt, stage) now.
"""
import threading

from .env_client import make_client


class LivePrompts:
    """(prompt, stage) of a problem where it stands now in a served run; asks GET /v1/stages on
    each call and GET /v1/prompts only when a problem's stage has changed. Picklable: it holds
    its settings and makes its Client on first use in each process.

    rendezvous: the run's directory or coordinator.json; or url= and token_file=; with neither,
    the environment (HPCREWARD_RENDEZVOUS, see env_client). chat: the prompt as a one-message
    conversation [{"role": "user", "content": ...}] (TRL's conversational format)."""

    def __init__(self, rendezvous=None, *, url=None, token_file=None, chat=False, **client_options):
        self.rendezvous, self.url, self.token_file = rendezvous, url, token_file
        self.chat = chat
        self.client_options = client_options
        self._state = None

    def __getstate__(self):
        return {key: value for key, value in self.__dict__.items() if key != "_state"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._state = None

    def _client(self):
        if self._state is None:
            client = make_client(self.rendezvous, self.url, self.token_file, **self.client_options)
            self._state = (client, {}, threading.Lock())
        return self._state

    def __call__(self, problem):
        return self.many([problem])[0]

    def many(self, problems):
        """[(prompt, stage)] for `problems`, each at its current stage (one GET /v1/stages)."""
        client, cache, lock = self._client()
        stages = client.stages()
        answers = []
        for problem in problems:
            with lock:
                known = cache.get(problem)
            stage = stages.get(problem)
            if known is None or (stage is not None and known[1] != stage):
                entry = client.prompts(problem)[0]  # where it stands now (its ladder's first before any batch)
                known = (entry["prompt"], entry["stage"])
                with lock:
                    cache[problem] = known
            text, stage = known
            answers.append(([{"role": "user", "content": text}] if self.chat else text, stage))
        return answers

    def transform(self, batch):
        """A datasets `set_transform` function: fills `prompt` and `stage` of each row's `problem`."""
        answers = self.many(list(batch["problem"]))
        out = dict(batch)
        out["prompt"] = [prompt for prompt, _ in answers]
        out["stage"] = [stage for _, stage in answers]
        return out


def live_dataset(rendezvous=None, problems=("dgemm-256",), rows=None, *, chat=False, **options):
    """A datasets.Dataset with the columns prompt, problem and stage, `rows` rows (default: one per
    problem) cycling through `problems`, whose prompt and stage are read from the served run each
    time a row is read (LivePrompts, through Dataset.set_transform)."""
    from datasets import Dataset
    problems = [problems] if isinstance(problems, str) else list(problems)
    if not problems:
        raise ValueError("name at least one problem")
    count = rows if rows is not None else len(problems)
    column = [problems[i % len(problems)] for i in range(count)]
    dataset = Dataset.from_dict({"prompt": [""] * count, "problem": column, "stage": [""] * count})
    dataset.set_transform(LivePrompts(rendezvous, chat=chat, **options).transform)
    return dataset
