"""Elasticity cases: NAFEMS LE10 thick plate, spinning bar, interface wrench resultants and support reactions,
the KR500 cylinders of paper 003 Table 2."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ..model.materials import Material, get_material
from ..spatial import skew
from .references import KR500_DENSITY, KR500_TABLE2, LE10_SIGMA_YY_D, _row, beam_part


def le10_part(mesh_size: float, size_at_d: float, path):
    """Mesh of NAFEMS LE10 split at z = 0 (so the outer face's z = 0 line has nodes): surfaces 'DC' (y = 0),
    'AB' (x = 0), 'BC' (outer curved face), 'top' (z = +0.3), line 'BC_mid' (outer face at z = 0)."""
    from ..fe.part import Part
    from ..fe.geometry import PartBuilder, on_plane

    with PartBuilder("le10", mesh_size) as bld:
        occ = bld.occ
        ring, _ = occ.cut([(2, occ.addDisk(0, 0, 0, 3.25, 2.75))], [(2, occ.addDisk(0, 0, 0, 2.0, 1.0))])
        quarter, _ = occ.intersect(ring, [(2, occ.addRectangle(0, 0, 0, 4, 4))])
        occ.extrude(quarter, 0, 0, 0.3)
        occ.extrude(quarter, 0, 0, -0.3)
        bld.name_faces("DC", on_plane(1, 0.0))
        bld.name_faces("AB", on_plane(0, 0.0))
        bld.name_faces("top", on_plane(2, 0.3))
        bld.name_faces("BC", lambda cm, bb: bb[3] > 3.2 and bb[4] > 2.7 and bb[5] - bb[2] > 0.1)
        bld.name_lines("BC_mid", lambda cm, bb: abs(bb[2]) < 1e-6 and abs(bb[5]) < 1e-6 and bb[3] > 3.2
                       and bb[4] > 2.7)
        bld.refine_near((2.0, 0.0, 0.3), size_at_d, 0.3)
        bld.build(None)
        bld.write(path)
    return Part.from_mesh(path, Material("LE10", 7800.0, 210e9, 0.3, 1e9, source="NAFEMS LE10"))


def case_le10(quick: bool = False) -> list[dict]:
    """NAFEMS LE10 thick plate: sigma_yy at D on the upper face under 1 MPa on the upper face."""
    c = "le10"
    with tempfile.TemporaryDirectory() as tmp:
        part = le10_part(*((0.3, 0.06) if quick else (0.15, 0.03)), Path(tmp) / "le10.msh")
    p = 1e6
    sol = part.solve_static(pressures={"top": p},
                            fixed_components={"DC": "y", "AB": "x", "BC": "xy", "BC_mid": "z"})
    iD = int(np.argmin(np.linalg.norm(part.points - [2.0, 0.0, 0.3], axis=1)))
    s_yy = sol.element_node_stress[..., 1][part.cells == iD].mean()  # average of the elements at D
    area = np.pi / 4 * (3.25 * 2.75 - 2.0 * 1.0)  # exact; the straight-sided mesh of the curved edges is smaller
    return [
        _row(c, f"sigma_yy at D (2, 0, 0.3) [Pa], P2 tets, {part.n_dofs} dof", LE10_SIGMA_YY_D, s_yy, 0.02),
        _row(c, "support reaction z [N] vs p * exact top area (faceting)", p * area, sol.reaction[2], 0.005),
    ]


def case_spinning_bar(quick: bool = False) -> list[dict]:
    """Bar 0.4 x 0.04 x 0.04 m spinning at 200 rad/s about z through its end x = 0. The hub is modelled by an
    averaged-motion support on the end face: it carries the centripetal resultant like the axis does, without
    the clamp's restraint of the end section's Poisson contraction (a 3D effect outside the 1D definition).
    Inertia relief would be wrong here: it balances the load by a rigid acceleration of the whole bar, i.e.
    a bar whose axis accelerates, not one turning about a fixed axis."""
    c = "spinning_bar"
    L, h, w = 0.4, 0.04, 200.0
    mat = get_material("structural_steel")
    part = beam_part(L, h, h, *((10, 2) if quick else (40, 4)), mat)
    sol = part.solve_static(["root"], angular_velocity=(0, 0, w), support="averaged")
    sxx = part.nodal_average(sol.element_node_stress[..., 0])
    r = part.points[:, 0]
    peak = mat.density * w * w * L * L / 2
    exact = mat.density * w * w * (L * L - r * r) / 2
    sel = (r >= 0.2 * L - 1e-12) & (r <= 0.8 * L + 1e-12)
    k = np.argmax(np.abs(sxx[sel] - exact[sel]))
    hub = mat.density * w * w * h * h * L * L / 2  # centripetal force the axis supplies: m w^2 L / 2
    return [
        _row(c, "axial stress over 0.2 L..0.8 L [Pa], worst node, error relative to the peak rho w^2 L^2 / 2",
             exact[sel][k], sxx[sel][k], 0.01, scale=peak),
        _row(c, "support reaction x [N] vs -m w^2 L / 2", -hub, sol.reaction[0], 1e-9),
    ]


def case_interface_wrench(quick: bool = False) -> list[dict]:
    """A wrench at an off-surface point spread on a beam's end face (resultant exact), and the clamp reactions
    balancing wrench + pressure + gravity + rigid-motion body loads (closed forms from the exact mass
    properties)."""
    c = "interface_wrench"
    L, b, h = 0.3, 0.04, 0.03
    part = beam_part(L, b, h, *((12, 2) if quick else (24, 4)), get_material("6061-O"))
    part = part.with_surfaces({**{n: part.surface_facets(n) for n in part.surfaces},
                               "side": part.select_facets(lambda x: np.isclose(x[1], b / 2))})
    F, M, p = np.array([30.0, -50.0, 120.0]), np.array([4.0, -7.0, 2.0]), np.array([L + 0.05, 0.01, -0.02])
    l = float(np.sqrt(part.surface_geometry("tip")[0]))
    scale = np.linalg.norm(F) + np.linalg.norm(M) / l
    res = part.resultant(part.wrench_basis("tip", p) @ np.r_[F, M])  # force, moment about the origin
    rows = [_row(c, "wrench resultant: |force - F| / (|F| + |M|/l)", 0.0, np.linalg.norm(res[:3] - F), 1e-10,
                 scale=scale),
            _row(c, "wrench resultant: |moment about p - M| / l / (|F| + |M|/l)", 0.0,
                 np.linalg.norm(res[3:] - np.cross(p, res[:3]) - M) / l, 1e-10, scale=scale)]
    g, a0 = np.array([0.0, -9.81, -3.0]), np.array([1.0, 2.0, -0.5])
    om, al, pr = np.array([0.5, -1.0, 2.0]), np.array([3.0, 1.0, -4.0]), 2e4
    sol = part.solve_static(["root"], wrenches={"tip": (F, M, p)}, pressures={"side": pr}, gravity=g,
                            acceleration=a0, angular_velocity=om, angular_acceleration=al)
    mp = part.mass_properties()
    m, com, I_o = mp.mass, mp.com, mp.inertia_origin
    # body force rho (g - a_O - al x x - om x (om x x)): resultant and moment about the origin
    f_body = m * (g - a0 - np.cross(al, com) - np.cross(om, np.cross(om, com)))
    m_body = np.cross(com, m * (g - a0)) - I_o @ al - np.cross(om, I_o @ om)
    f_pr = -pr * L * h * np.array([0.0, 1.0, 0.0])  # side face y = b/2: area L h, outward normal +y
    applied_f = F + f_body + f_pr
    applied_m = M + np.cross(p, F) + m_body + np.cross([L / 2, b / 2, 0.0], f_pr)
    body = part.resultant(part.body_load_basis() @ np.r_[g - a0, (-skew(al) - skew(om) @ skew(om)).ravel()])
    load_scale = np.linalg.norm(applied_f) + np.linalg.norm(applied_m) / l
    rows += [
        _row(c, "body-load resultant vs m (g - a_O - al x c - om x (om x c)) and moment - I_O al - om x I_O om",
             0.0, np.linalg.norm(body[:3] - f_body) + np.linalg.norm(body[3:] - m_body) / l, 1e-10,
             scale=np.linalg.norm(f_body) + np.linalg.norm(m_body) / l),
        _row(c, "clamp reaction + applied loads, force [N] / (|F| + |M|/l) of all loads", 0.0,
             np.linalg.norm(sol.reaction[:3] + applied_f), 1e-8, scale=load_scale),
        _row(c, "clamp reaction + applied loads, moment [N m] / l / (|F| + |M|/l)", 0.0,
             np.linalg.norm(sol.reaction[3:] + applied_m) / l, 1e-8, scale=load_scale),
    ]
    return rows



def case_kr500_cylinders(quick: bool = False) -> list[dict]:
    """Tet meshes (gmsh, 48+ facets around) of the six KR500 cylinders of paper 003 Table 2: mass and principal
    inertias against the exact cylinder formulas; the table itself against the formulas (rounding)."""
    from ..fe.geometry import PartBuilder
    from ..fe.mesh import mass_properties, read_mesh

    c = "kr500_cylinders"
    rows = []
    table_err = 0.0
    n_around = 48 if quick else 64
    with tempfile.TemporaryDirectory() as tmp:
        for name, (L, r, m_tab, j11_tab, j22_tab) in KR500_TABLE2.items():
            m = KR500_DENSITY * np.pi * r * r * L
            j11, j22 = m * r * r / 2, m * (3 * r * r + L * L) / 12
            table_err = max(table_err, abs(m - m_tab), abs(j11 - j11_tab), abs(j22 - j22_tab))
            # the interior may be coarse (mass properties of straight tets are exact); the facets around the
            # circumference decide the error
            with PartBuilder(name, mesh_size=r / 2, curvature_points=n_around, min_size=r / n_around) as bld:
                bld.build(bld.cylinder((L / 2, 0.0, 0.0), (1.0, 0.0, 0.0), r, L))
                path = bld.write(Path(tmp) / f"{name}.msh")
            tm = read_mesh(path)
            mp = mass_properties(tm.points, tm.tets, KR500_DENSITY)
            val, vec = np.linalg.eigh(mp.inertia_com)
            ax = int(np.argmax(np.abs(vec[0])))  # principal axis along e1
            others = np.sort(np.delete(val, ax))
            x = tm.points
            n_rim = int(np.sum(np.isclose(x[:, 0], 0.0, atol=1e-9) & np.isclose(np.hypot(x[:, 1], x[:, 2]), r,
                                                                                   rtol=1e-6)))
            loss = 1 - np.sin(2 * np.pi / n_rim) / (2 * np.pi / n_rim)
            rows += [_row(c, f"{name} mass [kg] ({len(tm.tets)} tets, {n_rim} facets around: faceting loss "
                             f"{100 * loss:.2f}%)", m, mp.mass, 0.005),
                     _row(c, f"{name} J11 [kg m^2]", j11, val[ax], 0.01),
                     _row(c, f"{name} J22 [kg m^2]", j22, others[0], 0.01),
                     _row(c, f"{name} J33 [kg m^2]", j22, others[1], 0.01)]
    rows.append({"case": c, "quantity": "paper 003 Table 2 vs formulas: max |table - formula| (4 decimals)",
                 "reference": 0.0, "computed": float(table_err), "error": float(table_err), "tolerance": 5e-5,
                 "pass": bool(table_err <= 5e-5)})
    return rows
