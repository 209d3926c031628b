"""Rigid joints are said: the run header, summary.json (``rigid_joints``, ``rigid_joints_meaning``) and the report
name the joints the structural model held rigid and what that means (deflection a lower bound, frequencies upper
bounds); and that meaning is the physics: on the tiny cantilever (a 0.4 m beam on joint1, 100 N at the tip,
quasi-static, no gravity) a torsional stiffness k at joint1 adds exactly the rigid rotation of the beam under the
joint moment F L, i.e. F L^2 / k to the tip deflection, and lowers the arm's first frequency."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from helpers import SMALL_L, write_small_study

from structcheck.model.robot import Joint, Link, Robot
from structcheck.report import write_report
from structcheck.settings import ArmSettings
from structcheck.structural.joints import arm_rigid_joints, link_rigid_joints
from structcheck.script import load_study
from structcheck.study import run


def _chain_study(flexibility="arm", stiffness=None):
    """A study-like object with a three-joint robot: two revolutes and a fixed flange."""
    links = [Link("base"), Link("a"), Link("b"), Link("flange")]
    joints = [Joint("j1", "revolute", "base", "a", np.eye(4), np.array([0, 0, 1.0]), -3, 3),
              Joint("j2", "revolute", "a", "b", np.eye(4), np.array([0, 1.0, 0]), -3, 3),
              Joint("j3", "fixed", "b", "flange", np.eye(4), np.array([0, 0, 1.0]), 0, 0)]

    class S:
        robot = Robot(links, joints)
        arm = ArmSettings(joint_stiffness=stiffness or {})
    S.flexibility = flexibility
    return S


def test_the_rigid_joints_of_each_model():
    assert arm_rigid_joints(_chain_study()).names == ("j1", "j2")  # a fixed joint is not a joint held rigid
    arm = arm_rigid_joints(_chain_study(stiffness={"j2": 1e5}))
    assert arm.names == ("j1",) and "lower bound" in arm.meaning and "upper bound" in arm.meaning
    assert arm_rigid_joints(_chain_study(stiffness={"j1": 1e5, "j2": (1e5, 1e6)})).names == ()
    assert "none held rigid" in arm_rigid_joints(_chain_study(stiffness={"j1": 1e5, "j2": 1e5})).header()
    # the per-link model takes no stiffness: every joint is rigid there, whatever the study gives
    link = link_rigid_joints(_chain_study("link", stiffness={"j1": 1e5, "j2": 1e5}))
    assert link.names == ("j1", "j2") and "per-link model" in link.meaning and "lower bound" in link.meaning


@pytest.fixture(scope="module")
def cantilever(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rigid")
    return load_study(write_small_study(folder)), folder


def test_rigid_joint_said_in_header_summary_and_report(cantilever, capsys):
    study, folder = cantilever
    out = folder / "rigid"
    res = run(study, out, progress=True, vtk=False, plots=False)
    err = capsys.readouterr().err
    assert "joints held rigid: joint1: no arm.joint_stiffness given" in err, err
    s = json.loads((out / "summary.json").read_text())
    assert s["rigid_joints"] == ["joint1"] and res.summary.rigid_joints == ["joint1"]
    assert "lower bound" in s["rigid_joints_meaning"] and "upper bound" in s["rigid_joints_meaning"]
    html = write_report(out, folder / "rigid.html", renders=False).read_text()
    assert 'id="rigid-joints">Joints held rigid: joint1 (no arm.joint_stiffness given' in html

    k, F = 1e5, 100.0  # N m/rad, N
    compliant = run(replace(study, arm=ArmSettings(joint_stiffness={"joint1": k})), progress=True, write=False)
    assert "joints: none held rigid" in capsys.readouterr().err
    assert compliant.summary.rigid_joints == [] and compliant.summary.rigid_joints_meaning == ""
    # the rigid joint's deflection is a lower bound: the spring adds the beam's rigid rotation F L / k times L
    # (statics and kinematics, independent of the mesh: the difference holds to the solver's round-off)
    rigid_tip, soft_tip = res.summary.tool_point_deflection_m, compliant.summary.tool_point_deflection_m
    assert soft_tip - rigid_tip == pytest.approx(F * SMALL_L ** 2 / k, rel=1e-6)
    assert compliant.summary.arm_lowest_mode_hz < res.summary.arm_lowest_mode_hz  # and the frequency an upper bound
