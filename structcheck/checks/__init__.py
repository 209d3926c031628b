"""Checks over a run: the verdict and the run's warnings (among them unconverged peak stresses), the tool-point
deflection chained through the links and the arm's lowest mode."""
from .peaks import DISCONTINUITY_LIMIT, discontinuity_warnings
from .solution import LinkSolution
from .toolchain import ChainLink, ToolPointChecks, arm_lowest_mode, tool_point_checks, tool_point_deflection
from .verdict import arm_basis_warnings, failures, run_warnings

__all__ = ["ChainLink", "DISCONTINUITY_LIMIT", "LinkSolution", "ToolPointChecks", "arm_basis_warnings",
           "arm_lowest_mode", "discontinuity_warnings", "failures", "run_warnings", "tool_point_checks",
           "tool_point_deflection"]
