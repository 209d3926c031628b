"""The load-case matrix of a study of several cases, as printed after the run's table and shown in its report:
per case its role, share, required safety factor, each link's utilisation (required safety factor / safety
factor; ``*`` the case that governs the link) and its verdict."""
from __future__ import annotations

from .schema import RunSummary


def case_matrix(summary: RunSummary) -> list[dict]:
    """One row per case (the study's order): name, role, share, required factor(s), per link (utilisation,
    governs) and passed; empty for a study without cases."""
    return [{"case": name, "role": c.role, "share": c.share, "required": c.required_safety_factor,
             "tensile": c.required_tensile_safety_factor, "passed": c.passed, "folder": c.folder,
             "links": {n: (r.utilisation, r.governs) for n, r in c.links.items()}}
            for name, c in (summary.cases or {}).items()]


def case_lines(summary: RunSummary) -> list[str]:
    """The load-case matrix as text lines (none for a study without cases)."""
    rows = case_matrix(summary)
    if not rows:
        return []
    links = list(summary.links)
    width = max(10, *(len(n) + 1 for n in links))
    head = f"{'case':<14} {'role':<10} {'share':>6} {'req SF':>12} " + "".join(f"{n:>{width}}" for n in links)
    lines = ["load cases: utilisation = required SF / SF (* governs the link); fatigue over the duty cases by "
             "their shares", head + f" {'verdict':>7}"]
    for r in rows:
        cells = "".join(f"{f'{u:.3f}' + ('*' if g else ' '):>{width}}" for u, g in
                        (r["links"][n] for n in links))
        req = f"{r['required']:g}" + (f" ({r['tensile']:g} UTS)" if r["tensile"] else "")
        lines.append(f"{r['case']:<14} {r['role']:<10} {r['share']:6.3g} {req:>12} {cells} "
                     f"{'pass' if r['passed'] else 'FAIL':>7}")
    return lines
