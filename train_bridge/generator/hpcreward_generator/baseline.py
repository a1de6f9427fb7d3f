"""The BLAS ceiling a search is compared with: what the ranks that score its problem measured at start.

The log's `hosts_json` (results/README.md) lists every benchmark rank with its `kind` (`cpu`:
C problems, `gpu`: CUDA problems) and `peak_gflops_f64`/`f32`/`f16`/`bf16`: OpenBLAS on CPU ranks,
cuBLAS on GPU ranks (for f32 the faster of plain and TF32 cuBLAS), square at the rank's ceiling
size. A search's baseline is the highest of those ranks for its problem's language and precision
(the search's family knows both, from the catalog), as the report's plots and the stage rules
(`best_fraction_of_blas`, against each rank's own) read the same entries. A problem's own
yardsticks at its own shape are on every log row (`cublas_gflops`, ...), not here.
"""
from __future__ import annotations


def blas_baseline(hosts: list[dict], language: str, precision: str) -> dict:
    """{"blas", "blas_peak_gflops_<precision>"} for the ranks of a problem of `language` ("c":
    CPU ranks, "cuda": GPU ranks) and `precision`; {} when the log names none (a log not
    readable here, no rank of that kind, an older log without that precision)."""
    kind = "gpu" if language == "cuda" else "cpu"
    key = f"peak_gflops_{precision}"
    peaks = [float(h.get(key) or 0) for h in hosts if isinstance(h, dict) and h.get("kind", "cpu") == kind]
    peaks = [peak for peak in peaks if peak > 0]
    if not peaks:
        return {}
    return {"blas": "cuBLAS" if kind == "gpu" else "OpenBLAS", f"blas_peak_gflops_{precision}": max(peaks)}


def add_baseline(report: dict, hosts: list[dict], precision: str) -> dict:
    """The report of a search (MapElites.report(), which names its language) of a problem of
    `precision` with its baseline, the ranks it came from (`hosts`) and the best candidate's
    fraction of it (`best_fraction_of_blas`)."""
    baseline = blas_baseline(hosts, report["language"], precision)
    if baseline:
        report.update(baseline)
        report["hosts"] = hosts
        peak = baseline[f"blas_peak_gflops_{precision}"]
        if report.get("best"):
            report["best_fraction_of_blas"] = report["best"]["gflops"] / peak
    # CUDA f32: the ceiling above may be TF32 cuBLAS; GPU ranks also report plain SGEMM.
    if report["language"] == "cuda" and precision == "f32":
        plain = [float(h.get("sgemm_fp32_gflops") or 0) for h in hosts if isinstance(h, dict) and h.get("kind") == "gpu"]
        plain = [value for value in plain if value > 0]
        if plain:
            report["cublas_sgemm_fp32_gflops"] = max(plain)
            if report.get("best"):
                report["best_fraction_of_cublas_sgemm_fp32"] = report["best"]["gflops"] / max(plain)
    return report
