"""One JSON request to the coordinator, with bounded retries for failures that a retry can fix.

Retried (with the same body, so the same batch id): a refused or lost connection, a time-out,
an answer cut short or not JSON, HTTP 5xx (503 while the pipeline shuts down or restarts).
Never retried: HTTP 4xx, raised as RequestError (AuthError for 401/403, ConflictError for 409), and
a certificate that does not verify (TlsError: the same certificate fails again; see tls.py).
A transport made from a rendezvous file (Client.from_rendezvous) follows the pipeline when it
restarts: a restarted coordinator (a lost rank, a Slurm requeue) may listen on another node, port
and token, and rewrites the file. After a failed attempt (or a 401/403) the transport reads the
file again, waiting up to `follow_s` seconds for it to reappear, and sends the same request to the
new endpoint; the batch id makes that safe.
http.client is used directly, not urllib, so http_proxy settings never reroute a local coordinator.
The token goes only into the Authorization header: never into a message, a repr or a log.
"""
import http.client
import json
import random
import socket
import ssl
import time
import urllib.parse

from .errors import AuthError, ConflictError, HpcrewardError, RequestError, UnavailableError
from .tls import Trust, tls_error


class RetryPolicy:
    """Up to `retries` retries after the first attempt; waits backoff_s * 2^n (capped, jittered)."""

    def __init__(self, retries=6, backoff_s=0.5, max_backoff_s=30.0):
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s

    def delay(self, attempt):
        base = min(self.max_backoff_s, self.backoff_s * (2 ** attempt))
        return base * (0.75 + 0.5 * random.random())


class _Retryable(Exception):
    def __init__(self, message, closed_without_answer=False):
        super().__init__(message)
        self.closed_without_answer = closed_without_answer


class Transport:
    def __init__(self, url, token, timeout=600.0, retry=None, token_file=None, sleep=time.sleep, trust=None,
                 follow=None, follow_s=0.0):
        """follow: a callable(wait_s) -> (url, token, token_file, tls_cert) of the pipeline's current
        endpoint, or None when there is none (Client.from_rendezvous passes one); follow_s: how long
        failures are retried while following it."""
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        self.timeout = timeout
        self.trust = trust or Trust()
        self._follow = follow
        self.follow_s = follow_s
        self._use(url, token, token_file)

    def _use(self, url, token, token_file):
        parsed = urllib.parse.urlsplit(url if "://" in url else "http://" + url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"coordinator url must be http://host:port or https://host:port, not {url!r}")
        _check_token(token, token_file)
        self.url = urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path.rstrip("/")
        self.token = token
        self.token_file = token_file
        self._ssl_context = self.trust.context() if self._scheme == "https" else None

    def _followed(self):
        """True when the rendezvous now names another endpoint or token (the pipeline restarted): use it."""
        if self._follow is None:
            return False
        current = self._follow(0.0)
        if current is None:
            return False
        url, token, token_file, tls_cert = current
        if url.rstrip("/") == self.url and token == self.token:
            return False
        if tls_cert is not None:
            self.trust = Trust(self.trust.ca_file if self.trust.ca_source == "ca_file" else None, tls_cert)
        self._use(url, token, token_file)
        return True

    def __repr__(self):
        return f"Transport({self.url!r}, token_file={self.token_file!r})"  # never the token

    def request(self, method, path, body=None, timeout=None):
        """Returns (http_status, decoded JSON) of a 2xx answer; raises as the module docstring says."""
        payload = None if body is None else json.dumps(body).encode()
        last = None
        attempt = 0
        # Following a rendezvous, failures are retried for follow_s seconds (a restart takes
        # that long), polling the file between attempts; otherwise `retries` times.
        follow_until = None
        while True:
            try:
                return self._once(method, path, payload, timeout or self.timeout)
            except _Retryable as error:
                last = error
            except AuthError:
                if self._followed():  # a restarted coordinator has a new token; a wrong one stays wrong
                    continue
                raise
            if self._followed():
                attempt = 0
                continue
            attempt += 1
            if self._follow is not None and self.follow_s > 0:
                follow_until = follow_until or time.monotonic() + self.follow_s
                if time.monotonic() >= follow_until and attempt > self.retry.retries:
                    break
                self._sleep(min(2.0, self.retry.delay(attempt - 1)))
            elif attempt > self.retry.retries:
                break
            else:
                self._sleep(self.retry.delay(attempt - 1))
        hint = ""
        if self._scheme == "http" and last is not None and last.closed_without_answer:
            hint = " (a coordinator started with --tls-cert answers https:// only: use the URL in its coordinator.json)"
        raise UnavailableError(
            f"coordinator at {self.url} did not answer {method} {path} after {self.retry.retries + 1} attempts; "
            f"last error: {last}; is the pipeline (jobs/local.sh --serve) still running?{hint}")

    def _connection(self, timeout):
        if self._scheme == "https":
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=self._ssl_context)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _once(self, method, path, payload, timeout):
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        connection = self._connection(timeout)
        try:
            connection.request(method, self._prefix + path, body=payload, headers=headers)
            response = connection.getresponse()
            status = response.status
            raw = response.read()
        except ssl.SSLError as error:
            fatal = tls_error(error, self.url, self._host, self.trust)
            if fatal is not None:
                raise fatal from None
            raise _Retryable(f"{type(error).__name__}: {error}") from None
        except (OSError, http.client.HTTPException, socket.timeout) as error:
            closed = isinstance(error, (http.client.RemoteDisconnected, http.client.BadStatusLine,
                                        ConnectionResetError))
            raise _Retryable(f"{type(error).__name__}: {error}", closed) from None
        finally:
            connection.close()
        if status >= 500:
            raise _Retryable(f"HTTP {status}: {_error_text(raw)}")
        if status >= 400:
            message = _error_text(raw)
            full = self.url + path
            if status in (401, 403):
                raise AuthError(status, message, full, self.token_file)
            if status == 409:
                raise ConflictError(status, message, full)
            raise RequestError(status, message, full)
        try:
            return status, json.loads(raw)
        except ValueError:
            raise _Retryable(f"HTTP {status} with a body that is not JSON ({len(raw)} bytes)") from None


def _check_token(token, token_file):
    """Refuses a token that cannot go into a header, without showing it (http.client's own error would)."""
    if isinstance(token, str) and token and token.isascii() and all(c.isprintable() and not c.isspace() for c in token):
        return
    source = f"the token file {token_file}" if token_file else "the token given"
    raise HpcrewardError(f"{source} does not hold a usable bearer token (it must be one line of printable ASCII "
                         "without spaces): use the token_file named by the pipeline's coordinator.json")


def _error_text(raw):
    try:
        data = json.loads(raw)
        if isinstance(data, dict) and "error" in data:
            return str(data["error"])
    except ValueError:
        pass
    text = raw.decode(errors="replace").strip()
    return text[:500] or "(no message)"
