"""hpcreward-replay: sends a JSON Lines candidate file to a served pipeline, batch by batch.

The file has the format of jobs/local.sh --candidates: one object a line with id, problem,
stage?, batch_id?, and source or completion. Consecutive lines with the same batch_id form one
batch; lines without one are grouped by --batch-size into batches named <file stem>-<n>.
Batch ids are stable, so replaying the same file again is answered from the log, not re-scored.
Exit status: 0 when every line was scored; 1 when a line was unusable or a batch refused; 2 for
bad arguments, a refused token or an unreachable coordinator (batches sent before stay scored).
"""
import argparse
import collections
import json
import pathlib
import sys
import time

from .client import Client
from .errors import AuthError, HpcrewardError, RequestError

Batch = collections.namedtuple("Batch", "batch_id candidates")


def read_batches(path, batch_size, default_problem="dgemm-256", stem=None):
    """(batches, problems): the batches of the file, and one message per unusable line."""
    stem = stem or pathlib.Path(path).stem
    batches, problems = [], []
    auto = 0
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except ValueError as error:
                problems.append(f"line {number}: not JSON ({error})")
                continue
            message = _check(item)
            if message:
                problems.append(f"line {number}: {message}")
                continue
            candidate = {"id": item["id"], "problem": item.get("problem") or default_problem}
            for field in ("source", "completion", "stage"):
                if item.get(field) is not None:
                    candidate[field] = item[field]
            batch_id = item.get("batch_id")
            last = batches[-1] if batches else None
            if batch_id is not None:
                if last is not None and last.batch_id == batch_id:
                    last.candidates.append(candidate)
                else:
                    batches.append(Batch(batch_id, [candidate]))
            else:
                if last is not None and last.batch_id == f"{stem}-{auto}" and len(last.candidates) < batch_size:
                    last.candidates.append(candidate)
                else:
                    auto += 1
                    batches.append(Batch(f"{stem}-{auto}", [candidate]))
    seen = set()
    for batch in batches:
        if batch.batch_id in seen:
            problems.append(f"batch id {batch.batch_id} appears on lines that are not consecutive; "
                            "its second part will be refused (409)")
        seen.add(batch.batch_id)
    return batches, problems


def _check(item):
    if not isinstance(item, dict):
        return "not a JSON object"
    if not isinstance(item.get("id"), str) or not item["id"]:
        return "missing or non-string id"
    if ("source" in item) == ("completion" in item):
        return f"{item['id']}: needs exactly one of source and completion"
    code = item.get("source", item.get("completion"))
    if not isinstance(code, str):
        return f"{item['id']}: source/completion must be a string"
    for field in ("problem", "stage", "batch_id"):
        if field in item and item[field] is not None and not isinstance(item[field], str):
            return f"{item['id']}: {field} must be a string"
    return None


class Progress:
    """A one-line progress bar on stderr, redrawn with carriage returns."""

    def __init__(self, total, stream=sys.stderr, width=30):
        self.total, self.stream, self.width = total, stream, width
        self.finished = 0
        self.start = time.monotonic()
        self.statuses = collections.Counter()

    def draw(self, in_flight=0):
        done = min(self.total, self.finished + in_flight)
        filled = int(self.width * done / self.total) if self.total else self.width
        elapsed = time.monotonic() - self.start
        ok = self.statuses.get("ok", 0)
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} "
                          f"scored, {ok} ok, {elapsed:.0f} s")
        self.stream.flush()

    def close(self):
        self.stream.write("\n")
        self.stream.flush()


def replay(client, batches, progress=None, results_out=None, timeout=None):
    """Scores the batches in order; returns (all result dicts, refused batches as (batch_id, message))."""
    all_results, refused = [], []
    for batch in batches:
        try:
            handle = client.submit_candidates(batch.candidates, batch.batch_id)
            on_progress = None if progress is None else (lambda done, total: progress.draw(done))
            results = handle.result(timeout=timeout, on_progress=on_progress)
        except AuthError:
            raise  # every later batch would be refused too
        except RequestError as error:
            refused.append((batch.batch_id, str(error)))
            if progress is not None:
                progress.finished += len(batch.candidates)
            continue
        for result in results:
            result = dict(result, batch_id=batch.batch_id)
            all_results.append(result)
            if results_out is not None:
                results_out.write(json.dumps(result) + "\n")
        if progress is not None:
            progress.finished += len(batch.candidates)
            progress.statuses.update(result["status"] for result in results)
            progress.draw()
    return all_results, refused


