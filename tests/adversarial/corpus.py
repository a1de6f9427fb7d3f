"""The adversarial corpus: hostile and broken candidates with the statuses they must get.

Each cases/*.c file starts with comment lines:
    // expect: STATUS[|STATUS...]   the acceptable statuses (never `ok`)
    // stage: NAME                  optional, default o3
    // problem: ID                  optional, default dgemm-256
    // why: ...                     optional, what the attack is
The cases that are not C files (huge, empty, binary sources; completions without code or with
several blocks) are built here.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "support"))
from case_header import read_case_header  # noqa: E402

CASES_DIR = pathlib.Path(__file__).resolve().parent / "cases"
SIG = "void matmul(int m, int n, int k, const double *A, const double *B, double *C)"
GOOD = SIG + """ {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
"""


class Case:
    def __init__(self, name, expect, fields, stage="o3", problem="dgemm-256", why=""):
        self.name, self.expect, self.fields = name, tuple(expect), fields
        self.stage, self.problem, self.why = stage, problem, why

    def line(self):
        return {"id": self.name, "problem": self.problem, "stage": self.stage, **self.fields}


def c_cases():
    cases = []
    for path in sorted(CASES_DIR.glob("*.c")):
        source = path.read_text()
        meta = read_case_header(source, ("expect", "stage", "problem", "why"))
        assert "expect" in meta, f"{path.name} has no '// expect:' line"
        expect = meta["expect"].split("|")
        assert "ok" not in expect, f"{path.name}: a hostile case can never expect ok"
        cases.append(Case(path.stem, expect, {"source": source}, meta.get("stage", "o3"),
                          meta.get("problem", "dgemm-256"), meta.get("why", "")))
    return cases


def input_cases():
    return [
        Case("huge-source", ["format_error"], {"source": GOOD + "// " + "x" * (70 * 1024) + "\n"}),
        Case("empty-source", ["format_error"], {"source": ""}),
        Case("whitespace-source", ["format_error"], {"source": "  \n\t\n"}),
        Case("binary-source", ["format_error"], {"source": GOOD + "\u0000\u0001\u0002"}),
        Case("completion-no-code", ["format_error"],
             {"completion": "The fastest matmul uses cache blocking and AVX-512."}),
        Case("completion-two-blocks", ["format_error"],
             {"completion": f"First:\n```c\n{GOOD}```\nOr better:\n```c\n{GOOD}```\n"}),
        Case("completion-wrong-block", ["format_error"],
             {"completion": "```python\nimport numpy as np\nC = A @ B\n```\n"}),
    ]


def all_cases():
    return c_cases() + input_cases()
