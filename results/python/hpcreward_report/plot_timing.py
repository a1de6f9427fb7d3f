"""Timing quality: the coefficient of variation of each verified candidate's timed calls against
its GFLOPS. Noisy measurements show up high; a rising cloud at high GFLOPS means contention."""
import numpy as np

from .figure import new_figure, save, verified_by_stage

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def plot_timing_quality(log, path):
    figure, axes = new_figure()
    ax = axes[0][0]
    ok, keys = verified_by_stage(log, ax)
    if keys:
        for index, (problem, stage) in enumerate(keys):
            mask = (ok["problem"] == problem) & (ok["stage"] == stage)
            ax.scatter(ok["gflops"][mask], 100.0 * ok["cv"][mask], s=20, alpha=0.7,
                       marker=MARKERS[(index // 10) % len(MARKERS)], label=f"{problem} {stage}")
        ax.axhline(5.0, color="#d62728", linestyle=":", linewidth=1.2, label="CV 5%")
        ax.set_ylim(bottom=0, top=max(10.0, float(np.nanmax(100.0 * ok["cv"])) * 1.1))
        ax.set_xlim(left=0)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9)
        ax.grid(alpha=0.3)
    ax.set_xlabel("GFLOPS (median of the timed calls)")
    ax.set_ylabel("CV of the timed calls (%)")
    ax.set_title("Timing quality: coefficient of variation against GFLOPS")
    figure.tight_layout()
    return save(figure, path)
