"""The shortcuts that remove repeated work give the numbers of the long way: the quasi-static peak from the
bounded vertex search against the full stress history, and the loads on a second grid with the unit loads of the
first against loads built from scratch."""
import numpy as np
import pytest

from helpers import beam, two_beam_parts, two_beam_robot

L = 0.3


@pytest.fixture(scope="module")
def beam_basis():
    from structcheck.fe.response import build_basis

    part = beam(L, 0.04, 0.03, 8, "6061-O", distort=0.2, seed=0)
    F = np.hstack([part.body_load_basis()[:, [0, 2, 5]], part.wrench_basis("tip", [L, 0, 0])])  # 9 unit loads
    return part, build_basis(part, F, ["root"], n_modes=3)


@pytest.mark.parametrize("chunk_bytes", [8e6, 3e3])  # one evaluation / one point and a few samples at a time
def test_peak_von_mises_equals_the_full_history(beam_basis, rng, chunk_bytes):
    from structcheck.fe.response import peak_von_mises, respond

    part, basis = beam_basis
    k = basis.U.shape[1]
    for scale in (np.r_[9.81, 9.81, 1.0, 50, 50, 50, 5, 5, 5], np.r_[0, 0, 0, 0, 0, 100.0, 0, 0, 0]):
        coeff = rng.standard_normal((60, k)) * scale
        full = respond(part, basis, coeff, np.zeros((60, basis.phi.shape[1]))).max_von_mises
        assert peak_von_mises(basis, coeff, chunk_bytes=chunk_bytes) == pytest.approx(full, rel=1e-14)


def test_loads_on_a_second_grid_reuse_the_unit_loads():
    from structcheck.study import PointForce, Study, link_loads, prepare, rigid_stage

    study = Study(name="reuse", robot=two_beam_robot(m2=0.3), parts=two_beam_parts(8, 6), t_end=0.5, n_frames=6,
                  flexibility="link", motion={"joint1": "STEP(time,0,0,0.4,30d)"}, tool_point="tool",
                  point_forces=(PointForce("tool", "STEP(time,0.2,0,0.21,20)", (0, 0, -1)),))
    prep = prepare(study)
    coarse = link_loads(study, prep, rigid_stage(study, prep, prep.grid.t))
    fine_t = np.union1d(prep.grid.t, np.linspace(0.1, 0.3, 37))
    rigid = rigid_stage(study, prep, fine_t)
    reused, fresh = link_loads(study, prep, rigid, previous=coarse), link_loads(study, prep, rigid)
    for name in fresh:
        assert reused[name].F is coarse[name].F  # not rebuilt
        np.testing.assert_array_equal(reused[name].F, fresh[name].F)
        np.testing.assert_array_equal(reused[name].coeff, fresh[name].coeff)
        np.testing.assert_array_equal(reused[name].proximal_wrench, fresh[name].proximal_wrench)
        assert reused[name].columns == fresh[name].columns and reused[name].support == fresh[name].support


@pytest.mark.parametrize("brittle", [False, True])
def test_respond_in_threads_equals_one_pass(beam_basis, rng, monkeypatch, brittle):
    """Elements split among 3 threads (small blocks, so that each thread has several) give the single pass's
    numbers bit for bit, the indices of the maxima included."""
    from structcheck.fe.response import respond

    part, basis = beam_basis
    coeff = rng.standard_normal((50, basis.U.shape[1])) * 100.0
    modal = rng.standard_normal((50, basis.phi.shape[1])) * 1e-4
    monkeypatch.setenv("STRUCTCHECK_THREADS", "1")
    one = respond(part, basis, coeff, modal, brittle=brittle, chunk_bytes=2e4)
    monkeypatch.setenv("STRUCTCHECK_THREADS", "3")
    three = respond(part, basis, coeff, modal, brittle=brittle, chunk_bytes=2e4)
    for field in ("vm_history", "vm_envelope_nodes", "deformation_history", "deformation_envelope"):
        np.testing.assert_array_equal(getattr(three, field), getattr(one, field))
    assert (three.i_time_max, three.node_max, three.max_von_mises) == (one.i_time_max, one.node_max,
                                                                       one.max_von_mises)
    if brittle:
        np.testing.assert_array_equal(three.principal_history, one.principal_history)
        np.testing.assert_array_equal(three.principal_envelope, one.principal_envelope)
