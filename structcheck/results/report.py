"""The table printed at the end of a run, from its summary (same numbers as summary.json)."""
from __future__ import annotations

from .cases_table import case_lines
from .schema import RunSummary

MPA = 1e-6


def format_table(summary: RunSummary) -> str:
    """The table printed at the end of a run (same numbers as summary.json): per link the peak von Mises
    (unaveraged, which the safety factor uses) and its nodal-averaged peak ('avg VM', '-' in summaries older than
    it); ``summary`` a ``results.schema.RunSummary``."""
    head = (f"{'link':<12} {'material':<8} {'mass kg':>8} {'max VM MPa':>11} {'at t s':>7} {'avg VM MPa':>11} "
            f"{'strain':>10} {'defl mm':>9} {'SF':>7} {'verdict':>7}")
    lines = [head, "-" * len(head)]
    for name, L in summary.links.items():
        sf, avg = L.min_safety_factor, L.max_von_mises_averaged_pa
        lines.append(
            f"{name:<12} {L.material:<8} {L.mass_kg:8.3f} {L.max_von_mises_pa * MPA:11.4f} "
            f"{L.time_of_max_s:7.3f} {(f'{avg * MPA:11.4f}' if avg is not None else '-'):>11} "
            f"{L.max_equivalent_strain:10.4e} {L.max_deformation_m * 1e3:9.5f} "
            f"{(sf if sf is not None else float('inf')):7.1f} {'pass' if L.passed else 'FAIL':>7}")
    lines.append("-" * len(head))
    tp = summary.tool_point_deflection_m
    lines.append(f"max von Mises {summary.max_von_mises_pa * MPA:.4f} MPa, max equivalent strain "
                 f"{summary.max_equivalent_strain:.4e}, max link deformation "
                 f"{summary.max_deformation_m * 1e3:.5f} mm"
                 + (f", tool-point deflection {tp * 1e3:.5f} mm" if tp is not None else ""))
    amp = {n: L.dynamic_amplification for n, L in summary.links.items()}
    if any(v is not None for v in amp.values()):
        lines.append("transient vs quasi-static peak: " + ", ".join(
            f"{n} {100 * (v - 1):+.2f}%" for n, v in amp.items() if v is not None))
    if summary.checks is not None:
        lines.append("checks: " + ", ".join(f"{k} {v:.2e}" for k, v in summary.checks.to_dict().items()
                                            if isinstance(v, float)))
    lines.extend(fatigue_lines(summary))
    lines.extend(case_lines(summary))  # a study of several load cases: its load-case matrix
    lines.append(f"required safety factor {summary.required_safety_factor}: "
                 f"{'PASSED' if summary.passed else 'FAILED'}")
    lines += [f"  fails: {f}" for f in summary.failures]
    return "\n".join(lines)



def _life(cycles, hours) -> str:
    if cycles is None:
        return "infinite"
    return f"{cycles:.3g} cycles" + (f" ({hours:.3g} h)" if hours is not None else "")


def fatigue_lines(summary: RunSummary) -> list[str]:
    """The fatigue lines of the table: the duty, then per link its shortest life and fatigue safety factor
    (nothing when the study asks for no fatigue)."""
    fat = summary.fatigue
    if fat is None:
        return []
    design = fat.design_life_cycles
    head = (f"fatigue ({fat.method}, {fat.cycles_per_hour} duty cycles/h of {fat.duty_cycle_s:g} s"
            if fat.cycles_per_hour else f"fatigue ({fat.method}")
    head += f", design life {design:.3g} cycles)" if design else ")"
    rows = []
    for name, L in summary.links.items():
        if L.fatigue_infinite_life is None:  # no fatigue entries for this link
            continue
        sf = L.fatigue_safety_factor
        row = f"{name} {_life(L.min_fatigue_life_cycles, L.min_fatigue_life_hours)}"
        if L.fatigue_passed is not None:  # with a design life
            row += f", SF {sf:.3g}" if sf is not None else ", SF inf"
        rows.append(row)
    return [head + ": " + "; ".join(rows)]
