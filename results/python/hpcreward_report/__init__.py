"""hpcreward_report: pictures of a reward log (PNG plots, one self-contained HTML report) and a
live terminal view of a running log. Needs h5py and NumPy; the plots and the report also
Matplotlib and Pygments (Debian: python3-h5py python3-numpy python3-matplotlib python3-pygments,
jobs/install-deps.sh; pip: the "report" extra of hpcreward). The report and watch also need
hpcreward-results, which computes the summary and the writer's state (summary.py).

    python3 -m hpcreward_report plot LOG.h5 --out DIR
    python3 -m hpcreward_report report LOG.h5 [--out FILE.html]
    python3 -m hpcreward_report watch LOG.h5 [--interval S]
    python3 -m hpcreward_report rescore LOG.h5 --mode fraction|speedup:NAME|gflops   (CSV; rescore.py)

`hpcreward-results plot|report|watch|rescore` runs these from the source tree; `pip install
./train_bridge/python` installs the package (also as `hpcreward-report` and `python3 -m
hpcreward report`). results/README.md shows what each draws.
"""
