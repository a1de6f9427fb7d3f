"""Exceptions of the client. Candidate failures are not exceptions: they are result statuses."""


class HpcrewardError(Exception):
    """Base class of every error this package raises."""


class RequestError(HpcrewardError):
    """The coordinator refused a request (HTTP 4xx). Never retried: the same request fails again.

    `status` is the HTTP status, `message` the server's `{"error": ...}` text.
    """

    def __init__(self, status, message, url=None):
        self.status = status
        self.message = message
        self.url = url
        where = f" ({url})" if url else ""
        super().__init__(f"coordinator refused the request with HTTP {status}{where}: {message}")


class AuthError(RequestError):
    """HTTP 401 or 403: the bearer token is missing, wrong, or from another run."""

    def __init__(self, status, message, url=None, token_file=None):
        self.token_file = token_file
        super().__init__(status, message, url)
        source = f"the token file {token_file}" if token_file else "the token file (token_file in coordinator.json)"
        self.args = (f"coordinator rejected the token with HTTP {status}: {message}; check {source}: "
                     "it must be the one written by the running pipeline (a restarted pipeline writes a new one)",)


class ConflictError(RequestError):
    """HTTP 409: this batch id was already used for different candidates. Use a fresh batch id."""


class UnavailableError(HpcrewardError):
    """The coordinator did not answer (connection refused or lost, time-out, HTTP 5xx) after every retry."""


class TlsError(HpcrewardError):
    """HTTPS failed in a way a retry cannot fix: the coordinator's certificate does not verify against
    the trusted ones (`trusted` says which), a certificate file will not load, or the URL says https://
    to a coordinator that serves plain HTTP. Never retried. The message says what to fix.
    """

    def __init__(self, message, url=None, trusted=None):
        self.url = url
        self.trusted = trusted
        super().__init__(message)


class BatchFailed(HpcrewardError):
    """The coordinator reports the batch as failed (state "failed"): scoring itself broke, not a candidate."""


class BatchTimeout(HpcrewardError, TimeoutError):
    """BatchHandle.result(timeout) ran out of time; the batch goes on, call result() again."""


class ProtocolError(HpcrewardError):
    """The coordinator answered something that does not follow the contract (wrong result count or ids)."""
