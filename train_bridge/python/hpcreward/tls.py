"""HTTPS: which certificates the client trusts, and a clear error when the coordinator's does not verify.

A coordinator started with --tls-cert/--tls-key serves https:// and its coordinator.json names the
certificate (`tls_cert`); Client.from_rendezvous trusts that file. A CA bundle can be given too,
as Client(..., ca_file=PATH) or in the environment variable HPCREWARD_CA_FILE (the argument wins);
both are trusted when both are given. With neither, the system's default CA certificates are.
The host name in the URL is always checked against the certificate's subjectAltName.
"""
import os
import ssl

from .errors import TlsError

CA_FILE_ENV = "HPCREWARD_CA_FILE"
_HOSTNAME_MISMATCH = 62  # X509_V_ERR_HOSTNAME_MISMATCH
_IP_ADDRESS_MISMATCH = 64  # X509_V_ERR_IP_ADDRESS_MISMATCH


class Trust:
    """The certificates an https:// client trusts: the coordinator's own (server_cert) and a CA file."""

    def __init__(self, ca_file=None, server_cert=None):
        if ca_file is None:
            ca_file = os.environ.get(CA_FILE_ENV) or None
            self.ca_source = CA_FILE_ENV if ca_file else None
        else:
            self.ca_source = "ca_file"
        self.ca_file = None if ca_file is None else os.fspath(ca_file)
        self.server_cert = None if server_cert is None else os.fspath(server_cert)

    def describe(self):
        parts = []
        if self.server_cert:
            parts.append(f"the coordinator's certificate {self.server_cert} (tls_cert in coordinator.json)")
        if self.ca_file:
            parts.append(f"the CA file {self.ca_file} ({self.ca_source})")
        return " and ".join(parts) or "the system's default CA certificates"

    def context(self):
        """An ssl.SSLContext that verifies the certificate and the host name; TlsError when a file will not load."""
        if not self.ca_file and not self.server_cert:
            context = ssl.create_default_context()
        else:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies the chain and the host name
            for path, what in ((self.server_cert, "the coordinator's certificate (tls_cert in coordinator.json)"),
                               (self.ca_file, f"the CA file ({self.ca_source})")):
                if path:
                    _load(context, path, what)
            # A cluster certificate signed by a site CA, named itself as tls_cert, is trusted as it is.
            context.verify_flags |= getattr(ssl, "VERIFY_X509_PARTIAL_CHAIN", 0)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        return context


def _load(context, path, what):
    try:
        context.load_verify_locations(cafile=path)
    except FileNotFoundError:
        raise TlsError(f"cannot read {what} {path}: no such file; on this node the path must reach the same "
                       "file the coordinator was started with (a shared run directory or file system)") from None
    except PermissionError:
        raise TlsError(f"cannot read {what} {path}: permission denied (a certificate is public: make it "
                       "readable, e.g. chmod 644; keep only the key private)") from None
    except (ssl.SSLError, ValueError) as error:
        raise TlsError(f"{what} {path} holds no usable PEM certificate ({error}); it should start with "
                       "-----BEGIN CERTIFICATE-----") from None


def tls_error(error, url, host, trust):
    """The TlsError for an ssl error that a retry cannot fix, or None for one that it might (a dropped handshake)."""
    if isinstance(error, ssl.SSLCertVerificationError):
        reason = error.verify_message or str(error)
        if error.verify_code in (_HOSTNAME_MISMATCH, _IP_ADDRESS_MISMATCH):
            hint = (f"the certificate does not name {host}: make it with subjectAltName=DNS:{host} (or IP:{host} "
                    "for an address; coordinator/README.md, \"HTTPS\"), or use a URL with a name it has")
        else:
            hint = ("it is not a certificate this client trusts: if the coordinator was restarted with another "
                    "certificate, read coordinator.json again (Client.from_rendezvous); otherwise pass the "
                    f"coordinator's certificate or the CA that signed it as ca_file= or in {CA_FILE_ENV}")
        return TlsError(f"the coordinator at {url} presented a certificate that does not verify ({reason}); "
                        f"trusted: {trust.describe()}; {hint}", url=url, trusted=trust.describe())
    if isinstance(error, ssl.SSLError) and getattr(error, "reason", None) == "WRONG_VERSION_NUMBER":
        return TlsError(f"the coordinator at {url} does not speak HTTPS (it was started without --tls-cert): "
                        "use the http:// URL in its coordinator.json", url=url, trusted=trust.describe())
    return None
