"""The statements of a dataset (read.py) built into the project's model: parts -> links, joints (tree from
GROUND), markers -> points, MOTIONs -> laws, forces -> point forces and joint stiffness. See read.py for the
frames."""
from __future__ import annotations

import math

import numpy as np

from ...errors import InputError
from ...motion import MotionLaw
from ...motion.integrated import IntegratedLaw
from ..links import Joint, Link
from ..robot import Robot
from .forces import read_forces
from .model import JOINT_KINDS, MOTION_KINDS, MOTION_LEVELS, AdamsModel
from .values import number, numbers, placement

AXIS = {True: (0.0, 0.0, 1.0), False: (0.0, 0.0, -1.0)}  # child marker is I: +z; is J: -z


def build_model(data, title: str):
    """The AdamsModel of the sorted statements ``data`` (read._Data)."""
    L = data.units.length
    ground = [p for p in data.parts.values() if "GROUND" in p.flags]
    if len(ground) != 1:
        raise InputError(f"{data.path}: {len(ground)} PARTs with GROUND; a dataset needs exactly one")
    gid = ground[0].id
    part_T = {pid: (np.eye(4) if pid == gid else placement(p.args, data.where(p), L, "QG", "ZG", "XG"))
              for pid, p in data.parts.items()}
    for m in data.markers.values():
        if "FLOATING" not in m.flags and "PART" not in m.args:
            raise InputError(f"{data.where(m)}: the MARKER needs PART= (or FLOATING)")
        if "PART" in m.args:
            _ref(m.args["PART"][0], data.parts, "PART", data, m)
    marker_T = {mid: placement(m.args, data.where(m), L, "QP", "ZP", "XP")
                for mid, m in data.markers.items() if "FLOATING" not in m.flags}
    mpart = {mid: int(m.args["PART"][0]) for mid, m in data.markers.items() if "PART" in m.args}
    names = _names(data, gid)
    tree, loops = _tree(data, gid, mpart)
    link_T = {gid: np.eye(4)}
    joints, homes = [], {}
    for st, parent, child, child_is_i in tree:
        mk = {k: _ref(st.args[k][0], data.markers, "MARKER", data, st) for k in ("I", "J")}
        cm, pm = (mk["I"], mk["J"]) if child_is_i else (mk["J"], mk["I"])
        link_T[child] = part_T[child] @ marker_T[cm]
        origin = np.linalg.inv(link_T[parent]) @ part_T[parent] @ marker_T[pm]
        jtype = next(JOINT_KINDS[f] for f in st.flags)
        if jtype == "fixed":
            origin, home = np.linalg.inv(link_T[parent]) @ link_T[child], 0.0
        else:
            home = _home(np.linalg.inv(link_T[parent] @ origin) @ link_T[child], jtype, child_is_i,
                         data.where(st))
        homes[st.id] = home
        joints.append(Joint(names["JOINT", st.id], jtype, names["PART", parent], names["PART", child], origin,
                            AXIS[child_is_i], -math.inf, math.inf, home))
    links = [_link(data, pid, names["PART", pid], mpart, marker_T, part_T, link_T) for pid in link_T]
    used = _structural_markers(data)
    points = {names["MARKER", mid]: (names["PART", mpart[mid]],
                                     (np.linalg.inv(link_T[mpart[mid]]) @ part_T[mpart[mid]] @ marker_T[mid])[:3, 3])
              for mid in marker_T if mid not in used and mpart[mid] in link_T}
    robot = Robot(links, joints, points, name=title.split()[0] if title.split() else "adams")
    motion, text = _motions(data, names, homes)
    held = "passive (the loops move it)" if loops else "held at home"
    for st in tree:
        if st[0].id not in {int(m.args["JOINT"][0]) for m in data.motions.values()} and st[0].flags - {"FIXED"}:
            data.notes.append(f"line {st[0].line}: {names['JOINT', st[0].id]} has no MOTION: {held}")
    if loops:
        from ...rigid.closedchain import ClosedChain

        robot = ClosedChain(robot, _cuts(data, loops, names, mpart, part_T, marker_T, link_T),
                            independent=list(motion), name=robot.name)
    point_forces, stiffness = read_forces(data, names, mpart, part_T, marker_T, gid, tree)
    return AdamsModel(robot, motion, text, point_forces, data.gravity, stiffness,
                      {k: v.args["_xy"] for k, v in data.splines.items()},
                      {k: v.args["FUNCTION"][0] for k, v in data.variables.items()}, data.units, title, data.notes)



def _ref(text, table, kind, data, st):
    """The id in ``text`` of an existing ``kind`` statement; InputError naming ``st``'s line otherwise."""
    try:
        k = int(text)
    except ValueError:
        raise InputError(f"{data.where(st)}: {text!r} is not a {kind} id") from None
    if k not in table:
        raise InputError(f"{data.where(st)}: there is no {kind}/{k}")
    return k


