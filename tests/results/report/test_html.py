"""hpcreward-results report: one self-contained HTML file with every section and image."""
import base64
import html.parser
import struct

from conftest import HEIGHT_PX, WIDTH_PX, results, write_log, write_schema1_log
from hpcreward_report.html_report import SECTIONS


class Collector(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.images, self.external, self.tags, self.text = set(), [], [], [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "img":
            self.images.append(attrs["src"])
        for name in ("src", "href"):
            if name in attrs and not (attrs[name].startswith("data:") or attrs[name].startswith("#")):
                self.external.append(attrs[name])

    def handle_data(self, data):
        self.text.append(data)


def report(log, out):
    done = results("report", log, "--out", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    page = Collector()
    page.feed(out.read_text(encoding="utf-8"))
    page.close()
    return page, "".join(page.text)


def test_the_report_holds_every_section_and_image_and_needs_nothing_else(run_log, tmp_path):
    page, text = report(run_log, tmp_path / "report.html")
    assert set(SECTIONS) <= page.ids
    assert len(page.images) == 8
    for src in page.images:
        assert src.startswith("data:image/png;base64,")
        png = base64.b64decode(src.split(",", 1)[1])
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (WIDTH_PX, HEIGHT_PX)
    assert page.external == [] and "script" not in page.tags and "link" not in page.tags
    assert "</pre><script>alert('x')</script>" in text  # the candidates' hostile comment, shown as text
    assert "b" not in page.tags  # a candidate id with markup in it stays text
    # The summary, the events, the best candidates' highlighted sources, the provenance.
    assert "dgemm-256" in text and "sgemm-512" in text and "total" in text
    assert text.count("o0 \u2192 o3") >= 2 and "best 2.5 GFLOPS >= 2" in text
    assert "void matmul(int m, int n, int k" in text.replace("\n", " ").replace("  ", " ") or "matmul" in text
    assert 'class="highlight"' in (tmp_path / "report.html").read_text()
    assert "test: no answer for 75 s" in text  # the lost rank
    assert "OpenBLAS 0.3.21 OpenMP" in text and "9eccf2e" in text


def test_the_default_report_lies_beside_the_log(tmp_path):
    log = write_log(tmp_path / "rewards.h5", 8)
    done = results("report", log)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "report.html")
    assert (tmp_path / "report.html").stat().st_size > 10000


def test_a_schema_1_log_and_an_empty_log_get_a_report_that_says_what_is_missing(tmp_path):
    page, text = report(write_schema1_log(tmp_path / "old.h5"), tmp_path / "old.html")
    assert set(SECTIONS) <= page.ids
    assert "This log has no stage events (schema 1)." in text
    page, text = report(write_log(tmp_path / "empty.h5", 0), tmp_path / "empty.html")
    assert set(SECTIONS) <= page.ids
    assert "No verified candidate." in text and "No problem changed stage." in text
