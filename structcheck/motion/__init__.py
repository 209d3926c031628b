"""Motion: laws of each driven joint over time (ADAMS expressions, polynomial and trapezoid profiles, splines,
tables, Cartesian lines through inverse kinematics) and the analysis time grid."""
from .laws import (BSpline, Constant, MinimumJerk, ModifiedTrapezoidal, MotionLaw, Quintic, Tabulated, TimeGrid,
                   Trapezoidal, as_law, time_grid)

__all__ = ["BSpline", "CartesianLine", "Constant", "MinimumJerk", "ModifiedTrapezoidal", "MotionLaw", "Quintic",
           "Tabulated", "TimeGrid", "Trapezoidal", "as_law", "time_grid"]


def __getattr__(name):
    # Cartesian lines need the rigid-body package (inverse kinematics): imported on first use.
    if name == "CartesianLine":
        from .cartesian import CartesianLine

        return CartesianLine
    raise AttributeError(f"module 'structcheck.motion' has no attribute {name!r}")
