"""Reads a reward log (results/README.md) into plain NumPy columns, by column name.

The columns are the file's own, exactly (results/row_fields.hpp writes them): nothing here lists
them. The plots use only columns that every schema has; what needs the columns later schemas
added (the best candidate's techniques, its device) comes from `hpcreward-results summary --json`
(summary.py), whose reader fills the columns an older log lacks. A table an older log lacks reads
as empty. A file that is not a reward log raises LogError with a message that says what is wrong.
"""
import json
from dataclasses import dataclass, field

import h5py
import numpy as np

from .errors import LogError


@dataclass
class Table:
    """Named columns of equal length: text columns as str arrays, numbers as float64."""
    columns: dict = field(default_factory=dict)

    def __len__(self):
        return len(next(iter(self.columns.values()))) if self.columns else 0

    def __getitem__(self, name):
        if name in self.columns:
            return self.columns[name]
        if not self.columns:  # a table the log does not have (an older schema): every column is empty
            return np.zeros(0)
        raise KeyError(f"no column {name!r} in this table (it has {', '.join(self.columns)})")

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

    def problem_kind(self, problem):
        """(language, precision) of `problem`: from the run's problem catalog in the provenance
        (docs/problems.md), else, for logs from before catalogs, from the default catalog's ids."""
        try:
            catalog = json.loads(self.provenance.get("config_json") or "{}").get("problem_catalog") or {}
        except (ValueError, AttributeError):
            catalog = {}
        for entry in catalog.get("problems", []) if isinstance(catalog, dict) else []:
            if isinstance(entry, dict) and entry.get("id") == problem:
                return entry.get("language", "c"), entry.get("precision", "f64")
        precision = "f16" if "hgemm" in problem else "f32" if "sgemm" in problem else "f64"
        return ("cuda" if problem.startswith("cuda-") else "c"), precision

    def blas_reference(self, problem):
        """The BLAS GFLOPS (OpenBLAS on CPU ranks, cuBLAS on GPU ranks) each rank that can score
        `problem` measured at start, sorted; [] when the log does not say."""
        language, precision = self.problem_kind(problem)
        return self._rank_figures("gpu" if language == "cuda" else "cpu", f"peak_gflops_{precision}")

    def yardsticks(self, problem):
        """{library: GFLOPS} the ranks measured at `problem`'s own shape (the rows' yardstick
        columns, schema 6): the median over the problem's rows of each nonzero figure; {} for
        older logs."""
        rows = self.rewards.where(self.rewards["problem"] == problem) if len(self.rewards) else self.rewards
        figures = {}
        for name, label in (("openblas", "OpenBLAS"), ("cublas", "cuBLAS"), ("cublaslt", "cuBLASLt")):
            column = f"{name}_gflops"
            if column in rows.columns:
                measured = rows[column][rows[column] > 0]
                if len(measured):
                    figures[label] = float(np.median(measured))
        return figures

    def plain_sgemm_reference(self, problem):
        """For a CUDA sgemm problem, cuBLAS SGEMM without tensor cores as each GPU rank measured it
        (the reference of kernels that use none), sorted; [] otherwise or when the log does not say."""
        if self.problem_kind(problem) != ("cuda", "f32"):
            return []
        return self._rank_figures("gpu", "sgemm_fp32_gflops")

    def _rank_figures(self, kind, name):
        figures = []
        for host in self.hosts():
            if isinstance(host, dict) and host.get("kind", "cpu") == kind:
                try:
                    figures.append(float(host.get(name) or 0))
                except (TypeError, ValueError):
                    pass
        return sorted(figure for figure in figures if figure > 0)


def _text(values):
    return np.array([value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
                     for value in values], dtype=object)


def _table(dataset):
    """Every column of `dataset` (text decoded, numbers as float64); an empty Table when the log
    has no such dataset."""
    if dataset is None:
        return Table()
    records = dataset[()]
    columns = {}
    for name in records.dtype.names or ():
        kind = records.dtype[name].kind
        columns[name] = _text(records[name]) if kind in "SOU" else records[name].astype(np.float64)
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
            provenance = {name: _attribute_text(value) for name, value in log.attrs.items()
                          if name != "schema_version"}
            schema = int(np.asarray(log.attrs["schema_version"]).item())
            rewards = _table(log["rewards"])
            events = _table(log.get("stage_events"))
            archive = _table(log.get("archive"))
            rank_events = _table(log.get("rank_events"))
        except (OSError, KeyError, ValueError, TypeError) as error:
            raise LogError(f"{path}: a reward log whose records cannot be read ({error}); was its writer killed "
                           "mid-write? see results/README.md, 'A log whose writer died'") from None
        return RunLog(path, schema, rewards, events, archive, rank_events, provenance,
                      "stage_events" in log, "archive" in log)


def read_stage_events(path):
    """The log's /stage_events at this moment; None when the log has none (schema 1)."""
    with open_log(path) as log:
        check_is_reward_log(log, path)
        try:
            return _table(log["stage_events"]) if "stage_events" in log else None
        except (OSError, KeyError, ValueError, TypeError) as error:
            raise LogError(f"{path}: a reward log whose stage events cannot be read ({error})") from None


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
