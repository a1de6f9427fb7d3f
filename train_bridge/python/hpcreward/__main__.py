"""python3 -m hpcreward replay|dataset|report ...: the package's commands.

  replay FILE.jsonl (--rendezvous DIR | --url URL --token-file FILE) ...
         send a JSON Lines candidate file to a served pipeline (hpcreward.replay; also the
         hpcreward-replay command)
  dataset --out DIR PROBLEM... [--rendezvous DIR | --problems NAME] [--stage S | --all-stages] ...
         prompts built from the run's configuration as JSON Lines and a Hugging Face dataset
         (hpcreward.dataset; prompts/README.md)
  report plot|report|watch LOG.h5 ...
         plots, an HTML report or a live view of a reward log (the package hpcreward_report,
         installed beside hpcreward from results/python; needs the "report" extra: h5py, NumPy,
         Matplotlib, Pygments, and hpcreward-results; also the hpcreward-report command)
"""
import sys

COMMANDS = ("replay", "dataset", "report")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "replay":
        from .replay import main as replay_main
        return replay_main(rest)
    if command == "dataset":
        from .dataset import main as dataset_main
        return dataset_main(rest)
    if command == "report":
        try:
            from hpcreward_report.__main__ import main as report_main
        except ModuleNotFoundError as error:
            if error.name != "hpcreward_report":
                raise
            print("python3 -m hpcreward report: the package hpcreward_report is not installed: pip install "
                  "'./train_bridge/python[report]' installs it; from a checkout, put results/python on PYTHONPATH "
                  "or run build/bin/hpcreward-results report|plot|watch", file=sys.stderr)
            return 2
        return report_main(rest)
    print(f"python3 -m hpcreward: unknown command {command!r} (one of: {', '.join(COMMANDS)})", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
