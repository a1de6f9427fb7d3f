"""Per problem and stage: the status mix (stacked bars) and the GFLOPS of the verified candidates."""
import numpy as np

from .figure import (new_figure, note_no_data, ordered_statuses, save, stage_keys, stage_label, status_colour,
                     verified_by_stage)


def _label_axis(ax, keys):
    ax.set_xticks(np.arange(len(keys)))
    ax.set_xticklabels([stage_label(*key) for key in keys], fontsize=9)


def plot_status_mix(log, path):
    figure, axes = new_figure()
    ax = axes[0][0]
    rewards = log.rewards
    keys = stage_keys(rewards)
    if not keys:
        note_no_data(ax, "no scored candidate yet, nothing to plot")
    else:
        x = np.arange(len(keys))
        bottom = np.zeros(len(keys))
        for status in ordered_statuses(set(rewards["status"])):
            counts = np.array([np.sum((rewards["problem"] == p) & (rewards["stage"] == s) & (rewards["status"] == status))
                               for p, s in keys], dtype=float)
            ax.bar(x, counts, bottom=bottom, color=status_colour(status), label=status, width=0.7)
            bottom += counts
        _label_axis(ax, keys)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    ax.set_xlabel("problem and stage")
    ax.set_ylabel("candidates scored")
    ax.set_title("Status mix per stage")
    figure.tight_layout()
    return save(figure, path)


def plot_gflops_distribution(log, path):
    figure, axes = new_figure()
    ax = axes[0][0]
    ok, keys = verified_by_stage(log, ax)
    if keys:
        values = [ok["gflops"][(ok["problem"] == p) & (ok["stage"] == s)] for p, s in keys]
        ax.boxplot(values, positions=np.arange(len(keys)), widths=0.5, showfliers=False)
        jitter = np.random.default_rng(0)  # fixed: the same log gives the same picture
        for index, v in enumerate(values):
            ax.scatter(index + jitter.uniform(-0.18, 0.18, len(v)), v, s=12, alpha=0.6, color="#1f77b4")
            ax.text(index, 1.0, f"n={len(v)}", transform=ax.get_xaxis_transform(), ha="center", va="bottom",
                    fontsize=9)
        _label_axis(ax, keys)
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", alpha=0.3)
    ax.set_xlabel("problem and stage")
    ax.set_ylabel("GFLOPS of the verified candidates")
    ax.set_title("GFLOPS distribution per stage (box: quartiles, whiskers: 1.5 IQR; dots: candidates)", pad=18)
    figure.tight_layout()
    return save(figure, path)
