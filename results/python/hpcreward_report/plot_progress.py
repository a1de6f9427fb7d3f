"""The run's progress: GFLOPS of every verified candidate over time per problem (with the
best-so-far, the ranks' BLAS reference and the stage changes), and the reward per batch."""
import numpy as np

from .figure import new_figure, note_no_data, save

STAGE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


def run_start(log):
    times = [t for t in (log.rewards["time"].min() if len(log.rewards) else None,
                         log.stage_events["time"].min() if len(log.stage_events) else None) if t is not None]
    return min(times) if times else 0.0


def stage_change_marks(log, problem):
    """[(minutes since the run's start, "from \u2192 to")] of the problem's stage events, in time order."""
    events = log.stage_events.where(log.stage_events["problem"] == problem)
    start = run_start(log)
    return [((events["time"][i] - start) / 60.0, f"{events['from'][i]} \u2192 {events['to'][i]}")
            for i in np.argsort(events["time"], kind="stable")]


def plot_gflops_over_time(log, problem, path):
    figure, axes = new_figure()
    ax = axes[0][0]
    rows = log.rewards.where(log.rewards["problem"] == problem)
    ok = rows.where(rows["status"] == "ok")
    start = run_start(log)
    if len(ok) == 0:
        note_no_data(ax, f"{problem}: no verified (ok) candidate yet, nothing to plot")
    else:
        order = np.argsort(ok["time"], kind="stable")
        minutes = (ok["time"][order] - start) / 60.0
        gflops = ok["gflops"][order]
        stages = ok["stage"][order]
        for index, stage in enumerate(dict.fromkeys(stages)):
            mask = stages == stage
            ax.scatter(minutes[mask], gflops[mask], s=18, alpha=0.75, label=f"ok, scored in {stage}",
                       color=STAGE_COLOURS[index % len(STAGE_COLOURS)])
        ax.step(minutes, np.maximum.accumulate(gflops), where="post", color="black", linewidth=1.6,
                label="best so far")
        peaks = log.blas_reference(problem)
        library = "cuBLAS" if log.problem_kind(problem)[0] == "cuda" else "OpenBLAS"
        if peaks:
            # Ranks measure their own BLAS (and the stage rules compare with each rank's own):
            # a band when they disagree, the median as the line.
            middle = float(np.median(peaks))
            ranks = f"{len(peaks)} rank" + ("s" if len(peaks) > 1 else "")
            if peaks[-1] > peaks[0]:
                ax.axhspan(peaks[0], peaks[-1], color="#888888", alpha=0.15,
                           label=f"{library} ceiling (its largest size) on the {ranks}: {peaks[0]:.1f} to {peaks[-1]:.1f} GFLOPS")
            ax.axhline(middle, color="#555555", linestyle="--", linewidth=1.2,
                       label=f"{library} ceiling (its largest size) on the {ranks}" + (", median" if len(peaks) > 1 else "") + f": {middle:.1f} GFLOPS")
        plain = log.plain_sgemm_reference(problem)
        if plain:  # a TF32 ceiling is far above kernels without tensor cores: their yardstick too
            ax.axhline(float(np.median(plain)), color="#555555", linestyle=":", linewidth=1.2,
                       label=f"cuBLAS SGEMM without tensor cores: {float(np.median(plain)):.1f} GFLOPS")
        yardsticks = log.yardsticks(problem)
        for number, (name, yardstick) in enumerate(yardsticks.items()):  # at this problem's own shape
            ax.axhline(yardstick, color=["#17becf", "#bcbd22", "#e377c2"][number % 3], linestyle="-.", linewidth=1.2,
                       label=f"{name} at this problem's shape: {yardstick:.1f} GFLOPS")
        top = max(gflops.max(), peaks[-1] if peaks else 0, max(yardsticks.values(), default=0)) * 1.18
        ax.set_ylim(0, top)
        for number, (when, label) in enumerate(stage_change_marks(log, problem)):
            ax.axvline(when, color="#d62728", linestyle=":", linewidth=1.2)
            # Stagger the labels so close events stay readable.
            ax.text(when, top * (0.97 - 0.06 * (number % 3)), f" {label}", color="#d62728", fontsize=9,
                    va="top", ha="left")
        ax.set_xlim(left=min(0.0, minutes.min()))
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9)  # outside: never over a stage label
        ax.grid(alpha=0.3)
    ax.set_xlabel("minutes since the run's first record")
    ax.set_ylabel("GFLOPS (median of the timed calls)")
    ax.set_title(f"{problem}: verified candidates over time, stage changes in red")
    figure.tight_layout()
    return save(figure, path)


def plot_reward_per_batch(log, path):
    figure, axes = new_figure()
    ax = axes[0][0]
    rewards = log.rewards
    if len(rewards) == 0:
        note_no_data(ax, "no scored candidate yet, nothing to plot")
    else:
        batches = list(dict.fromkeys(rewards["batch_id"]))  # in the order the run scored them
        values = [rewards["reward"][rewards["batch_id"] == batch] for batch in batches]
        x = np.arange(1, len(batches) + 1)
        mean = np.array([v.mean() for v in values])
        q25, q75 = np.array([np.percentile(v, 25) for v in values]), np.array([np.percentile(v, 75) for v in values])
        low, high = np.array([v.min() for v in values]), np.array([v.max() for v in values])
        edges = np.arange(0.5, len(batches) + 1.0)  # each band spans its whole batch
        ax.stairs(high, edges, baseline=low, fill=True, color="#1f77b4", alpha=0.12, label="min to max")
        ax.stairs(q75, edges, baseline=q25, fill=True, color="#1f77b4", alpha=0.3, label="25th to 75th percentile")
        ax.plot(x, mean, color="#1f77b4", marker="o", markersize=3, linewidth=1.6, label="mean")
        ax.axhline(0, color="#555555", linewidth=0.8)
        ax.legend(loc="lower right", fontsize=9)
        ax.grid(alpha=0.3)
        ax.set_xlim(0.5, len(batches) + 0.5)
        span = max(high.max() - low.min(), 1.0)
        ax.set_ylim(min(low.min(), 0) - 0.05 * span, max(high.max(), 0) + 0.05 * span)
    ax.set_xlabel("batch, in the order scored")
    ax.set_ylabel("reward (GFLOPS if ok, else the status's penalty)")
    ax.set_title("Reward per batch: the learning curve")
    figure.tight_layout()
    return save(figure, path)
