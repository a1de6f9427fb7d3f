"""Reads the rendezvous file a served pipeline writes: DIR/coordinator.json with url, token_file, pid,
and, when it serves HTTPS, tls_cert (the certificate to trust). It names the token file, never the token."""
import json
import os
import pathlib
import time

from .errors import HpcrewardError

RENDEZVOUS_NAME = "coordinator.json"


class Rendezvous:
    """Where a served pipeline listens and how to authenticate to it."""

    def __init__(self, url, token_file, pid=None, path=None, tls_cert=None):
        self.url = url
        self.token_file = token_file
        self.pid = pid
        self.path = path
        self.tls_cert = tls_cert  # https:// only: the coordinator's certificate (absolute path)

    def __repr__(self):
        return f"Rendezvous({self.url!r}, token_file={self.token_file!r}, tls_cert={self.tls_cert!r})"

    def read_token(self):
        return read_token(self.token_file)


def rendezvous_path(path):
    """The coordinator.json for PATH: the file itself, or the one inside a run directory."""
    path = pathlib.Path(path)
    if path.is_dir() or (not path.exists() and path.suffix != ".json"):
        return path / RENDEZVOUS_NAME
    return path


def read_rendezvous(path, wait_s=0.0):
    """Parses the rendezvous file, waiting up to wait_s seconds for it to appear (a pipeline starting)."""
    file = rendezvous_path(path)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            text = file.read_text()
            data = json.loads(text)
            break
        except FileNotFoundError:
            if time.monotonic() >= deadline:
                raise HpcrewardError(
                    f"no rendezvous file {file}: start the pipeline with jobs/local.sh --serve --out DIR "
                    "and pass DIR or DIR/coordinator.json") from None
        except json.JSONDecodeError as error:
            # The writer may be in the middle of writing it; give it the wait, then fail.
            if time.monotonic() >= deadline:
                raise HpcrewardError(f"rendezvous file {file} is not valid JSON: {error}") from None
        time.sleep(0.1)
    if not isinstance(data, dict) or not isinstance(data.get("url"), str) or not isinstance(data.get("token_file"), str):
        raise HpcrewardError(f"rendezvous file {file} must hold an object with string fields url and token_file")
    token_file = pathlib.Path(data["token_file"])
    if not token_file.is_absolute():
        token_file = file.parent / token_file
    tls_cert = data.get("tls_cert")
    if tls_cert is not None and not isinstance(tls_cert, str):
        raise HpcrewardError(f"rendezvous file {file}: tls_cert must be a file name (a string)")
    if tls_cert:
        tls_cert = pathlib.Path(tls_cert)
        tls_cert = str(tls_cert if tls_cert.is_absolute() else file.parent / tls_cert)
    return Rendezvous(data["url"], str(token_file), data.get("pid"), str(file), tls_cert or None)


def read_token(token_file):
    """The bearer token: the file's content without surrounding whitespace."""
    try:
        token = pathlib.Path(token_file).read_text().strip()
    except OSError as error:
        raise HpcrewardError(f"cannot read the token file {token_file}: {error.strerror or error}") from None
    if not token:
        raise HpcrewardError(f"the token file {token_file} is empty")
    return token


def token_file_is_private(token_file):
    """True when only the owner can read the token file (mode 0600 or stricter)."""
    return (os.stat(token_file).st_mode & 0o077) == 0
