"""Checks a reward log through h5py, as a user watching a run would read it.

usage: check_log_h5py.py LOG.h5 EXPECTED.json

The schema below is written out on purpose rather than derived from the C++ code: it is the
contract h5py users depend on (results/reward_row.hpp), so a change there must break this.
"""
import json
import sys

import h5py
import numpy as np

REWARDS_SCHEMA = [
    ("candidate_id", "S64"), ("batch_id", "S64"), ("problem", "S32"), ("stage", "S32"),
    ("status", "S24"), ("reason", "S256"),
    ("reward", "<f8"), ("gflops", "<f8"), ("median_s", "<f8"), ("min_s", "<f8"),
    ("iqr_s", "<f8"), ("cv", "<f8"), ("reps", "<i4"), ("max_error", "<f8"),
    ("compile_s", "<f8"), ("verify_s", "<f8"), ("time_s", "<f8"),
    ("source_sha256", "S64"), ("rank", "<i4"), ("host", "S64"), ("time", "<f8"),
    ("seed", "<u8"),
    ("techniques", "S32"), ("loop_order", "S8"), ("tile_sizes", "S32"), ("archive", "S16"),
    ("device", "S64"),
    ("measurement_key", "S64"), ("measured_as", "S64"), ("measured_batch", "S64"),
    ("openblas_gflops", "<f8"), ("cublas_gflops", "<f8"), ("cublaslt_gflops", "<f8"),
    ("feedback", "S512"), ("episode", "S64"), ("turn", "<i4"),
]
STAGE_EVENTS_SCHEMA = [
    ("problem", "S32"), ("from", "S32"), ("to", "S32"), ("rule", "S32"), ("detail", "S256"),
    ("time", "<f8"), ("rows_before", "<u8"),
]
ARCHIVE_SCHEMA = [
    ("problem", "S32"), ("stage", "S32"), ("niche", "S64"), ("change", "S16"),
    ("candidate_id", "S64"), ("batch_id", "S64"), ("gflops", "<f8"), ("source_sha256", "S64"),
    ("previous_candidate_id", "S64"), ("previous_gflops", "<f8"), ("time", "<f8"),
    ("row_index", "<u8"),
]
RANK_EVENTS_SCHEMA = [
    ("time", "<f8"), ("rank", "<i4"), ("host", "S64"), ("event", "S32"), ("reason", "S512"),
]
SOURCES_SCHEMA = [("sha256", "S64"), ("offset", "<u8"), ("length", "<u8")]
PROVENANCE_TEXT = ["created_utc", "git_revision", "config_json", "hosts_json",
                   "compiler_version", "blas_version", "mpi_version", "hdf5_version", "seed"]

failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def dtype_schema(dtype):
    return [(name, dtype.fields[name][0].str.replace("|", "")) for name in dtype.names]


def check_records(log, name, schema, expected_records):
    """An extendible, chunked compound dataset with exactly `schema`, holding the records."""
    dataset = log[name]
    expect(dataset.maxshape == (None,), f"/{name} is not extendible: {dataset.maxshape}")
    expect(dataset.chunks is not None, f"/{name} is not chunked")
    expect(dtype_schema(dataset.dtype) == schema, f"/{name} fields: {dtype_schema(dataset.dtype)}")
    records = dataset[:]
    expect(len(records) == len(expected_records),
           f"/{name}: {len(records)} records, expected {len(expected_records)}")
    for i, (record, want) in enumerate(zip(records, expected_records)):
        for field, value in want.items():
            got = record[field]
            got = got.decode("utf-8") if isinstance(got, bytes) else got.item()
            expect(got == value, f"/{name} {i} {field}: {got!r} != {value!r}")


def main(log_path, expected_path):
    with open(expected_path, encoding="utf-8") as f:
        expected = json.load(f)

    with h5py.File(log_path, "r", swmr=True) as log:
        expect(log.swmr_mode, "the file did not open in SWMR mode")

        attrs = log.attrs
        for name, value in expected["provenance"].items():
            expect(attrs[name] == value, f"attribute {name}: {attrs[name]!r} != {value!r}")
        expect(isinstance(attrs["schema_version"], np.integer), "schema_version is not an integer")
        for name in PROVENANCE_TEXT:
            expect(isinstance(attrs[name], str), f"attribute {name} does not read as str")

        check_records(log, "rewards", REWARDS_SCHEMA, expected["rows"])
        check_records(log, "stage_events", STAGE_EVENTS_SCHEMA, expected["stage_events"])
        check_records(log, "archive", ARCHIVE_SCHEMA, expected["archive"])
        check_records(log, "rank_events", RANK_EVENTS_SCHEMA, expected["rank_events"])

        sources = log["sources"]
        expect(dtype_schema(sources.dtype) == SOURCES_SCHEMA,
               f"/sources fields: {dtype_schema(sources.dtype)}")
        index = {entry["sha256"].decode(): (int(entry["offset"]), int(entry["length"]))
                 for entry in sources[:]}
        expect(len(index) == len(sources), "a hash is stored twice in /sources")
        expect(set(index) == set(expected["sources"]),
               f"/sources holds {sorted(index)}, expected {sorted(expected['sources'])}")
        text = log["source_text"]
        expect(text.dtype == np.uint8, f"/source_text is {text.dtype}, not uint8")
        for sha, source in expected["sources"].items():
            if sha in index:
                offset, length = index[sha]
                got = text[offset:offset + length].tobytes().decode("utf-8")
                expect(got == source, f"source {sha}: {got!r} != {source!r}")
        expect(len(text) == sum(len(s.encode()) for s in expected["sources"].values()),
               "/source_text holds more than each source once")

    for failure in failures:
        print(f"check_log_h5py: {log_path}: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