def summary(results, refused, line_problems, elapsed):
    lines = [f"scored {len(results)} candidates in {elapsed:.1f} s"]
    statuses = collections.Counter(result["status"] for result in results)
    for status, count in sorted(statuses.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {status:<22} {count}")
    ok = [result for result in results if result["status"] == "ok"]
    if ok:
        best = max(ok, key=lambda result: float(result.get("gflops") or 0.0))
        mean = sum(float(result["reward"]) for result in ok) / len(ok)
        lines.append(f"  mean reward of ok: {mean:.3f}; best: {best['id']} at {float(best.get('gflops') or 0):.3f} GFLOPS")
    for message in line_problems:
        lines.append(f"error: {message}")
    for batch_id, message in refused:
        lines.append(f"error: batch {batch_id}: {message}")
    return "\n".join(lines)


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="hpcreward-replay", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("file", help="JSON Lines candidate file")
    where = parser.add_argument_group("coordinator (one of)")
    where.add_argument("--rendezvous", help="coordinator.json of the served pipeline, or its run directory")
    where.add_argument("--url", help="http://host:port of the coordinator (with --token-file)")
    where.add_argument("--token-file", help="file holding the bearer token (with --url)")
    parser.add_argument("--ca-file", help="https:// only: a PEM certificate or CA bundle to trust "
                                          "(default: $HPCREWARD_CA_FILE; with --rendezvous also its tls_cert)")
    parser.add_argument("--wait-s", type=float, default=0.0,
                        help="wait this long for the rendezvous file of a pipeline still starting (0)")
    parser.add_argument("--batch-size", type=int, default=32, help="candidates per batch for lines without batch_id (32)")
    parser.add_argument("--problem", default="dgemm-256", help="problem of lines that name none (dgemm-256)")
    parser.add_argument("--results", help="write one JSON line per result to this file")
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for one batch (no limit)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.batch_size < 1:
        parser.error("--batch-size must be at least 1")
    if bool(args.url) != bool(args.token_file):
        parser.error("--url and --token-file go together")
    if bool(args.rendezvous) == bool(args.url):
        parser.error("give either --rendezvous PATH or --url URL --token-file FILE")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        batches, line_problems = read_batches(args.file, args.batch_size, args.problem)
    except OSError as error:
        print(f"hpcreward-replay: cannot read {args.file}: {error.strerror or error}", file=sys.stderr)
        return 2
    try:
        if args.rendezvous:
            client = Client.from_rendezvous(args.rendezvous, wait_s=args.wait_s, ca_file=args.ca_file)
        else:
            client = Client.from_token_file(args.url, args.token_file, ca_file=args.ca_file)
    except (HpcrewardError, ValueError) as error:
        print(f"hpcreward-replay: {error}", file=sys.stderr)
        return 2
    total = sum(len(batch.candidates) for batch in batches)
    progress = None if args.quiet else Progress(total)
    start = time.monotonic()
    results_out = open(args.results, "w", encoding="utf-8") if args.results else None
    try:
        if progress is not None:
            progress.draw()
        results, refused = replay(client, batches, progress, results_out, args.timeout)
    except HpcrewardError as error:
        if progress is not None:
            progress.close()
        print(f"hpcreward-replay: {error}", file=sys.stderr)
        return 2
    finally:
        if results_out is not None:
            results_out.close()
    if progress is not None:
        progress.close()
    print(summary(results, refused, line_problems, time.monotonic() - start))
    return 1 if (refused or line_problems) else 0


if __name__ == "__main__":
    sys.exit(main())