def _names(data, gid) -> dict:
    """(kind, id) -> name: Adams View's adams_view_name comment, else KIND_id (ground: 'ground'); unique."""
    out, seen = {}, set()
    for kind, table in (("PART", data.parts), ("JOINT", data.joints), ("MARKER", data.markers)):
        for k, st in table.items():
            name = st.name or ("ground" if (kind, k) == ("PART", gid) else f"{kind}_{k}")
            if name in seen:
                name = f"{name}_{k}"
            seen.add(name)
            out[kind, k] = name
    return out


def _tree(data, gid, mpart) -> tuple[list, list]:
    """The joints from GROUND outwards, (statement, parent part id, child part id, child holds I), each step the
    first joint in the file that reaches a new part; and the joints left over, which close loops (cut joints).
    InputError for a joint's marker not on a part, or a part not joined to ground."""
    ends = {}
    for st in data.joints.values():
        pair = []
        for k in ("I", "J"):
            m = _ref(st.args[k][0], data.markers, "MARKER", data, st)
            if m not in mpart:
                raise InputError(f"{data.where(st)}: its {k} marker {m} is FLOATING; a joint's markers are on parts")
            pair.append(mpart[m])
        if pair[0] == pair[1]:
            raise InputError(f"{data.where(st)}: its I and J markers are on the same part {pair[0]}")
        ends[st.id] = pair
    placed, order, pending = {gid}, [], list(data.joints.values())
    while True:
        step = next((st for st in pending if (ends[st.id][0] in placed) != (ends[st.id][1] in placed)), None)
        if step is None:
            break
        pi, pj = ends[step.id]
        child_is_i = pj in placed
        order.append((step, pj if child_is_i else pi, pi if child_is_i else pj, child_is_i))
        placed.add(pi if child_is_i else pj)
        pending.remove(step)
    loose = [p for pid, p in data.parts.items() if pid not in placed]
    if loose:
        raise InputError(f"{data.where(loose[0])}: PART/{loose[0].id} is not joined to ground by joints; every part "
                         f"must hang from GROUND through REVOLUTE, TRANSLATIONAL or FIXED joints")
    return order, pending


def _cuts(data, cuts, names, mpart, part_T, marker_T, link_T) -> list:
    """The loop-closing joints as structcheck CutJoints: from the J marker's part (A) to the I marker's (B), the
    joint frames the markers, the axis their z."""
    from ...rigid.closedchain import CutJoint

    out = []
    for st in cuts:
        mi, mj = (int(st.args[k][0]) for k in ("I", "J"))
        frame = {m: np.linalg.inv(link_T[mpart[m]]) @ part_T[mpart[m]] @ marker_T[m] for m in (mi, mj)}
        out.append(CutJoint(names["JOINT", st.id], JOINT_KINDS[next(iter(st.flags))], names["PART", mpart[mj]],
                            names["PART", mpart[mi]], frame[mj], frame[mi], np.array([0.0, 0.0, 1.0])))
    return out


def _home(M, jtype: str, child_is_i: bool, where: str) -> float:
    """The joint's value at the assembled position from M = the child marker's pose in the origin marker's frame:
    a rotation about z (REVOLUTE) or a shift along z (TRANSLATIONAL); InputError if the markers do not sit so."""
    R, p = M[:3, :3], M[:3, 3]
    tol = 1e-6 * (1.0 + np.abs(M[:3, 3]).max())
    if jtype == "revolute":
        bad = np.linalg.norm(p) > tol or np.linalg.norm(R[:, 2] - [0, 0, 1]) > 1e-6
        value = math.atan2(R[1, 0], R[0, 0])
    else:
        bad = np.linalg.norm(p[:2]) > tol or np.linalg.norm(R - np.eye(3)) > 1e-6
        value = p[2]
    if bad:
        what = "share their origin and z axis" if jtype == "revolute" else "share their axes, on a common z axis"
        raise InputError(f"{where}: the joint's I and J markers do not {what} at the assembled position (offset "
                         f"{p.round(9).tolist()}, z {R[:, 2].round(9).tolist()}); place them so")
    value = value if child_is_i else -value
    return 0.0 if abs(value) < 1e-12 * (1.0 + np.abs(M[:3, 3]).max()) else float(value)  # rounding of an assembly at 0


