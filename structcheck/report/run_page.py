"""A run's report page (``report.html``) from its results folder: what `structcheck run` writes at the end and
`structcheck report RESULTS` writes again, by the same code (:func:`write_report`)."""
from __future__ import annotations

import os
from pathlib import Path

from . import figures, inputs_view, view
from .assumptions import assumptions
from .reactions_view import COLUMNS as REACTION_COLUMNS, reaction_rows
from .signoff import signoff
from .page import figure_html, render, write_page
from .mode_view import mode_view
from .view3d import peak_frame, robot_view, static_renders
from .detail_page import detail_context  # the review detail: supports and loads, mesh, hot spots, fatigue


def run_context(folder: Path, renders: bool = True) -> dict:
    """Everything the run page shows, from the results folder ``folder``; ``renders``: with the static (pyvista)
    renders."""
    from .. import __version__
    from ..results import load

    res = load(folder)
    s = view.as_mapping(res.summary)
    figs = [figures.link_stress(res.links, s), figures.tool_deflection(res.links, s),
            figures.joint_motion(res.joints), figures.joint_torques(res.joints),
            figures.joint_reactions(res.joints, list(s.get("joints", {}))),
            figures.arm_frequencies(res.arm_frequencies),
            figures.fatigue_histories(res.fatigue)]
    figs = [f for f in figs if f is not None] if res.links and res.joints else []
    peak = peak_frame(res)
    v3d = robot_view(res, peak.robot) if peak else None
    analysis = {**s.get("analysis", {}), "flexibility": s.get("flexibility"),
                "sparse solver": s.get("versions", {}).get("sparse_solver")}
    warnings = view.warning_groups(s)
    detail = detail_context(res, s, renders and peak is not None)
    return dict(
        detail=detail, version=__version__, s=s, verdict=view.verdict(s), checks=view.design_checks(s),
        required=view.number(s, ("required_safety_factor",), digits=3), robot=view.robot_numbers(s),
        link_cols=view.link_columns(s), links=view.link_rows(s), joints=view.joint_rows(s),
        view=_html(v3d, "view3d-plot"), peak=peak,
        renders=static_renders(peak.robot, peak.time, s["study"], what=peak.what) if renders and peak else [],
        figures=[figure_html(f, f"plot-{k}") for k, f in enumerate(figs)],
        modes=view.mode_rows(s), link_freq=view.link_frequency_rows(s),
        modes_time=view.number(s, ("time_of_arm_modes_s",) if s.get("arm_modes_hz") else
                               ("time_of_arm_lowest_mode_s",), unit="s"),
        has_mode_file=(res.folder / "modes.vtkhdf").is_file(), mode_view=_html(mode_view(res.folder, s.get(
            "arm_modes_hz")), "modes-plot"),
        warnings=warnings, n_warnings=sum(map(len, warnings.values())), run_checks=view.check_rows(s),
        params=view.flat_items(s.get("parameters")), analysis=view.flat_items(analysis),
        fatigue=view.flat_items(s.get("fatigue")), versions=view.flat_items(s.get("versions")),
        timings=view.flat_items(s.get("timings_s")), inputs=input_context(s),
        signoff=signoff(s), assumptions=assumptions(s), reactions=reaction_rows(s), reaction_cols=REACTION_COLUMNS)


def input_context(s) -> dict:
    """The Inputs section's tables (:mod:`.inputs_view`); empty for a folder written before summary.json recorded
    its inputs."""
    v = inputs_view
    if not s.get("inputs"):
        return {}
    return dict(settings=v.setting_rows(s, "settings"), build=v.setting_rows(s, "build_parameters"),
                joints=v.joint_rows(s), parts=v.part_rows(s), sn=v.sn_rows(s), script=v.script_facts(s),
                damping=s["inputs"].get("damping"), solver=s["inputs"].get("sparse_solver"),
                material_cols=v.MATERIAL_COLUMNS, mesh_cols=v.MESH_COLUMNS, sn_cols=v.SN_COLUMNS)


def _html(fig, div_id: str):
    return figure_html(fig, div_id) if fig is not None else None


def write_report(folder: str | os.PathLike, out: str | os.PathLike | None = None, *, renders: bool = True) -> Path:
    """Write the report page of the results folder ``folder`` to ``out`` (default ``folder/report.html``); return
    its path. InputError when ``folder`` is not a results folder."""
    folder = Path(folder)
    html = render("run.html.j2", **run_context(folder, renders))
    return write_page(html, folder / "report.html" if out is None else out)
