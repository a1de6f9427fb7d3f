"""The quality-diversity archive as a map: per problem, one panel per stage, a cell per niche
(rows: technique combination and tile sizes, columns: loop order), coloured by its elite's
GFLOPS on the stage's own scale (stages differ by orders of magnitude; the numbers are printed)."""
import math

import numpy as np

from .figure import new_figure, note_no_data, save


def current_elites(archive, problem):
    """{stage: {niche: gflops}}: the last record per niche is the archive now."""
    elites = {}
    for index in np.argsort(archive["time"], kind="stable"):
        if archive["problem"][index] == problem:
            elites.setdefault(archive["stage"][index], {})[archive["niche"][index]] = archive["gflops"][index]
    return elites


def split_niche(niche):
    techniques, _, rest = niche.partition("|")
    loop_order, _, tiles = rest.partition("|")
    return f"{techniques or '?'} | {tiles or '-'}", loop_order or "?"


def plot_archive_map(log, problem, path):
    elites = current_elites(log.archive, problem)
    if not elites:
        figure, axes = new_figure()
        reason = "this log has no archive (schema 1)" if not log.has_archive else "no niche opened yet"
        note_no_data(axes[0][0], f"{problem}: {reason}")
        axes[0][0].set_title(f"{problem}: quality-diversity archive")
        return save(figure, path)
    stages = list(elites)
    columns = min(3, len(stages))
    rows = math.ceil(len(stages) / columns)
    figure, axes = new_figure(rows, columns)
    for panel, ax in enumerate(axes.flat):
        if panel >= len(stages):
            ax.set_visible(False)
            continue
        stage = stages[panel]
        cells = {split_niche(niche): gflops for niche, gflops in elites[stage].items()}
        y_labels = sorted({y for y, _ in cells})
        x_labels = sorted({x for _, x in cells})
        grid = np.full((len(y_labels), len(x_labels)), np.nan)
        for (y, x), gflops in cells.items():
            grid[y_labels.index(y), x_labels.index(x)] = gflops
        top = max(cells.values()) or 1.0
        image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=top, aspect="auto")
        figure.colorbar(image, ax=ax, fraction=0.06, pad=0.02)
        small = 7 if len(y_labels) > 8 else 8
        for (row, column), gflops in np.ndenumerate(grid):
            if not np.isnan(gflops):
                ax.text(column, row, f"{gflops:.1f}", ha="center", va="center", fontsize=small,
                        color="white" if gflops < 0.6 * top else "black")
        ax.set_xticks(np.arange(len(x_labels)))
        ax.set_xticklabels(x_labels, fontsize=8)
        ax.set_yticks(np.arange(len(y_labels)))
        ax.set_yticklabels(y_labels, fontsize=small)
        ax.set_title(f"stage {stage}: {len(cells)} niches", fontsize=10)
        if panel % columns == 0:
            ax.set_ylabel("techniques | tile sizes")
        if panel >= len(stages) - columns:
            ax.set_xlabel("loop order")
    figure.suptitle(f"{problem}: quality-diversity archive, each niche's elite GFLOPS (colour scale per stage)")
    figure.tight_layout()
    return save(figure, path)
