import pathlib
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "train_bridge" / "python"))
sys.path.insert(0, str(REPO / "tests" / "python"))  # certificates.py
