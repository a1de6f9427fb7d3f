"""The project's corpus of answers as code models write them: one file per answer under c/ and cuda/.

Each file is the raw model output a trainer sends as a line's `completion`, after a first line
that is the header this module reads (an HTML comment, dropped before the answer is sent):

    <!-- expect: STATUS[|STATUS]   problem: ID   stage: NAME   [known: STATUS]   why: TEXT -->

`expect` is the fair verdict (what a fair judge says, the prompt of that stage and problem in
hand); `|` separates the statuses accepted where a fair judge cannot tell (a data race that a
one-thread rank never shows). `known` marks a known misjudgement: what the pipeline says today
where it is not the fair verdict; the test reports those as known misjudgements, not passes.
`why` is last and runs to the end of the comment.
"""
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
STATUSES = {"ok", "wrong_answer", "constraint_violation", "forbidden", "compile_error", "format_error",
            "runtime_error", "timeout"}
HEADER = re.compile(r"^<!--\s*(?P<fields>.*?)\s+why:\s*(?P<why>.*?)\s*-->$")
FIELD = re.compile(r"(expect|problem|stage|known):\s*(\S+)")


class Answer:
    def __init__(self, path):
        text = path.read_text()
        first, _, rest = text.partition("\n")
        match = HEADER.match(first)
        assert match, f"{path}: the first line is not a '<!-- expect: ... why: ... -->' header"
        fields = dict(FIELD.findall(match.group("fields")))
        assert {"expect", "problem", "stage"} <= fields.keys(), f"{path}: the header needs expect, problem, stage"
        self.path = path
        self.language = path.parent.name  # c or cuda
        self.name = f"{self.language}/{path.stem}"
        self.expect = tuple(fields["expect"].split("|"))
        self.known = fields.get("known")
        self.problem, self.stage, self.why = fields["problem"], fields["stage"], match.group("why")
        self.completion = rest  # exactly what the model wrote
        unknown = set(self.expect) - STATUSES | ({self.known} - STATUSES if self.known else set())
        assert not unknown, f"{path}: unknown statuses {unknown}"
        assert self.known is None or self.known not in self.expect, f"{path}: 'known' is today's unfair verdict"

    def line(self, **extra):
        """The candidate line a trainer sends for this answer."""
        return {"id": self.name, "problem": self.problem, "stage": self.stage, "completion": self.completion, **extra}


def answers(language):
    """Every answer of `language` ("c" or "cuda"), sorted by file name."""
    return [Answer(path) for path in sorted((HERE / language).glob("*.md"))]
