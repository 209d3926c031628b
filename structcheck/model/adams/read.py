"""An ADAMS/Solver dataset read into the project's model: :func:`read_adm` -> :class:`AdamsModel` (robot, motion
laws, point forces, gravity, joint stiffness). What maps to what, and what is refused: docs/from_adams.md.

Frames: the GROUND part's frame is the world. A link's frame is the marker its parent joint places on it (the
JOINT's I marker when I is on the part farther from ground, else its J marker, the joint's axis then -z); the
joint's origin is the other marker, in the parent link's frame, and its axis the markers' z. The joint value is
ADAMS's: the angle of I's x axis from J's about J's z (REVOLUTE), I's displacement along J's z (TRANSLATIONAL);
``home`` is its value at the dataset's assembled position, and a MOTION's displacement function f(t) (absolute,
as ADAMS takes it) becomes the law f(t) - home (the project's laws are offsets from home).
"""
from __future__ import annotations

from ...errors import InputError
from .dataset import SKIPPED, Statement, read_statements
from .build import build_model
from .model import JOINT_KINDS, MOTION_KINDS, MOTION_LEVELS, AdamsModel
from .units import Units, read_units
from .values import numbers


class _Data:
    """The statements sorted by kind while they are read."""

    def __init__(self, path):
        self.path, self.units, self.notes = path, Units(), []
        self.parts, self.markers, self.joints, self.motions, self.forces = {}, {}, {}, {}, []
        self.splines, self.variables, self.gravity = {}, {}, (0.0, 0.0, 0.0)

    def where(self, st: Statement) -> str:
        return st.where(self.path)

    def put(self, table: dict, st: Statement):
        if st.id is None:
            raise InputError(f"{self.where(st)}: {st.kind} needs an id ({st.kind}/id, ...)")
        if st.id in table:
            raise InputError(f"{self.where(st)}: {st.kind}/{st.id} is defined twice (also line {table[st.id].line})")
        table[st.id] = st


def read_adm(path) -> AdamsModel:
    """The ADAMS/Solver dataset at ``path`` (.adm) as an :class:`AdamsModel`; InputError naming the file, the line
    and the statement for anything that is refused (docs/from_adams.md lists what is read)."""
    statements, title = read_statements(path)
    data = _Data(path)
    units = [st for st in statements if st.kind == "UNITS"]
    if len(units) > 1:
        raise InputError(f"{data.where(units[1])}: a second UNITS statement (first at line {units[0].line})")
    if units:
        data.units = read_units(units[0].args, data.where(units[0]))
    else:
        data.notes.append("no UNITS statement: the numbers are taken as SI (N, kg, m, s)")
    for st in statements:
        if st.kind == "END":
            break
        ignored = sorted(set(st.args) & IGNORED - _used_ics(st)) + sorted(st.flags & IGNORED)
        if ignored:
            data.notes.append(f"line {st.line}: {st.kind} {', '.join(ignored)} ignored (initial conditions and "
                              f"extrapolation settings: the MOTIONs define the motion, splines extrapolate as "
                              f"structcheck.motion.Spline does)")
        _READERS[st.kind](data, st)
    return build_model(data, title)


#: accepted and noted, not used
IGNORED = {"VX", "VY", "VZ", "WX", "WY", "WZ", "VM", "WM", "EXACT", "IC", "ICTRAN", "ICROT", "ICDISP", "ICVEL",
           "LINEAR_EXTRAPOLATE"}


def _used_ics(st: Statement) -> set:
    """The initial conditions a MOTION given by its velocity (ICDISP) or acceleration (ICDISP, ICVEL) uses."""
    if st.kind != "MOTION":
        return set()
    return {"ICDISP"} if "VELOCITY" in st.flags else {"ICDISP", "ICVEL"} if "ACCELERATION" in st.flags else set()


def _skip(data: _Data, st: Statement):
    data.notes.append(f"line {st.line}: {st.kind} skipped (output settings, not part of the model)")


