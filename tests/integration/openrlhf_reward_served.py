"""OpenRLHF's own remote-reward path against a served hpcreward pipeline (not in ctest: needs
OpenRLHF with torch, transformers and aiohttp installed; see tests/integration/README.md).

openrlhf.utils.agent.SingleTurnAgentExecutor (OpenRLHF 0.11.2) is made exactly as
`--reward.remote_url .../hpcreward/openrlhf_reward.py` makes it: it loads the file itself (module
"reward_func"). Each sample then goes through its real execute(): it tokenizes the prompt, asks the
engine for a continuation, decodes prompt + response with special tokens, and calls our
reward_func([query], [prompt], [label]) in asyncio.to_thread, concurrently for all samples, then
reads rewards, scores and extra_logs. Only the generation engine is a stand-in (vLLM needs a GPU):
it answers each sample with one token, a whole fenced C kernel of the TRL recipe's word-level
tokenizer (train_bridge/samples/c/).

    python tests/integration/openrlhf_reward_served.py [--copies N] [--out DIR]
"""
import argparse
import asyncio
import json
import os
import pathlib
import signal
import sys
import tempfile
from types import SimpleNamespace

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from trl_grpo_served import KERNELS, PROMPT, fenced, start_pipeline, train_tokenizer  # noqa: E402

EXPECTED = ["ok", "ok", "ok", None, "compile_error"]  # None: blocked.c, forbidden in stage o0


class OneTokenEngine:
    """Stands in for OpenRLHF's vLLM engine: generate() answers with the next kernel's token."""

    def __init__(self, token_ids):
        self.token_ids = list(token_ids)

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        token = self.token_ids.pop(0)
        return SimpleNamespace(outputs=[SimpleNamespace(token_ids=[token], finish_reason="stop", logprobs=None)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=4, help="each of the 5 kernels this many times")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    base = pathlib.Path(args.out or tempfile.mkdtemp(prefix="openrlhf-reward-"))
    base.mkdir(parents=True, exist_ok=True)
    run = base / "run"

    from openrlhf.utils.agent import SingleTurnAgentExecutor
    import hpcreward.openrlhf_reward as adapter
    from importlib.metadata import version
    versions = {name: version(name) for name in ("openrlhf", "torch", "transformers")}  # openrlhf has no __version__
    print(", ".join(f"{name} {v}" for name, v in versions.items()), flush=True)
    tokenizer = train_tokenizer()
    names = KERNELS * args.copies
    engine = OneTokenEngine(tokenizer.convert_tokens_to_ids(fenced(name)) for name in names)
    params = SimpleNamespace(max_tokens=1, logprobs=None)

    pipeline = start_pipeline(run)
    os.environ["HPCREWARD_RENDEZVOUS"] = str(run)
    try:
        executor = SingleTurnAgentExecutor(remote_rm_url=adapter.__file__)  # as --reward.remote_url FILE.py

        async def rollout():
            return await asyncio.gather(*[executor.execute(PROMPT, "dgemm-256", params, 4, tokenizer, engine)
                                          for _ in names])
        outputs = asyncio.run(rollout())
    finally:
        info = json.loads((run / "coordinator.json").read_text()) if (run / "coordinator.json").exists() else {}
        if info.get("pid"):
            os.kill(info["pid"], signal.SIGTERM)
        pipeline.wait(timeout=300)
    rewards = [None if out["reward"] is None else float(out["reward"][0]) for out in outputs]
    scores = [None if out["scores"] is None else float(out["scores"][0]) for out in outputs]
    gflops = [float(out["extra_logs"]["hpcreward_gflops"][0]) if out["extra_logs"] else None for out in outputs]
    report = {"versions": versions, "samples": len(outputs), "rewards": rewards, "scores": scores, "gflops": gflops}
    print(json.dumps(report, indent=2))
    (base / "report.json").write_text(json.dumps(report, indent=2))
    assert all(reward is not None for reward in rewards), "every sample got a reward (none failed at INFO level)"
    for name, score, value in zip(names, scores, gflops):
        want = EXPECTED[KERNELS.index(name)]
        if want == "ok":
            assert score == 1.0 and value > 0, (name, score, value)
        elif want is not None:
            assert score == 0.0, (name, score)
    print("PASS")


if __name__ == "__main__":
    main()
