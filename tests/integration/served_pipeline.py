"""What the TRL recipes here share: a served pipeline on this machine (jobs/local.sh --serve, two
CPU ranks) started and stopped around a training run, and the toy model they train."""
import json
import os
import pathlib
import signal
import subprocess
import time

REPO = pathlib.Path(__file__).resolve().parents[2]


def start_pipeline(out, *options):
    """jobs/local.sh --serve into `out` (with `options`, e.g. --ladder FILE); returns once its
    rendezvous file is there."""
    command = [str(REPO / "jobs" / "local.sh"), "--serve", "--listen", "127.0.0.1:0", "--np", "2", *options,
               "--out", str(out)]
    process = subprocess.Popen(command, stdout=open(out.parent / "pipeline.out", "w"), stderr=subprocess.STDOUT,
                               start_new_session=True)
    for _ in range(600):
        if (out / "coordinator.json").exists():
            return process
        if process.poll() is not None:
            raise SystemExit(f"the pipeline ended at start: see {out.parent / 'pipeline.out'}")
        time.sleep(0.5)
    raise SystemExit("no rendezvous after 300 s")


def stop_pipeline(out, process):
    """SIGTERM to the coordinator (it finishes what it accepted and closes the log), then waits."""
    info = json.loads((out / "coordinator.json").read_text()) if (out / "coordinator.json").exists() else {}
    if info.get("pid"):
        os.kill(info["pid"], signal.SIGTERM)
    process.wait(timeout=300)


def toy_model(tokenizer, positions=16):
    """A one-layer GPT-2 from a config (no model hub), seeded."""
    import torch
    from transformers import AutoModelForCausalLM, GPT2Config
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(GPT2Config(
        vocab_size=len(tokenizer), n_layer=1, n_head=2, n_embd=32, n_positions=positions,
        bos_token_id=tokenizer.eos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id))