def _link(data, pid, name, mpart, marker_T, part_T, link_T) -> Link:
    """A Link from PART/pid: MASS, CM marker, IP about the IM marker (default CM) in its axes, with ADAMS's sign:
    IP's xy, xz, yz are the positive integrals (int x y dm), the tensor's off-diagonal terms their negatives."""
    st = data.parts[pid]
    where = data.where(st)
    if "GROUND" in st.flags:
        return Link(name)
    u = data.units
    mass = number(st.args.get("MASS", ["0"])[0], where, "MASS") * u.mass
    if mass == 0:
        return Link(name)
    if "CM" not in st.args:
        raise InputError(f"{where}: a PART with MASS needs CM= (its centre-of-mass marker)")
    cm = _ref(st.args["CM"][0], data.markers, "MARKER", data, st)
    im = _ref(st.args["IM"][0], data.markers, "MARKER", data, st) if "IM" in st.args else cm
    for k in (cm, im):
        if mpart.get(k) != pid:
            raise InputError(f"{where}: marker {k} (CM or IM) is not on PART/{pid}")
    xx, yy, zz, xy, xz, yz = numbers(st.args, "IP", (3, 6), where, default=(0, 0, 0)) + [0.0] * (
        6 - len(st.args.get("IP", [0] * 6)))
    I_im = np.array([[xx, -xy, -xz], [-xy, yy, -yz], [-xz, -yz, zz]]) * u.mass * u.length ** 2
    in_link = np.linalg.inv(link_T[pid]) @ part_T[pid]
    T_cm, T_im = in_link @ marker_T[cm], in_link @ marker_T[im]
    I = T_im[:3, :3] @ I_im @ T_im[:3, :3].T            # about IM's origin, link axes
    d = T_cm[:3, 3] - T_im[:3, 3]
    I = I - mass * (d.dot(d) * np.eye(3) - np.outer(d, d))  # parallel axes: about the centre of mass
    return Link(name, mass, tuple(T_cm[:3, 3]), tuple(map(tuple, I)))


def _structural_markers(data) -> set:
    """Markers that are part of the model's structure (CM, IM, joint, spring, force reference markers), not
    points of interest; a force's I marker stays a point."""
    used, springs = set(), ("SPRINGDAMPER", "BUSHING")
    for st in data.parts.values():
        used |= {int(st.args[k][0]) for k in ("CM", "IM") if k in st.args}
    for st in list(data.joints.values()) + [f for f in data.forces if f.kind in springs]:
        used |= {int(st.args[k][0]) for k in ("I", "J")}
    for st in data.forces:
        used |= {int(st.args[k][0]) for k in ("J", "JFLOAT", "RM") if k in st.args and st.kind not in springs}
    return used - {int(st.args["I"][0]) for st in data.forces if "I" in st.args and st.kind not in springs}


def _motions(data, names, homes) -> tuple[dict, dict]:
    """joint name -> MotionLaw (offset from home) and -> its text, from the MOTIONs."""
    splines = {k: v.args["_xy"] for k, v in data.splines.items()}
    variables = {k: v.args["FUNCTION"][0] for k, v in data.variables.items()}
    motion, text = {}, {}
    for st in data.motions.values():
        where = data.where(st)
        jid = _ref(st.args["JOINT"][0], data.joints, "JOINT", data, st)
        jst = data.joints[jid]
        if jid not in homes:
            raise InputError(f"{where}: this MOTION drives a joint that closes a loop (the tree from GROUND reaches "
                             f"its parts through earlier joints); drive a joint of the tree, or write the loop's "
                             f"joints in another order")
        kind = next(MOTION_KINDS[f] for f in st.flags if f in MOTION_KINDS)
        jkind = JOINT_KINDS[next(iter(jst.flags))]
        if kind != jkind:
            raise InputError(f"{where}: a {'ROTATION' if kind == 'revolute' else 'TRANSLATION'} motion on JOINT/{jid}, "
                             f"a {next(iter(jst.flags))} joint")
        name = names["JOINT", jid]
        if name in motion:
            raise InputError(f"{where}: JOINT/{jid} has a second MOTION")
        f = st.args["FUNCTION"][0]
        scale = data.units.length if kind == "prismatic" else 1.0
        t = f if scale == 1.0 else f"{scale!r}*({f})"
        level = max((MOTION_LEVELS[k] for k in st.flags if k in MOTION_LEVELS), default=0)
        if level == 0:
            t = t if homes[jid] == 0.0 else f"({t}) - ({homes[jid]!r})"
        try:
            law = MotionLaw(t, splines=splines, variables=variables)
            motion[name] = law if level == 0 else _integrated(law, level, st, kind, scale, homes[jid], where)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        text[name] = t
    return motion, text


def _integrated(rate, level: int, st, kind: str, scale: float, home: float, where: str):
    """The displacement law (offset from home) of a VELOCITY (``level`` 1) or ACCELERATION (2) MOTION: from t = 0
    at ICDISP (absolute; none: the assembled position, home) with velocity ICVEL (none: 0)."""
    angle = kind == "revolute"
    q0 = number(st.args["ICDISP"][0], where, "ICDISP", angle) * scale - home if "ICDISP" in st.args else 0.0
    v0 = number(st.args["ICVEL"][0], where, "ICVEL", angle) * scale if level == 2 and "ICVEL" in st.args else 0.0
    return IntegratedLaw(rate, level, q0, v0, what=where)
