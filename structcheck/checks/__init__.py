"""Checks over the whole robot: the tool-point deflection chained through the links and the arm's lowest mode."""
from .toolchain import ChainLink, arm_lowest_mode, tool_point_deflection

__all__ = ["ChainLink", "arm_lowest_mode", "tool_point_deflection"]
