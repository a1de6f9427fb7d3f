"""What a problem's layout asks of a generated kernel (common/problem.hpp Layout,
docs/problems.md): operands given transposed, and strided batches of products."""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Kind:
    """A problem's operand layout: transposed A (given k x m), transposed B (given n x k), and a
    batch (the entry point takes `int batch` first; product q's operands follow product q - 1's)."""
    transpose_a: bool = False
    transpose_b: bool = False
    batched: bool = False

    @staticmethod
    def of(problem: dict) -> "Kind":
        """From a catalog problem as `hpcreward-problems --json` lists it ("layout": "tn-batched")."""
        layout = problem.get("layout", "nn")
        return Kind(layout[0] == "t", layout[1] == "t", layout.endswith("-batched"))


ROW_MAJOR = Kind()

