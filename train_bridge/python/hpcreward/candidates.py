"""Builds the candidate list of one batch request."""
import uuid

PROBLEMS = ("dgemm-256", "dgemm-512", "dgemm-1024", "sgemm-256", "sgemm-512", "sgemm-1024")
STATUSES = ("ok", "format_error", "forbidden", "constraint_violation", "compile_error", "timeout",
            "runtime_error", "wrong_answer")


def new_batch_id(prefix="b"):
    """A fresh batch id: PREFIX-<32 hex digits of a uuid4>."""
    return f"{prefix}-{uuid.uuid4().hex}"


def per_candidate(value, count, name):
    """VALUE as a list of COUNT: a list or tuple of that length, or one value for all (None stays None)."""
    if value is None or isinstance(value, str):
        return [value] * count
    values = list(value)
    if len(values) != count:
        raise ValueError(f"{name}: got {len(values)} values for {count} candidates")
    return values


def build_candidates(texts, field, problems, stages=None, ids=None, batch_id=""):
    """The `candidates` array: each {"id", "problem", field: text, "stage"?}.

    field is "completion" (raw model output; the code is its fenced block) or "source" (C code).
    Ids default to BATCH_ID-<index>, unique as long as batch ids are.
    """
    if isinstance(texts, str):
        raise TypeError(f"expected a list of {field}s, got one string; wrap it in a list")
    texts = list(texts)
    count = len(texts)
    if problems is None:
        raise ValueError("problems is required: one problem id for all, or a list")
    problem_list = per_candidate(problems, count, "problems")
    stage_list = per_candidate(stages, count, "stages")
    id_list = per_candidate(ids, count, "ids") if ids is not None else [f"{batch_id}-{i}" for i in range(count)]
    candidates = []
    for text, problem, stage, identifier in zip(texts, problem_list, stage_list, id_list):
        if not isinstance(text, str):
            raise TypeError(f"candidate {identifier}: {field} must be a string, got {type(text).__name__}")
        candidate = {"id": str(identifier), "problem": problem, field: text}
        if stage is not None:
            candidate["stage"] = stage
        candidates.append(candidate)
    return candidates
