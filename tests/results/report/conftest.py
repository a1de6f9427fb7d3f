"""Fixtures for the tests of hpcreward_report: logs written by the real writer
(results_report_log_writer), h5py-written logs of other kinds, and a runner for hpcreward-results."""
import os
import pathlib
import struct
import subprocess
import sys

import h5py
import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "results" / "python"))

WIDTH_PX, HEIGHT_PX = 1280, 720  # results/README.md: the size of every PNG


def tool():
    return os.environ.get("HPCREWARD_RESULTS_TOOL", str(REPO / "build" / "bin" / "hpcreward-results"))


def writer():
    return os.environ.get("HPCREWARD_REPORT_LOG_WRITER", str(REPO / "build" / "tests" / "results" /
                                                               "results_report_log_writer"))


def results(*args, env=None):
    return subprocess.run([tool(), *map(str, args)], capture_output=True, text=True, timeout=120, env=env)


def write_log(path, rows, delay_ms=0, die=False):
    command = [writer(), str(path), str(rows), str(delay_ms)] + (["--die"] if die else [])
    subprocess.run(command, check=True, capture_output=True, timeout=60) if not die else \
        subprocess.run(command, capture_output=True, timeout=60)
    return path


@pytest.fixture(scope="session")
def run_log(tmp_path_factory):
    """A finished log of 40 rows: two problems, each with one stage change."""
    return write_log(tmp_path_factory.mktemp("run") / "rewards.h5", 40)


def png_size(path):
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def drawn_fraction(path):
    """The fraction of pixels that are not the white background."""
    import matplotlib.image
    pixels = matplotlib.image.imread(path)[..., :3]
    return float(np.mean(np.any(pixels < 0.95, axis=-1)))


def write_schema1_log(path, schema=1, extra_columns=()):
    """A log as schema 1 wrote it: /rewards without techniques, loop_order, tile_sizes, archive and
    device, no /stage_events or /archive. `extra_columns` [(name, dtype)] stand for columns a later
    schema adds, which readers must ignore."""
    dtype = [("candidate_id", "S64"), ("batch_id", "S64"), ("problem", "S32"), ("stage", "S32"),
             ("status", "S24"), ("reason", "S256"), ("reward", "<f8"), ("gflops", "<f8"), ("median_s", "<f8"),
             ("min_s", "<f8"), ("iqr_s", "<f8"), ("cv", "<f8"), ("reps", "<i4"), ("max_error", "<f8"),
             ("compile_s", "<f8"), ("verify_s", "<f8"), ("time_s", "<f8"), ("source_sha256", "S64"),
             ("rank", "<i4"), ("host", "S64"), ("time", "<f8"), ("seed", "<u8")] + list(extra_columns)
    rows = np.zeros(12, dtype=dtype)
    for n in range(12):
        ok = n % 4 != 3
        rows[n]["candidate_id"] = f"old{n}".encode()
        rows[n]["batch_id"] = f"b{n // 4}".encode()
        rows[n]["problem"] = b"dgemm-256"
        rows[n]["stage"] = b"o3"
        rows[n]["status"] = b"ok" if ok else b"wrong_answer"
        rows[n]["gflops"] = 2.0 + n if ok else 0.0
        rows[n]["reward"] = rows[n]["gflops"] if ok else -10.0
        rows[n]["cv"] = 0.02
        rows[n]["time"] = 1700000000.0 + 5 * n
    with h5py.File(path, "w") as log:
        log.attrs["schema_version"] = np.int32(schema)
        log.attrs["created_utc"] = "2024-01-01T00:00:00Z"
        log.create_dataset("rewards", data=rows, maxshape=(None,), chunks=True)
    return path
