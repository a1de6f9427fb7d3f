"""One self-contained HTML file for a run: plots embedded as data: URIs, styles inline, no script,
nothing fetched, so it opens offline in any browser and can be mailed as is."""
import base64
import datetime
import html
import json
import os
import tempfile

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import CLexer, CudaLexer

from .log import read_sources
from .plots import write_plots

# The ids of the report's sections (the tests look for each).
SECTIONS = ["summary", "plots", "stage-events", "best-candidates", "rank-events", "provenance"]

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1320px; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; border: 1px solid #ddd; }
pre.provenance { background: #f7f7f7; padding: 1em; overflow-x: auto; font-size: 0.85em; }
.highlight pre { padding: 0.8em; overflow-x: auto; font-size: 0.85em; border: 1px solid #ddd; }
nav a { margin-right: 1em; }
"""


def utc(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def table(headers, rows, numeric=()):
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(
        f'<td class="number">{html.escape(str(cell))}</td>' if index in numeric else f"<td>{html.escape(str(cell))}</td>"
        for index, cell in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def summary_section(summary):
    """The table `hpcreward-results summary` prints, cell by cell (summary.py)."""
    columns, rows = summary["table"]["columns"], summary["table"]["rows"]
    numeric = [index for index, column in enumerate(columns) if column["align"] == "right"]
    return table([column["header"] for column in columns], rows, numeric=numeric)


def plots_section(log):
    parts = []
    with tempfile.TemporaryDirectory(prefix="hpcreward-report-") as folder:
        for title, path in write_plots(log, folder):
            with open(path, "rb") as png:
                data = base64.b64encode(png.read()).decode("ascii")
            parts.append(f'<figure><img alt="{html.escape(title)}" src="data:image/png;base64,{data}">'
                         f"<figcaption>{html.escape(title)} ({html.escape(os.path.basename(path))})</figcaption></figure>")
    return "".join(parts)


def stage_events_section(log):
    if not log.has_stage_events:
        return "<p>This log has no stage events (schema 1).</p>"
    events = log.stage_events
    if len(events) == 0:
        return "<p>No problem changed stage.</p>"
    rows = [[utc(events["time"][i]), events["problem"][i], f"{events['from'][i]} \u2192 {events['to'][i]}",
             events["rule"][i], events["detail"][i], int(events["rows_before"][i])] for i in range(len(events))]
    return table(["time (UTC)", "problem", "from \u2192 to", "rule", "detail", "rows before"], rows, numeric=(5,))


def best_candidates_section(log, summary):
    """The fastest verified candidate of each problem and stage (the summary's best rows), its
    measurement and its source, highlighted."""
    stages = [stage for stage in summary["stages"] if stage["best"]]
    if not stages:
        return "<p>No verified candidate.</p>"
    sources = read_sources(log.path, [stage["best"]["source_sha256"] for stage in stages])
    formatter = HtmlFormatter(cssclass="highlight")
    parts = [f"<style>{formatter.get_style_defs('.highlight')}</style>"]
    for stage in stages:
        row, techniques = stage["best"], stage["best_techniques"]
        parts.append(f"<h3>{html.escape(row['problem'])}, stage {html.escape(row['stage'])}: "
                     f"{html.escape(row['candidate_id'])}, {row['gflops']:.2f} GFLOPS</h3>"
                     f"<p>batch {html.escape(row['batch_id'])}, CV {100 * (row['cv'] or 0):.2f}%, "
                     f"{int(row['reps'])} timed calls, rank {int(row['rank'])} on "
                     f"{html.escape(row['host'])}{', ' + html.escape(techniques) if techniques else ''}; "
                     f"source sha256 <code>{html.escape(row['source_sha256'])}</code></p>")
        source = sources.get(row["source_sha256"])
        if source is None:
            parts.append("<p>Its source is not in the log.</p>")
        else:
            lexer = CudaLexer() if log.problem_kind(row["problem"])[0] == "cuda" else CLexer()
            parts.append(highlight(source, lexer, formatter))
    return "".join(parts)


def rank_events_section(log):
    events = log.rank_events
    if len(events) == 0:
        return "<p>No benchmark rank was lost.</p>"
    rows = [[utc(events["time"][i]), int(events["rank"][i]), events["host"][i], events["event"][i], events["reason"][i]]
            for i in range(len(events))]
    return table(["time (UTC)", "rank", "host", "event", "reason"], rows, numeric=(1,))


def provenance_section(log):
    nested = {}
    for name, value in log.provenance.items():
        try:
            nested[name] = json.loads(value) if name.endswith("_json") else value
        except ValueError:
            nested[name] = value
    nested = {"schema_version": log.schema_version, **nested}
    return f'<pre class="provenance">{html.escape(json.dumps(nested, indent=2, ensure_ascii=False))}</pre>'


def write_report(log, summary, path):
    """Writes the report of `log` (log.py) and its `summary` (summary.py) to `path`."""
    titles = {"summary": "Summary", "plots": "Plots", "stage-events": "Stage events",
              "best-candidates": "Best candidate of each stage", "rank-events": "Lost benchmark ranks",
              "provenance": "Provenance"}
    builders = {"summary": lambda: summary_section(summary), "plots": lambda: plots_section(log),
                "stage-events": lambda: stage_events_section(log),
                "best-candidates": lambda: best_candidates_section(log, summary),
                "rank-events": lambda: rank_events_section(log), "provenance": lambda: provenance_section(log)}
    nav = "".join(f'<a href="#{name}">{titles[name]}</a>' for name in SECTIONS)
    body = "".join(f'<section id="{name}"><h2>{titles[name]}</h2>{builders[name]()}</section>' for name in SECTIONS)
    created = log.provenance.get("created_utc", "")
    heading = (f"<h1>hpcreward run: {html.escape(os.path.basename(os.path.dirname(os.path.abspath(log.path))))}</h1>"
               f"<p>{html.escape(os.path.abspath(log.path))}, schema {log.schema_version}, started {html.escape(created)}, "
               f"{len(log.rewards)} candidates scored; report written {utc(datetime.datetime.now().timestamp())} UTC</p>")
    document = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>hpcreward report</title>'
                f"<style>{STYLE}</style></head><body>{heading}<nav>{nav}</nav>{body}</body></html>\n")
    temporary = f"{path}.partial"
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(document)
    os.replace(temporary, path)  # a reader never sees half a report
    return path
