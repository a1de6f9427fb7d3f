"""python3 -m hpcreward_report plot|report|watch LOG.h5 ...: see the package's docstring."""
import argparse
import importlib
import os
import sys

from .errors import LogError

EXIT_UNREADABLE, EXIT_USAGE = 1, 2
# The Debian package of each library (jobs/install-deps.sh installs them).
READING = {"h5py": "python3-h5py", "numpy": "python3-numpy"}
DRAWING = {"matplotlib": "python3-matplotlib", "pygments": "python3-pygments"}


def parser():
    top = argparse.ArgumentParser(prog="hpcreward-results", description="Pictures and a live view of a reward log.")
    commands = top.add_subparsers(dest="command", required=True)
    plot = commands.add_parser("plot", help="write the plots as PNG files into DIR")
    plot.add_argument("log", metavar="FILE.h5", help="a reward log")
    plot.add_argument("--out", required=True, metavar="DIR", help="folder for the PNG files (created if missing)")
    report = commands.add_parser("report", help="write one self-contained HTML report")
    report.add_argument("log", metavar="FILE.h5", help="a reward log")
    report.add_argument("--out", metavar="FILE.html", help="default: report.html beside the log")
    watch = commands.add_parser("watch", help="follow a running log in the terminal until its writer closes it")
    watch.add_argument("log", metavar="FILE.h5", help="a reward log, usually one a run is writing")
    watch.add_argument("--interval", type=float, default=1.0, metavar="S", help="seconds between refreshes (default 1)")
    rescore = commands.add_parser("rescore", help="the rows' rewards in another reward mode, as CSV on stdout")
    rescore.add_argument("log", metavar="FILE.h5", help="a reward log (schema 6 keeps the yardsticks)")
    rescore.add_argument("--mode", required=True, metavar="MODE", help="gflops, fraction or speedup:NAME "
                         "(openblas, cublas, cublaslt)")
    return top


def needs(libraries):
    """LogError naming what to install if one of `libraries` {module: Debian package} is missing."""
    for module in libraries:
        try:
            importlib.import_module(module)
        except ImportError:
            raise LogError(f"{module} is missing: install {' '.join(libraries.values())} (jobs/install-deps.sh), "
                           "or pip install 'hpcreward[report]'") from None


def write_rescored(path, mode):
    """CSV of candidate_id, problem, status, gflops, the logged reward and the reward in `mode`."""
    import csv
    from .log import read_log
    from .rescore import rescore
    log = read_log(path)
    try:
        rewards = rescore(log, mode)
    except ValueError as error:
        print(f"hpcreward-results: {error}", file=sys.stderr)
        return EXIT_USAGE
    out = csv.writer(sys.stdout)
    rows = log.rewards
    try:
        out.writerow(["candidate_id", "problem", "status", "gflops", "reward", f"reward_{mode}"])
        for index in range(len(rows)):
            out.writerow([rows["candidate_id"][index], rows["problem"][index], rows["status"][index],
                          repr(float(rows["gflops"][index])), repr(float(rows["reward"][index])),
                          repr(float(rewards[index]))])
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def main(argv=None):
    arguments = parser().parse_args(argv)
    if not os.path.isfile(arguments.log):
        print(f"hpcreward-results: {arguments.log}: no such file", file=sys.stderr)
        return EXIT_USAGE
    if arguments.command == "watch" and arguments.interval <= 0:
        print("hpcreward-results: --interval must be a positive number of seconds", file=sys.stderr)
        return EXIT_USAGE
    try:
        needs(READING)
        if arguments.command == "rescore":
            return write_rescored(arguments.log, arguments.mode)
        if arguments.command == "watch":
            from .watch import watch
            return watch(arguments.log, arguments.interval)
        needs(DRAWING)
        from .log import read_log
        from .summary import read_summary
        log = read_log(arguments.log)
        if arguments.command == "plot":
            from .plots import write_plots
            for _, path in write_plots(log, arguments.out):
                print(path)
        else:
            from .html_report import write_report
            summary = read_summary(arguments.log)
            out = arguments.out or os.path.join(os.path.dirname(os.path.abspath(arguments.log)), "report.html")
            print(write_report(log, summary, out))
        return 0
    except LogError as error:
        print(f"hpcreward-results: {error}", file=sys.stderr)
        return EXIT_UNREADABLE
    except OSError as error:  # the output folder or file cannot be written
        print(f"hpcreward-results: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return EXIT_UNREADABLE
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
