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


MAX_ROWS = 36  # more rows than this in one panel would not be legible: the fastest are kept


def panel_cells(niches):
    """{(row label, column label): gflops} of one stage, and how many rows were left out."""
    cells = {split_niche(niche): gflops for niche, gflops in niches.items()}
    best_per_row = {}
    for (row, _), gflops in cells.items():
        best_per_row[row] = max(gflops, best_per_row.get(row, 0.0))
    kept = set(sorted(best_per_row, key=lambda row: -best_per_row[row])[:MAX_ROWS])
    return {key: value for key, value in cells.items() if key[0] in kept}, len(best_per_row) - len(kept)


def arrange(stages, rows_of):
    """Stages into at most three columns of about equal rows (the largest first, each to the
    lightest column), each column in ladder order: a stage with many niches gets a tall panel."""
    columns = [[] for _ in range(min(3, len(stages)))]
    load = [0] * len(columns)
    for stage in sorted(stages, key=lambda s: -rows_of[s]):
        lightest = load.index(min(load))
        columns[lightest].append(stage)
        load[lightest] += rows_of[stage] + 3  # a panel's title and axis cost about three rows
    ordered = [sorted(column, key=stages.index) for column in columns]
    return sorted(ordered, key=lambda column: stages.index(column[0]))  # read left to right, up the ladder


def draw_panel(figure, ax, stage, cells, left_out, first_column, last_in_column, niches):
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
    more = f"\n({len(cells)} in the {len(y_labels)} fastest rows)" if left_out else ""  # one line would overrun
    ax.set_title(f"stage {stage}: {niches} niche{'' if niches == 1 else 's'}{more}", fontsize=10)
    if first_column:
        ax.set_ylabel("techniques | tile sizes")
    if last_in_column:
        ax.set_xlabel("loop order")


def plot_archive_map(log, problem, path):
    elites = current_elites(log.archive, problem)
    if not elites:
        figure, axes = new_figure()
        reason = "this log has no archive (schema 1)" if not log.has_archive else "no niche opened yet"
        note_no_data(axes[0][0], f"{problem}: {reason}")
        axes[0][0].set_title(f"{problem}: quality-diversity archive")
        return save(figure, path)
    stages = list(elites)
    panels = {stage: panel_cells(elites[stage]) for stage in stages}
    rows_of = {stage: len({y for y, _ in panels[stage][0]}) for stage in stages}
    layout = arrange(stages, rows_of)
    figure, axes = new_figure()
    axes[0][0].remove()
    outer = figure.add_gridspec(1, len(layout))
    for index, column in enumerate(layout):
        inner = outer[0, index].subgridspec(len(column), 1, height_ratios=[rows_of[s] + 3 for s in column])
        for position, stage in enumerate(column):
            cells, left_out = panels[stage]
            draw_panel(figure, figure.add_subplot(inner[position, 0]), stage, cells, left_out,
                       index == 0, position == len(column) - 1, len(elites[stage]))
    figure.suptitle(f"{problem}: quality-diversity archive, each niche's elite GFLOPS (colour scale per stage)")
    figure.tight_layout()
    return save(figure, path)
