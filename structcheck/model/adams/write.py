"""A study written as an ADAMS/Solver dataset (.adm): :func:`write_adm`.

The robot's base link is GROUND; every other link a PART whose frame is the link frame at home (QG, REULER), with
MASS, a CM marker and IP (Ixx, Iyy, Izz, Ixy, Ixz, Iyz about the centre of mass in link axes, products as ADAMS
defines them: the positive integrals, the tensor's off-diagonal terms negated). A joint is a JOINT whose I marker
sits on the child at the link frame and J marker on the parent at the joint frame at home, both turned so that
their z is the joint's axis; ADAMS's joint displacement is then the offset from home, so a MOTION's FUNCTION is the
study's law as written (with VARIABLEs for its VARVALs and SPLINEs for its CUBSPL and AKISPL). A profile writes
itself as an exact expression (``adams_text``); a law given by its velocity or acceleration is a VELOCITY or
ACCELERATION MOTION with ICDISP (ICVEL); any other law object (a table, a Cartesian line) is written as a SPLINE
of its samples, played by AKISPL (stated in a comment). Point forces are action-only SFORCEs along a GROUND marker's z; payloads PARTs FIXED at
their point; joint stiffness torsional SPRINGDAMPERs (a BUSHING when it has a tilt stiffness);
gravity ACCGRAV; the units SI. Every joint the study drives, moving or not, gets a MOTION (ADAMS would let one
without swing freely). Numbers are written with 17 significant digits so that reading the file back gives the
same model to rounding.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...errors import InputError
from ...motion import MotionLaw
from ...motion.integrated import IntegratedLaw
from .values import axes_from_z, reuler_angles

TYPES = {"revolute": ("REVOLUTE", "ROTATION"), "continuous": ("REVOLUTE", "ROTATION"),
         "prismatic": ("TRANSLATIONAL", "TRANSLATION"), "fixed": ("FIXED", None)}


def _n(x) -> str:
    return repr(float(x))


def _ns(xs) -> str:
    return ", ".join(_n(x) for x in xs)


class _Writer:
    """Statements with ids, each after its Adams View name comment."""

    def __init__(self):
        self.lines, self.ids, self.variables, self.splines = [], {}, {}, {}

    def next_id(self, kind: str) -> int:
        self.ids[kind] = self.ids.get(kind, 0) + 1
        return self.ids[kind]

    def add(self, kind: str, name: str | None, *args, comment: str | None = None) -> int:
        k = self.next_id(kind)
        if comment:
            self.lines.append(f"! {comment}")
        if name:
            self.lines.append(f"!                      adams_view_name='{name}'")
        self.lines.append(f"{kind}/{k}")
        self.lines += [f", {a}" for a in args]
        return k

    def marker(self, part: int, T: np.ndarray, name: str | None = None) -> int:
        return self.add("MARKER", name, f"PART = {part}", f"QP = {_ns(T[:3, 3])}",
                        f"REULER = {_ns(reuler_angles(T[:3, :3]))}")


def write_adm(study, path) -> Path:
    """Write ``study`` (a structcheck.study.Study) as the ADAMS dataset ``path``; the link inertials are those the
    run uses (from the meshes when ``inertia_from_meshes``). InputError for what ADAMS cannot be given here: a
    closed chain or a mimic joint. Returns the path."""
    from ...study import prepare

    prep = prepare(study)
    if set(prep.chain.actuated) != set(prep.chain.independent):
        raise InputError(f"study {study.name!r}: its actuated joints {list(prep.chain.actuated)} differ from the "
                         f"driven ones {list(prep.chain.independent)}; an ADAMS MOTION drives and actuates one joint")
    tree = prep.chain.tree
    mimics = [j.name for j in tree.joints if j.mimic is not None]
    if mimics:
        raise InputError(f"study {study.name!r}: mimic joints {mimics} would need ADAMS COUPLERs, not written")
    w = _Writer()
    w.lines += [f"{study.name.replace(' ', '_')} (written by structcheck export-adams)",
                "UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND"]
    parts, markers = _parts(w, tree)
    joint_markers = _joints(w, tree, parts)
    _cut_joints(w, prep.chain.cuts, parts)
    _motions(w, study, prep, tree, joint_markers)
    _loads(w, study, prep, tree, parts, markers, joint_markers)
    g = np.asarray(study.gravity, float)
    w.lines.append(f"ACCGRAV/IGRAV = {_n(g[0])}, JGRAV = {_n(g[1])}, KGRAV = {_n(g[2])}")
    w.lines.append("END")
    path = Path(path)
    path.write_text("\n".join(w.lines) + "\n")
    return path


def _parts(w: _Writer, tree) -> tuple[dict, dict]:
    """PARTs (ground: the base) with their CM markers, and a marker at every robot point: (link -> part id,
    point name -> marker id)."""
    T = tree.forward_kinematics(tree.home)[0]
    parts, markers = {}, {}
    for k, link in enumerate(tree.links):
        if link.name == tree.base:
            note = f"the base link {link.name!r} is GROUND (fixed to the world: its mass carries no joint load)"
            parts[link.name] = w.add("PART", link.name, "GROUND", comment=note)
            continue
        mass, com, I = _inertial(link)
        link = replace(link, mass=mass, com=tuple(com))
        pid = w.next_id("PART")
        cm = w.next_id("MARKER")
        w.ids["PART"] -= 1
        w.ids["MARKER"] -= 1
        Tk = T[tree.link_names.index(link.name)]
        if link.mass > 0:
            args = [f"MASS = {_n(link.mass)}", f"CM = {cm}",
                    f"IP = {_ns([I[0, 0], I[1, 1], I[2, 2], -I[0, 1], -I[0, 2], -I[1, 2]])}"]
        else:
            args = []
        parts[link.name] = w.add("PART", link.name, *args, f"QG = {_ns(Tk[:3, 3])}",
                                 f"REULER = {_ns(reuler_angles(Tk[:3, :3]))}")
        if link.mass > 0:
            Tc = np.eye(4)
            Tc[:3, 3] = link.com
            w.marker(pid, Tc, f"{link.name}_cm")
    for name, (link, xyz) in tree.points.items():
        Tp = np.eye(4)
        Tp[:3, 3] = xyz
        markers[name] = w.marker(parts[link], Tp, name)
    return parts, markers


def _inertial(link) -> tuple[float, np.ndarray, np.ndarray]:
    """The link's mass [kg], centre of mass (3,) [m] and inertia about it (3, 3) [kg m^2], link axes, its point
    masses included (ADAMS has one inertial per PART)."""
    mass, com, I = float(link.mass), np.asarray(link.com, float), np.asarray(link.inertia, float)
    pts = [(float(p.mass), np.asarray(p.position, float)) for p in link.point_masses]
    total = mass + sum(m for m, _ in pts)
    if not pts or total == 0:
        return mass, com, I
    c = (mass * com + sum(m * r for m, r in pts)) / total
    out = I.copy()
    for m, r in [(mass, com), *pts]:
        d = r - c
        out += m * (d.dot(d) * np.eye(3) - np.outer(d, d))
    return total, c, out


def _joints(w: _Writer, tree, parts) -> dict:
    """JOINTs with their I (child, at the link frame) and J (parent, at the joint frame at home) markers, z along
    the axis: joint name -> (I, J)."""
    out = {}
    for j in tree.joints:
        Ra = np.eye(4)
        if j.movable:
            Ra[:3, :3] = axes_from_z(j.axis)
        at_home = j.origin @ _move(j, j.home)
        mi = w.marker(parts[j.child], Ra, f"{j.name}_i")
        mj = w.marker(parts[j.parent], at_home @ Ra, f"{j.name}_j")
        out[j.name] = (mi, mj)
        w.add("JOINT", j.name, TYPES[j.type][0], f"I = {mi}", f"J = {mj}")
    return out


def _cut_joints(w: _Writer, cuts, parts) -> None:
    """A closed chain's cut joints: JOINTs closing the loops (I on the child B, J on the parent A, z the axis);
    the joints without a MOTION are then free in ADAMS, as the chain's passive joints are here."""
    for c in cuts:
        Ra = np.eye(4)
        if c.type != "fixed":
            Ra[:3, :3] = axes_from_z(c.axis)
        mi = w.marker(parts[c.child], np.asarray(c.child_origin, float) @ Ra, f"{c.name}_i")
        mj = w.marker(parts[c.parent], np.asarray(c.origin, float) @ Ra, f"{c.name}_j")
        w.add("JOINT", c.name, TYPES[c.type][0], f"I = {mi}", f"J = {mj}", comment=f"{c.name} closes a loop")


