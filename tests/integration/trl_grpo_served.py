"""A real TRL GRPOTrainer against a served hpcreward pipeline: three training steps, real C
completions rewarded with measured GFLOPS (the real-trainer test; not part of ctest: it
needs torch and TRL, see tests/integration/README.md).

No model hub: the model is a one-layer GPT-2 built from a config, and the tokenizer is trained
here, a word-level one whose words are whole fenced C kernels (split on a separator), so that a
completion of one token from an untrained model is a complete candidate: a correct kernel, one
that breaks a stage rule, or one that does not compile. The reward function is the package's
GflopsReward, exactly as a user passes it (reward_funcs=[GflopsReward(run_dir)]).

    python tests/integration/trl_grpo_served.py [--out DIR]    (HPCREWARD_BIN: the executables)
"""
import argparse
import json
import pathlib
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "train_bridge" / "python"))
sys.path.insert(0, str(REPO / "tests" / "integration"))

from served_pipeline import start_pipeline, stop_pipeline, toy_model  # noqa: E402

SEPARATOR = "\x1f"  # the pre-tokenizer splits on it: each kernel becomes one word
PROMPT = "Write a fast C matmul for dgemm-256."
KERNELS = ["ikj.c", "ikj_restrict.c", "naive_ijk.c", "blocked.c", "syntax_error.c"]


def fenced(name):
    return "```c\n" + (REPO / "train_bridge" / "samples" / "c" / name).read_text() + "```"


def train_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(SEPARATOR, behavior="removed")
    tokenizer.decoder = decoders.Fuse()
    corpus = [SEPARATOR.join([PROMPT] + [fenced(name) for name in KERNELS])] * 4
    tokenizer.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=["[PAD]", "[EOS]", "[UNK]"]))
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="[PAD]", eos_token="[EOS]",
                                   unk_token="[UNK]")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    base = pathlib.Path(args.out or tempfile.mkdtemp(prefix="trl-grpo-"))
    base.mkdir(parents=True, exist_ok=True)
    run = base / "run"

    import torch
    import transformers
    import trl
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from hpcreward.trl import GflopsReward
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, trl {trl.__version__}", flush=True)

    tokenizer = train_tokenizer()
    model = toy_model(tokenizer)
    dataset = Dataset.from_dict({"prompt": [PROMPT] * 8, "problem": ["dgemm-256"] * 8})
    config = GRPOConfig(output_dir=str(base / "trainer"), max_steps=3, per_device_train_batch_size=4,
                        num_generations=4, max_completion_length=1, learning_rate=1e-3, logging_steps=1,
                        report_to="none", use_cpu=True, save_strategy="no", temperature=1.5, seed=0)

    pipeline = start_pipeline(run)
    try:
        reward = GflopsReward(run)
        trainer = GRPOTrainer(model=model, reward_funcs=[reward], args=config, train_dataset=dataset,
                              processing_class=tokenizer)
        started = time.monotonic()
        trainer.train()
        seconds = time.monotonic() - started
    finally:
        stop_pipeline(run, pipeline)

    history = [entry for entry in trainer.state.log_history if f"rewards/{reward.__name__}/mean" in entry]
    import h5py
    with h5py.File(run / "rewards.h5", "r") as log:
        rows = log["rewards"][:]
    statuses = {}
    for row in rows:
        statuses[row["status"].decode()] = statuses.get(row["status"].decode(), 0) + 1
    ok = [row for row in rows if row["status"] == b"ok"]
    report = {
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__},
        "train_seconds": round(seconds, 1),
        "steps_logged": len(history),
        "reward_means": [entry[f"rewards/{reward.__name__}/mean"] for entry in history],
        "gflops_means": [entry.get(f"{reward.__name__}/gflops_mean") for entry in history],
        "ok_fractions": [entry.get(f"{reward.__name__}/ok_fraction") for entry in history],
        "log_rows": len(rows), "statuses": statuses,
        "best_ok_gflops": max((float(row["gflops"]) for row in ok), default=0.0),
    }
    print(json.dumps(report, indent=2))
    (base / "report.json").write_text(json.dumps(report, indent=2))
    assert len(history) == 3, "three steps logged"
    assert len(rows) == 12, "3 steps x 4 completions, each logged once"
    assert ok and all(float(row["gflops"]) > 0 for row in ok), "real C completions got measured GFLOPS"
    print("PASS")


if __name__ == "__main__":
    main()
