"""report.md of the benchmark suite (suite.py): each figure with what it is, how it was measured,
its target and whether this run met it."""


def fmt(value, digits=2):
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def met(value, test):
    if value is None:
        return "not measured"
    return "met" if test(value) else "NOT met"


# field -> (what and how, target text, target test or None)
FIGURES = [
    ("candidates_per_s_per_core", "hpcreward, 1 CPU rank pinned to one core with its coordinator "
     "(`taskset -c CPU jobs/local.sh --np 1 --candidates mixed.jsonl`), steady state: (rows - 1) / "
     "(last row's write time - first's) in the log; median of the pairs", "at least the baseline", None),
    ("baseline_candidates_per_s_per_core", "the plain loop (plain_loop.py) on the same core and corpus, "
     "the same steady-state measure; hostile lines skipped", "(the bar)", None),
    ("mixed_throughput_ratio", "hpcreward / plain loop, steady state, mixed corpus", ">= 1.0",
     lambda v: v >= 1.0),
    ("candidates_per_s_per_core_with_startup", "as above, candidates / wall seconds from launch to exit "
     "(mpirun and rank start-up, peak measurement)", "(information)", None),
    ("baseline_candidates_per_s_per_core_with_startup", "plain loop, candidates / wall seconds", "(information)",
     None),
    ("repeat_corpus_speedup", "GRPO-like corpus (a quarter of the completions repeat an earlier one): "
     "hpcreward / plain loop, steady state, one core each", ">= 1.5", lambda v: v >= 1.5),
    ("repeat_corpus_speedup_with_startup", "the same with start-up included", "(information)", None),
    ("dispatch_us_per_candidate", "coordinator CPU time per dispatched candidate (dispatch_bench.py)",
     "(see dispatch_bench)", None),
    ("rss_ratio_100k_10k", "coordinator RSS after 100k candidates / after 10k (dispatch_bench.py)",
     "(see dispatch_bench)", None),
    ("idle_cpu_percent", "coordinator CPU while idle (dispatch_bench.py)", "(see dispatch_bench)", None),
    ("stages_p99_ms", "p99 latency of GET /v1/stages while batches score (endpoint_load.py)", "<= 50 ms",
     lambda v: v <= 50.0),
    ("fidelity_max_error", "largest |pipeline / standalone - 1| over the fidelity set (hpcreward-fidelity)",
     "<= 0.05", lambda v: v <= 0.05),
    ("timing_cv", "CV of repeated scorings of ikj.c -O3 (hpcreward-fidelity; 10 in full and quick)", "<= 0.03",
     lambda v: v <= 0.03),
    ("saturation_ranks", "ranks at which one coordinator saturates in the scale simulation (scale_sim.py, "
     "docs/reports/scale.md's definition: coordinator busy 80%, or throughput growing less than half as fast as ranks); "
     "null: not within the sweep (saturation_sweep_max_ranks)", "(information)", None),
]


def throughput_table(name, t):
    lines = [f"\n### {name}: {t['corpus']}, core {t['cpu']}, {t['pairs']} interleaved pair(s)\n",
             "| run | candidates | wall s | first result after s | per s with start-up | per s steady | statuses |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for who in ("hpcreward", "plain_loop"):
        for i, run in enumerate(t[who]):
            extra = f" (skipped {run['skipped_pipeline_only']} hostile)" if run.get("skipped_pipeline_only") else ""
            lines.append(f"| {who} {i} | {run['candidates']}{extra} | {fmt(run['wall_s'], 1)} | "
                         f"{fmt(run.get('first_result_after_s'), 1)} | "
                         f"{fmt(run['per_s_with_startup'])} | {fmt(run['per_s_steady'])} | "
                         f"{' '.join(f'{k}={v}' for k, v in sorted(run['statuses'].items()))} |")
    lines.append(f"\nPer-pair ratios (steady): {', '.join(fmt(r) for r in t['pair_ratios_per_s_steady'])}.")
    if t["status_disagreements"]:
        lines.append(f"Status disagreements (hpcreward vs plain loop): {t['status_disagreements']}")
    return "\n".join(lines)


def render(bench, details):
    m = bench["machine"]
    out = [f"# hpcreward benchmark suite ({bench['mode']})\n",
           f"Machine: {m['cpu_model']}, {m['cpus']} CPUs, {m['memory_gib']} GiB, Linux {m['kernel']} ({m['host']}), "
           f"load average {m['load_average_at_start']} at the start. "
           f"Git revision {bench['git_revision']}. Started {bench['started_utc']}.\n",
           "Caveats: on a small shared virtual machine timings are noisy; compare the ratios, which are "
           "measured interleaved (hpcreward, plain loop, hpcreward, ...) in one run on the same core, not "
           "absolute rates across runs. The target for throughput is judged on the steady-state rate: an RL "
           "run keeps the pipeline up for hours, so start-up is paid once per run, not per candidate.\n",
           "## Figures\n", "| field | value | target | verdict | what, how |", "| --- | ---: | --- | --- | --- |"]
    for field, how, target, test in FIGURES:
        value = bench.get(field)
        verdict = met(value, test) if test else ("not measured" if value is None else "")
        out.append(f"| `{field}` | {fmt(value, 3)} | {target} | {verdict} | {how} |")
    if bench["errors"]:
        out.append("\n## Errors\n")
        out += [f"- **{name}**: {message}" for name, message in bench["errors"].items()]
    out.append("\n## Details")
    for name in ("throughput_mixed", "throughput_grpo"):
        if name in details:
            out.append(throughput_table(name, details[name]))
    if "fidelity" in details:
        f = details["fidelity"]
        out.append(f"\n### fidelity ({f['rounds']} round(s), {f['repeats']} scorings)\n")
        out += [f"- {name}: pipeline / standalone {ratio:.3f}" for name, ratio in f["ratios"].items()]
    if "endpoint" in details:
        e = details["endpoint"]
        out.append(f"\n### endpoint\n\n{e['clients']} clients, {e['idle_connections']} idle connections, "
                   f"{e['benchmark_ranks']} rank(s): {e['requests_answered']}/{e['requests_sent']} answered; "
                   f"/v1/stages while scoring {e['stages_while_scoring']}")
    if "scale" in details:
        s = details["scale"]
        out.append(f"\n### scale simulation\n\nsweep {s['sweep']} ranks; peak {fmt(s['peak_per_s'], 0)} candidates/s")
    out.append(f"\nSeconds per part: {bench['seconds']}\n")
    return "\n".join(out) + "\n"
