"""structcheck.model.adams.read_adm: paper 004's robot written by hand as a .adm against the D-H study, REULER
against scipy, UNITS against the units' definitions, IP's sign convention against a hand-built body, and every
refusal naming its line."""
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from adams_loads import imported_study
from structcheck.errors import InputError
from structcheck.model.adams import read_adm
from structcheck.model.adams.values import reuler, reuler_angles
from structcheck.script import load_study
from structcheck.study import prepare, rigid_stage

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def test_paper004_by_hand_gives_the_dh_study_loads():
    """tests/data/paper004.adm (written by hand: mm, REULER in degrees, IP with products, the claw SFORCEs,
    ACCGRAV) gives the D-H study's joint torques and reactions (child axes, at the D-H frames) to 1e-12 of their
    peaks. Budget: the mass properties are the meshes' printed to 17 digits (1e-16), mm -> m and cos(90 deg) add
    rounding of 1e-16; the recursions' rounding is ~1e-15 of the peaks."""
    dh = load_study(ROOT / "studies" / "loading_unloading_6dof.py")
    model = read_adm(DATA / "paper004.adm")
    adm = imported_study(model, dh)
    prep_dh, prep_adm = prepare(dh), prepare(adm)
    t = prep_dh.grid.t
    a, b = rigid_stage(dh, prep_dh, t).body, rigid_stage(adm, prep_adm, t).body
    assert list(model.robot.dof_names) == list(dh.robot.dof_names)
    assert np.allclose(model.robot.home, 0.0, atol=1e-15)   # the markers sit at home: MOTIONs are offsets
    T_dh = dh.robot.forward_kinematics(dh.robot.home)[0]
    T_adm = model.robot.forward_kinematics(model.robot.home)[0]
    assert np.abs(T_dh - T_adm).max() < 1e-12
    assert np.abs(a.tau - b.tau).max() < 1e-12 * np.abs(a.tau).max()
    wa, wb = a.dynamics.joint_wrenches, b.dynamics.joint_wrenches
    assert list(a.dynamics.joint_names) == list(b.dynamics.joint_names)
    assert np.abs(wa - wb).max() < 1e-12 * np.abs(wa).max()
    assert np.abs(a.tau).max() > 10  # the comparison is not of zeros


def test_reuler_is_body_313_as_scipy_zxz():
    rng = np.random.default_rng(7)
    for psi, theta, phi in rng.uniform(-np.pi, np.pi, (20, 3)):
        R = reuler(psi, theta, phi)
        assert np.abs(R - Rotation.from_euler("ZXZ", [psi, theta, phi]).as_matrix()).max() < 1e-14
        assert np.abs(reuler(*reuler_angles(R)) - R).max() < 1e-14
    for R in (np.eye(3), np.diag([1.0, -1.0, -1.0]), reuler(0.3, 0.0, 0.0), reuler(0.3, np.pi, 0.0)):
        assert np.abs(reuler(*reuler_angles(R)) - R).max() < 1e-14


PENDULUM = """pendulum {units}
{units_line}
PART/1, GROUND
MARKER/10, PART = 1, REULER = 30D, 45D, 0
MARKER/11, PART = 1, QP = 0, 0, 0, REULER = 0, 180D, 0
PART/2, MASS = {mass}, CM = 20, IP = {ip}, QG = 0, 0, 0, REULER = 30D, 45D, 60D
MARKER/20, PART = 2, QP = {cm}{cm_orient}
MARKER/21, PART = 2
MARKER/22, PART = 2, QP = {arm}, 0, 0
{im_marker}
JOINT/1, REVOLUTE, I = 21, J = 10
MOTION/1, JOINT = 1, ROTATION, FUNCTION = 0.5*SIN(time)
SFORCE/1, TRANSLATION, ACTIONONLY, I = 22, J = 11, FUNCTION = {force}
SPRINGDAMPER/1, ROTATION, I = 21, J = 10, KT = {kt}
ACCGRAV/KGRAV = {g}
END
"""


