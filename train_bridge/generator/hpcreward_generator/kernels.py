"""The parametric family of C matmul candidates: a `Genome` and `render(genome)`.

A genome is a loop nest over C[m x n] = A[m x k] * B[k x n] (row-major), with optional cache
tiles on each dimension, an unrolled innermost loop, an unroll-and-jam of the reduction loop
(order ikj), OpenMP over the outermost loop of the i dimension, AVX-512 FMAs over the contiguous
j dimension (orders where j is innermost), B tiles packed into a contiguous local buffer, and
`restrict` pointers. `render` produces a correct candidate for any m, n, k >= 1.

Loop letters: i runs over the rows of C and A (m), j over the columns of C and B (n), k over the
reduction (the parameter `k`; the index variable is called `p`).
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import pathlib
import random
import re

from .problem_kind import ROW_MAJOR, Kind

ORDERS = tuple("".join(p) for p in itertools.permutations("ijk"))
J_INNER_ORDERS = ("ikj", "kij")
TILE_SIZES = (0, 16, 32, 64, 128, 256)
# The ranks count a tiled nest as blocking only when some tile is smaller than the smallest
# dimension of the timed shape (a 256 tile over 256 splits nothing), and so does techniques():
# `smallest` is that dimension of the problem (family.py reads it from the catalog); this
# default is the default catalog's (dgemm/sgemm-256 and up).
SMALLEST_NOMINAL = 256
UNROLLS = (1, 2, 4, 8)
JAMS = (1, 2, 4)
ROWS = (1, 2, 4)
TECHNIQUES = ("openmp", "avx512", "blocking")
# A packed B tile lives on the stack (thread-private inside an OpenMP region): at most 256 KiB.
MAX_PACK_DOUBLES = 32768

_DIM_LIMIT = {"i": "m", "j": "n", "k": "k"}
_DIM_VAR = {"i": "i", "j": "j", "k": "p"}
_TILE_VAR = {"i": "ii", "j": "jj", "k": "pp"}

# The stages of stages/default_ladder.json: (allows, requires). Read from the file when it is
# there (load_ladder), this copy otherwise.
DEFAULT_STAGES = {
    "o0": ((), ()),
    "o3": ((), ()),
    "openmp": (("openmp",), ("openmp",)),
    "avx512": (("openmp", "avx512"), ("avx512",)),
    "blocking": (("openmp", "avx512", "blocking"), ("blocking",)),
    "open": (("openmp", "avx512", "blocking"), ()),
}
DEFAULT_FLAGS = {
    "o0": ["-O0"],
    "o3": ["-O3"],
    "openmp": ["-O3", "-fopenmp"],
    "avx512": ["-O3", "-fopenmp", "-mavx512f", "-mavx512dq", "-mavx512vl", "-mfma"],
    "blocking": ["-O3", "-fopenmp", "-mavx512f", "-mavx512dq", "-mavx512vl", "-mfma"],
    "open": ["-O3", "-march=native", "-fopenmp"],
}


def load_ladder(path: str | pathlib.Path | None = None) -> tuple[dict, dict]:
    """(stages: name -> (allows, requires), flags: name -> list) from a ladder JSON file."""
    if path is None:
        path = pathlib.Path(__file__).resolve().parents[3] / "stages" / "default_ladder.json"
    try:
        config = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError):
        return dict(DEFAULT_STAGES), dict(DEFAULT_FLAGS)
    stages = {s["name"]: (tuple(s.get("allows", ())), tuple(s.get("requires", ()))) for s in config["stages"]}
    flags = {s["name"]: list(s.get("flags", ())) for s in config["stages"]}
    return stages, flags


@dataclasses.dataclass(frozen=True)
class Genome:
    loop_order: str = "ikj"     # point loops, outermost first; tile loops follow the same order
    ti: int = 0                 # tile sizes (0: that dimension is not tiled)
    tj: int = 0
    tk: int = 0
    unroll: int = 1             # unroll factor of the innermost loop (vectors of 8 with avx512)
    jam: int = 1                # unroll-and-jam of the p loop around the j loop (order ikj only)
    rows: int = 1               # unroll-and-jam of the i loop: rows of C per B load (order ikj only)
    openmp: bool = False        # parallel for over the outermost loop of the i dimension
    avx512: bool = False        # _mm512_fmadd_pd over j (orders with j innermost)
    pack: bool = False          # copy each TK x TJ tile of B into a contiguous local buffer
    restrict: bool = False

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @staticmethod
    def from_dict(data: dict) -> "Genome":
        fields = {f.name for f in dataclasses.fields(Genome)}
        return Genome(**{key: value for key, value in data.items() if key in fields})

    def tile(self, letter: str) -> int:
        return {"i": self.ti, "j": self.tj, "k": self.tk}[letter]

    def label(self) -> str:
        tiles = "x".join(str(t) for t in (self.ti, self.tj, self.tk))
        flags = "".join(flag for flag, on in (("O", self.openmp), ("V", self.avx512), ("P", self.pack),
                                                ("R", self.restrict)) if on)
        rows = f"-r{self.rows}" if self.rows > 1 else ""
        return f"{self.loop_order}-t{tiles}-u{self.unroll}-j{self.jam}{rows}-{flags or 'plain'}"

    @staticmethod
    def from_label(label: str) -> "Genome":
        """The genome a label() names (labels encode every gene). ValueError if it names none."""
        match = _LABEL.fullmatch(label) if isinstance(label, str) else None
        if not match:
            raise ValueError(f"{label!r} is not a C genome label (order-tIxJxK-uU-jJ[-rR]-FLAGS, "
                             "e.g. ikj-t64x64x0-u4-j2-r2-OVPR; flags O, V, P, R in that order, or plain)")
        flags = match["flags"]
        genome = Genome(loop_order=match["order"], ti=int(match["ti"]), tj=int(match["tj"]), tk=int(match["tk"]),
                        unroll=int(match["unroll"]), jam=int(match["jam"]), rows=int(match["rows"] or 1),
                        openmp="O" in flags, avx512="V" in flags, pack="P" in flags, restrict="R" in flags)
        if genome.label() != label:  # e.g. -r1 or leading zeros: not a label label() writes
            raise ValueError(f"{label!r} is not a C genome label as the generator writes it ({genome.label()!r})")
        return genome


# What Genome.label() writes; the flags are O (openmp), V (avx512), P (pack), R (restrict), or plain.
_LABEL = re.compile(r"(?P<order>[ijk]{3})-t(?P<ti>\d+)x(?P<tj>\d+)x(?P<tk>\d+)-u(?P<unroll>\d+)-j(?P<jam>\d+)"
                    r"(?:-r(?P<rows>\d+))?-(?P<flags>plain|(?=[OVPR])O?V?P?R?)")


def techniques(genome: Genome, smallest: int = SMALLEST_NOMINAL) -> tuple[str, ...]:
    """The techniques of TECHNIQUES the rendered candidate uses (as the pipeline detects them)
    on a problem whose smallest dimension is `smallest`."""
    used = []
    if genome.openmp:
        used.append("openmp")
    if genome.avx512:
        used.append("avx512")
    if any(0 < tile < smallest for tile in (genome.ti, genome.tj, genome.tk)):
        used.append("blocking")
    return tuple(used)


def problems(genome: Genome) -> list[str]:
    """Why a genome cannot be rendered as it is (empty when it can)."""
    found = []
    if genome.loop_order not in ORDERS:
        found.append(f"loop order {genome.loop_order!r}")
    for name in ("ti", "tj", "tk"):
        if getattr(genome, name) not in TILE_SIZES:
            found.append(f"{name}={getattr(genome, name)}")
    if genome.unroll not in UNROLLS:
        found.append(f"unroll={genome.unroll}")
    if genome.jam not in JAMS:
        found.append(f"jam={genome.jam}")
    if genome.jam > 1 and genome.loop_order != "ikj":
        found.append("jam needs order ikj")
    if genome.rows not in ROWS:
        found.append(f"rows={genome.rows}")
    if genome.rows > 1 and genome.loop_order != "ikj":
        found.append("rows needs order ikj")
    if genome.avx512 and genome.loop_order not in J_INNER_ORDERS:
        found.append("avx512 needs j innermost")
    if genome.pack and not (genome.tj and genome.tk and genome.tj * genome.tk <= MAX_PACK_DOUBLES):
        found.append("pack needs j and k tiles of at most 32768 doubles together")
    inner_tile = genome.tile(genome.loop_order[2]) if genome.loop_order in ORDERS else 0
    if inner_tile and inner_step(genome) >= inner_tile:
        found.append("the innermost loop's step must be below its tile (else the tile is not seen as blocking)")
    return found


def inner_step(genome: Genome) -> int:
    """Step of the unrolled innermost loop (AVX-512 counted as 16 lanes: float's, the wider)."""
    return genome.unroll * (16 if genome.avx512 else 1)


def is_valid(genome: Genome, stage: str | None = None, stages: dict | None = None,
             smallest: int = SMALLEST_NOMINAL) -> bool:
    if problems(genome):
        return False
    if stage is None:
        return True
    allows, requires = (stages or DEFAULT_STAGES)[stage]
    used = set(techniques(genome, smallest))
    return used <= set(allows) and set(requires) <= used


def repair(genome: Genome, stage: str | None, rng, stages: dict | None = None,
           smallest: int = SMALLEST_NOMINAL) -> Genome:
    """The nearest genome valid in `stage` (None: any stage) on a problem whose smallest
    dimension is `smallest`: drops what it may not use, adds what it must, then fixes gene
    combinations that cannot be rendered."""
    g = dataclasses.asdict(genome)
    if stage is not None:
        allows, requires = (stages or DEFAULT_STAGES)[stage]
        if "openmp" not in allows:
            g["openmp"] = False
        if "openmp" in requires:
            g["openmp"] = True
        if "avx512" not in allows:
            g["avx512"] = False
        if "avx512" in requires:
            g["avx512"] = True
        if "blocking" not in allows:
            g["ti"] = g["tj"] = g["tk"] = 0
        if "blocking" in requires and not any(0 < g[t] < smallest for t in ("ti", "tj", "tk")):
            # below 16 no tile of TILE_SIZES splits the problem; the ranks then say the stage's
            # requirement is not met, which is the truth about such a problem and this family
            splitting = [t for t in TILE_SIZES if 0 < t < smallest] or [min(t for t in TILE_SIZES if t)]
            g[rng.choice(("ti", "tj", "tk"))] = rng.choice(splitting)
    if g["avx512"] and g["loop_order"] not in J_INNER_ORDERS:
        if stage is not None and "avx512" in (stages or DEFAULT_STAGES)[stage][1]:
            g["loop_order"] = rng.choice(J_INNER_ORDERS)
        else:
            g["avx512"] = False
    if g["loop_order"] != "ikj":
        g["jam"] = 1
        g["rows"] = 1
    if g["pack"] and not (g["tj"] and g["tk"] and g["tj"] * g["tk"] <= MAX_PACK_DOUBLES):
        g["pack"] = False
    inner = "t" + g["loop_order"][2].replace("k", "k")
    while g[inner] and inner_step(Genome(**g)) >= g[inner]:
        if g["unroll"] > 1:
            g["unroll"] //= 2
        else:
            g[inner] = min(t for t in TILE_SIZES if t > g[inner])
    if g["pack"] and not (g["tj"] and g["tk"] and g["tj"] * g["tk"] <= MAX_PACK_DOUBLES):
        g["pack"] = False
    return Genome(**g)


def random_genome(rng: random.Random, stage: str | None, stages: dict | None = None,
                  smallest: int = SMALLEST_NOMINAL) -> Genome:
    genome = Genome(
        loop_order=rng.choice(ORDERS),
        ti=rng.choice(TILE_SIZES), tj=rng.choice(TILE_SIZES), tk=rng.choice(TILE_SIZES),
        unroll=rng.choice(UNROLLS), jam=rng.choice(JAMS), rows=rng.choice(ROWS),
        openmp=rng.random() < 0.5, avx512=rng.random() < 0.5, pack=rng.random() < 0.5,
        restrict=rng.random() < 0.5)
    return repair(genome, stage, rng, stages, smallest)


GENES = ("loop_order", "ti", "tj", "tk", "unroll", "jam", "rows", "openmp", "avx512", "pack", "restrict")


def mutate(genome: Genome, rng: random.Random, stage: str | None, stages: dict | None = None,
           smallest: int = SMALLEST_NOMINAL) -> Genome:
    """Changes one gene (to a different value), then repairs the genome for `stage`."""
    gene = rng.choice(GENES)
    value = getattr(genome, gene)
    if gene == "loop_order":
        new = rng.choice([o for o in ORDERS if o != value])
    elif gene in ("ti", "tj", "tk"):
        new = rng.choice([t for t in TILE_SIZES if t != value])
    elif gene == "unroll":
        new = rng.choice([u for u in UNROLLS if u != value])
    elif gene == "jam":
        new = rng.choice([u for u in JAMS if u != value])
    elif gene == "rows":
        new = rng.choice([u for u in ROWS if u != value])
    else:
        new = not value
    return repair(dataclasses.replace(genome, **{gene: new}), stage, rng, stages, smallest)


def descriptor(genome: Genome, smallest: int = SMALLEST_NOMINAL) -> str:
    """Niche key: techniques, loop order, tile sizes (already powers of two: the buckets)."""
    used = "+".join(techniques(genome, smallest)) or "plain"
    tiles = "x".join(str(t) for t in (genome.ti, genome.tj, genome.tk))
    return f"{used}|{genome.loop_order}|{tiles}"


# ----------------------------------------------------------------------------------------------
# Rendering

class _Writer:
    def __init__(self):
        self.lines: list[str] = []
        self.depth = 1

    def line(self, text: str):
        self.lines.append("  " * self.depth + text)

    def open(self, text: str):
        self.line(text + " {")
        self.depth += 1

    def close(self, count: int = 1):
        for _ in range(count):
            self.depth -= 1
            self.line("}")


def _bounds(genome: Genome, letter: str) -> tuple[str, str]:
    """(first, end) of the point loop of `letter`."""
    limit, tile = _DIM_LIMIT[letter], genome.tile(letter)
    if not tile:
        return "0", limit
    tv = _TILE_VAR[letter]
    return tv, f"({tv} + {tile} < {limit} ? {tv} + {tile} : {limit})"


def render(genome: Genome, precision: str = "f64", kind: Kind = ROW_MAJOR) -> str:
    """C source of the candidate `genome` describes (double for f64, float for f32), for a
    problem of `kind`: the nest computes one row-major product; for another kind it becomes a
    static function that `matmul` calls once per product of the batch, on operands given
    transposed copied back to row-major first (O(mk) per product against its O(mnk))."""
    source = _render_row_major(genome, precision)
    if kind == ROW_MAJOR:
        return source
    return _wrap_for_kind(source, precision, kind)


def _wrap_for_kind(source: str, precision: str, kind: Kind) -> str:
    T = "double" if precision == "f64" else "float"
    lines = source.rstrip("\n").split("\n")
    head = next(index for index, line in enumerate(lines) if line.startswith("void matmul("))
    lines[head] = "static void product(" + lines[head][len("void matmul("):]
    includes = [index for index, line in enumerate(lines) if line.startswith("#include")]
    lines.insert(includes[-1] + 1 if includes else 1, "#include <stdlib.h>")
    batch = "int batch, " if kind.batched else ""
    w = _Writer()
    w.depth = 0
    w.open(f"void matmul({batch}int m, int n, int k, const {T} *A, const {T} *B, {T} *C)")
    if kind.transpose_a:
        w.line(f"{T} *At = malloc(sizeof({T}) * (size_t)m * k);  // A back to m x k, row-major")
    if kind.transpose_b:
        w.line(f"{T} *Bt = malloc(sizeof({T}) * (size_t)k * n);  // B back to k x n, row-major")
    if kind.transpose_a or kind.transpose_b:
        w.line("if (" + " || ".join(name for flag, name in ((kind.transpose_a, "!At"), (kind.transpose_b, "!Bt"))
                                    if flag) + ") {")
        w.line(("  free(At); " if kind.transpose_a else "  ") + ("free(Bt); " if kind.transpose_b else "")
               + "return;  // C keeps its NaN: a wrong answer, not a crash")
        w.line("}")
    w.open("for (int q = 0; q < " + ("batch" if kind.batched else "1") + "; ++q)")
    w.line(f"const {T} *a = A + (size_t)q * m * k, *b = B + (size_t)q * k * n;")
    if kind.transpose_a:
        w.line("for (int p = 0; p < k; ++p)")
        w.line("  for (int i = 0; i < m; ++i) At[(size_t)i * k + p] = a[(size_t)p * m + i];")
    if kind.transpose_b:
        w.line("for (int j = 0; j < n; ++j)")
        w.line("  for (int p = 0; p < k; ++p) Bt[(size_t)p * n + j] = b[(size_t)j * k + p];")
    w.line("product(m, n, k, " + ("At" if kind.transpose_a else "a") + ", " + ("Bt" if kind.transpose_b else "b")
           + ", C + (size_t)q * m * n);")
    w.close()
    if kind.transpose_a:
        w.line("free(At);")
    if kind.transpose_b:
        w.line("free(Bt);")
    w.close()
    return "\n".join(lines + [""] + w.lines) + "\n"


def _render_row_major(genome: Genome, precision: str) -> str:
    issues = problems(genome)
    if issues:
        raise ValueError("genome cannot be rendered: " + "; ".join(issues))
    if precision not in ("f64", "f32"):
        raise ValueError(f"precision {precision!r}")
    T = "double" if precision == "f64" else "float"
    lanes = 8 if precision == "f64" else 16
    sfx = "pd" if precision == "f64" else "ps"
    vtype = "__m512d" if precision == "f64" else "__m512"
    R = "restrict " if genome.restrict else ""
    order = genome.loop_order
    tiled = [letter for letter in order if genome.tile(letter)]
    packed = genome.pack
    TJ, TK = genome.tj, genome.tk

    def b_ref(p: str, j: str) -> str:  # element B[p][j] (packed: its copy)
        if packed:
            return f"Bp[({p} - pp) * {TJ} + ({j} - jj)]"
        return f"B[(long){p} * n + {j}]"

    def b_ptr(p: str, j: str) -> str:
        if packed:
            return f"&Bp[({p} - pp) * {TJ} + ({j} - jj)]"
        return f"&B[(long){p} * n + {j}]"

    w = _Writer()
    out = [f"// hpcreward_generator: {genome.label()}"]
    if genome.avx512:
        out.append("#include <immintrin.h>")
    out.append("")
    out.append(f"void matmul(int m, int n, int k, const {T} *{R}A, const {T} *{R}B, {T} *{R}C) {{")

    # C holds NaN on entry: zero it first (in parallel when the nest is parallel).
    if genome.openmp:
        w.line("#pragma omp parallel for schedule(static)")
    w.open("for (int i = 0; i < m; ++i)")
    w.line(f"for (int j = 0; j < n; ++j) C[(long)i * n + j] = 0;")
    w.close()

    # Where the OpenMP directive goes: the outermost loop over the i dimension.
    omp_loop = None
    if genome.openmp:
        omp_loop = ("tile", "i") if genome.ti else ("point", "i")
    depth_opened = 0

    # Tile loops, in loop order.
    for letter in tiled:
        tv, limit, tile = _TILE_VAR[letter], _DIM_LIMIT[letter], genome.tile(letter)
        if omp_loop == ("tile", letter):
            w.line("#pragma omp parallel for schedule(static)")
        w.open(f"for (int {tv} = 0; {tv} < {limit}; {tv} += {tile})")
        depth_opened += 1
        if packed and letter == max(("j", "k"), key=tiled.index):
            # Both the j and k tiles are fixed here: copy B's tile (rows pp.., columns jj..).
            w.line(f"{T} Bp[{TK * TJ}];")
            w.open(f"for (int p = pp; p < (pp + {TK} < k ? pp + {TK} : k); ++p)")
            w.line(f"for (int j = jj; j < (jj + {TJ} < n ? jj + {TJ} : n); ++j) "
                   f"Bp[(p - pp) * {TJ} + (j - jj)] = B[(long)p * n + j];")
            w.close()

    if order == "ikj" and genome.rows > 1:
        # Register blocking: `rows` rows of C x `jam` rows of B per step of the j loop.
        _ikj_rows(w, genome, omp_loop == ("point", "i"), b_ref, b_ptr, T, lanes, sfx, vtype)
        w.close(depth_opened)
        out.extend(w.lines)
        out.append("}")
        return "\n".join(out) + "\n"

    # Point loops: all but the innermost are plain loops.
    outer, middle, inner = order[0], order[1], order[2]
    jam = genome.jam if order == "ikj" else 1
    for position, letter in enumerate(order[:2]):
        first, end = _bounds(genome, letter)
        var = _DIM_VAR[letter]
        if omp_loop == ("point", letter):
            w.line("#pragma omp parallel for schedule(static)")
        if position == 1 and jam > 1:
            # p loop unrolled by `jam` and jammed into the j loop, then the remaining p one by one.
            w.line("int p;")
            w.open(f"for (p = {first}; p + {jam} <= {end}; p += {jam})")
            _jammed_body(w, genome, jam, b_ref, b_ptr, T, lanes, sfx, vtype)
            w.close()
            w.open(f"for (; p < {end}; ++p)")
            depth_opened += 1
            break
        w.open(f"for (int {var} = {first}; {var} < {end}; ++{var})")
        depth_opened += 1

    _inner_loop(w, genome, inner, b_ref, b_ptr, T, lanes, sfx, vtype, omp_inner=(omp_loop == ("point", inner)))
    w.close(depth_opened)
    out.extend(w.lines)
    out.append("}")
    return "\n".join(out) + "\n"


def _scalar_update(inner: str, b_ref, j: str = "j", i: str = "i", p: str = "p") -> str:
    if inner == "j":
        return f"C[(long){i} * n + {j}] += a * {b_ref(p, j)};"
    if inner == "i":
        return f"C[(long){i} * n + {j}] += A[(long){i} * k + {p}] * b;"
    return f"C[(long){i} * n + {j}] += A[(long){i} * k + {p}] * {b_ref(p, j)};"


def _inner_loop(w: _Writer, genome: Genome, inner: str, b_ref, b_ptr, T, lanes, sfx, vtype, omp_inner: bool):
    first, end = _bounds(genome, inner)
    var = _DIM_VAR[inner]
    unroll = genome.unroll
    if inner == "j":
        w.line(f"const {T} a = A[(long)i * k + p];")
    elif inner == "i":
        w.line(f"const {T} b = {b_ref('p', 'j')};")
    if genome.avx512:
        w.line(f"const {vtype} av = _mm512_set1_{sfx}(a);")
        w.line(f"{T} *{'restrict ' if genome.restrict else ''}c = &C[(long)i * n];")
        w.line("int j;")
        step = lanes * unroll
        w.open(f"for (j = {first}; j + {step} <= {end}; j += {step})")
        for u in range(unroll):
            off = f" + {lanes * u}" if u else ""
            w.line(f"_mm512_storeu_{sfx}(c + j{off}, _mm512_fmadd_{sfx}(av, _mm512_loadu_{sfx}({b_ptr('p', 'j' + off)}), "
                   f"_mm512_loadu_{sfx}(c + j{off})));")
        w.close()
        if unroll > 1:
            w.open(f"for (; j + {lanes} <= {end}; j += {lanes})")
            w.line(f"_mm512_storeu_{sfx}(c + j, _mm512_fmadd_{sfx}(av, _mm512_loadu_{sfx}({b_ptr('p', 'j')}), "
                   f"_mm512_loadu_{sfx}(c + j)));")
            w.close()
        w.line(f"for (; j < {end}; ++j) {_scalar_update('j', b_ref)}")
        return
    if unroll == 1 or omp_inner:
        if omp_inner:
            w.line("#pragma omp parallel for schedule(static)")
        w.line(f"for (int {var} = {first}; {var} < {end}; ++{var}) {_scalar_update(inner, b_ref)}")
        return
    w.line(f"int {var};")
    w.open(f"for ({var} = {first}; {var} + {unroll} <= {end}; {var} += {unroll})")
    for u in range(unroll):
        idx = {"i": "i", "j": "j", "p": "p"}
        idx[var] = f"({var} + {u})" if u else var
        w.line(_scalar_update(inner, b_ref, j=idx["j"], i=idx["i"], p=idx["p"]))
    w.close()
    w.line(f"for (; {var} < {end}; ++{var}) {_scalar_update(inner, b_ref)}")


def _jammed_body(w: _Writer, genome: Genome, jam: int, b_ref, b_ptr, T, lanes, sfx, vtype):
    """Body of the ikj p loop unrolled by `jam`: rows p..p+jam-1 of B update row i of C at once."""
    first, end = _bounds(genome, "j")
    for q in range(jam):
        w.line(f"const {T} a{q} = A[(long)i * k + p + {q}];")
    if genome.avx512:
        w.line(f"{T} *{'restrict ' if genome.restrict else ''}c = &C[(long)i * n];")
    w.line("int j;")
    rows = [f"(p + {q})" if q else "p" for q in range(jam)]
    if genome.avx512:
        for q in range(jam):
            w.line(f"const {vtype} av{q} = _mm512_set1_{sfx}(a{q});")
        step = lanes * genome.unroll
        w.open(f"for (j = {first}; j + {step} <= {end}; j += {step})")
        for u in range(genome.unroll):
            off = f" + {lanes * u}" if u else ""
            w.line(f"{vtype} acc{u} = _mm512_loadu_{sfx}(c + j{off});")
            for q in range(jam):
                w.line(f"acc{u} = _mm512_fmadd_{sfx}(av{q}, _mm512_loadu_{sfx}({b_ptr(rows[q], 'j' + off)}), acc{u});")
            w.line(f"_mm512_storeu_{sfx}(c + j{off}, acc{u});")
        w.close()
        if genome.unroll > 1:
            w.open(f"for (; j + {lanes} <= {end}; j += {lanes})")
            w.line(f"{vtype} acc = _mm512_loadu_{sfx}(c + j);")
            for q in range(jam):
                w.line(f"acc = _mm512_fmadd_{sfx}(av{q}, _mm512_loadu_{sfx}({b_ptr(rows[q], 'j')}), acc);")
            w.line(f"_mm512_storeu_{sfx}(c + j, acc);")
            w.close()
    terms = " + ".join(f"a{q} * {b_ref(rows[q], 'j')}" for q in range(jam))
    start = "" if genome.avx512 else f"j = {first}"
    w.line(f"for ({start}; j < {end}; ++j) C[(long)i * n + j] += {terms};")


def _ikj_rows(w: _Writer, genome: Genome, omp: bool, b_ref, b_ptr, T, lanes, sfx, vtype):
    """Point loops of order ikj with the i loop unrolled by `rows` and the p loop by `jam`, both
    jammed into the j loop; remainder rows and remainder p one at a time."""
    R = genome.rows
    first, end = _bounds(genome, "i")
    if omp:
        w.line("#pragma omp parallel for schedule(static)")
    w.open(f"for (int i = {first}; i <= {end} - {R}; i += {R})")
    _ikj_p_loops(w, genome, R, b_ref, b_ptr, T, lanes, sfx, vtype)
    w.close()
    rest = f"{end} / {R} * {R}" if first == "0" else f"{first} + ({end} - {first}) / {R} * {R}"
    w.open(f"for (int i = {rest}; i < {end}; ++i)")
    _ikj_p_loops(w, genome, 1, b_ref, b_ptr, T, lanes, sfx, vtype)
    w.close()


def _ikj_p_loops(w: _Writer, genome: Genome, R: int, b_ref, b_ptr, T, lanes, sfx, vtype):
    first, end = _bounds(genome, "k")
    J = genome.jam
    if J > 1:
        w.line("int p;")
        w.open(f"for (p = {first}; p + {J} <= {end}; p += {J})")
        _ikj_kernel(w, genome, R, J, b_ref, b_ptr, T, lanes, sfx, vtype)
        w.close()
        w.open(f"for (; p < {end}; ++p)")
    else:
        w.open(f"for (int p = {first}; p < {end}; ++p)")
    _ikj_kernel(w, genome, R, 1, b_ref, b_ptr, T, lanes, sfx, vtype)
    w.close()


def _ikj_kernel(w: _Writer, genome: Genome, R: int, J: int, b_ref, b_ptr, T, lanes, sfx, vtype):
    """C[i..i+R-1][j..] += A[i..i+R-1][p..p+J-1] * B[p..p+J-1][j..] over the j range."""
    first, end = _bounds(genome, "j")
    rows = ["i"] + [f"(i + {r})" for r in range(1, R)]
    ps = ["p"] + [f"(p + {q})" for q in range(1, J)]
    for r in range(R):
        for q in range(J):
            w.line(f"const {T} a{r}_{q} = A[(long){rows[r]} * k + {ps[q]}];")
    update = " ".join(f"C[(long){rows[r]} * n + j] += "
                      + " + ".join(f"a{r}_{q} * {b_ref(ps[q], 'j')}" for q in range(J)) + ";"
                      for r in range(R))
    if not genome.avx512:
        w.line(f"for (int j = {first}; j < {end}; ++j) {{ {update} }}")
        return
    restrict = "restrict " if genome.restrict else ""
    for r in range(R):
        w.line(f"{T} *{restrict}c{r} = &C[(long){rows[r]} * n];")
        for q in range(J):
            w.line(f"const {vtype} av{r}_{q} = _mm512_set1_{sfx}(a{r}_{q});")
    w.line("int j;")

    def vector_step(unroll: int):
        for u in range(unroll):
            off = f" + {lanes * u}" if u else ""
            for q in range(J):
                w.line(f"const {vtype} b{q}_{u} = _mm512_loadu_{sfx}({b_ptr(ps[q], 'j' + off)});")
            for r in range(R):
                w.line(f"{vtype} acc{r}_{u} = _mm512_loadu_{sfx}(c{r} + j{off});")
                for q in range(J):
                    w.line(f"acc{r}_{u} = _mm512_fmadd_{sfx}(av{r}_{q}, b{q}_{u}, acc{r}_{u});")
                w.line(f"_mm512_storeu_{sfx}(c{r} + j{off}, acc{r}_{u});")

    step = lanes * genome.unroll
    w.open(f"for (j = {first}; j + {step} <= {end}; j += {step})")
    vector_step(genome.unroll)
    w.close()
    if genome.unroll > 1:
        w.open(f"for (; j + {lanes} <= {end}; j += {lanes})")
        vector_step(1)
        w.close()
    w.line(f"for (; j < {end}; ++j) {{ {update} }}")