def _move(j, q: float) -> np.ndarray:
    """The joint's motion M(q) (4, 4): rotation by q about the axis, or translation q along it."""
    M = np.eye(4)
    a = np.asarray(j.axis, float)
    if j.type in ("revolute", "continuous"):
        K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
        M[:3, :3] = np.eye(3) + np.sin(q) * K + (1 - np.cos(q)) * K @ K
    elif j.type == "prismatic":
        M[:3, 3] = q * a
    return M


def _text(w: _Writer, law, prep, what: str) -> str:
    """A law's ADAMS FUNCTION text: its own expression (with VARIABLEs written for its VARVALs), a number, the
    exact expression a law object gives (``adams_text()``: the profiles), or else AKISPL on a SPLINE of its
    samples."""
    if isinstance(law, str):
        return law
    if isinstance(law, (int, float, np.floating, np.integer)):
        return _n(law)
    text = law.adams_text() if callable(getattr(law, "adams_text", None)) else None
    if text is not None:
        return text
    if isinstance(law, MotionLaw) and not any(sp.linear_extrapolate for *_, sp in law.spline_references()):
        texts = _with_splines(w, law)
        return _with_variables(w, texts.get(law.text, law.text), law.variables, {}, texts)
    t_end = float(prep.grid.t[-1])
    t, h = np.linspace(0.0, t_end, 4001), t_end / 4000
    breaks = np.array([b for b in getattr(law, "breakpoints", ()) if 0.0 < b < t_end], float)
    if breaks.size:  # knots at the breakpoints, none closer than h/2 to one (uneven knots spoil the curvature)
        t = np.sort(np.concatenate([t[np.abs(t[:, None] - breaks[None, :]).min(axis=1) > h / 2], breaks]))
    sid = w.add("SPLINE", None, f"X = {_ns(t)}", f"Y = {_ns(law.value(t))}",
                comment=f"{what}: a law that is not an expression, sampled ({len(t)} samples) for AKISPL")
    return f"AKISPL(time, 0, {sid})"


