"""A log's rows scored again in another reward mode (docs/problems.md, reward modes).

Every row keeps its GFLOPS and the yardsticks its rank measured for its problem
(openblas_gflops, cublas_gflops, cublaslt_gflops; schema 6), so a run scored in one mode can be
compared, or trained on, in another:

    from hpcreward_report.log import read_log
    from hpcreward_report.rescore import rescore
    rewards = rescore(read_log("runs/x/rewards.h5"), "speedup:cublas")

`ok` rows earn GFLOPS over the mode's yardstick (NaN where the row has none: a log from before
schema 6, or a rank that measured none); other rows keep the reward the run gave them, unless
`penalties` maps their status to another. The archive's shaping bonus, if the run had one, is
not added again.
"""
import numpy as np

YARDSTICKS = ("openblas", "cublas", "cublaslt")


def yardstick_columns(rewards):
    """{name: its column} for the yardsticks the table has (none before schema 6)."""
    return {name: rewards[f"{name}_gflops"] for name in YARDSTICKS if f"{name}_gflops" in rewards.columns}


def reference(rewards, mode):
    """Per row, what `mode` divides the GFLOPS by (1 for gflops; NaN where not measured)."""
    count = len(rewards)
    if mode == "gflops":
        return np.ones(count)
    columns = yardstick_columns(rewards)
    if mode == "fraction":
        if not columns:
            return np.full(count, np.nan)
        best = np.max(np.vstack(list(columns.values())), axis=0)
    elif mode.startswith("speedup:") and mode[len("speedup:"):] in YARDSTICKS:
        name = mode[len("speedup:"):]
        best = columns.get(name, np.zeros(count))
    else:
        raise ValueError(f"reward mode {mode!r}: gflops, fraction, or speedup:NAME with NAME one of "
                         f"{', '.join(YARDSTICKS)}")
    return np.where(best > 0, best, np.nan)


def rescore(log, mode, penalties=None):
    """The rewards of `log`'s rows in `mode` (an array in row order)."""
    rewards = log.rewards
    if len(rewards) == 0:
        return np.zeros(0)
    ok = rewards["status"] == "ok"
    scored = np.where(ok, rewards["gflops"] / reference(rewards, mode), rewards["reward"])
    for status, penalty in (penalties or {}).items():
        scored = np.where(rewards["status"] == status, float(penalty), scored)
    return scored
