"""Good and broken candidates for the end-to-end run, each with the status it must get.

Hostile ones here only ever run inside the benchmark rank's sandbox (jobs/local.sh).
"""

SIG = "void matmul(int m, int n, int k, const double *A, const double *B, double *C)"

IKJ_BODY = """{
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) C[i * n + j] = 0.0;
    for (int p = 0; p < k; ++p)
      for (int j = 0; j < n; ++j) C[i * n + j] += A[i * k + p] * B[p * n + j];
  }
}
"""

GOOD_IKJ = SIG + IKJ_BODY

# (id, expected status (or a tuple of acceptable ones), stage, fields) -- fields is what the JSON line carries besides id.
CASES = [
    ("good-ikj-o3", "ok", "o3", {"source": GOOD_IKJ}),
    ("good-ikj-o0", "ok", "o0", {"source": GOOD_IKJ}),
    ("good-completion", "ok", "open",
     {"completion": "I tiled nothing, but:\n```c\n" + GOOD_IKJ + "```\nThis is correct."}),
    ("good-sgemm", "ok", "o3", {"problem": "sgemm-256", "source": GOOD_IKJ.replace("double", "float")}),
    ("syntax-error", "compile_error", "o3", {"source": SIG + "{ int x = }"}),
    ("segfault", "runtime_error", "o3", {"source": SIG + "{ *(volatile int *)0 = 1; }"}),
    ("infinite-loop", "timeout", "o3", {"source": SIG + "{ volatile unsigned long spin = 0; for (;;) ++spin; }"}),
    # The object audit refuses exit/abort imports; without it they would be runtime errors.
    ("calls-exit", ("forbidden", "runtime_error"), "o3",
     {"source": "#include <stdlib.h>\n" + SIG + "{ exit(0); }"}),
    ("calls-abort", ("forbidden", "runtime_error"), "o3",
     {"source": "#include <stdlib.h>\n" + SIG + "{ abort(); }"}),
    ("nan-output", "wrong_answer", "o3",
     {"source": "#include <math.h>\n" + SIG + "{ for (int i = 0; i < m * n; ++i) C[i] = NAN; }"}),
    ("zeros", "wrong_answer", "o3", {"source": SIG + "{ for (int i = 0; i < m * n; ++i) C[i] = 0; }"}),
    ("half-the-work", "wrong_answer", "o3",
     {"source": SIG + IKJ_BODY.replace("for (int p = 0; p < k; ++p)", "for (int p = 0; p < k / 2; ++p)")}),
    # Right at 256^3 only: the odd check shapes catch it.
    ("only-nominal-shape", "wrong_answer", "o3",
     {"source": SIG + "{ if (m != 256 || n != 256 || k != 256) return;\n" + IKJ_BODY[1:]}),
    # Sizes fixed at 256: at the check shapes it reads and writes past the buffers.
    ("hardwired-256", ("runtime_error", "wrong_answer"), "o3",
     {"source": SIG + IKJ_BODY.replace("< m", "< 256").replace("< n", "< 256").replace("< k", "< 256")
      .replace("i * n", "i * 256").replace("i * k", "i * 256").replace("p * n", "p * 256")}),
    ("modifies-input", "wrong_answer", "o3",
     {"source": SIG + IKJ_BODY.replace("{\n  for (int i", "{\n  ((double *)A)[0] += 1.0;\n  for (int i", 1)}),
    ("no-entry-symbol", "format_error", "o3",
     {"source": "// matmul lives elsewhere\nvoid mm(int n) { (void)n; }\n"}),
    ("prose-only", "format_error", "o3", {"completion": "Use blocking and SIMD for matmul."}),
    ("two-blocks", "format_error", "o3",
     {"completion": "```c\n" + GOOD_IKJ + "```\nor\n```c\n" + GOOD_IKJ + "```"}),
    ("unknown-problem", "format_error", "o3", {"problem": "zgemm-7", "source": GOOD_IKJ}),
    ("unknown-stage", "format_error", "warp-speed", {"source": GOOD_IKJ}),
    ("no-code-field", "format_error", "o3", {}),
    ("duplicate", "ok", "o3", {"source": GOOD_IKJ}),
    ("duplicate", "format_error", "o3", {"source": GOOD_IKJ}),
]

# Lines that are not candidates at all; their rows get the id line-<number>.
MALFORMED_LINES = ["{this is not json", "[1, 2, 3]"]
