"""The per-process client of the adapters that trainers import by path (verl, OpenRLHF).

Configured by environment variables, since those trainers call a bare function:
  HPCREWARD_RENDEZVOUS    path of coordinator.json or of the run directory (preferred), or
  HPCREWARD_URL + HPCREWARD_TOKEN_FILE
  HPCREWARD_TIMEOUT       seconds per request (default 600)
  HPCREWARD_RETRIES       retries after a lost connection, a time-out or a 5xx (default 6)
  HPCREWARD_FOLLOW_S      with a rendezvous: how long failed requests follow a restarting pipeline
                          (default 600 s)
  HPCREWARD_WAIT_S        seconds to wait for the rendezvous file to appear (default 60)
  HPCREWARD_CA_FILE       https:// only: a PEM CA bundle to trust, besides the certificate the
                          rendezvous file names (tls_cert); read by every Client
The client is made once per process (and again in a forked child).
"""
import os
import threading

from .client import Client
from .errors import HpcrewardError

_VARIABLES = ("HPCREWARD_RENDEZVOUS", "HPCREWARD_URL", "HPCREWARD_TOKEN_FILE", "HPCREWARD_CA_FILE", "HPCREWARD_TIMEOUT",
              "HPCREWARD_RETRIES", "HPCREWARD_FOLLOW_S")
_lock = threading.Lock()
_cache = {}


def client_from_env():
    key = (os.getpid(),) + tuple(os.environ.get(name) for name in _VARIABLES)
    with _lock:
        client = _cache.get(key)
        if client is None:
            client = _make()
            _cache.clear()
            _cache[key] = client
        return client


def _make():
    options = {"timeout": float(os.environ.get("HPCREWARD_TIMEOUT", "600")),
               "retries": int(os.environ.get("HPCREWARD_RETRIES", "6"))}
    rendezvous = os.environ.get("HPCREWARD_RENDEZVOUS")
    if rendezvous:
        return Client.from_rendezvous(rendezvous, wait_s=float(os.environ.get("HPCREWARD_WAIT_S", "60")),
                                      follow_s=float(os.environ.get("HPCREWARD_FOLLOW_S", "600")), **options)
    url, token_file = os.environ.get("HPCREWARD_URL"), os.environ.get("HPCREWARD_TOKEN_FILE")
    if url and token_file:
        return Client.from_token_file(url, token_file, **options)
    raise HpcrewardError("set HPCREWARD_RENDEZVOUS to the served pipeline's coordinator.json (or its run "
                         "directory), or HPCREWARD_URL and HPCREWARD_TOKEN_FILE")


def make_client(rendezvous=None, url=None, token_file=None, **options):
    """The Client of an adapter's settings: a URL and token file, else a rendezvous path (waiting
    HPCREWARD_WAIT_S for its file), else the environment's (client_from_env)."""
    if url is not None:
        return Client.from_token_file(url, token_file, **options)
    if rendezvous is not None:
        options.setdefault("wait_s", float(os.environ.get("HPCREWARD_WAIT_S", "60")))
        return Client.from_rendezvous(rendezvous, **options)
    return client_from_env()


def resolve_client(client_or_rendezvous):
    """A Client as given, a lazily made one for a rendezvous path, or (None) the environment's."""
    if client_or_rendezvous is None:
        return client_from_env
    if isinstance(client_or_rendezvous, Client):
        return lambda: client_or_rendezvous
    path = os.fspath(client_or_rendezvous)
    made = []

    def lazy():
        if not made:
            made.append(Client.from_rendezvous(path, wait_s=float(os.environ.get("HPCREWARD_WAIT_S", "60"))))
        return made[0]
    return lazy
