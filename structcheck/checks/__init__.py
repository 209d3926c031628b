"""Checks over a run: the verdict and the run's warnings, the tool-point deflection chained through the
links and the arm's lowest mode."""
from .solution import LinkSolution
from .toolchain import ChainLink, ToolPointChecks, arm_lowest_mode, tool_point_checks, tool_point_deflection
from .verdict import run_warnings, verdict

__all__ = ["ChainLink", "LinkSolution", "ToolPointChecks", "arm_lowest_mode", "run_warnings",
           "tool_point_checks", "tool_point_deflection", "verdict"]
