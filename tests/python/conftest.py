import pathlib
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_DIR = REPO / "train_bridge" / "python"
sys.path.insert(0, str(PACKAGE_DIR))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from fake_coordinator import FakeCoordinator  # noqa: E402


@pytest.fixture
def fake():
    server = FakeCoordinator().start()
    yield server
    server.stop()


@pytest.fixture
def rendezvous(fake, tmp_path):
    return fake.write_rendezvous(tmp_path)
