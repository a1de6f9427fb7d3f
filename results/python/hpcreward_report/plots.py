"""Writes every plot of a log into a folder; returns what it wrote, in report order."""
import os
import re

from .plot_archive import plot_archive_map
from .plot_progress import plot_gflops_over_time, plot_reward_per_batch
from .plot_stages import plot_gflops_distribution, plot_status_mix
from .plot_timing import plot_timing_quality


def file_name(stem, problem=None):
    # Problem ids are [a-z0-9-] by configuration; anything else becomes '_' so the name stays a name.
    return f"{stem}-{re.sub(r'[^A-Za-z0-9._-]', '_', problem)}.png" if problem else f"{stem}.png"


def problems(log):
    return list(dict.fromkeys(list(log.rewards["problem"]) + list(log.stage_events["problem"])))


def write_plots(log, out_dir):
    """[(title, path)] of the PNGs written into out_dir."""
    os.makedirs(out_dir, exist_ok=True)
    written = []

    def add(title, plotter, name, *args):
        written.append((title, plotter(log, *args, os.path.join(out_dir, name))))

    for problem in problems(log):
        add(f"{problem}: GFLOPS over time", plot_gflops_over_time, file_name("gflops", problem), problem)
    add("Reward per batch", plot_reward_per_batch, file_name("reward_per_batch"))
    add("Status mix per stage", plot_status_mix, file_name("status_mix"))
    add("GFLOPS distribution per stage", plot_gflops_distribution, file_name("gflops_distribution"))
    for problem in problems(log):
        add(f"{problem}: quality-diversity archive", plot_archive_map, file_name("archive", problem), problem)
    add("Timing quality", plot_timing_quality, file_name("timing_quality"))
    return written
