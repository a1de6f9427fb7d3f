"""Self-signed test certificates, made with the openssl command as coordinator/README.md ("HTTPS") says."""
import shutil
import subprocess

import pytest


def make_certificate(directory, name, san="DNS:localhost,IP:127.0.0.1"):
    """(DIR/NAME.pem, DIR/NAME.key): an EC P-256 key and a certificate for `san`, valid for 2 days."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make test certificates (apt-get install openssl)")
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-days", "2", "-subj", f"/CN={name}", "-addext", f"subjectAltName={san}",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    key.chmod(0o600)
    return cert, key
