"""The summary table (per problem and stage) and the best candidate of each, for the report."""
import numpy as np

from .figure import ordered_statuses, stage_keys


def summary_rows(rewards):
    """One dict per (problem, stage), in the order the run first scored them, then a total."""
    rows = []
    for problem, stage in stage_keys(rewards) + [("total", "")]:
        mask = np.ones(len(rewards), bool) if problem == "total" else \
            (rewards["problem"] == problem) & (rewards["stage"] == stage)
        part = rewards.where(mask)
        ok = part.where(part["status"] == "ok")
        best = int(np.argmax(ok["gflops"])) if len(ok) else None
        others = {s: int(np.sum(part["status"] == s)) for s in ordered_statuses(set(part["status"])) if s != "ok"}
        rows.append({
            "problem": problem, "stage": stage, "candidates": len(part), "ok": len(ok),
            "best_gflops": float(ok["gflops"][best]) if best is not None else None,
            "median_gflops": float(np.median(ok["gflops"])) if len(ok) else None,
            "best_candidate": ok["candidate_id"][best] if best is not None else "",
            "best_techniques": " ".join(t for t in (ok["techniques"][best], ok["loop_order"][best],
                                                     ok["tile_sizes"][best]) if t) if best is not None else "",
            "other_statuses": others,
        })
    return rows


def best_per_stage(rewards):
    """[(problem, stage, row index into rewards)] of the fastest verified candidate of each stage."""
    best = []
    for problem, stage in stage_keys(rewards):
        mask = (rewards["problem"] == problem) & (rewards["stage"] == stage) & (rewards["status"] == "ok")
        if mask.any():
            indices = np.flatnonzero(mask)
            best.append((problem, stage, int(indices[np.argmax(rewards["gflops"][indices])])))
    return best
