"""hpcreward.report: pictures of a reward log (PNG plots, one self-contained HTML report) and a
live terminal view of a running log. Needs h5py and NumPy; the plots and the report also
Matplotlib and Pygments (Debian: python3-matplotlib python3-pygments, jobs/install-deps.sh).

    python3 -m hpcreward.report plot LOG.h5 --out DIR
    python3 -m hpcreward.report report LOG.h5 [--out FILE.html]
    python3 -m hpcreward.report watch LOG.h5 [--interval S]

`hpcreward-results plot|report|watch` runs these (results/README.md).
"""
