"""The perf corpora are what the suite's report says they are (corpus_mixed.py, corpus_grpo.py)."""
import json

import corpus_grpo
import corpus_kernels
import corpus_mixed


def code(line):
    return line.get("source") or line["completion"]


def test_corpora_are_deterministic():
    assert corpus_mixed.build(corpus_mixed.PLAN) == corpus_mixed.build(corpus_mixed.PLAN)
    assert corpus_grpo.build(6, 8, 2) == corpus_grpo.build(6, 8, 2)


def test_mixed_lines_are_distinct_and_cover_every_kind():
    lines, kinds = corpus_mixed.build(corpus_mixed.PLAN)
    assert len({code(l) for l in lines}) == len(lines)
    assert {k["kind"] for k in kinds.values()} == {"good", "slow", "compile_error", "wrong_answer", "format_error",
                                                   "hang", "hostile"}
    assert all(k["pipeline_only"] == (k["kind"] == "hostile") for k in kinds.values())
    assert all(l["problem"] == "dgemm-256" and l["stage"] == "open" for l in lines)


def test_a_quarter_of_the_grpo_completions_repeat_an_earlier_one_exactly():
    lines, kinds = corpus_grpo.build(6, 8, 2)
    position = {l["id"]: i for i, l in enumerate(lines)}
    repeats = [l for l in lines if "repeat_of" in kinds[l["id"]]]
    assert len(repeats) * 4 == len(lines)
    for line in repeats:
        original = kinds[line["id"]]["repeat_of"]
        assert position[original] < position[line["id"]]
        assert line["completion"] == lines[position[original]]["completion"]
    distinct = [l for l in lines if "repeat_of" not in kinds[l["id"]]]
    assert len({l["completion"] for l in distinct}) == len(distinct)


def test_variants_differ_in_code_not_only_in_comments():
    source = corpus_kernels.kernel("ikj.c")
    strip = lambda text: "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("//"))
    assert len({strip(corpus_kernels.variant(source, n)) for n in range(4)}) == 4
    blocked = corpus_kernels.kernel("blocked.c")
    assert "#define TILE 32" in corpus_kernels.variant(blocked, 1)


def test_write_puts_the_kinds_beside_the_corpus(tmp_path):
    lines, kinds = corpus_mixed.build(corpus_mixed.TINY_PLAN)
    kinds_path = corpus_kernels.write(lines, kinds, tmp_path / "mixed.jsonl")
    assert kinds_path == tmp_path / "mixed.kinds.json"
    assert [json.loads(t) for t in (tmp_path / "mixed.jsonl").read_text().splitlines()] == lines
    assert json.loads(kinds_path.read_text()) == kinds
