"""One JSON request to the coordinator, with bounded retries for failures that a retry can fix.

Retried (with the same body, so the same batch id): a refused or lost connection, a time-out,
an answer cut short or not JSON, HTTP 5xx (503 while the pipeline shuts down or restarts).
Never retried: HTTP 4xx, raised as RequestError (AuthError for 401/403, ConflictError for 409).
http.client is used directly, not urllib, so http_proxy settings never reroute a local coordinator.
"""
import http.client
import json
import random
import socket
import time
import urllib.parse

from .errors import AuthError, ConflictError, RequestError, UnavailableError


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
    pass


class Transport:
    def __init__(self, url, token, timeout=600.0, retry=None, token_file=None, sleep=time.sleep):
        parsed = urllib.parse.urlsplit(url if "://" in url else "http://" + url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"coordinator url must be http://host:port, not {url!r}")
        self.url = urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path.rstrip("/")
        self.token = token
        self.token_file = token_file
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._sleep = sleep

    def request(self, method, path, body=None, timeout=None):
        """Returns (http_status, decoded JSON) of a 2xx answer; raises as the module docstring says."""
        payload = None if body is None else json.dumps(body).encode()
        last = None
        for attempt in range(self.retry.retries + 1):
            if attempt:
                self._sleep(self.retry.delay(attempt - 1))
            try:
                return self._once(method, path, payload, timeout or self.timeout)
            except _Retryable as error:
                last = error
        raise UnavailableError(
            f"coordinator at {self.url} did not answer {method} {path} after {self.retry.retries + 1} attempts; "
            f"last error: {last}; is the pipeline (jobs/local.sh --serve) still running?")

    def _connection(self, timeout):
        cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

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
        except (OSError, http.client.HTTPException, socket.timeout) as error:
            raise _Retryable(f"{type(error).__name__}: {error}") from None
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


def _error_text(raw):
    try:
        data = json.loads(raw)
        if isinstance(data, dict) and "error" in data:
            return str(data["error"])
    except ValueError:
        pass
    text = raw.decode(errors="replace").strip()
    return text[:500] or "(no message)"
