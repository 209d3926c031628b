"""Rigid-body mechanics: kinematics, inverse dynamics with joint reaction wrenches, closed chains, inverse
kinematics, and the rigid-body stage of a study with its checks."""
from .closedchain import ClosedChain, CutJoint
from .dynamics import Dynamics, inverse_dynamics, link_equilibrium, power_balance
from .ik import solve_ik
from .kinematics import LinkKinematics, forward_kinematics, jacobian, link_kinematics
from .stage import RigidBody, as_chain, rigid_body

__all__ = ["ClosedChain", "CutJoint", "Dynamics", "LinkKinematics", "RigidBody", "as_chain", "forward_kinematics",
           "inverse_dynamics", "jacobian", "link_equilibrium", "link_kinematics", "power_balance", "rigid_body",
           "solve_ik"]
