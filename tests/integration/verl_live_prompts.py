"""verl's own data path with prompts that follow the ladder: verl 0.9.1's RLHFDataset machinery
through hpcreward.verl_data.LivePromptDataset (as data.custom_cls loads it), read by verl's
StatefulDataLoader with 0 workers, as its trainer reads it, against a served run with the quick
demo ladder. It reads a batch, scores it (the responses are sample kernels) with the package's
verl reward function exactly as verl calls it (compute_score with the row's extra_info), which
advances the stage, and reads the next batch: its prompts name the new stage and its rows are
judged in it. No rollout and no model: what is checked is the data path. Not part of ctest
(verl: tests/integration/README.md).

    python tests/integration/verl_live_prompts.py [--out DIR]   (HPCREWARD_BIN)
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "train_bridge" / "python"))
sys.path.insert(0, str(HERE))

from served_pipeline import start_pipeline, stop_pipeline  # noqa: E402

SAMPLES = REPO / "train_bridge" / "samples" / "c"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    base = pathlib.Path(args.out or tempfile.mkdtemp(prefix="verl-live-"))
    base.mkdir(parents=True, exist_ok=True)
    run = base / "run"

    import verl
    from omegaconf import OmegaConf
    from torchdata.stateful_dataloader import StatefulDataLoader
    from verl.utils.dataset.rl_dataset import collate_fn, get_dataset_class
    print(f"verl {verl.__version__}", flush=True)

    pipeline = start_pipeline(run, "--ladder", str(REPO / "stages" / "demo_ladder.json"))
    try:
        os.environ["HPCREWARD_RENDEZVOUS"] = str(run)
        data = base / "data"
        subprocess.run([sys.executable, "-m", "hpcreward", "dataset", "--out", str(data), "--rendezvous", str(run),
                        "--chat", "--repeat", "16", "dgemm-256"], check=True,
                       env=dict(os.environ, PYTHONPATH=str(REPO / "train_bridge" / "python")))
        config = OmegaConf.create({"custom_cls": {"path": "pkg://hpcreward.verl_data", "name": "LivePromptDataset"},
                                   "filter_overlong_prompts": False, "max_prompt_length": 4096})
        dataset_cls = get_dataset_class(config)
        dataset = dataset_cls(data_files=[str(data / "prompts.jsonl")], tokenizer=None, config=config)
        loader = iter(StatefulDataLoader(dataset=dataset, batch_size=4, num_workers=0, collate_fn=collate_fn))

        from hpcreward.verl import compute_score
        steps = []
        kernels = ["ikj.c", "naive_ijk.c", "ikj_restrict.c", "syntax_error.c"]
        for step in range(3):
            batch = next(loader)
            named = [re.search(r"This is stage `([^`]+)`", prompt[0]["content"]).group(1) for prompt in batch["raw_prompt"]]
            extra = list(batch["extra_info"])
            results = [compute_score("hpcreward/matmul", "```c\n" + (SAMPLES / kernel).read_text() + "```", "dgemm-256",
                                     info) for kernel, info in zip(kernels, extra)]
            steps.append({"step": step + 1, "prompt_stage": named, "extra_info_stage": [e["stage"] for e in extra],
                          "judged_in": [r["stage"] for r in results], "statuses": [r["status"] for r in results]})
            print(json.dumps(steps[-1]), flush=True)
    finally:
        stop_pipeline(run, pipeline)

    report = {"versions": {"verl": verl.__version__}, "steps": steps}
    (base / "report.json").write_text(json.dumps(report, indent=2))
    for entry in steps:
        assert entry["prompt_stage"] == entry["extra_info_stage"] == entry["judged_in"], entry
    assert steps[0]["prompt_stage"][0] == "o0" and steps[1]["prompt_stage"][0] == "o3", "the next batch followed"
    print("PASS")


if __name__ == "__main__":
    main()
