"""A real TRL GRPOTrainer whose prompts follow the stage ladder: the dataset is
hpcreward.live_prompts.live_dataset, so each row's prompt and stage are read from the served run
when TRL reads the row; as the pipeline advances dgemm-256 (stages/demo_ladder.json: quick
rules), the prompts the trainer sends change stage, and every completion is judged in the stage
its prompt named. Not part of ctest (torch and TRL: tests/integration/README.md).

The model and tokenizer are trl_grpo_served.py's (a one-layer GPT-2; words are whole fenced C
kernels, so one token is a candidate); a second reward function of weight 0 records, per step,
the stage each prompt names and the stage column sent with it.

    python tests/integration/trl_grpo_live_prompts.py [--out DIR] [--steps N]   (HPCREWARD_BIN)
"""
import argparse
import json
import pathlib
import re
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "train_bridge" / "python"))
sys.path.insert(0, str(HERE))

from served_pipeline import start_pipeline, stop_pipeline, toy_model  # noqa: E402
from trl_grpo_served import train_tokenizer  # noqa: E402  (the same toy model's vocabulary)


class StageRecorder:
    """Reward 0; records the stage each prompt names and the stage column TRL passes with it."""
    __name__ = "prompt_stage"

    def __init__(self):
        self.steps = []

    def __call__(self, prompts, completions, stage, trainer_state=None, **_):
        named = [re.search(r"This is stage `([^`]+)`", prompt).group(1) for prompt in prompts]
        self.steps.append({"step": trainer_state.global_step if trainer_state else None,
                           "prompt_stage": named, "stage_column": list(stage)})
        return [0.0] * len(prompts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()
    base = pathlib.Path(args.out or tempfile.mkdtemp(prefix="trl-live-"))
    base.mkdir(parents=True, exist_ok=True)
    run = base / "run"

    import torch
    import transformers
    import trl
    from trl import GRPOConfig, GRPOTrainer
    from hpcreward.live_prompts import live_dataset
    from hpcreward.trl import GflopsReward
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, trl {trl.__version__}", flush=True)

    tokenizer = train_tokenizer()
    model = toy_model(tokenizer)
    config = GRPOConfig(output_dir=str(base / "trainer"), max_steps=args.steps, per_device_train_batch_size=4,
                        num_generations=4, max_completion_length=1, learning_rate=1e-3, logging_steps=1,
                        report_to="none", use_cpu=True, save_strategy="no", temperature=1.5, seed=0,
                        reward_weights=[1.0, 0.0])

    pipeline = start_pipeline(run, "--ladder", str(REPO / "stages" / "demo_ladder.json"))
    recorder = StageRecorder()
    try:
        dataset = live_dataset(run, ["dgemm-256"], rows=64)
        reward = GflopsReward(run)
        trainer = GRPOTrainer(model=model, reward_funcs=[reward, recorder], args=config, train_dataset=dataset,
                              processing_class=tokenizer)
        started = time.monotonic()
        trainer.train()
        seconds = time.monotonic() - started
    finally:
        stop_pipeline(run, pipeline)

    import h5py
    with h5py.File(run / "rewards.h5", "r") as log:
        rows = log["rewards"][:]
        events = log["stage_events"][:] if "stage_events" in log else []
    per_step = []
    for index, entry in enumerate(recorder.steps):
        batch = rows[index * 4:(index + 1) * 4]
        per_step.append({"step": index + 1, "prompt_stage": sorted(set(entry["prompt_stage"])),
                         "rows_stage": sorted({row["stage"].decode() for row in batch}),
                         "statuses": [row["status"].decode() for row in batch],
                         "feedback": batch[0]["feedback"].decode()[:160] if len(batch) else ""})
    report = {
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__},
        "train_seconds": round(seconds, 1),
        "steps": per_step,
        "stage_events": [f"{e['from'].decode()} -> {e['to'].decode()} ({e['rule'].decode()})" for e in events],
        "log_rows": len(rows),
    }
    print(json.dumps(report, indent=2))
    (base / "report.json").write_text(json.dumps(report, indent=2))
    named = [stage for entry in recorder.steps for stage in entry["prompt_stage"]]
    columns = [stage for entry in recorder.steps for stage in entry["stage_column"]]
    assert named == columns, "each completion goes with the stage its prompt named"
    assert [row["stage"].decode() for row in rows] == named, "and is judged in it"
    assert len(set(named)) >= 2 and len(events) >= 1, "the stage advanced and the prompts followed"
    order = ["o0", "o3", "openmp", "avx512", "blocking"]
    assert [order.index(stage) for stage in named] == sorted(order.index(stage) for stage in named)
    print("PASS")


if __name__ == "__main__":
    main()
