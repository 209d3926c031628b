"""The envelope of a study's load cases (``Study.cases``): one verdict over the cases, the case that governs each
link and joint, the duty cases' fatigue together, and the links' envelope fields over the cases.

- **Strength**: each case against its own required safety factor (a duty case the study's, an accidental case its
  own; with ``required_tensile_safety_factor`` also the tensile strength over the peak von Mises). A link's
  *utilisation* in a case is required factor / safety factor (the larger of the two checks); the case of highest
  utilisation **governs** the link, and the link's entry of the envelope is that case's (peak, time, place).
- **Fatigue**: the duty cases' Miner damages per node, each weighted by its share of the duty cycles:
  D(node) = sum_i share_i D_i(node) per duty cycle (a cycle being case i with probability share_i); life = 1 / D.
  Each D_i(node) is the node's worst plane in case i, so the sum is an upper bound of the damage on any one plane
  (equal when one plane governs every case). The fatigue safety factor given is the smallest of the duty cases'
  own (each against the whole design life), a lower bound of the combined one: the combined damage at a factor
  lies between the cases' smallest and largest.
- **Joints**: each peak (force, moment, torque) is the largest over the cases, its time from the case it comes
  from, named in ``governing_case``.
- **Drives** (a study with several cases): each joint's checks over the cases, each naming the case that governs it
  (:mod:`structcheck.drives.envelope`: averages over the duty cases by their shares, peaks over the duty cases,
  accidental cases against the momentary peak); each case's own drive checks are its section's, and its run's
  (which took the case as the whole duty) leave its failures. One case: its run's drive checks, unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..checks.verdict import failures as strength_failures
from ..drives.envelope import CaseDrives, DriveEnvelope, drive_envelope
from ..drives.study import drive_failures
from .drivetrain_schema import drivetrain_summary
from .cases_schema import CaseLinkSummary, CaseSummary
from .schema import JointSummary, LinkSummary, RunChecks, RunSummary

FATIGUE_FIELDS = ("min_fatigue_life_cycles", "min_fatigue_life_hours", "fatigue_infinite_life",
                  "fatigue_damage_per_cycle", "location_of_min_life_m", "fatigue_curve", "fatigue_region",
                  "fatigue_points_counted", "fatigue_safety_factor", "fatigue_passed")


@dataclass(frozen=True)
class CaseRun:
    """One case as run: ``name``, ``role`` ('duty' or 'accidental'), ``share`` of the duty cycles (0: accidental),
    its ``required_safety_factor`` and ``required_tensile_safety_factor`` (None: not checked), ``tensile_strength_pa``
    link -> the link material's tensile strength [Pa] (None: unknown), ``result`` its ``RunResult`` and ``count`` an
    accidental case's expected number over the life (None: not given)."""

    name: str
    role: str
    share: float
    required_safety_factor: float
    required_tensile_safety_factor: float | None
    tensile_strength_pa: dict
    result: Any
    count: float | None = None


@dataclass(frozen=True)
class Envelope:
    """The envelope: ``summary`` (a RunSummary with ``cases``) and ``fields`` link -> {field: (n_nodes,) array},
    the links' envelope fields over the cases (link frame)."""

    summary: RunSummary
    fields: dict


def _sf(value) -> float:
    return float("inf") if value is None else float(value)


def case_links(case: CaseRun) -> dict[str, CaseLinkSummary]:
    """The case's row of the load-case matrix, per link (``governs`` set later)."""
    out = {}
    for name, L in case.result.summary.links.items():
        sf = _sf(L.min_safety_factor)
        use = case.required_safety_factor / sf
        tensile = case.tensile_strength_pa.get(name)
        sf_t = None
        if case.required_tensile_safety_factor is not None and tensile:
            sf_t = tensile / L.max_von_mises_pa if L.max_von_mises_pa > 0 else float("inf")
            use = max(use, case.required_tensile_safety_factor / sf_t)
        out[name] = CaseLinkSummary(max_von_mises_pa=L.max_von_mises_pa, min_safety_factor=sf,
                                    tensile_safety_factor=sf_t, utilisation=use,
                                    fatigue_damage_per_cycle=L.fatigue_damage_per_cycle if L.has(
                                        "fatigue_damage_per_cycle") else None, governs=False)
    return out