def _joint(data: _Data, st: Statement):
    kinds = st.flags & set(JOINT_KINDS)
    others = st.flags - set(JOINT_KINDS)
    if others:
        raise InputError(f"{data.where(st)}: {sorted(others)[0]} joints are not read: structcheck's joints are "
                         f"REVOLUTE, TRANSLATIONAL and FIXED (model the others with those, or close the loop in a "
                         f"structcheck.ClosedChain by hand)")
    if len(kinds) != 1:
        raise InputError(f"{data.where(st)}: a JOINT needs one type (REVOLUTE, TRANSLATIONAL or FIXED)")
    for k in ("I", "J"):
        if k not in st.args:
            raise InputError(f"{data.where(st)}: the JOINT needs {k}= (a marker id)")
    data.put(data.joints, st)


def _motion(data: _Data, st: Statement):
    where = data.where(st)
    if "I" in st.args or "J" in st.args or st.flags & {"B1", "B2", "B3", "X", "Y", "Z"}:
        raise InputError(f"{where}: a MOTION between markers (I=, J=, B1.. or X..) is not read; give JOINT= with "
                         f"ROTATION or TRANSLATION")
    if len(st.flags & set(MOTION_LEVELS)) > 1:
        raise InputError(f"{where}: a MOTION gives one of DISPLACEMENT, VELOCITY or ACCELERATION")
    if "JOINT" not in st.args or "FUNCTION" not in st.args:
        raise InputError(f"{where}: a MOTION needs JOINT= and FUNCTION=")
    if len(st.flags & set(MOTION_KINDS)) != 1:
        raise InputError(f"{where}: a MOTION needs ROTATION or TRANSLATION")
    if st.args["FUNCTION"][0].upper().startswith("USER"):
        raise InputError(f"{where}: FUNCTION=USER(...) calls a user subroutine; write the law as an expression")
    data.put(data.motions, st)


def _force(data: _Data, st: Statement):
    for key in ("FUNCTION", "FX", "FY", "FZ", "TX", "TY", "TZ"):
        if st.args.get(key, [""])[0].upper().startswith("USER"):
            raise InputError(f"{data.where(st)}: {key}=USER(...) calls a user subroutine; write an expression")
    data.forces.append(st)


def _accgrav(data: _Data, st: Statement):
    g = [float(numbers(st.args, k, 1, data.where(st), default=(0,))[0]) for k in ("IGRAV", "JGRAV", "KGRAV")]
    data.gravity = tuple(x * data.units.length / data.units.time ** 2 for x in g)


def _spline(data: _Data, st: Statement):
    where = data.where(st)
    if "Z" in st.args or "FILE" in st.args:
        raise InputError(f"{where}: SPLINE with Z= (a surface) or FILE= is not read; give X= and Y= in the dataset")
    x, y = (numbers(st.args, k, tuple(range(1, 100000)), where) for k in ("X", "Y"))
    if len(x) != len(y):
        raise InputError(f"{where}: X= has {len(x)} numbers and Y= {len(y)}; give as many of each")
    data.put(data.splines, st)
    st.args["_xy"] = (x, y)


def _variable(data: _Data, st: Statement):
    if "FUNCTION" not in st.args:
        raise InputError(f"{data.where(st)}: a VARIABLE needs FUNCTION=")
    data.put(data.variables, st)


_READERS = {
    "UNITS": lambda data, st: None, "PART": lambda data, st: data.put(data.parts, st),
    "MARKER": lambda data, st: data.put(data.markers, st), "JOINT": _joint, "MOTION": _motion,
    "SFORCE": _force, "VFORCE": _force, "GFORCE": _force, "SPRINGDAMPER": _force, "BUSHING": _force,
    "ACCGRAV": _accgrav, "SPLINE": _spline, "VARIABLE": _variable, **dict.fromkeys(SKIPPED, _skip),
}
