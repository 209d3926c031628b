"""structcheck.structural (__init__, link.py, arm.py, result.py), called directly: the model a study names, and
each model's reduce and solve on the tiny cantilever (tests/helpers.py: L = 0.4 m, 20 mm square steel section, 40 x
2 x 2 hexahedra split into P2 tets, 100 N at the tip, no gravity, quasi-static) against Euler-Bernoulli:
sigma_xx = F (L - x) (h / 2) / I on the top and bottom faces.

Error budget: mid-side nodes away from the clamp (x >= 0.1 m, five section heights) and from the tip patch carry
the bending stress to 0.3% on the coarser 20 x 2 x 2 mesh (tests/fatigue/test_study_fatigue.py, measured); the
envelope's von Mises at a node is the largest over its elements, so held to 0.5%."""
import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from helpers import SMALL_H, SMALL_L, write_small_study
from structcheck.errors import InputError
from structcheck.progress import Clock
from structcheck.script import load_study
from structcheck.structural import FLEXIBILITIES, MODELS, StructuralResult, structural_model
from structcheck.structural.arm import ArmModel
from structcheck.structural.link import LinkModel
from structcheck.study import link_loads, output_frames, prepare, rigid_stage

F_TIP = 100.0  # N, the tiny study's default


def test_structural_model_dispatch():
    assert FLEXIBILITIES == ("link", "arm")
    assert isinstance(structural_model(SimpleNamespace(flexibility="arm", parts={"a": 1})), ArmModel)
    assert isinstance(structural_model(SimpleNamespace(flexibility="link", parts={"a": 1})), LinkModel)
    # no parts: only rigid links, which the per-link model handles (it solves none)
    assert isinstance(structural_model(SimpleNamespace(flexibility="arm", parts={})), LinkModel)
    with pytest.raises(InputError, match=r"flexibility must be one of \('link', 'arm'\), got 'chain'"):
        structural_model(SimpleNamespace(flexibility="chain", parts={"a": 1}))
    assert {name: model.name for name, model in MODELS.items()} == {"link": "link", "arm": "arm"}


@pytest.fixture(scope="module", params=["link", "arm"])
def solved(request, tmp_path_factory):
    """(study, StructuralResult) of the tiny cantilever solved by the model ``request.param``, stage by stage."""
    study = dataclasses.replace(load_study(write_small_study(tmp_path_factory.mktemp("structural"))),
                                flexibility=request.param)
    prep = prepare(study)
    rigid = rigid_stage(study, prep, prep.grid.t)
    loads = link_loads(study, prep, rigid)
    model = structural_model(study)
    assert model.name == request.param
    model.check(study, prep.chain)
    reduced = model.reduce(study, prep, loads, Clock(), False)
    assert set(reduced.bases) <= {"beam"} and (reduced.superelements is None) == (request.param == "link")
    result = model.solve(study, prep, rigid, loads, reduced, output_frames(prep.grid, rigid.t), Clock(), False)
    return study, result


def test_bending_stress_is_euler_bernoulli(solved):
    study, result = solved
    assert isinstance(result, StructuralResult) and set(result.solutions) == {"beam"}
    sol = result.solutions["beam"]
    x, y, z = sol.part.points.T
    I = SMALL_H ** 4 / 12
    for xi in (0.105, 0.155, 0.205, 0.255):  # mid-side nodes (odd multiples of 5 mm on the 10 mm elements)
        node = np.flatnonzero(np.isclose(x, xi) & np.isclose(z, SMALL_H / 2) & np.isclose(y, 0))
        assert node.size == 1
        sigma = F_TIP * (SMALL_L - xi) * (SMALL_H / 2) / I
        assert sol.response.vm_envelope_nodes[node[0]] == pytest.approx(sigma, rel=5e-3), xi


def test_result_says_what_the_model_captures(solved):
    study, result = solved
    assert result.arm_dynamics == "not captured"  # quasi-static
    if study.flexibility == "arm":
        assert result.arm is not None and result.link_model is None  # the per-link model only when asked
        f = result.mode_shapes.frequency_hz  # the cantilever's first bending pair, Euler-Bernoulli 102.6 Hz
        assert f[0] == pytest.approx(1.8751 ** 2 / (2 * np.pi * SMALL_L ** 2) * np.sqrt(200e9 * SMALL_H ** 2 / 12
                                                                                          / 7850), rel=1e-2)
    else:
        assert result.arm is None and result.mode_shapes is None and result.link_model is None


def test_tool_deflection_and_equilibrium(solved):
    """The tip's deflection against F L^3 / (3 E I) (Euler-Bernoulli; shear adds F L / (kappa G A) = 0.2% of it,
    the clamped flange's local flexibility and the mesh a few 0.1%: held to 1%), downwards; each link's FE loads
    in equilibrium with its support's wrench to round-off (a conservation law)."""
    study, result = solved
    E, I = 200e9, SMALL_H ** 4 / 12
    w = result.tool.deflection  # (n_t, 3) world axes
    assert w[-1, 2] == pytest.approx(-F_TIP * SMALL_L ** 3 / (3 * E * I), rel=1e-2)
    assert abs(w[-1, 1]) < 1e-3 * abs(w[-1, 2])  # sideways only by the tets' diagonals (measured 1.6e-4)
    assert result.solutions["beam"].equilibrium_error < 1e-10
