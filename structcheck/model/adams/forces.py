"""ADAMS forces read as the project's loads: an action-only translational SFORCE, a VFORCE or a GFORCE (no torque)
whose reference axes are fixed on GROUND -> point forces at the I marker along fixed world directions; a torsional
SPRINGDAMPER (KT=) or SFORCE (FUNCTION=-k*AZ(i,j)) across a REVOLUTE joint's two parts -> that joint's stiffness.
Anything else is refused with its line."""
from __future__ import annotations


import numpy as np

from ...errors import InputError
from ...motion import MotionLaw
from .model import STIFFNESS
from .values import number


def read_forces(data, names, mpart, part_T, marker_T, gid, tree) -> tuple[tuple, dict]:
    """(point forces, joint name -> torsional stiffness [N m/rad]) from the dataset's force statements."""
    from ...study import PointForce

    splines = {k: v.args["_xy"] for k, v in data.splines.items()}
    variables = {k: v.args["FUNCTION"][0] for k, v in data.variables.items()}
    revolute = {frozenset((p, c)): st for st, p, c, _ in tree if "REVOLUTE" in st.flags}
    F, L = data.units.force, data.units.length
    forces, stiffness = [], {}

    def law(text, where):
        try:
            return MotionLaw(text if F == 1.0 else f"{F!r}*({text})", splines=splines, variables=variables)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None

    def marker(st, key, where):
        return _marker(data, st, key, where)

    def point(st, where):
        m = marker(st, "I", where)
        if m not in mpart:
            raise InputError(f"{where}: the I marker {m} is FLOATING; a load acts at a marker on a part")
        return names["MARKER", m]

    def on_ground(st, key, where):
        m = marker(st, key, where)
        if mpart.get(m) != gid:
            raise InputError(f"{where}: its {key} marker {m} is not on GROUND: a structcheck point force keeps a "
                             f"fixed world direction; put the {key} marker on GROUND")
        return marker_T[m][:3, :3]

    def joint_of(st, where):
        if (parts := frozenset(mpart.get(marker(st, k, where)) for k in ("I", "J"))) not in revolute:
            raise InputError(f"{where}: a torsional spring is read as a joint's stiffness; its I and J markers must "
                             f"be on the two parts of a REVOLUTE joint")
        return names["JOINT", revolute[parts].id]

    z = {m: (part_T[mpart[m]] @ T)[:3, 2] for m, T in marker_T.items() if m in mpart}  # world, assembled
    joint_z = {names["JOINT", j.id]: z[int(j.args["J"][0])] for j, *_ in tree}
    for st in data.forces:
        where = data.where(st)
        if st.kind == "BUSHING":
            joint = joint_of(st, where)
            stiffness[joint] = bushing_stiffness(st, data, where, joint, z[marker(st, "J", where)], joint_z[joint])
            continue
        if st.kind == "SPRINGDAMPER":
            if "ROTATION" not in st.flags:
                raise InputError(f"{where}: a translational SPRINGDAMPER is not read; structcheck's joint stiffness "
                                 f"is torsional (SPRINGDAMPER/id, ROTATION, KT=)")
            for k in ("TORQUE", "CT"):
                if k in st.args and number(st.args[k][0], where, k) != 0:
                    data.notes.append(f"line {st.line}: SPRINGDAMPER {k} is not used (only KT, the stiffness)")
            stiffness[joint_of(st, where)] = number(st.args.get("KT", ["0"])[0], where, "KT") * F * L
        elif st.kind == "SFORCE" and "ROTATION" in st.flags:
            m = STIFFNESS.match(st.args.get("FUNCTION", [""])[0])
            if not m or {int(m["i"]), int(m["j"])} != {marker(st, "I", where), marker(st, "J", where)}:
                raise InputError(f"{where}: a torsional SFORCE is read only as a joint stiffness, FUNCTION = -k*AZ(I, "
                                 f"J) with its own I and J markers; write other torques as SPRINGDAMPER or drop them")
            stiffness[joint_of(st, where)] = number(m["k"], where, "k") * F * L
        elif st.kind == "SFORCE":
            if "ACTIONONLY" not in st.flags:
                raise InputError(f"{where}: an action-reaction SFORCE acts along the line between its markers, "
                                 f"which moves; give ACTIONONLY with the J marker on GROUND (force along J's z)")
            R = on_ground(st, "J", where)
            forces.append(PointForce(point(st, where), law(st.args["FUNCTION"][0], where), tuple(R[:, 2])))
        else:  # VFORCE, GFORCE: components in RM's axes
            torques = [k for k in ("TX", "TY", "TZ") if st.args.get(k, ["0"])[0].strip() not in ("0", "0.0", "")]
            if torques:
                raise InputError(f"{where}: a GFORCE torque ({torques[0]}) is not read; structcheck's loads are point "
                                 f"forces: give TX, TY, TZ = 0")
            R = on_ground(st, "RM", where)
            for axis, key in enumerate(("FX", "FY", "FZ")):
                text = st.args.get(key, ["0"])[0].strip()
                if text not in ("0", "0.0", ""):
                    forces.append(PointForce(point(st, where), law(text, where), tuple(R[:, axis])))
    return tuple(forces), stiffness


