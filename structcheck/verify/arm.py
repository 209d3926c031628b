"""Whole-arm model (component mode synthesis) verification: a beam cut into a chain of superelements.

Case ``beam_chain``: a slender steel beam (L = 0.8 m, 20 x 10 mm, bending in the 10 mm direction, L/h = 80) cut
into three links joined by rigid joints, clamped at the root, with a rigid tip mass m = mu rho A L (mu = 1) on the
tip face. Reference: the Euler-Bernoulli cantilever with a tip mass, whose frequencies follow from the roots b of
1 + cos b cosh b + mu b (cos b sinh b - sin b cosh b) = 0, omega = b^2 sqrt(E I / (rho A L^4)) (Blevins, Formulas
for Natural Frequency and Mode Shape, 1979, Table 8-8; Laura, Pombo, Susemihl, J. Sound Vib. 37(2), 161-168,
1974). The chain's error is the mesh's (about +0.2% at 84 cells) plus about +0.1% per rigid cut flange; shear is
below 0.2% at this slenderness for the third mode.

Case ``portal_frame``: a closed chain (a planar four-bar) of 20 x 20 mm steel beams, every joint a revolute about
y: column col1 (h = 0.4 m) on the ground on the actuated joint A (rigid), the beam (w = 0.3 m) pinned to col1's
top at B, column col2 pinned to the beam at C and, through the ClosedChain's cut joint D, to the ground. The
passive pins are free about their axes (docs/flex.md), so col2 is a two-force member, the beam simply supported
and col1 a cantilever that alone resists sway. References (Euler-Bernoulli; Timoshenko's shear term, kappa = 5/6,
for the short beam): the sway frequency of col1 as a tip-mass cantilever, mu = (m_beam + m_col2 / 3) / (rho A h)
(the beam translates, col2 turns about D); col1's top deflection P h^3 / (3 E I) (shear would add 0.2%; the coarse
P2 mesh is stiffer by about as much again: -0.56%, quick -0.86%) and the moment P h the actuated joint holds under
a horizontal force P at B; the beam's midspan deflection under its own weight, 5 q w^4 / (384 E I) +
q w^2 / (8 kappa G A) (rigid joints would give about a fifth of it).
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from ..model.materials import get_material
from .references import _row

L, W, H, MU = 0.8, 0.02, 0.01, 1.0


def tip_mass_roots(mu: float, n: int = 3) -> np.ndarray:
    """First ``n`` roots b of 1 + cos b cosh b + mu b (cos b sinh b - sin b cosh b) = 0 (bracketed on a grid,
    refined by Brent's method)."""
    def f(b):
        return 1 + np.cos(b) * np.cosh(b) + mu * b * (np.cos(b) * np.sinh(b) - np.sin(b) * np.cosh(b))

    g = np.linspace(0.05, 12.0, 4000)
    v = f(g)
    return np.array([brentq(f, g[i], g[i + 1]) for i in np.flatnonzero(v[:-1] * v[1:] < 0)[:n]])


def _chain(n_links: int, n_len: int):
    """Robot and Parts of the beam cut into ``n_links`` links s0.. (joints j0.. about y; the ground has no Part)."""
    from skfem import MeshTet

    from ..fe.part import Part
    from ..model.robot import Joint, Link, Robot, trans

    Ls = L / n_links
    links = [Link("ground")] + [Link(f"s{i}") for i in range(n_links)]
    joints = [Joint(f"j{i}", "revolute", "ground" if i == 0 else f"s{i - 1}", f"s{i}", trans(0.0 if i == 0 else Ls),
                    np.array([0.0, 1.0, 0.0])) for i in range(n_links)]
    parts = {}
    for i in range(n_links):
        mesh = MeshTet.init_tensor(np.linspace(0, Ls, n_len // n_links + 1), np.linspace(-W / 2, W / 2, 3),
                                   np.linspace(-H / 2, H / 2, 3))
        bnd = mesh.boundary_facets()
        x = mesh.p[0, mesh.facets[:, bnd]].mean(axis=0)
        ends = (f"j{i}", f"j{i + 1}" if i < n_links - 1 else "tip")
        parts[f"s{i}"] = Part.from_skfem(mesh, "structural_steel", name=f"s{i}",
                                         surfaces={ends[0]: bnd[np.isclose(x, 0.0)], ends[1]: bnd[np.isclose(x, Ls)]})
    return Robot(links, joints), parts


def case_beam_chain(quick: bool = False) -> list[dict]:
    """Three superelements (2 fixed-interface modes + residual vectors each) with a tip mass (mu = 1): the first
    three bending frequencies in the thin direction against the tip-mass cantilever equation, 1% each."""
    from ..flex import AttachedMass, arm_frequencies

    n_len = 42 if quick else 84
    robot, parts = _chain(3, n_len)
    steel = get_material("structural_steel")
    A, I = W * H, W * H ** 3 / 12
    tip = [AttachedMass("s2", "tip", MU * steel.density * A * L, point=(L / 3, 0, 0))]
    res = arm_frequencies(robot, parts, np.zeros(3), n=9, n_modes=2, attached=tip)
    labels = res.model.labels
    nodes = np.array([lab.startswith("node") for lab in labels])
    Xn = res.X[nodes].reshape(-1, 6, res.X.shape[1])
    thin = np.flatnonzero(np.abs(Xn[:, 2]).sum(0) > np.abs(Xn[:, :2]).sum((0, 1)))[:3]  # z-translation modes
    b = tip_mass_roots(MU)
    ref = b ** 2 * np.sqrt(steel.E * I / (steel.density * A * L ** 4)) / (2 * np.pi)
    return [_row("beam_chain", f"3 superelements + tip mass (mu = 1): bending frequency {k + 1} [Hz]", ref[k],
                 res.frequency_hz[i], 0.01) for k, i in enumerate(thin)]


def _tensor_beam(length: float, n_len: int, axis: int, ends: tuple, name: str, side: float = 0.02):
    """A square steel P2 beam along x (axis 0) or z (axis 2) from 0 to ``length`` [m] (negative: downwards), its
    end faces named ``ends``."""
    from skfem import MeshTet

    from ..fe.part import Part

    along = np.sort(np.linspace(0.0, length, n_len + 1))
    across = np.linspace(-side / 2, side / 2, 3)
    mesh = MeshTet.init_tensor(along, across, across) if axis == 0 else MeshTet.init_tensor(across, across, along)
    bnd = mesh.boundary_facets()
    x = mesh.p[axis, mesh.facets[:, bnd]].mean(axis=0)
    return Part.from_skfem(mesh, "structural_steel", name=name,
                           surfaces={ends[0]: bnd[np.isclose(x, 0.0)], ends[1]: bnd[np.isclose(x, length)]})


def portal_frame(n_len: int = 24):
    """(ClosedChain, parts) of the portal frame of case ``portal_frame``: h = 0.4 m, w = 0.3 m, 20 mm square."""
    from ..model.robot import Joint, Link, Robot, trans
    from ..rigid.closedchain import ClosedChain, CutJoint

    h, w, y = 0.4, 0.3, np.array([0.0, 1.0, 0.0])
    tree = Robot([Link("ground"), Link("col1"), Link("beam"), Link("col2")],
                 [Joint("jA", "revolute", "ground", "col1", trans(), y),
                  Joint("jB", "revolute", "col1", "beam", trans(z=h), y),
                  Joint("jC", "revolute", "beam", "col2", trans(w), y)])
    chain = ClosedChain(tree, [CutJoint("jD", "revolute", "col2", "ground", trans(z=-h), trans(w), y)],
                        independent=["jA"])
    parts = {"col1": _tensor_beam(h, n_len, 2, ("jA", "jB"), "col1"),
             "beam": _tensor_beam(w, n_len * 3 // 4, 0, ("jB", "jC"), "beam"),
             "col2": _tensor_beam(-h, n_len, 2, ("jC", "jD"), "col2")}
    return chain, parts


def case_portal_frame(quick: bool = False) -> list[dict]:
    """The portal frame (4 fixed-interface modes per link): sway frequency, the cantilever's top deflection and
    the actuated joint's moment under a horizontal force, the pinned beam's midspan deflection, 1% each."""
    from ..flex import assemble_arm, reduce_links
    from ..flex.recovery import interface_wrench
    from ..flex.transient import arm_static

    chain, parts = portal_frame(16 if quick else 24)
    ses = reduce_links(chain, parts, 4)
    steel = get_material("structural_steel")
    h, w, a, P, g = 0.4, 0.3, 0.02, 100.0, 9.81
    A, I, G = a * a, a ** 4 / 12, steel.E / (2 * (1 + steel.nu))
    f = assemble_arm(chain, ses, np.zeros(3)).modes(1)[0][0]
    b = tip_mass_roots((w + h / 3) / h, 1)[0]
    f_ref = b ** 2 * np.sqrt(steel.E * I / (steel.density * A * h ** 4)) / (2 * np.pi)

    def solve(link, F):
        return arm_static(chain, ses, [0.0, 1.0], np.zeros((2, 3)), {link: (F, np.ones((2, 1)))}).z

    z = solve("beam", parts["beam"].wrench_basis("jB", np.zeros(3))[:, [0]] * P)
    top = np.isclose(parts["col1"].points[:, 2], h)
    d_top = ses["col1"].displacement(z["col1"][0])[top, 0].mean()
    m_a = -interface_wrench(ses["col1"], "jA", z["col1"][:1])[0, 4]
    z = solve("beam", parts["beam"].body_load_basis()[:, [2]] * -g)
    u, p = ses["beam"].displacement(z["beam"][0]), parts["beam"].points
    on_axis = np.isclose(p[:, 1], 0) & np.isclose(p[:, 2], 0)
    uz = {x: u[on_axis & np.isclose(p[:, 0], x), 2].mean() for x in (0.0, w / 2, w)}
    q = steel.density * A * g
    mid_ref = 5 * q * w ** 4 / (384 * steel.E * I) + q * w ** 2 / (8 * 5 / 6 * G * A)
    return [_row("portal_frame", "closed four-bar, passive pins: sway frequency [Hz]", f_ref, f, 0.01),
            _row("portal_frame", "horizontal P at B: col1 top deflection [mm]", P * h ** 3 / (3 * steel.E * I) * 1e3,
                 d_top * 1e3, 0.01),
            _row("portal_frame", "horizontal P at B: moment at the actuated joint [N m]", P * h, m_a, 0.01),
            _row("portal_frame", "beam weight: pinned beam midspan deflection [um]", mid_ref * 1e6,
                 -(uz[w / 2] - 0.5 * (uz[0.0] + uz[w])) * 1e6, 0.01)]
