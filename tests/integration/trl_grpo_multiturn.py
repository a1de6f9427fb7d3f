"""A real multi-turn GRPO run: TRL's GRPOTrainer with environment_factory=KernelEnvironment
(hpcreward.episodes) against a served pipeline. Each rollout is an episode: the model calls the
tool submit_kernel(code), the pipeline compiles, checks and times the kernel and answers with the
turn's status and feedback, and the model may call it again; the episode's reward is its best
turn's. Not part of ctest (torch and TRL: tests/integration/README.md).

No model hub: a one-layer GPT-2 from a config and a word-level tokenizer trained here with TRL's
Qwen3 chat template (which TRL knows how to parse tool calls from). Its words are the template's
markers and whole tool calls, one per sample kernel, so one generated token is one submission.

    python tests/integration/trl_grpo_multiturn.py [--out DIR] [--steps N]   (HPCREWARD_BIN)
"""
import argparse
import functools
import json
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "train_bridge" / "python"))
sys.path.insert(0, str(HERE))

from served_pipeline import start_pipeline, stop_pipeline, toy_model  # noqa: E402

KERNELS = ["ikj.c", "naive_ijk.c", "blocked.c", "syntax_error.c"]
MARKERS = ["<|im_start|>system\n", "<|im_start|>user\n", "<|im_start|>assistant\n", "<|im_end|>\n", "<|im_end|>"]
PROMPT = "Write a fast C matmul for dgemm-256."


def tool_call(name):
    code = (REPO / "train_bridge" / "samples" / "c" / name).read_text()
    return "<tool_call>\n" + json.dumps({"name": "submit_kernel", "arguments": {"code": code}}) + "\n</tool_call>"


def make_tokenizer():
    import re
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    import trl
    words = MARKERS + [tool_call(name) for name in KERNELS] + ["I am done."]
    pattern = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(pattern), behavior="isolated")
    tokenizer.decoder = decoders.Fuse()
    tokenizer.train_from_iterator([w for w in words for _ in range(2)],
                                  trainers.WordLevelTrainer(special_tokens=["[PAD]", "[UNK]"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, pad_token="[PAD]", eos_token="<|im_end|>",
                                   unk_token="[UNK]")
    fast.chat_template = (pathlib.Path(trl.__file__).parent / "chat_templates" / "qwen3.jinja").read_text()
    return fast


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    base = pathlib.Path(args.out or tempfile.mkdtemp(prefix="trl-multiturn-"))
    base.mkdir(parents=True, exist_ok=True)
    run = base / "run"

    import torch
    import transformers
    import trl
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer
    from hpcreward.episodes import KernelEnvironment
    print(f"torch {torch.__version__}, transformers {transformers.__version__}, trl {trl.__version__}", flush=True)

    tokenizer = make_tokenizer()
    model = toy_model(tokenizer, positions=128)
    dataset = Dataset.from_dict({"prompt": [[{"role": "user", "content": PROMPT}]] * 8,
                                 "problem": ["dgemm-256"] * 8, "stage": ["o0"] * 8})
    config = GRPOConfig(output_dir=str(base / "trainer"), max_steps=args.steps, per_device_train_batch_size=4,
                        num_generations=4, max_completion_length=24, max_tool_calling_iterations=3,
                        learning_rate=1e-3, logging_steps=1, report_to="none", use_cpu=True, save_strategy="no",
                        temperature=1.5, seed=0)
    pipeline = start_pipeline(run)
    try:
        factory = functools.partial(KernelEnvironment, str(run), max_turns=3, episode_reward="best")
        trainer = GRPOTrainer(model=model, args=config, train_dataset=dataset, processing_class=tokenizer,
                              environment_factory=factory)
        started = time.monotonic()
        trainer.train()
        seconds = time.monotonic() - started
    finally:
        stop_pipeline(run, pipeline)

    import h5py
    with h5py.File(run / "rewards.h5", "r") as log:
        rows = log["rewards"][:]
    episodes = {}
    for row in rows:
        episodes.setdefault(row["episode"].decode(), []).append(
            {"turn": int(row["turn"]), "status": row["status"].decode(), "reward": round(float(row["reward"]), 3),
             "feedback": row["feedback"].decode()})
    history = [entry for entry in trainer.state.log_history if "reward" in entry]
    report = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__, "trl": trl.__version__},
              "train_seconds": round(seconds, 1), "steps_logged": len(history),
              "rewards": [entry.get("reward") for entry in history],
              "tool_calls": [entry.get("tools/call_frequency") for entry in history],
              "log_rows": len(rows), "episodes": len(episodes),
              "turns_per_episode": sorted(len(turns) for turns in episodes.values()),
              "example_episode": max(episodes.values(), key=len) if episodes else []}
    print(json.dumps(report, indent=2))
    (base / "report.json").write_text(json.dumps(report, indent=2))
    assert len(history) == args.steps
    assert rows.size and all(row["episode"] and row["turn"] >= 1 for row in rows), "every turn logged with its episode"
    for turns in episodes.values():
        assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1)), "turns in order, none lost or doubled"
    assert max(len(turns) for turns in episodes.values()) >= 2, "some episode had more than one turn"
    print("PASS")


if __name__ == "__main__":
    main()
