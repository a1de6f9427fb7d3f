"""Reads a reward log (results/README.md) into plain NumPy columns, by column name.

Columns a log's schema lacks (schema 1 has no techniques, ...; a later schema may add columns)
read as empty strings or zeros, so every caller sees the same names whatever wrote the file.
A file that is not a reward log raises LogError with a message that says what is wrong.
"""
import json
from dataclasses import dataclass, field

import h5py
import numpy as np


class LogError(Exception):
    """The file cannot be read as a reward log; the message says why and what to do."""


REWARD_TEXT = ["candidate_id", "batch_id", "problem", "stage", "status", "reason", "source_sha256", "host",
               "techniques", "loop_order", "tile_sizes", "archive", "device"]
REWARD_NUMBERS = ["reward", "gflops", "median_s", "min_s", "iqr_s", "cv", "reps", "max_error", "compile_s",
                  "verify_s", "time_s", "rank", "time"]
STAGE_EVENT_TEXT = ["problem", "from", "to", "rule", "detail"]
STAGE_EVENT_NUMBERS = ["time", "rows_before"]
ARCHIVE_TEXT = ["problem", "stage", "niche", "change", "candidate_id", "batch_id", "source_sha256",
                "previous_candidate_id"]
ARCHIVE_NUMBERS = ["gflops", "previous_gflops", "time", "row_index"]
RANK_EVENT_TEXT = ["host", "event", "reason"]
RANK_EVENT_NUMBERS = ["time", "rank"]
PROVENANCE_TEXT = ["created_utc", "git_revision", "config_json", "hosts_json", "compiler_version",
                   "blas_version", "mpi_version", "hdf5_version", "seed"]


@dataclass
class Table:
    """Named columns of equal length: text columns as str arrays, numbers as float64."""
    columns: dict = field(default_factory=dict)

    def __len__(self):
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def __getitem__(self, name):
        return self.columns[name]

    def where(self, mask):
        return Table({name: values[mask] for name, values in self.columns.items()})


@dataclass
class RunLog:
    path: str
    schema_version: int
    rewards: Table
    stage_events: Table
    archive: Table
    rank_events: Table
    provenance: dict
    has_stage_events: bool
    has_archive: bool

    def hosts(self):
        """The benchmark ranks as recorded at start (hosts_json), [] if absent or unreadable."""
        try:
            hosts = json.loads(self.provenance.get("hosts_json") or "[]")
        except ValueError:
            return []
        return hosts if isinstance(hosts, list) else []

    def blas_reference(self, problem):
        """The BLAS GFLOPS (OpenBLAS on CPU ranks, cuBLAS on GPU ranks) each rank that can score
        `problem` measured at start, sorted; [] when the log does not say."""
        precision = "f16" if "hgemm" in problem else "f32" if "sgemm" in problem else "f64"
        kind = "gpu" if problem.startswith("cuda-") else "cpu"
        peaks = []
        for host in self.hosts():
            if isinstance(host, dict) and host.get("kind", "cpu") == kind:
                try:
                    peaks.append(float(host.get(f"peak_gflops_{precision}") or 0))
                except (TypeError, ValueError):
                    pass
        return sorted(peak for peak in peaks if peak > 0)


def _text(values):
    return np.array([value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                     for value in values], dtype=object)


def _table(dataset, text_names, number_names):
    records = dataset[()] if dataset is not None else None
    names = set(records.dtype.names or ()) if records is not None else set()
    count = len(records) if records is not None else 0
    columns = {}
    for name in text_names:
        columns[name] = _text(records[name]) if name in names else np.full(count, "", dtype=object)
    for name in number_names:
        columns[name] = records[name].astype(np.float64) if name in names else np.zeros(count)
    return Table(columns)


def _attribute_text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.size == 1:
        return _attribute_text(value.item())
    return str(value)


def open_log(path):
    """Opens `path` for reading through SWMR (also while a run writes it); LogError if it cannot."""
    try:
        return h5py.File(path, "r", swmr=True, locking=False)
    except FileNotFoundError:
        raise LogError(f"{path}: no such file") from None
    except (OSError, ValueError) as error:
        if not h5py.is_hdf5(path):
            raise LogError(f"{path}: not an HDF5 file, so not a reward log (an hpcreward run writes DIR/rewards.h5)"
                           ) from None
        raise LogError(f"{path}: HDF5 cannot open it ({error}); if its writer was killed, the log may be damaged: "
                       "see results/README.md, 'A log whose writer died'") from None


def check_is_reward_log(log, path):
    if "schema_version" not in log.attrs or "rewards" not in log:
        raise LogError(f"{path}: an HDF5 file but not a reward log (no schema_version attribute or /rewards "
                       "dataset)")


def read_log(path):
    """The whole log at this moment."""
    with open_log(path) as log:
        check_is_reward_log(log, path)
        try:
            provenance = {name: _attribute_text(log.attrs[name]) for name in PROVENANCE_TEXT if name in log.attrs}
            schema = int(np.asarray(log.attrs["schema_version"]).item())
            rewards = _table(log["rewards"], REWARD_TEXT, REWARD_NUMBERS)
            events = _table(log.get("stage_events"), STAGE_EVENT_TEXT, STAGE_EVENT_NUMBERS)
            archive = _table(log.get("archive"), ARCHIVE_TEXT, ARCHIVE_NUMBERS)
            rank_events = _table(log.get("rank_events"), RANK_EVENT_TEXT, RANK_EVENT_NUMBERS)
        except (OSError, KeyError, ValueError, TypeError) as error:
            raise LogError(f"{path}: a reward log whose records cannot be read ({error}); was its writer killed "
                           "mid-write? see results/README.md, 'A log whose writer died'") from None
        return RunLog(path, schema, rewards, events, archive, rank_events, provenance,
                      "stage_events" in log, "archive" in log)


def read_sources(path, hashes):
    """{sha256: source text} for the hashes asked for that the log stores."""
    wanted = {h for h in hashes if h}
    found = {}
    if not wanted:
        return found
    with open_log(path) as log:
        if "sources" not in log or "source_text" not in log:
            return found
        text = log["source_text"]
        for entry in log["sources"][()]:
            sha = entry["sha256"].decode()
            if sha in wanted:
                start, length = int(entry["offset"]), int(entry["length"])
                found[sha] = text[start:start + length].tobytes().decode("utf-8", "replace")
    return found
