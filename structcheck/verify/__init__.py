"""Verification manual: the finite-element path checked against closed forms and published benchmarks.

``run_cases()`` runs every case (or the named ones) and returns rows (dicts) with the keys
``case, quantity, reference, computed, error, tolerance, pass``:

- ``error`` is the relative error ``|computed - reference| / scale`` (the scale is ``|reference|`` unless the
  quantity says otherwise) and ``tolerance`` the largest allowed error (a float), so ``pass = error <= tolerance``;
- for a bound (a convergence order, an inequality) ``error`` is None and ``tolerance`` a string stating the bound.

Each case's docstring defines it and cites its reference (cantilever deflection, stress, convergence
and linear-tet locking; cantilever bending frequencies from the Timoshenko frequency equation; NAFEMS LE10;
spinning bar; interface wrench resultants and support reactions; mode acceleration against direct Newmark; the
KR500 cylinders of paper 003 Table 2; curved elements: Lame thick cylinder, tube in
torsion, Peterson's plate with a hole, each with the straight-edged result on the same mesh beside it; the whole-arm
model's chain of superelements with a tip mass against the tip-mass cantilever equation; fatigue: the ASTM E1049
rainflow example, a constant-amplitude life on every material curve and on a Eurocode 3 detail category, pure shear
against a brute-force search for the worst plane).
``quick=True`` runs coarser meshes with the same tolerances (the test suite's variant). All quantities SI (m, N,
Pa, Hz, kg, kg m^2) unless the quantity names another unit.

- ``references``: closed forms (Timoshenko beam, Richardson extrapolation), published reference values, the
  row builders and the beam mesh the cases share;
- ``beams``: cantilever deflection and convergence, cantilever modes, mode acceleration against Newmark;
- ``elasticity``: NAFEMS LE10, spinning bar, interface wrench and reactions, KR500 cylinders;
- ``curved``: thick cylinder, tube in torsion, plate with a hole (curved against straight-edged elements);
- ``arm``: a beam cut into three superelements with a tip mass (the whole-arm model);
- ``fatigue``: rainflow counting, S-N lives and the critical plane (no finite elements).
"""
from __future__ import annotations

import textwrap

from ..errors import InputError
from .arm import case_beam_chain, case_portal_frame
from .beams import case_cantilever, case_cantilever_modes, case_transient
from .curved import (PETERSON_KTG_D_OVER_H_01, case_plate_hole, case_thick_cylinder, case_tube_torsion,
                     plate_hole_kt, plate_hole_part)
from .fatigue import case_astm_e1049, case_pure_shear_plane, case_sn_constant_amplitude, case_weld_detail
from .elasticity import case_interface_wrench, case_kr500_cylinders, case_le10, case_spinning_bar, le10_part
from .references import (KR500_DENSITY, KR500_TABLE2, LE10_SIGMA_YY_D, beam_part, cowper_kappa,
                         euler_bernoulli_frequencies, richardson, timoshenko_frequencies, timoshenko_tip_deflection)

__all__ = ["CASES", "KR500_DENSITY", "case_beam_chain", "KR500_TABLE2", "LE10_SIGMA_YY_D", "PETERSON_KTG_D_OVER_H_01", "beam_part",
           "case_cantilever", "case_cantilever_modes", "case_interface_wrench", "case_kr500_cylinders", "case_le10",
           "case_plate_hole", "case_spinning_bar", "case_thick_cylinder", "case_transient", "case_tube_torsion",
           "cowper_kappa", "euler_bernoulli_frequencies", "format_table", "le10_part", "plate_hole_kt",
           "plate_hole_part", "richardson", "run_cases", "timoshenko_frequencies", "timoshenko_tip_deflection"]

CASES = {
    "cantilever": case_cantilever,
    "cantilever_modes": case_cantilever_modes,
    "le10": case_le10,
    "spinning_bar": case_spinning_bar,
    "interface_wrench": case_interface_wrench,
    "transient": case_transient,
    "kr500_cylinders": case_kr500_cylinders,
    "thick_cylinder": case_thick_cylinder,
    "tube_torsion": case_tube_torsion,
    "plate_hole": case_plate_hole,
    "beam_chain": case_beam_chain,
    "portal_frame": case_portal_frame,
    "astm_e1049": case_astm_e1049,
    "sn_constant_amplitude": case_sn_constant_amplitude,
    "weld_detail": case_weld_detail,
    "pure_shear_plane": case_pure_shear_plane,
}


def run_cases(names=None, quick: bool = False, on_case=None) -> list[dict]:
    """Run the named cases (default all, in manual order) and return their rows (see the module doc);
    ``on_case(name, n_cases)`` is called as each case is done (progress)."""
    names = list(CASES) if not names else ([names] if isinstance(names, str) else list(names))
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise InputError(f"unknown verification case(s) {unknown}; the cases are {list(CASES)}")
    rows = []
    for n in names:
        rows += CASES[n](quick=quick)
        if on_case is not None:
            on_case(n, len(names))
    return rows


WRAP = {1: 40, 5: 12}  # widths of the quantity and tolerance columns, wrapped: the table fits 120 columns


def format_table(rows: list[dict]) -> str:
    """The rows as an aligned text table with a pass count."""
    def num(x):
        return "-" if x is None else (x if isinstance(x, str) else f"{x:.6g}")

    def err(x):
        return "-" if x is None else (x if isinstance(x, str) else f"{x:.2e}")

    head = ("case", "quantity", "reference", "computed", "error", "tolerance", "pass")
    body = [(r["case"], r["quantity"], num(r["reference"]), num(r["computed"]), err(r["error"]),
             err(r["tolerance"]), "PASS" if r["pass"] else "FAIL") for r in rows]
    width = [max(len(str(line[k])) for line in [head] + body) for k in range(len(head))]
    right = (False, False, True, True, True, True, False)

    def fmt(line):
        return "  ".join(str(v).rjust(w) if rj else str(v).ljust(w) for v, w, rj in zip(line, width, right))

    def rows_of(line):  # a long quantity or tolerance wraps onto lines of its own, the other columns blank there
        parts = {k: textwrap.wrap(str(line[k]), w) or [""] for k, w in WRAP.items()}
        n = max(map(len, parts.values()))
        cells = [[line[k] if k not in parts else (parts[k][i] if i < len(parts[k]) else "")
                  for k in range(len(line))] if i == 0 else
                 ["" if k not in parts else (parts[k][i] if i < len(parts[k]) else "") for k in range(len(line))]
                 for i in range(n)]
        return [fmt(c).rstrip() if i else fmt(c) for i, c in enumerate(cells)]

    n_fail = sum(not r["pass"] for r in rows)
    for k, w in WRAP.items():
        width[k] = min(width[k], w)
    out = [fmt(head), "  ".join("-" * w for w in width)] + [ln for line in body for ln in rows_of(line)]
    out.append(f"{len(rows)} checks, {len(rows) - n_fail} pass, {n_fail} fail")
    return "\n".join(out)