def case_failures(case: CaseRun, rows: dict[str, CaseLinkSummary], drives: DriveEnvelope | None = None) -> list[str]:
    """The case's failed checks but fatigue (judged over the duty cases together), with the tensile check; with
    ``drives`` (several cases), its drive checks are its own section's, not its run's (which took the case as the
    whole duty)."""
    res = case.result
    links = res.links
    fatigue_lines = set(strength_failures(links, case.required_safety_factor, None, None)) - set(
        strength_failures({n: replace(L, fatigue={}) for n, L in links.items()}, case.required_safety_factor, None,
                          None))
    if drives is not None:
        fatigue_lines |= set(drive_failures(res.drives))
    out = [f for f in res.summary.failures if f not in fatigue_lines]
    if drives is not None:
        out += drives.case_failures(case.name)
    for name, row in rows.items():
        if row.tensile_safety_factor is not None and not (
                row.tensile_safety_factor >= case.required_tensile_safety_factor):
            out.append(f"link {name!r}: tensile safety factor {row.tensile_safety_factor:.3g} < "
                       f"{case.required_tensile_safety_factor:g} (peak von Mises {row.max_von_mises_pa * 1e-6:.4g} "
                       f"MPa against the tensile strength {case.tensile_strength_pa[name] * 1e-6:.4g} MPa)")
    return out


def combined_fatigue(cases: list[CaseRun], link: str, duty) -> dict | None:
    """The link's fatigue entries over the duty cases (module doc); None without fatigue. ``duty`` the study's
    FatigueSummary (cycles an hour, design life). One duty case of share 1: its own entries, unchanged."""
    counted = [c for c in cases if c.share > 0 and c.result.links[link].fatigue]
    if not counted:
        return None
    if len(counted) == 1 and counted[0].share == 1.0:
        return dict(counted[0].result.links[link].fatigue)
    parts = np.array([c.share * c.result.links[link].envelope["fatigue_damage"] for c in counted])  # (n_case, n)
    damage = parts.sum(axis=0)
    worst = int(np.argmax(damage))
    d_max = float(damage[worst])
    life = 1.0 / d_max if d_max > 0 else float("inf")
    own = [c.result.links[link].fatigue for c in counted]
    factors = [f["fatigue_safety_factor"] for f in own if f.get("fatigue_safety_factor") is not None]
    dominant = own[int(np.argmax(parts[:, worst]))]
    out = {"min_fatigue_life_cycles": life,
           "min_fatigue_life_hours": life / duty.cycles_per_hour if duty.cycles_per_hour and np.isfinite(life)
           else (float("inf") if duty.cycles_per_hour else None),
           "fatigue_infinite_life": not np.isfinite(life), "fatigue_damage_per_cycle": d_max,
           "location_of_min_life_m": tuple(map(float, counted[0].result.links[link].points[worst])) if d_max > 0
           else None,
           "fatigue_curve": dominant.get("fatigue_curve") if d_max > 0 else None,
           "fatigue_region": dominant.get("fatigue_region") if d_max > 0 else None,
           "fatigue_points_counted": max(f["fatigue_points_counted"] for f in own)}
    if duty.design_life_cycles is not None:
        out["fatigue_safety_factor"] = min(factors) if factors else None
        out["fatigue_passed"] = bool(life >= duty.design_life_cycles)
    return out


