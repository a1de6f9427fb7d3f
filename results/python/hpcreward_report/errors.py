"""The one error the package raises for a log it cannot show (standard library only, so the
command can report missing libraries with it)."""


class LogError(Exception):
    """The log cannot be read or shown; the message says why and what to do."""
