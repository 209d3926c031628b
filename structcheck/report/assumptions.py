"""The report's Assumptions section: what the run's model holds rigid, clamps, neglects and takes as linear, read
from its summary.json (the structural model, the joints as the model held them, the damping, the initial state,
the materials), so that each statement is this run's, not a fixed text.

Each :class:`Assumption` says what is assumed and what it does to the numbers (``effect``); a reviewer reads the
list as the analysis's idealisations (docs/how_it_works.md explains each).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Assumption:
    """One idealisation of the run: its ``topic`` (rigid, clamped, neglected, linear, ...), the statement ``what``
    and its ``effect`` on the results."""

    topic: str
    what: str
    effect: str


def assumptions(s: Mapping) -> list[Assumption]:
    """The run's assumptions from its summary ``s`` (summary.json as a mapping), in reading order: the structural
    model, the links without a mesh, the joints, the flanges, the base, the loads, the material, the damping and
    the initial state, then what no run models (contact, bolts, large deflection)."""
    arm = s.get("flexibility", "link") == "arm"
    inputs = s.get("inputs") or {}
    out = [_model(s, arm)]
    out += _rigid_links(s, inputs)
    out += _joints(s, inputs, arm)
    out.append(_flanges(s, arm))
    base = _robot_links(inputs)[:1]
    meshed_base = bool(base) and base[0] in s.get("links", {})
    where = (f"The base link {base[0]!r} is clamped at its floor surface 'ground'" if meshed_base else
             "The links on the base are clamped at their flanges on it" if base else
             "The base is clamped at its floor surface 'ground' (its children at their flanges where it has no mesh)")
    out.append(Assumption("clamped", where + " (all six directions held)." if arm else
                          "Each link is clamped at its proximal joint's surface (all six directions held); its distal "
                          "joints' reactions from the rigid-body dynamics load it.",
                          "Stress at the clamped surface is over-stated near its edges (a singular corner); "
                          "max_von_mises_away_from_support_pa leaves out a band of support_band_m around it."))
    out.append(_loads(s))
    out.append(_material(s, inputs))
    out += _dynamics(s, inputs)
    out += _neglected(s, arm)
    return out


def _model(s: Mapping, arm: bool) -> Assumption:
    a = s.get("analysis", {})
    if arm:
        segments = a.get("arm_frozen_segments")
        what = ("Arm model: the links as Craig-Bampton superelements assembled along the chain at the current pose, "
                f"re-assembled whenever a joint moved {a.get('arm_max_joint_change', '-')} rad or m"
                + (f" ({segments} frozen-pose segments)" if segments is not None else "") + ".")
        effect = ("The payload swings on the flexible chain and the tool-point deflection is the arm's; between "
                  "re-assemblies the pose is frozen (small motion over a segment).")
    else:
        what = "Per-link model: each link solved alone in its own moving frame (floating frame of reference)."
        effect = ("Deformations are local to each link; the tool-point deflection chains the links' interface "
                  "compliances and the arm's frequency is an estimate.")
    return Assumption("structural model", what, effect)


_LINKS = re.compile(r"links ([^;]*);")


def _robot_links(inputs: Mapping) -> list[str]:
    """The robot's links, the tree's root first, from its one-line text in inputs.settings (empty: not recorded)."""
    text = ((inputs.get("settings") or {}).get("robot") or {}).get("value")
    m = _LINKS.search(text) if isinstance(text, str) else None
    return [n for n in m.group(1).split(", ") if n] if m else []


def _rigid_links(s: Mapping, inputs: Mapping) -> list[Assumption]:
    """Links of the robot without a mesh (rigid bodies) but its root (the ground, clamped)."""
    rigid = [n for n in _robot_links(inputs)[1:] if n not in s.get("links", {})]
    if not rigid:
        return []
    return [Assumption("rigid", f"Links without a mesh are rigid bodies: {', '.join(rigid)}.",
                       "Their mass and inertia load the others; their own deformation and stress are not computed.")]


def _joints(s: Mapping, inputs: Mapping, arm: bool) -> list[Assumption]:
    joints = inputs.get("joints") or {}
    if not arm:
        return [Assumption("rigid", "Every joint is rigid (the per-link model holds each link at its proximal "
                           "joint; joint stiffness is not modelled).",
                           "Deflections are lower bounds and frequencies upper bounds.")]
    by_kind: dict[str, list[str]] = {}
    for name, j in joints.items():
        if j.get("about_axis") == "spring":
            tilt = (f", tilt spring {j['tilt_stiffness_nm_per_rad']:.4g} N m/rad" if j.get("tilt") == "spring"
                    else ", rigid in tilt")
            by_kind.setdefault("spring", []).append(
                f"{name} ({j['torsional_stiffness_nm_per_rad']:.4g} N m/rad about its axis{tilt}; {j.get('source')})")
        else:
            by_kind.setdefault(j.get("about_axis", "rigid"), []).append(name)
    out = []
    if by_kind.get("rigid"):
        out.append(Assumption("rigid", f"Joints without stiffness, rigid in all six directions: "
                              f"{', '.join(by_kind['rigid'])}.",
                              s.get("rigid_joints_meaning") or "Deflections are lower bounds, frequencies upper "
                                                               "bounds."))
    if by_kind.get("spring"):
        out.append(Assumption("linear", "Joints as linear springs: " + "; ".join(by_kind["spring"]) + ".",
                              "A reducer's nonlinear curve, backlash and hysteresis are replaced by one stiffness."))
    if by_kind.get("free"):
        out.append(Assumption("released", f"Passive joints of a closed chain, free about their axes: "
                              f"{', '.join(by_kind['free'])}.", "They carry no moment about their axes."))
    if by_kind.get("fixed"):
        out.append(Assumption("rigid", f"Fixed joints, rigid: {', '.join(by_kind['fixed'])}.",
                              "The parts they join act as one."))
    return out


def _flanges(s: Mapping, arm: bool) -> Assumption:
    if arm:
        return Assumption("rigid", "Each joint's flange surface is coupled rigidly to its joint node (every node of "
                          "the surface follows the node's 6-DOF motion: a stiff bolted flange).",
                          "Locally stiffer than a real flange: stress right at the flange's edge may read high, its "
                          "deformation low.")
    return Assumption("distributed", "Joint reactions enter each link as a linear traction over the joint's surface "
                      "(an RBE3-like distributing coupling: the exact resultant force and moment, no added stiffness).",
                      "The surface deforms freely; the stress right under a concentrated real contact is not modelled.")


def _loads(s: Mapping) -> Assumption:
    settings = (s.get("inputs") or {}).get("settings") or {}
    gravity = (settings.get("gravity") or {}).get("value")
    g = f"gravity {gravity} m/s^2, " if gravity is not None else "gravity, "
    return Assumption("loads", f"Loads from the rigid-body inverse dynamics of the prescribed motion: {g}inertia of "
                      "every link (from its mesh and density), point forces and payloads at named points.",
                      "One-way coupling: the elastic deformation does not change the motion or the joint loads.")


def _material(s: Mapping, inputs: Mapping) -> Assumption:
    parts = inputs.get("parts") or {}
    names = sorted({p.get("material", "") for p in parts.values()} or
                   {L.get("material", "") for L in s.get("links", {}).values()})
    brittle = sorted({n for n, L in s.get("links", {}).items() if L.get("criterion") == "max_principal"})
    return Assumption("linear", f"Linear-elastic, isotropic, homogeneous material ({', '.join(names)}); von Mises "
                      "stress against yield" + (f", maximum principal stress against tensile strength for "
                                                f"{', '.join(brittle)}" if brittle else "") + ".",
                      "No plasticity: a stress above yield is not redistributed, so the safety factor is the check.")


def _dynamics(s: Mapping, inputs: Mapping) -> list[Assumption]:
    a = s.get("analysis", {})
    ratio = a.get("damping_ratio")
    damping = inputs.get("damping") or (f"modal damping ratio {ratio:g}" if ratio is not None else "not recorded")
    quasi = a.get("quasi_static")
    out = [Assumption("damping", f"Damping: {damping}.",
                      "Sets how fast ringing after a load step decays; the peaks of a step are nearly independent "
                      "of it." if not quasi else "No elastic inertia: no dynamic amplification is computed.")]
    state = a.get("initial_state")
    if state is not None:
        out.append(Assumption("initial state", "At rest before t = 0, in static equilibrium under the loads of t = "
                              "0." if state == "rest" else "Moving at t = 0: the structure starts in the quasi-static "
                              "state of the first loads.",
                              "A jump of acceleration or force at t = 0 rings as a later one does." if state == "rest"
                              else "No free vibration at the start."))
    if any(j.get("undetermined_components") for j in s.get("joints", {}).values()):
        out.append(Assumption("closed loops", "Reaction components that rigid-body mechanics cannot split between "
                              "a loop's joints take the minimum-norm split (marked in the joints table).",
                              "Those components are a choice, not a result."))
    return out


def _neglected(s: Mapping, arm: bool) -> list[Assumption]:
    return [Assumption("neglected", "Contact, bolts and their preload, friction, gaps and backlash in the joints.",
                       "The joints transmit every load as the coupling above does; bolt and bearing loads are "
                       "given in the reactions table for sizing by hand or by catalogue."),
            Assumption("linear", "Small displacements and strains (geometric linearity): no stress stiffening, "
                       "buckling or large rotation of the elastic deformation; spin softening and Coriolis "
                       "coupling of the elastic coordinates neglected.",
                       "Valid while the deformation is small against the links' size and the joint speeds far below "
                       "the first frequency.")]