def link_fields(cases: list[CaseRun], link: str) -> dict[str, np.ndarray]:
    """The link's envelope fields over the cases: max of von_mises, equivalent_strain, displacement_magnitude and
    von_mises_averaged, min of safety_factor, the utilisation required factor / safety factor per node and
    ``governing_case`` (index of the case of highest utilisation there, in the summary's order of cases), and the
    duty cases' fatigue_damage (sum share_i D_i) and fatigue_life_cycles (1 / that)."""
    envs = [c.result.links[link].envelope for c in cases]
    out = {k: np.max([e[k] for e in envs], axis=0) for k in
           ("von_mises", "equivalent_strain", "displacement_magnitude", "von_mises_averaged")}
    sf = np.array([e["safety_factor"] for e in envs])
    out["safety_factor"] = sf.min(axis=0)
    with np.errstate(divide="ignore"):
        use = np.array([c.required_safety_factor / s for c, s in zip(cases, sf)])
    out["utilisation"] = use.max(axis=0)
    out["governing_case"] = np.argmax(use, axis=0).astype(float)
    duty = [(c.share, c.result.links[link].envelope) for c in cases if c.share > 0]
    if duty and all("fatigue_damage" in e for _, e in duty):
        damage = np.sum([s * e["fatigue_damage"] for s, e in duty], axis=0)
        with np.errstate(divide="ignore"):
            out.update(fatigue_damage=damage, fatigue_life_cycles=np.where(damage > 0, 1.0 / damage, np.inf))
    return out


def joint_envelope(cases: list[CaseRun]) -> dict[str, JointSummary]:
    """Every joint's peaks, each the largest over the cases with its time from that case, named in
    ``governing_case``."""
    out = {}
    for name, first in cases[0].result.summary.joints.items():
        changes, governing = {}, {}
        for value, time in (("max_reaction_force_n", "time_of_max_force_s"),
                            ("max_reaction_moment_nm", "time_of_max_moment_s"),
                            ("max_abs_torque", "time_of_max_torque_s")):
            if getattr(first, value) is None:
                continue
            k = int(np.argmax([getattr(c.result.summary.joints[name], value) for c in cases]))
            J = cases[k].result.summary.joints[name]
            changes[value], changes[time], governing[value] = getattr(J, value), getattr(J, time), cases[k].name
        out[name] = replace(first, **changes, governing_case=governing)
    return out


def link_entry(cases: list[CaseRun], rows: dict, link: str, duty) -> LinkSummary:
    """The link's entry of the envelope: the governing case's, with the duty cases' fatigue together and a pass
    only when every case passes its strength checks and the combined fatigue passes."""
    k = int(np.argmax([rows[c.name][link].utilisation for c in cases]))
    L = cases[k].result.summary.links[link]
    fat = combined_fatigue(cases, link, duty) or {}
    strength = all(_sf(c.result.summary.links[link].min_safety_factor) >= c.required_safety_factor and (
        rows[c.name][link].tensile_safety_factor is None or
        rows[c.name][link].tensile_safety_factor >= c.required_tensile_safety_factor) for c in cases)
    return replace(L, **fat, governing_case=cases[k].name, utilisation=rows[cases[k].name][link].utilisation,
                   passed=bool(strength and fat.get("fatigue_passed", True)))


def case_drives(cases: list[CaseRun]) -> DriveEnvelope | None:
    """The drives over ``cases`` (:mod:`structcheck.drives.envelope`); None for one case (its run's drive checks
    are the study's, unchanged) or a study without drives."""
    if len(cases) == 1 or not cases[0].result.drives:
        return None
    return drive_envelope([CaseDrives(c.name, c.role, c.share or None, c.count, c.result.drives) for c in cases])


def case_summary(case: CaseRun, rows: dict[str, CaseLinkSummary], failed: list[str], governing: dict,
                 drives: DriveEnvelope | None = None) -> CaseSummary:
    """The case's entry of ``cases``."""
    s = case.result.summary
    worst = max(rows, key=lambda n: rows[n].utilisation)
    return CaseSummary(
        role=case.role, share=case.share, required_safety_factor=case.required_safety_factor,
        required_tensile_safety_factor=case.required_tensile_safety_factor, passed=not failed, failures=failed,
        max_von_mises_pa=s.max_von_mises_pa, max_von_mises_link=s.max_von_mises_link, governing_link=worst,
        utilisation=rows[worst].utilisation, tool_point_deflection_m=s.tool_point_deflection_m,
        t_end_s=s.analysis.t_end_s, folder=f"cases/{case.name}",
        links={n: replace(r, governs=governing[n] == case.name) for n, r in rows.items()},
        drivetrain=None if drives is None else drivetrain_summary(drives.cases[case.name]))