def _pendulum(tmp_path, **kw):
    fields = dict(units="SI", units_line="", mass="2", ip="1, 2, 3", cm="0.1, 0, 0", cm_orient="", arm="0.3",
                  im_marker="", force="10", kt="100", g="-9.81")
    fields.update(kw)
    path = tmp_path / "p.adm"
    path.write_text(PENDULUM.format(**fields))
    return read_adm(path)


def test_units_convert_to_si(tmp_path):
    """MMKS-like units: grams, millimetres, kilogram-force: every quantity against its unit's definition."""
    si = _pendulum(tmp_path)
    mm = _pendulum(tmp_path, units_line="UNITS/FORCE = KILOGRAM_FORCE, MASS = GRAM, LENGTH = MILLIMETER, "
                                         "TIME = SECOND", mass="2000", ip="1e9, 2e9, 3e9", cm="100, 0, 0",
                   arm="300", force="10/9.80665", kt=repr(100e3 / 9.80665), g="-9810")
    a, b = si.robot.link("PART_2"), mm.robot.link("PART_2")
    assert b.mass == pytest.approx(2.0, rel=1e-15)
    assert np.allclose(b.com, a.com, rtol=0, atol=1e-15)
    assert np.allclose(b.inertia, a.inertia, rtol=1e-14, atol=1e-15)
    assert np.allclose(mm.gravity, (0, 0, -9.81), rtol=1e-15)
    t = np.linspace(0, 1, 5)
    assert np.allclose(mm.point_forces[0].magnitude.value(t), 10.0, rtol=1e-14)
    assert mm.joint_stiffness == {"JOINT_1": pytest.approx(100.0, rel=1e-14)}  # N mm/rad x kgf -> N m/rad
    assert np.allclose(mm.robot.points["MARKER_22"][1], [0.3, 0, 0], atol=1e-15)
    ips = _pendulum(tmp_path, units_line="UNITS/SYSTEM = IPS", mass="1", ip="1, 1, 1", cm="1, 0, 0")
    link = ips.robot.link("PART_2")
    assert link.mass == 0.45359237 and link.com[0] == pytest.approx(0.0254, rel=1e-15)
    assert link.inertia[0][0] == pytest.approx(0.45359237 * 0.0254 ** 2, rel=1e-14)


def test_ip_products_of_inertia_sign_against_a_hand_built_body(tmp_path):
    """Four point masses m at (+-a, +-b, c) in the CM marker's axes with the signs of a body whose int x y dm is
    positive. ADAMS's IP gives xy = +int x y dm (its manual: the products are positive integrals), so the tensor's
    I[0, 1] = -int x y dm. The CM marker is turned (REULER) and an IM marker is offset: the link inertia about the
    COM in link axes equals the one summed from the points directly."""
    m, pts = 0.5, np.array([[0.1, 0.2, 0.05], [-0.1, -0.2, 0.05], [0.1, 0.2, -0.05], [-0.1, -0.2, -0.05]])
    pts = pts + np.array([0.0, 0.0, 0.0])  # centroid at the CM marker
    d = np.array([0.02, -0.03, 0.04])      # the IM marker's origin in CM-marker axes
    r = pts - d
    J = m * sum(np.dot(p, p) * np.eye(3) - np.outer(p, p) for p in r)     # about IM, tensor form
    ip = [J[0, 0], J[1, 1], J[2, 2], m * (r[:, 0] * r[:, 1]).sum(), m * (r[:, 0] * r[:, 2]).sum(),
          m * (r[:, 1] * r[:, 2]).sum()]
    assert ip[3] == pytest.approx(-J[0, 1]) and ip[3] > 0  # the convention under test: xy = +int x y dm
    model = _pendulum(tmp_path, mass=str(4 * m), ip=", ".join(repr(float(x)) for x in ip), cm="0.1, 0.2, 0.3",
                      cm_orient=", REULER = 20D, 30D, 40D", im_marker="MARKER/23, PART = 2, QP = 0.1, 0.2, 0.3, "
                      "REULER = 20D, 30D, 40D\nMARKER/24, PART = 2, QP = 0.1, 0.2, 0.3, REULER = 20D, 30D, 40D")
    # IM: the CM marker moved by d in its own axes
    R = reuler(*np.radians([20, 30, 40]))
    qp = np.array([0.1, 0.2, 0.3]) + R @ d
    text = (tmp_path / "p.adm").read_text().replace("IP = ", "IM = 24, IP = ", 1).replace(
        "MARKER/24, PART = 2, QP = 0.1, 0.2, 0.3", "MARKER/24, PART = 2, QP = " + ", ".join(repr(float(x)) for x in qp))
    (tmp_path / "p.adm").write_text(text)
    link = read_adm(tmp_path / "p.adm").robot.link("PART_2")
    world = (R @ pts.T).T + [0.1, 0.2, 0.3]                                 # the points in link axes
    com = world.mean(axis=0)
    I_ref = m * sum(np.dot(p - com, p - com) * np.eye(3) - np.outer(p - com, p - com) for p in world)
    assert np.allclose(link.com, com, atol=1e-15)
    assert np.abs(np.asarray(link.inertia) - I_ref).max() < 1e-14
    assert model.robot.link("PART_2").mass == 4 * m


