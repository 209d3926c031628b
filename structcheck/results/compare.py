"""Design-change verification: compare two results folders (baseline vs candidate).

A metric *regresses* when the candidate is worse than the baseline by more than the tolerance (percent of the
baseline value): higher stress, strain, deformation or tool-point deflection, lower safety factor, shorter
fatigue life (null in summary.json: infinite) or lower fatigue safety factor. Mass is reported, never judged.
Metrics that neither run has (fatigue not asked for) are left out of the table. The inputs that differ between the
two runs (summary.json's ``inputs``: build() parameters, the study's settings, the parts' materials and meshes, the
damping, the solver, the script's bytes) are listed first: they say why the numbers moved.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..errors import InputError, require_number
from .schema import read_summary

# (summary key, label, unit scale, unit, worse when) ; worse = +1 when higher is worse, -1 when lower is worse
LINK_METRICS = (
    ("max_von_mises_pa", "max von Mises", 1e-6, "MPa", +1),
    ("max_von_mises_averaged_pa", "max von Mises, nodal avg", 1e-6, "MPa", +1),
    ("max_equivalent_strain", "max strain", 1.0, "", +1),
    ("max_deformation_m", "max deformation", 1e3, "mm", +1),
    ("min_safety_factor", "min safety factor", 1.0, "", -1),
    ("min_fatigue_life_cycles", "min fatigue life", 1.0, "cycles", -1),  # null: infinite life
    ("fatigue_safety_factor", "fatigue safety factor", 1.0, "", -1),  # null: infinite
    ("mass_kg", "mass", 1.0, "kg", 0),
)


@dataclass(frozen=True)
class Delta:
    """One compared quantity. ``change_pct`` is (candidate - baseline) / |baseline| * 100."""

    link: str
    metric: str
    label: str
    baseline: float | None
    candidate: float | None
    change_pct: float | None
    regressed: bool
    unit: str
    scale: float


@dataclass(frozen=True)
class InputChange:
    """An input that differs between the two runs: ``name`` its dotted place under summary.json's ``inputs``
    (``settings.arm.joint_stiffness``), each run's value as JSON text with its source where it has one ('-': the
    run has no such input)."""

    name: str
    baseline: str
    candidate: str


@dataclass(frozen=True)
class Comparison:
    deltas: list[Delta]
    baseline_passed: bool
    candidate_passed: bool
    tolerance_pct: float
    inputs: list[InputChange] = field(default_factory=list)
    unrecorded: list[str] = field(default_factory=list)  # folders whose summary.json records no inputs

    @property
    def regressions(self) -> list[Delta]:
        return [d for d in self.deltas if d.regressed]

    @property
    def ok(self) -> bool:
        """True when the candidate passes its own checks and no metric regresses beyond the tolerance."""
        return self.candidate_passed and not self.regressions


def _delta(link, key, label, scale, unit, worse, b, c, tol) -> Delta:
    change = None
    regressed = False
    if b is not None and c is not None:
        change = (c - b) / abs(b) * 100.0 if b != 0 else (0.0 if c == b else float("inf"))
        regressed = worse != 0 and worse * change > tol
    elif b is not None and c is None and worse == -1:
        change = None  # safety factor None means infinite (unloaded) in the candidate: an improvement
    elif b is None and c is not None and worse == -1:
        regressed = True  # from unloaded (infinite safety factor) to a finite one
    return Delta(link, key, label, b, c, change, regressed, unit, scale)


def compare(baseline: str, candidate: str, tolerance_pct: float = 1.0, allow_quick: bool = False) -> Comparison:
    """Compare the ``summary.json`` of two results folders. Raises InputError on bad input, and when one is a
    quick look (coarse meshes, ``structcheck run --quick``) and the other is not, unless ``allow_quick``: their
    differences would be the meshes', not the design's."""
    require_number("--tolerance", tolerance_pct, "percent of the baseline", at_least=0)
    sb, sc = read_summary(baseline), read_summary(candidate)
    quick = {bool(sb.quick), bool(sc.quick)}
    if len(quick) == 2 and not allow_quick:
        from ..quick import QUICK_SIZE_FACTOR

        which = baseline if sb.quick else candidate
        raise InputError(f"{which!r} is a quick look (meshes {QUICK_SIZE_FACTOR:g}x coarser) and the other a full run: "
                         f"their peaks differ by the meshes, not the design; compare runs of one kind, or pass "
                         f"--allow-quick")
    missing = sorted(set(sb.links) ^ set(sc.links))
    if missing:
        raise InputError(f"the two results have different links: {missing} appear in only one of "
                         f"{baseline!r} ({sorted(sb.links)}) and {candidate!r} ({sorted(sc.links)})")
    deltas = []
    for link, Lb in sb.links.items():
        Lc = sc.links[link]
        for key, label, scale, unit, worse in LINK_METRICS:
            if not (Lb.has(key) or Lc.has(key)):
                continue
            deltas.append(_delta(link, key, label, scale, unit, worse, getattr(Lb, key), getattr(Lc, key),
                                 tolerance_pct))
    deltas.append(_delta("(robot)", "tool_point_deflection_m", "tool-point deflection", 1e3, "mm", +1,
                         sb.tool_point_deflection_m, sc.tool_point_deflection_m, tolerance_pct))
    deltas += case_deltas(sb, sc, baseline, candidate, tolerance_pct)
    unrecorded = [f for f, s in ((baseline, sb), (candidate, sc)) if s.inputs is None]
    changes = [] if unrecorded else input_changes(sb.inputs, sc.inputs)
    return Comparison(deltas, bool(sb.passed), bool(sc.passed), tolerance_pct, changes, unrecorded)


# a study of several load cases: each case's row of the load-case matrix, compared case by case
CASE_METRICS = (
    ("max_von_mises_pa", "max von Mises", 1e-6, "MPa", +1),
    ("min_safety_factor", "min safety factor", 1.0, "", -1),
    ("utilisation", "utilisation", 1.0, "", +1),
    ("fatigue_damage_per_cycle", "fatigue damage/cycle", 1.0, "", +1),
)


def case_deltas(sb, sc, baseline: str, candidate: str, tol: float) -> list[Delta]:
    """Per load case and link (``link [case]``), the case's own numbers (summary.json ``cases``), when both runs
    have cases (the envelope's are the link rows); InputError when their cases differ."""
    if not (sb.cases and sc.cases):
        return []
    if list(sb.cases) != list(sc.cases):
        raise InputError(f"the two results have different load cases: {list(sb.cases)} in {baseline!r}, "
                         f"{list(sc.cases)} in {candidate!r}; compare runs of the same cases")
    out = []
    for case, Cb in sb.cases.items():
        for link, Lb in Cb.links.items():
            Lc = sc.cases[case].links[link]
            out += [_delta(f"{link} [{case}]", key, label, scale, unit, worse, getattr(Lb, key), getattr(Lc, key),
                           tol) for key, label, scale, unit, worse in CASE_METRICS if Lb.has(key) or Lc.has(key)]
    return out


def input_changes(a, b) -> list[InputChange]:
    """The inputs that differ between two runs' ``inputs`` (``results.inputs_schema.InputsSummary``), in summary.json's
    order: build() parameters, settings, each part's material, S-N curves and mesh, damping, solver and the study
    script's bytes. A value's source alone changing (the same value given with --set) is no change."""
    fa, fb = _flat_inputs(a), _flat_inputs(b)
    names = list(fa) + [n for n in fb if n not in fa]
    shown = {n: tuple(_shown(f.get(n)) for f in (fa, fb)) for n in names}
    return [InputChange(n, *shown[n]) for n in names if (fa.get(n) or (None,))[0] != (fb.get(n) or (None,))[0]]


def _flat_inputs(inputs) -> dict[str, tuple]:
    """Dotted name -> (value as JSON text, source or None) of the inputs compared (the joints' entries follow from
    the settings, the script's location and --set values are not inputs of the numbers)."""
    d = inputs.to_dict()
    out = {}
    for group in ("build_parameters", "settings"):
        out.update({f"{group}.{n}": (_text(v["value"]), v["source"]) for n, v in (d.get(group) or {}).items()})
    for link, part in (d.get("parts") or {}).items():
        for k, v in part.items():
            if k == "sn_curves":
                out.update({f"parts.{link}.sn_curves.{r}.{c}": (_text(x), None) for r, curve in v.items()
                            for c, x in curve.items()})
            else:
                out[f"parts.{link}.{k}"] = (_text(v), None)
    out.update({k: (_text(d.get(k)), None) for k in ("damping", "sparse_solver")})
    if d.get("script"):
        out["script.sha256"] = (_text(d["script"]["sha256"]), None)
    return out


def _text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _shown(entry) -> str:
    if entry is None:
        return "-"
    value, source = entry
    return f"{value} ({source})" if source else value


def format_comparison(cmp: Comparison) -> str:
    def fmt(v, scale):
        return "inf" if v is None else f"{v * scale:.6g}"

    labels = [d.label + (f" {d.unit}" if d.unit else "") for d in cmp.deltas]
    w = max([22, *map(len, labels)])
    head = f"{'link':<12} {'metric':<{w}} {'baseline':>12} {'candidate':>12} {'change':>9}  "
    lines = [*input_lines(cmp), head, "-" * (len(head) + 10)]
    for d, label in zip(cmp.deltas, labels):
        change = "" if d.change_pct is None else f"{d.change_pct:+8.2f}%"
        flag = "REGRESSED" if d.regressed else ""
        lines.append(f"{d.link:<12} {label:<{w}} {fmt(d.baseline, d.scale):>12} "
                     f"{fmt(d.candidate, d.scale):>12} {change:>9}  {flag}")
    lines.append("-" * (len(head) + 10))
    lines.append(f"baseline {'passes' if cmp.baseline_passed else 'FAILS'}, candidate "
                 f"{'passes' if cmp.candidate_passed else 'FAILS'}; {len(cmp.regressions)} regression(s) beyond "
                 f"{cmp.tolerance_pct:g}%: {'OK' if cmp.ok else 'NOT OK'}")
    return "\n".join(lines)


def input_lines(cmp: Comparison, width: int = 48) -> list[str]:
    """The lines on the inputs that come before the table: those that differ (values cut to ``width`` characters),
    or that none does, or which folder records none."""
    if cmp.unrecorded:
        return [f"inputs: not recorded in {', '.join(map(repr, cmp.unrecorded))} (written before structcheck recorded "
                f"them); the table cannot say which input moved the numbers", ""]
    if not cmp.inputs:
        return ["inputs: the same in both runs", ""]

    def cut(text):
        return text if len(text) <= width else text[:width - 3] + "..."

    w, bw = max(len(c.name) for c in cmp.inputs), max(len(cut(c.baseline)) for c in cmp.inputs)
    return [f"inputs that differ ({len(cmp.inputs)}), baseline -> candidate:",
            *(f"  {c.name:<{w}}  {cut(c.baseline):<{bw}}  -> {cut(c.candidate)}" for c in cmp.inputs), ""]
