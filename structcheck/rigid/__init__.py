"""Rigid-body mechanics: kinematics, inverse dynamics with joint reaction wrenches, closed chains, inverse
kinematics, forward dynamics and forward simulation with driven, free and braked joints, and the rigid-body stage
of a study with its checks."""
from .actuation import Brake, Drive, Free, Prescribed, Torque
from .closedchain import ClosedChain, CutJoint
from .dynamics import Dynamics, inverse_dynamics, link_equilibrium, power_balance
from .forward import JointSpace, Rotor, forward_dynamics, joint_space, mass_matrix
from .ik import solve_ik
from .kinematics import LinkKinematics, forward_kinematics, jacobian, link_kinematics
from .simulate import Event, EventKind, JointState, Simulation, Tolerance, simulate
from .stage import RigidBody, as_chain, rigid_body

__all__ = ["Brake", "ClosedChain", "CutJoint", "Drive", "Dynamics", "Event", "EventKind", "Free", "JointSpace",
           "JointState", "LinkKinematics", "Prescribed", "RigidBody", "Rotor", "Simulation", "Tolerance", "Torque",
           "as_chain", "forward_dynamics", "forward_kinematics", "inverse_dynamics", "jacobian", "joint_space",
           "link_equilibrium", "link_kinematics", "mass_matrix", "power_balance", "rigid_body", "simulate",
           "solve_ik"]