def _refused(tmp_path, text: str, line: int, *words):
    path = tmp_path / "bad.adm"
    path.write_text(text)
    with pytest.raises(InputError) as err:
        read_adm(path)
    msg = str(err.value)
    assert f"line {line} " in msg, msg
    for w in words:
        assert w in msg, msg
    return msg


GOOD = PENDULUM.format(units="SI", units_line="", mass="2", ip="1, 2, 3", cm="0.1, 0, 0", cm_orient="", arm="0.3",
                       im_marker="", force="10", kt="100", g="-9.81")


def _with(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


@pytest.mark.parametrize("old, new, line, words", [
    ("END", "BEAM/1, I = 21, J = 10\nEND", 16, ("BEAM",)),                                     # a refused statement
    ("END", "FOO/1, A = 2\nEND", 16, ("unknown statement",)),                                  # an unknown one
    ("JOINT/1, REVOLUTE", "JOINT/1, SPHERICAL", 11, ("SPHERICAL", "REVOLUTE")),                # a joint type
    ("ROTATION, FUNCTION", "ROTATION, VELOCITY, ACCELERATION, FUNCTION", 12, ("one of DISPLACEMENT",)),
    ("ROTATION, FUNCTION", "ROTATION, VELOCITY, ICDISP = x, FUNCTION", 12, ("ICDISP", "not a number")),
    ("JOINT = 1, ROTATION", "I = 21, J = 10, B3", 12, ("between markers",)),                    # marker motion
    ("FUNCTION = 0.5*SIN(time)", "FUNCTION = 0.5*AZ(21, 10)", 12, ("AZ",)),                   # not of TIME
    ("END", "JOINT/2, REVOLUTE, I = 22, J = 11\nMOTION/2, JOINT = 2, ROTATION, FUNCTION = 0\nEND", 17,
     ("closes a loop",)),                                                                      # a driven loop joint
    ("END", "PART/3, MASS = 1, CM = 30\nMARKER/30, PART = 3\nEND", 16, ("not joined to ground",)),
    ("END", "BUSHING/1, I = 21, J = 10, K = 1, 1, 1\nEND", 16, ("BUSHING", "KTz")),           # no torsion
    ("END", "BUSHING/1, I = 21, J = 10, KT = 1, 2, 3\nEND", 16, ("KTx = 1 and KTy = 2 differ",)),
    ("END", "BUSHING/1, I = 21, J = 11, KT = 0, 0, 3\nEND", 16, ("along JOINT_1's axis",)),     # turned J marker
    ("END", "BUSHING/1, I = 20, J = 21, KT = 0, 0, 3\nEND", 16, ("two parts of a REVOLUTE",)),  # one part
    ("SPRINGDAMPER/1, ROTATION", "SPRINGDAMPER/1, TRANSLATION", 14, ("translational SPRINGDAMPER",)),
    ("TRANSLATION, ACTIONONLY,", "TRANSLATION,", 13, ("action-reaction",)),
    ("J = 11, FUNCTION = 10", "J = 20, FUNCTION = 10", 13, ("not on GROUND",)),
    ("END", "GFORCE/1, I = 22, JFLOAT = 11, RM = 11, FX = 0\\ FY = 0\\ FZ = 1\\ TX = 2\\ TY = 0\\ TZ = 0\nEND",
     16, ("torque",)),
    ("END", "SPLINE/1, X = 0, 1, Y = 0, 1, Z = 0, 1\nEND", 16, ("Z=",)),
    ("pendulum SI\n", "pendulum SI\nUNITS/FORCE = NEWTON, UCF = 1\n", 2, ("UCF",)),
    ("pendulum SI\n", "pendulum SI\nUNITS/TIME = MILLISECOND\n", 2, ("TIME",)),
    ("pendulum SI\n", "pendulum SI\nUNITS/LENGTH = FURLONG\n", 2, ("unknown length unit",)),
    ("MARKER/21, PART = 2", "MARKER/21, PART = 2, QP = 0, 0.1, 0", 11, ("do not share",)),     # not coaxial
    ("KT = 100", "KT = abc", 14, ("not a number",)),
    ("MASS = 2,", "MASS = 2, COLOR = 3,", 6, ("unknown keyword",)),
    ("JOINT = 1, ROTATION", "JOINT = 1, TRANSLATION", 12, ("TRANSLATION motion",)),
    ("REULER = 30D, 45D, 60D", "REULER = 30D, 45D", 6, ("REULER= needs 3",)),
    ("JOINT/1, REVOLUTE, I = 21, J = 10", "JOINT/1, REVOLUTE, I = 21, J = 99", 11, ("no MARKER/99",)),
    ("SPRINGDAMPER/1, ROTATION", "S/1, ROTATION", 14, ("ambiguous",)),                        # abbreviation
])
def test_every_refusal_names_its_line(tmp_path, old, new, line, words):
    _refused(tmp_path, _with(old, new), line, *words)


def test_abbreviations_continuations_and_skips(tmp_path):
    text = _with("SPRINGDAMPER/1, ROTATION, I = 21, J = 10, KT = 100",
                 "SPRING/1, ROT, I = 21\n, J = 10   ! a continuation line\n, KT = 100")
    text = text.replace("END", "REQUEST/1, DISPLACEMENT, I = 22, J = 10\nOUTPUT/REQSAVE\nEND\nBEAM/1")
    path = tmp_path / "ok.adm"
    path.write_text(text)
    model = read_adm(path)
    assert model.joint_stiffness == {"JOINT_1": 100.0}
    assert any("REQUEST skipped" in n for n in model.notes) and any("OUTPUT skipped" in n for n in model.notes)
    assert any("no UNITS" in n for n in model.notes)


def test_vforce_torsional_sforce_spline_and_variable(tmp_path):
    """A VFORCE's components in its RM marker's axes (RM on GROUND, turned 180 deg about x: its z is world -z)
    become point forces along those world axes; SFORCE/ROTATION with FUNCTION = -k*AZ(I,J) a joint stiffness;
    a MOTION with VARVAL of a VARIABLE and AKISPL of a SPLINE, its FUNCTION broken over continuation lines after
    an operator and inside parentheses, plays them (AKISPL passes through its knots)."""
    text = _with("SFORCE/1, TRANSLATION, ACTIONONLY, I = 22, J = 11, FUNCTION = 10",
                 "MARKER/12, PART = 1, FLOATING\nVFORCE/1, I = 22, JFLOAT = 12, RM = 11, FX = 3\\ FY = 0\\ FZ = "
                 "2*time\\")
    text = text.replace("SPRINGDAMPER/1, ROTATION, I = 21, J = 10, KT = 100",
                        "SFORCE/2, ROTATION, I = 21, J = 10, FUNCTION = -250.5*AZ(21, 10)")
    text = text.replace("FUNCTION = 0.5*SIN(time)", "FUNCTION = VARVAL(7) +\n, AKISPL(time, 0,\n, 3)")
    text = text.replace("END", "VARIABLE/7, FUNCTION = 0.5*SIN(time)\nSPLINE/3, X = 0, 1, 2, 3, Y = 0, 0.1, 0.4, "
                               "0.9\nEND")
    path = tmp_path / "v.adm"
    path.write_text(text)
    model = read_adm(path)
    (fx, fz) = model.point_forces
    assert np.allclose(fx.direction, [1, 0, 0]) and np.allclose(fz.direction, [0, 0, -1], atol=1e-15)
    assert fx.point == fz.point == "MARKER_22"
    assert fx.magnitude.value(1.0) == 3.0 and fz.magnitude.value(1.5) == 3.0
    assert model.joint_stiffness == {"JOINT_1": 250.5}
    law, home = model.motion["JOINT_1"], np.radians(60.0)   # marker 10's REULER leaves I 60 deg about z from J
    assert model.robot.home[0] == pytest.approx(home, abs=1e-14)
    for t, y in zip((0.0, 1.0, 2.0, 3.0), (0, 0.1, 0.4, 0.9)):
        assert law.value(t) == pytest.approx(0.5 * np.sin(t) + y - home, abs=1e-14)


def test_zp_xp_axes_and_ignored_initial_conditions(tmp_path):
    """MARKER ZP/XP: z toward ZP, x toward XP in the z-x plane (the same frame as REULER = 0, 90D, 0 gives: z along
    -y, x along x, XP's part along z dropped); PART initial velocities are noted as ignored."""
    text = _with("MARKER/22, PART = 2, QP = 0.3, 0, 0", "MARKER/22, PART = 2, QP = 0.3, 0, 0, ZP = 0.3, -1, 0, "
                 "XP = 1.3, 0.7, 0").replace("MASS = 2,", "MASS = 2, VX = 1,")
    text = text.replace("TRANSLATION, ACTIONONLY, I = 22, J = 11", "TRANSLATION, ACTIONONLY, I = 20, J = 11")
    path = tmp_path / "z.adm"
    path.write_text(text.replace("END", "MARKER/25, PART = 2, QP = 0.3, 0, 0, REULER = 0, 90D, 0\nEND"))
    model = read_adm(path)
    assert any("VX ignored" in n for n in model.notes)
    from structcheck.model.adams.values import placement

    a = placement({"QP": ["0.3", "0", "0"], "ZP": ["0.3", "-1", "0"], "XP": ["1.3", "0.7", "0"]}, "x", 1.0,
                  "QP", "ZP", "XP")
    b = placement({"QP": ["0.3", "0", "0"], "REULER": ["0", "90D", "0"]}, "x", 1.0, "QP", "ZP", "XP")
    assert np.abs(a - b).max() < 1e-15
    _refused(tmp_path, text.replace(", XP = 1.3, 0.7, 0", ""), 9, "ZP without XP")


def test_bushing_across_a_revolute_joint_is_its_stiffness(tmp_path):
    """BUSHING KT = (KTx, KTy, KTz) about its J marker's axes, J's z along the joint's axis: the joint's stiffness
    (KTz torsional, KTx = KTy tilt) in N m/rad from N mm/rad; its translational K noted as not used; KT about z
    alone gives the torsional stiffness only."""
    text = GOOD.replace("SPRINGDAMPER/1, ROTATION, I = 21, J = 10, KT = 100",
                        "UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND\n"
                        "BUSHING/1, I = 21, J = 10, K = 1e6, 1e6, 1e6, KT = 5e6, 5e6, 2e7")
    path = tmp_path / "b.adm"
    path.write_text(text.replace("QP = 0.3, 0, 0", "QP = 300, 0, 0").replace("QP = 0.1, 0, 0", "QP = 100, 0, 0"))
    model = read_adm(path)
    assert model.joint_stiffness == {"JOINT_1": (pytest.approx(2e4, rel=1e-15), pytest.approx(5e3, rel=1e-15))}
    assert any("BUSHING K not used" in n for n in model.notes)
    path.write_text(GOOD.replace("SPRINGDAMPER/1, ROTATION, I = 21, J = 10, KT = 100",
                                 "BUSHING/1, I = 21, J = 10, KT = 0, 0, 300"))
    assert read_adm(path).joint_stiffness == {"JOINT_1": 300.0}