_VARVAL = re.compile(r"\bVARVAL\s*\(\s*([A-Za-z_][A-Za-z0-9_]*|\d+(?:\.0*)?)\s*\)", re.I)


def _var_key(k) -> str:
    """A VARIABLE's name or id as a lookup key (as MotionLaw reads it): ids as integers' text, names upper case."""
    k = str(k).strip()
    return str(int(float(k))) if k[:1].isdigit() else k.upper()


def _with_splines(w: _Writer, law: MotionLaw) -> dict:
    """The law's and its VARIABLEs' texts that name SPLINEs -> the same texts naming SPLINEs written for the curves
    (by id; one SPLINE per distinct curve, shared by the laws of the dataset)."""
    edits = {}
    for text, span, sp in law.spline_references():
        if (sp.x, sp.y) not in w.splines:
            label = None if sp.name[:1].isdigit() else sp.name
            w.splines[sp.x, sp.y] = w.add("SPLINE", label, f"X = {_ns(sp.x)}", f"Y = {_ns(sp.y)}")
        edits.setdefault(text, set()).add((span, w.splines[sp.x, sp.y]))
    out = {}
    for text, spans in edits.items():
        new = text
        for (a, b), sid in sorted(spans, reverse=True):  # from the end: the earlier spans keep their places
            new = f"{new[:a]}{sid}{new[b:]}"
        out[text] = new
    return out


def _with_variables(w: _Writer, text: str, variables: dict, done: dict, texts: dict) -> str:
    """``text`` with each VARVAL(key) of ``variables`` (name or id -> text) pointing at a VARIABLE written for it
    (those it uses first; one VARIABLE per distinct text, shared by the laws of the dataset); ``texts``: the
    variables' texts with their SPLINEs renamed (:func:`_with_splines`)."""
    given = {_var_key(k): (k, v) for k, v in variables.items()}

    def ref(m) -> str:
        key = _var_key(m.group(1))
        if key not in done:
            name, body = given[key]
            body = _with_variables(w, texts.get(body, body), variables, done, texts)
            if body not in w.variables:
                label = None if isinstance(name, (int, np.integer)) or str(name)[:1].isdigit() else str(name)
                w.variables[body] = w.add("VARIABLE", label, f"FUNCTION = {body}")
            done[key] = w.variables[body]
        return f"VARVAL({done[key]})"

    return _VARVAL.sub(ref, text)