def envelope(cases: list[CaseRun], study, inputs=None) -> Envelope:
    """The envelope of ``cases`` (in the study's order) of ``study`` (its name, description, parameters, required
    safety factor): the summary (module doc) with ``inputs`` (the study's, with its cases) and the links' fields."""
    rows = {c.name: case_links(c) for c in cases}
    drives = case_drives(cases)
    failed = {c.name: case_failures(c, rows[c.name], drives) for c in cases}
    first = cases[0].result.summary
    duty = next((c.result.summary.fatigue for c in cases if c.share > 0 and c.result.summary.fatigue), None)
    links = {n: link_entry(cases, rows, n, duty) for n in first.links}
    fails = [f"case {c.name!r} ({c.role}): {f}" for c in cases for f in failed[c.name]]
    names = [c.name for c in cases if c.share > 0]
    fails += [f"link {n!r}: fatigue life {L.min_fatigue_life_cycles:.3g} cycles < the design life "
              f"{duty.design_life_cycles:.3g} (the duty cases {names} by their shares)"
              for n, L in links.items() if L.has("fatigue_passed") and L.fatigue_passed is False]
    fails += [] if drives is None else drives.failures()
    governing = {n: L.governing_case for n, L in links.items()}
    tools = [c.result.summary for c in cases if c.result.summary.tool_point_deflection_m is not None]
    tool = max(tools, key=lambda s: s.tool_point_deflection_m) if tools else None
    vm = max(links, key=lambda n: links[n].max_von_mises_pa)
    lives = {n: L.min_fatigue_life_cycles for n, L in links.items() if L.has("min_fatigue_life_cycles")}
    short = min(lives, key=lambda n: _sf(lives[n])) if lives else None
    fatigue = None if duty is None else replace(
        duty, duty_cycle_s=sum(c.share * c.result.summary.analysis.t_end_s for c in cases),
        min_life_link=short if short and lives[short] is not None else None,
        min_life_cycles=lives[short] if short else None, min_life_hours=links[short].min_fatigue_life_hours
        if short else None)
    checks = [c.result.summary.checks for c in cases]
    summary = replace(
        first, study=study.name, description=study.description, parameters=dict(study.parameters),
        passed=not fails, failures=fails, required_safety_factor=study.required_safety_factor,
        max_von_mises_pa=links[vm].max_von_mises_pa, max_von_mises_link=vm,
        max_equivalent_strain=max(L.max_equivalent_strain for L in links.values()),
        max_deformation_m=max(L.max_deformation_m for L in links.values()),
        tool_point_deflection_m=tool.tool_point_deflection_m if tool else None,
        time_of_max_tool_point_deflection_s=tool.time_of_max_tool_point_deflection_s if tool else None,
        max_total_deformation_m=None if first.max_total_deformation_m is None else
        max(L.max_deformation_m for L in links.values()),
        fatigue=fatigue, links=links, joints=joint_envelope(cases),
        checks=RunChecks(**{k: max((getattr(x, k) for x in checks if getattr(x, k) is not None), default=None)
                            for k in ("power_balance_rel_error", "equilibrium_rel_error",
                                      "rigid_body_equilibrium_rel_error", "loop_closure_residual")}),
        warnings=[f"case {c.name!r}: {w}" for c in cases for w in c.result.summary.warnings],
        timings_s={k: sum((c.result.summary.timings_s or {}).get(k, 0.0) for c in cases)
                   for k in dict.fromkeys(k for c in cases for k in (c.result.summary.timings_s or {}))},
        inputs=inputs if inputs is not None else first.inputs,
        drivetrain=first.drivetrain if drives is None else drivetrain_summary(drives.joints),
        cases={c.name: case_summary(c, rows[c.name], failed[c.name], governing, drives) for c in cases})
    return Envelope(summary=summary, fields={n: link_fields(cases, n) for n in links})
