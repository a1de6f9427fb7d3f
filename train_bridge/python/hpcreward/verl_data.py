"""verl's data path with prompts that follow the stage ladder (verl >= 0.9, checked in the 0.9.1
wheel): a dataset class for `data.custom_cls` whose rows carry the problem's prompt at the stage
it stands at now in the served run, read when verl's dataloader reads the row.

    data.custom_cls.path=pkg://hpcreward.verl_data data.custom_cls.name=LivePromptDataset
    data.dataloader_num_workers=0 data.max_prompt_length=4096

It is verl's RLHFDataset (same parquet files, same keys) with `__getitem__` replacing the row's
`raw_prompt` by the live prompt (one user message) and setting `extra_info["problem"]` and
`extra_info["stage"]`, which the reward adapter (hpcreward.verl) sends with the response, so each
response is judged in the stage its prompt named. The problem is the row's
`extra_info["problem"]`, else its `problem` column (`python3 -m hpcreward dataset --chat` writes
files verl reads as they are), else `reward_model.ground_truth`, as the adapter reads it. The served
run comes from the environment (HPCREWARD_RENDEZVOUS, as for the adapter; it must reach the
process that reads the data). With dataloader workers, each worker reads rows ahead of the
training step (up to their prefetch), so a stage change reaches the prompts that much later; 0
workers reads a batch when the step needs it. The parquet's own prompt is only a placeholder,
but verl filters rows on its length (`data.max_prompt_length`), and the built-in template's
live prompts run 3,100 to 3,700 characters: give the length room.
"""
from verl.utils.dataset.rl_dataset import RLHFDataset

from .live_prompts import LivePrompts
from .verl import problem_and_stage


class LivePromptDataset(RLHFDataset):
    """RLHFDataset whose rows' prompts come from the served run at read time (see the module)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.live_prompts = LivePrompts()  # the environment's run, client made on first use per process

    def __getitem__(self, item):
        row = super().__getitem__(item)
        extra = dict(row.get("extra_info") or {})
        if not extra.get("problem") and row.get("problem"):
            extra["problem"] = row["problem"]
        reward_model = row.get("reward_model") or {}
        problem, _ = problem_and_stage(reward_model.get("ground_truth") if isinstance(reward_model, dict) else None,
                                       extra)
        text, stage = self.live_prompts(problem)
        row["raw_prompt"] = [{"role": "user", "content": text}]
        extra.update(problem=problem, stage=stage)
        row["extra_info"] = extra
        return row
