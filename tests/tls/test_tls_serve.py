"""HTTPS end to end: jobs/local.sh --serve --tls-cert/--tls-key with 1 benchmark rank and a
certificate generated here (subjectAltName DNS:localhost, IP:127.0.0.1).

The rendezvous says https:// and names the certificate; the Python client from the rendezvous
scores a shipped sample; a client that trusts another certificate refuses at once; plain http://
to the port gets no answer; and the token shows up neither on the console nor in the log.
Tests run in file order against one run; the last one stops it (SIGTERM to OUT/coordinator.pid).
"""
import http.client
import json
import os
import pathlib
import signal
import subprocess
import time

import h5py
import numpy
import pytest

from certificates import make_certificate
from hpcreward import AuthError, Client, TlsError, UnavailableError

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", REPO / "build" / "bin"))
IKJ = (REPO / "train_bridge" / "samples" / "c" / "ikj.c").read_text()
START_S = 60


class TlsRun:
    def __init__(self, directory):
        self.certs = directory / "certs"
        self.certs.mkdir()
        self.cert, self.key = make_certificate(self.certs, "node")
        self.other_cert, _ = make_certificate(self.certs, "other")
        self.out = directory / "run"
        self.console_path = directory / "console.log"
        self.console = open(self.console_path, "w+")
        command = [str(REPO / "jobs" / "local.sh"), "--serve", "--listen", "127.0.0.1:0", "--np", "1",
                   "--tls-cert", str(self.cert), "--tls-key", str(self.key), "--out", str(self.out),
                   "--", "--warmup-s", "0.05", "--time-cap-s", "0.3"]
        self.process = subprocess.Popen(command, stdout=self.console, stderr=subprocess.STDOUT,
                                        env=dict(os.environ, HPCREWARD_BIN=str(BIN)), start_new_session=True)
        rendezvous = self.out / "coordinator.json"
        deadline = time.monotonic() + START_S
        while not rendezvous.exists():
            if self.process.poll() is not None:
                pytest.fail(f"local.sh exited with {self.process.returncode}:\n{self.output()}")
            if time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"no coordinator.json after {START_S} s:\n{self.output()}")
            time.sleep(0.1)
        self.rendezvous = json.loads(rendezvous.read_text())
        self.token = pathlib.Path(self.rendezvous["token_file"]).read_text().strip()

    def output(self):
        self.console.flush()
        return self.console_path.read_text()

    def stop(self):
        """SIGTERM to the coordinator (OUT/coordinator.pid, as local.sh documents); local.sh's exit status."""
        if self.process.poll() is None:
            pid_file = self.out / "coordinator.pid"
            if pid_file.exists():
                try:
                    os.kill(int(pid_file.read_text()), signal.SIGTERM)
                except ProcessLookupError:
                    pass
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)  # the session local.sh leads: only what we started
                self.process.wait(10)
        return self.process.returncode


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not (BIN / "hpcreward-coordinator").exists():
        pytest.skip(f"no {BIN}/hpcreward-coordinator: build it first")
    started = TlsRun(tmp_path_factory.mktemp("tls"))
    yield started
    started.stop()
    started.console.close()


def test_rendezvous_is_https_and_names_the_certificate(run):
    assert run.rendezvous["url"].startswith("https://127.0.0.1:")
    assert run.rendezvous["tls_cert"] == str(run.cert)
    assert "token" not in run.rendezvous and run.token not in json.dumps(run.rendezvous)


def test_a_client_that_trusts_another_certificate_refuses_at_once(run):
    client = Client(run.rendezvous["url"], run.token, tls_cert=run.other_cert)  # default retries: 6
    start = time.monotonic()
    with pytest.raises(TlsError) as error:
        client.score_sources([IKJ], "dgemm-256")
    assert time.monotonic() - start < 5, "a certificate that does not verify is not retried"
    assert "does not verify" in str(error.value) and str(run.other_cert) in str(error.value)
    assert run.token not in str(error.value)


def test_plain_http_to_the_tls_port_gets_no_answer(run):
    plain_url = run.rendezvous["url"].replace("https://", "http://")
    connection = http.client.HTTPConnection(plain_url.split("//")[1].split(":")[0], int(plain_url.rsplit(":", 1)[1]),
                                            timeout=10)
    with pytest.raises((http.client.HTTPException, OSError)):
        connection.request("GET", "/v1/stages", headers={"Authorization": f"Bearer {run.token}"})
        connection.getresponse()
    connection.close()
    with pytest.raises(UnavailableError, match="https://"):
        Client(plain_url, run.token, retries=0).stages()


def test_a_wrong_token_is_refused_without_being_echoed(run):
    wrong = "f" * 64
    with pytest.raises(AuthError) as error:
        Client(run.rendezvous["url"], wrong, tls_cert=run.cert, retries=0).stages()
    assert error.value.status == 403 and wrong not in str(error.value)


def test_the_client_from_the_rendezvous_scores_a_sample(run):
    client = Client.from_rendezvous(run.out, timeout=60)
    results = client.score_sources_detailed([IKJ], "dgemm-256", stages="o0", ids=["ikj"])
    assert results[0]["status"] == "ok", results
    assert results[0]["reward"] > 0 and results[0]["gflops"] > 0


def strings_in(value):
    """Every text in an attribute or dataset value (compound rows field by field)."""
    if isinstance(value, bytes):
        yield value.decode(errors="replace")
    elif isinstance(value, str):
        yield value
    elif isinstance(value, numpy.void) and value.dtype.names:
        for name in value.dtype.names:
            yield from strings_in(value[name])
    elif isinstance(value, numpy.ndarray):
        for item in value.flat:
            yield from strings_in(item)
    else:
        yield str(value)


def test_stop_and_the_token_is_nowhere(run):
    assert run.stop() == 0, run.output()
    console = run.output()
    assert f"serving {run.rendezvous['url']} (token in {run.rendezvous['token_file']}, certificate {run.cert}" \
        in console, console
    assert "stopped: " in console, console
    assert run.token not in console
    log_path = run.out / "rewards.h5"
    assert run.token.encode() not in log_path.read_bytes()
    texts = []
    with h5py.File(log_path, "r") as log:
        texts += [text for value in log.attrs.values() for text in strings_in(value)]
        config = json.loads(log.attrs["config_json"])

        def visit(name, item):
            texts.extend(text for value in item.attrs.values() for text in strings_in(value))
            if isinstance(item, h5py.Dataset):
                texts.extend(strings_in(item[()]))
        log.visititems(visit)
    assert texts and not [text for text in texts if run.token in text]
    assert config["tls_cert"] == str(run.cert), "the log's provenance names the certificate (never the token)"
