"""verl's own reward loop against a served hpcreward pipeline (not in ctest: needs verl with torch,
Ray's Python packages, transformers; see tests/integration/README.md).

verl's Hydra config is composed from the installed release (verl/trainer/config, ppo_trainer) with
the overrides the README tells a user to write (reward.custom_reward_function.path=pkg://hpcreward.verl,
.name=compute_score_async; for --manager rate_limited also reward.reward_manager.name=rate_limited,
+reward.max_concurrent, +reward.timeout). verl's RewardLoopWorker (verl/experimental/reward_loop/
reward_loop.py, made directly, not as a Ray actor) loads the function and the manager itself and
scores a DataProto batch with compute_score_batch, each sample through the manager's run_single
with real HTTP calls; the scores are then assembled as RewardLoopManager.compute_rm_score does
(assemble_rm_scores, the first sample's reward_extra_info keys read from all).

The tokenizer is the TRL recipe's: a word-level one whose words are whole fenced C kernels
(train_bridge/samples/c/), saved to a folder that is actor_rollout_ref.model.path, so a response
of one token decodes to a complete candidate.

    python tests/integration/verl_reward_loop_served.py [--manager naive|rate_limited] [--out DIR]
"""
import argparse
import asyncio
import json
import os
import pathlib
import signal
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from trl_grpo_served import KERNELS, PROMPT, start_pipeline, train_tokenizer  # noqa: E402

# ok, ok, ok, forbidden in stage o0 (blocked), compile_error
EXPECTED = ["ok", "ok", "ok", None, "compile_error"]


def compose(tokenizer_dir, manager):
    import verl
    from hydra import compose, initialize_config_dir
    overrides = [f"actor_rollout_ref.model.path={tokenizer_dir}",
                 "reward.custom_reward_function.path=pkg://hpcreward.verl",
                 "reward.custom_reward_function.name=compute_score_async",
                 "reward.num_workers=1"]
    if manager == "rate_limited":
        overrides += ["reward.reward_manager.name=rate_limited", "+reward.max_concurrent=64", "+reward.timeout=1800"]
    config_dir = pathlib.Path(verl.__file__).parent / "trainer" / "config"
    with initialize_config_dir(config_dir=str(config_dir), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


def batch(tokenizer, copies):
    import numpy as np
    import torch
    from verl import DataProto
    prompt_id = tokenizer.convert_tokens_to_ids(PROMPT)
    ids = [tokenizer.convert_tokens_to_ids(fenced_kernel) for fenced_kernel in fenced_kernels()] * copies
    count, pad = len(ids), tokenizer.pad_token_id
    responses = torch.tensor([[token, pad] for token in ids])
    prompts = torch.full((count, 1), prompt_id)
    attention = torch.tensor([[1, 1, 0]] * count)
    return DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "attention_mask": attention,
                 "input_ids": torch.cat([prompts, responses], dim=1)},
        non_tensors={"data_source": np.array(["hpcreward/matmul"] * count, dtype=object),
                     "reward_model": np.array([{"style": "rule", "ground_truth": "dgemm-256"}] * count, dtype=object),
                     "extra_info": np.array([{"problem": "dgemm-256", "index": i} for i in range(count)], dtype=object)})


def fenced_kernels():
    from trl_grpo_served import fenced
    return [fenced(name) for name in KERNELS]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manager", choices=["naive", "rate_limited"], default="naive")
    parser.add_argument("--copies", type=int, default=4, help="each of the 5 kernels this many times in the batch")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    base = pathlib.Path(args.out or tempfile.mkdtemp(prefix="verl-reward-loop-"))
    base.mkdir(parents=True, exist_ok=True)
    run = base / "run"

    import verl
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker
    from verl.trainer.ppo.reward import resolve_reward_manager_cls
    print(f"verl {verl.__version__}", flush=True)
    tokenizer_dir = base / "tokenizer"
    tokenizer = train_tokenizer()
    tokenizer.save_pretrained(str(tokenizer_dir))
    config = compose(tokenizer_dir, args.manager)
    data = batch(tokenizer, args.copies)

    pipeline = start_pipeline(run)
    os.environ["HPCREWARD_RENDEZVOUS"] = str(run)
    try:
        worker = RewardLoopWorker(config)
        manager_name = type(worker.reward_manager).__name__
        # rate_limited: the limits it applies (class-level semaphore size, per-call timeout)
        limits = {"max_concurrent": getattr(type(worker.reward_manager), "_max_concurrent", None),
                  "timeout": getattr(worker.reward_manager, "timeout", None)}
        outputs = worker.loop.run_until_complete(worker.compute_score_batch(data))
    finally:
        info = json.loads((run / "coordinator.json").read_text()) if (run / "coordinator.json").exists() else {}
        if info.get("pid"):
            os.kill(info["pid"], signal.SIGTERM)
        pipeline.wait(timeout=300)
    scores = [output["reward_score"] for output in outputs]
    infos = [output["reward_extra_info"] for output in outputs]
    keys = list(infos[0])
    extra = {key: [info[key] for info in infos] for key in keys}  # RewardLoopManager.compute_rm_score
    rm_scores = resolve_reward_manager_cls(config).assemble_rm_scores(data, scores)
    report = {"verl": verl.__version__, "manager": manager_name, "limits": limits, "samples": len(scores), "scores": scores,
              "extra_keys": keys, "statuses": extra.get("status"), "rm_scores_shape": list(rm_scores.shape)}
    print(json.dumps(report, indent=2, default=str))
    (base / "report.json").write_text(json.dumps(report, indent=2, default=str))
    assert keys == ["score", "gflops", "ok", "status", "stage"], keys
    if args.manager == "rate_limited":
        assert limits == {"max_concurrent": 64, "timeout": 1800}, limits
    statuses = extra["status"][:len(KERNELS)]
    assert all(want is None or got == want for got, want in zip(statuses, EXPECTED)), statuses
    assert all(g > 0 for g, s in zip(extra["gflops"], extra["status"]) if s == "ok"), "measured GFLOPS for ok ones"
    print("PASS")


if __name__ == "__main__":
    main()