def _motions(w: _Writer, study, prep, tree, joint_markers) -> None:
    """A MOTION of every driven joint: its displacement, or (a law given by its velocity or acceleration, as
    read from a dataset) that law with ICDISP (and ICVEL)."""
    for name in prep.chain.independent:
        j = tree.joint(name)
        law, level = study.motion.get(name, 0.0), []
        if isinstance(law, IntegratedLaw) and isinstance(law.rate, MotionLaw):
            level = [("VELOCITY", "ACCELERATION")[law.order - 1], f"ICDISP = {_n(law.q0)}"]
            level += [f"ICVEL = {_n(law.v0)}"] if law.order == 2 else []
            law = law.rate
        text = _text(w, law, prep, f"motion of {name}")
        w.add("MOTION", f"{name}_motion", f"JOINT = {w_joint_id(w, name, tree)}", TYPES[j.type][1], *level,
              f"FUNCTION = {text}")


def w_joint_id(w: _Writer, name: str, tree) -> int:
    """The JOINT id of joint ``name`` (joints are written in the tree's order, ids 1, 2, ...)."""
    return tree.joint_names.index(name) + 1


def _loads(w: _Writer, study, prep, tree, parts, markers, joint_markers) -> None:
    """Point forces (action-only SFORCEs), payloads (PARTs fixed at their point), joint stiffness
    (SPRINGDAMPERs)."""
    base = parts[tree.base]
    T = tree.forward_kinematics(tree.home)[0]
    for k, pf in enumerate(study.point_forces):
        link, xyz = tree.points[pf.point]
        Tg = np.eye(4)
        Tg[:3, 3] = (T[tree.link_names.index(link)] @ np.append(xyz, 1.0))[:3]
        Tg[:3, :3] = axes_from_z(np.asarray(pf.direction, float))
        mj = w.marker(base, Tg, f"force{k + 1}_direction")
        w.add("SFORCE", f"force{k + 1}_at_{pf.point}", "TRANSLATION", "ACTIONONLY", f"I = {markers[pf.point]}",
              f"J = {mj}", f"FUNCTION = {_text(w, pf.magnitude, prep, f'force at {pf.point}')}")
    for pl in study.payloads:
        link, xyz = tree.points[pl.point]
        Tp = T[tree.link_names.index(link)].copy()
        Tp[:3, 3] = (Tp @ np.append(xyz, 1.0))[:3]
        I = np.zeros((3, 3)) if pl.inertia is None else np.asarray(pl.inertia, float)
        pid = w.next_id("PART")
        w.ids["PART"] -= 1
        cm = w.ids.get("MARKER", 0) + 1
        w.add("PART", f"payload_{pl.point}", f"MASS = {_n(pl.mass)}", f"CM = {cm}",
              f"IP = {_ns([I[0, 0], I[1, 1], I[2, 2], -I[0, 1], -I[0, 2], -I[1, 2]])}",
              f"QG = {_ns(Tp[:3, 3])}", f"REULER = {_ns(reuler_angles(Tp[:3, :3]))}")
        w.marker(pid, np.eye(4), f"payload_{pl.point}_cm")
        Ta = np.eye(4)
        Ta[:3, 3] = xyz
        mj = w.marker(parts[link], Ta, f"payload_{pl.point}_j")
        w.add("JOINT", f"payload_{pl.point}_fixed", "FIXED", f"I = {cm}", f"J = {mj}")
    for name, k in dict(study.arm.joint_stiffness).items():
        mi, mj = joint_markers[name]
        if isinstance(k, (tuple, list)):  # (torsional, tilt): a BUSHING's KT about the markers' x, y (tilt) and z
            w.add("BUSHING", f"{name}_stiffness", f"I = {mi}", f"J = {mj}", "K = 0, 0, 0", "C = 0, 0, 0",
                  f"KT = {_ns([k[1], k[1], k[0]])}", "CT = 0, 0, 0",
                  comment=f"{name}: torsional and tilt stiffness (the joint is rigid in translation)")
        else:
            w.add("SPRINGDAMPER", f"{name}_stiffness", "ROTATION", f"I = {mi}", f"J = {mj}", f"KT = {_n(k)}",
                  "CT = 0")
