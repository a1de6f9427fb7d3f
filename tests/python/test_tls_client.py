"""The client over HTTPS against the fake coordinator: which certificate it trusts, the clear and
never-retried TlsError when it does not verify, and a token that shows up in no message or repr."""
import time

import pytest

from certificates import make_certificate
from fake_coordinator import FakeCoordinator
from hpcreward import Client, HpcrewardError, TlsError, UnavailableError
from hpcreward.rendezvous import read_rendezvous

GOOD = "void matmul(int m, int n, int k, const double *A, const double *B, double *C) { }"


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("certs")
    return {"node": make_certificate(directory, "node"), "other": make_certificate(directory, "other"),
            "elsewhere": make_certificate(directory, "elsewhere", san="DNS:elsewhere.example")}


@pytest.fixture
def tls_fake(certs):
    server = FakeCoordinator(tls=certs["node"]).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def no_ca_env(monkeypatch):
    monkeypatch.delenv("HPCREWARD_CA_FILE", raising=False)


def test_rendezvous_tls_cert_is_trusted(tls_fake, tmp_path, certs):
    path = tls_fake.write_rendezvous(tmp_path)
    assert read_rendezvous(path).tls_cert == str(certs["node"][0])
    client = Client.from_rendezvous(path)
    assert client.url.startswith("https://127.0.0.1:")
    assert client.score_sources([GOOD], "dgemm-256")[0] > 0


def test_ca_file_argument_and_environment_variable(tls_fake, certs, monkeypatch):
    assert Client(tls_fake.url, "secret-token", ca_file=certs["node"][0]).score_sources([GOOD], "dgemm-256")
    monkeypatch.setenv("HPCREWARD_CA_FILE", str(certs["node"][0]))
    assert Client(tls_fake.url, "secret-token").score_sources([GOOD], "dgemm-256")


def test_another_certificate_is_a_clear_error_at_once(tls_fake, certs):
    client = Client(tls_fake.url, "secret-token", tls_cert=certs["other"][0], retries=6, backoff_s=2)
    start = time.monotonic()
    with pytest.raises(TlsError) as error:
        client.score_sources([GOOD], "dgemm-256")
    assert time.monotonic() - start < 2, "a certificate that does not verify is not retried"
    message = str(error.value)
    assert "does not verify" in message and str(certs["other"][0]) in message
    assert "coordinator.json again" in message
    assert tls_fake.requests == [], "nothing reached the server"


def test_environment_ca_that_does_not_verify_is_named(tls_fake, certs, monkeypatch):
    monkeypatch.setenv("HPCREWARD_CA_FILE", str(certs["other"][0]))
    with pytest.raises(TlsError) as error:
        Client(tls_fake.url, "secret-token", retries=6).stages()
    assert f"the CA file {certs['other'][0]} (HPCREWARD_CA_FILE)" in str(error.value)


def test_system_ca_store_refuses_a_self_signed_certificate(tls_fake):
    with pytest.raises(TlsError) as error:
        Client(tls_fake.url, "secret-token").stages()
    assert "the system's default CA certificates" in str(error.value)


def test_host_name_is_verified(certs):
    server = FakeCoordinator(tls=certs["elsewhere"]).start()
    try:
        with pytest.raises(TlsError) as error:
            Client(server.url, "secret-token", tls_cert=certs["elsewhere"][0]).stages()
        assert "does not name 127.0.0.1" in str(error.value) and "IP:127.0.0.1" in str(error.value)
    finally:
        server.stop()


def test_unreadable_certificate_file_fails_when_the_client_is_made(tls_fake, tmp_path):
    with pytest.raises(TlsError, match="no such file"):
        Client(tls_fake.url, "secret-token", ca_file=tmp_path / "missing.pem")
    (tmp_path / "garbage.pem").write_text("not a certificate\n")
    with pytest.raises(TlsError, match="no usable PEM certificate"):
        Client(tls_fake.url, "secret-token", ca_file=tmp_path / "garbage.pem")


def test_https_url_of_a_plain_http_coordinator(fake, certs):
    url = fake.url.replace("http://", "https://")
    with pytest.raises(TlsError, match="does not speak HTTPS"):
        Client(url, "secret-token", tls_cert=certs["node"][0], retries=6).stages()


def test_plain_http_to_an_https_coordinator_fails_with_a_hint(tls_fake):
    with pytest.raises(UnavailableError) as error:
        Client(tls_fake.url.replace("https://", "http://"), "secret-token", retries=0).stages()
    assert "https://" in str(error.value)


def test_the_token_is_in_no_repr_or_message(tls_fake, tmp_path, certs):
    token = "s3cret-token-value"
    tls_fake.token = "the-right-one"
    client = Client(tls_fake.url, token, tls_cert=certs["node"][0], retries=0)
    assert token not in repr(client) and token not in repr(client._transport)
    with pytest.raises(HpcrewardError) as refused:
        client.stages()
    assert token not in str(refused.value)
    with pytest.raises(HpcrewardError) as unusable:
        Client(tls_fake.url, "line one\nline two", tls_cert=certs["node"][0])
    assert "line one" not in str(unusable.value) and "usable bearer token" in str(unusable.value)
    dead = Client("http://127.0.0.1:9", token, retries=0)
    with pytest.raises(UnavailableError) as unavailable:
        dead.stages()
    assert token not in str(unavailable.value)
