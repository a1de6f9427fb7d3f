"""The header of a corpus case: its first comment lines, `// key: value`, until the first other line.

Shared by the adversarial corpus (tests/adversarial) and the honest one (tests/honest)."""
import re


def read_case_header(source, keys):
    """{key: value} for the leading `// key: value` lines whose key is in `keys`."""
    header = re.compile(r"^//\s*(" + "|".join(map(re.escape, keys)) + r"):\s*(.*)$")
    meta = {}
    for line in source.splitlines():
        match = header.match(line)
        if not match:
            break
        meta[match.group(1)] = match.group(2).strip()
    return meta