def _marker(data, st, key: str, where: str) -> int:
    """The id of the existing marker ``st`` names by ``key``; InputError naming ``where`` otherwise."""
    if key not in st.args:
        raise InputError(f"{where}: {key}= is missing")
    try:
        m = int(st.args[key][0])
    except ValueError:
        raise InputError(f"{where}: {key}={st.args[key][0]!r} is not a marker id") from None
    if m not in data.markers:
        raise InputError(f"{where}: there is no MARKER/{m}")
    return m


def bushing_stiffness(st, data, where: str, joint: str, z, joint_z):
    """A BUSHING across the revolute joint ``joint`` as its stiffness [N m/rad]: KTz (about the axis, > 0) alone,
    or (KTz, KTx) when its tilt stiffnesses KTx = KTy (the project has one tilt stiffness) are given. Its J
    marker's z (3,) must lie along the joint's J marker's z (3,) (world). Its translational K, the dampings C, CT
    and the preloads FORCE, TORQUE are noted as not used (the joint is rigid in translation; the stiffness is
    linear, without preload)."""
    if np.linalg.norm(np.cross(z, joint_z)) > 1e-9:
        raise InputError(f"{where}: a BUSHING is read as a joint stiffness about its J marker's z; that z must lie "
                         f"along {joint}'s axis (the joint's J marker's z)")
    F, L = data.units.force, data.units.length
    kt = [number(x, where, "KT") * F * L for x in st.args.get("KT", ["0", "0", "0"])]
    if len(kt) != 3:
        raise InputError(f"{where}: KT needs 3 numbers (about J's x, y, z), got {len(kt)}")
    if not kt[2] > 0:
        raise InputError(f"{where}: a BUSHING is read as a joint stiffness: its KTz (about the joint's axis) must "
                         f"be > 0, got {kt[2]:g}")
    if kt[0] != kt[1]:
        raise InputError(f"{where}: KTx = {kt[0]:g} and KTy = {kt[1]:g} differ; a joint's tilt stiffness is one "
                         f"value: give them equal")
    unused = [k for k in ("K", "C", "CT", "FORCE", "TORQUE")
              if any(number(x, where, k) != 0 for x in st.args.get(k, []))]
    if unused:
        data.notes.append(f"line {st.line}: BUSHING {', '.join(unused)} not used (the joint is rigid in translation; "
                          f"its stiffness is linear, undamped, without preload)")
    return (kt[2], kt[0]) if kt[0] > 0 else kt[2]


__all__ = ["bushing_stiffness", "read_forces"]
