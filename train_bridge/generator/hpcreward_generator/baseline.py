"""The BLAS ceiling a search is compared with: what the ranks that score its problem measured at start.

The log's `hosts_json` (results/README.md) lists every benchmark rank with its `kind` (`cpu`:
C problems, `gpu`: CUDA problems) and `peak_gflops_f64`/`f32`/`f16`: OpenBLAS on CPU ranks,
cuBLAS on GPU ranks (for f32 the faster of plain and TF32 cuBLAS). A search's baseline is the
highest of those ranks for its problem's precision, as the report's plots and the stage rules
(`best_fraction_of_blas`, against each rank's own) read the same entries.
"""
from __future__ import annotations


def precision_of(problem: str) -> str:
    return "f16" if "hgemm" in problem else "f32" if "sgemm" in problem else "f64"


def blas_baseline(hosts: list[dict], problem: str) -> dict:
    """{"blas", "blas_peak_gflops_<precision>"} for the ranks of `problem`'s kind; {} when the
    log names none (a log not readable here, no rank of that kind, an older log)."""
    kind = "gpu" if problem.startswith("cuda-") else "cpu"
    key = f"peak_gflops_{precision_of(problem)}"
    peaks = [float(h.get(key) or 0) for h in hosts if isinstance(h, dict) and h.get("kind", "cpu") == kind]
    peaks = [peak for peak in peaks if peak > 0]
    if not peaks:
        return {}
    return {"blas": "cuBLAS" if kind == "gpu" else "OpenBLAS", f"blas_peak_gflops_{precision_of(problem)}": max(peaks)}


def add_baseline(report: dict, hosts: list[dict]) -> dict:
    """The report of a search (MapElites.report()) with its baseline, the ranks it came from
    (`hosts`) and the best candidate's fraction of it (`best_fraction_of_blas`)."""
    baseline = blas_baseline(hosts, report["problem"])
    if baseline:
        report.update(baseline)
        report["hosts"] = hosts
        peak = baseline[f"blas_peak_gflops_{precision_of(report['problem'])}"]
        if report.get("best"):
            report["best_fraction_of_blas"] = report["best"]["gflops"] / peak
    # CUDA sgemm: the ceiling above may be TF32 cuBLAS; GPU ranks also report plain SGEMM.
    if report["problem"].startswith("cuda-sgemm"):
        plain = [float(h.get("sgemm_fp32_gflops") or 0) for h in hosts if isinstance(h, dict) and h.get("kind") == "gpu"]
        plain = [value for value in plain if value > 0]
        if plain:
            report["cublas_sgemm_fp32_gflops"] = max(plain)
            if report.get("best"):
                report["best_fraction_of_cublas_sgemm_fp32"] = report["best"]["gflops"] / max(plain)
    return report
