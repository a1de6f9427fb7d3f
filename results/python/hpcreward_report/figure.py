"""What every plot shares: the size of the PNGs, saving, the status colours, an empty-plot notice."""
import matplotlib

matplotlib.use("Agg")  # files only: no display needed, none used
import matplotlib.pyplot as plt  # noqa: E402

# Every PNG is WIDTH_PX x HEIGHT_PX (results/README.md documents it; the tests check it).
WIDTH_PX, HEIGHT_PX, DPI = 1280, 720, 100

# Fixed colours per status, so one status looks the same in every picture.
STATUS_COLOURS = {
    "ok": "#2ca02c", "wrong_answer": "#ff7f0e", "runtime_error": "#d62728", "timeout": "#9467bd",
    "compile_error": "#8c564b", "constraint_violation": "#e377c2", "forbidden": "#000000",
    "format_error": "#7f7f7f",
}
STATUS_ORDER = list(STATUS_COLOURS)


def new_figure(rows=1, columns=1, **options):
    figure, axes = plt.subplots(rows, columns, figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI,
                                squeeze=False, **options)
    return figure, axes


def status_colour(status):
    return STATUS_COLOURS.get(status, "#17becf")


def ordered_statuses(statuses):
    known = [s for s in STATUS_ORDER if s in statuses]
    return known + sorted(s for s in statuses if s not in STATUS_COLOURS)


def note_no_data(axes, message):
    """An empty log still gets its picture: the axes say why there is nothing on them."""
    axes.text(0.5, 0.5, message, ha="center", va="center", fontsize=14, color="#555555",
              transform=axes.transAxes, wrap=True)
    axes.set_xticks([])
    axes.set_yticks([])


def save(figure, path):
    # No bbox_inches="tight": it would change the size from the documented one.
    figure.savefig(path, dpi=DPI, format="png")
    plt.close(figure)
    return path


def stage_label(problem, stage):
    return f"{problem}\n{stage}"


def stage_keys(rewards):
    """(problem, stage) pairs grouped by problem, problems and each problem's stages in the order
    the run first scored them (a ladder's order, as long as stages are climbed)."""
    seen = {}
    for problem, stage in zip(rewards["problem"], rewards["stage"]):
        seen.setdefault(problem, {}).setdefault(stage, None)
    return [(problem, stage) for problem, stages in seen.items() for stage in stages]


def verified_by_stage(log, axes):
    """The verified (ok) rows and their (problem, stage) pairs; with none, `axes` says so."""
    ok = log.rewards.where(log.rewards["status"] == "ok")
    keys = stage_keys(ok)
    if not keys:
        note_no_data(axes, "no verified (ok) candidate yet, nothing to plot")
    return ok, keys
