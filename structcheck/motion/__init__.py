"""Motion: laws of each driven joint over time (ADAMS function expressions with their SPLINEs and VARIABLEs,
polynomial and trapezoid profiles, splines, tables, Cartesian lines through inverse kinematics) and the analysis
time grid.

Every law satisfies the :class:`Law` protocol; :func:`as_law` turns a user's input into one."""
from .expression import MotionLaw
from .grid import TimeGrid, time_grid
from .integrated import IntegratedLaw
from .laws import Constant, Law, as_law
from .profiles import MinimumJerk, ModifiedTrapezoidal, Quintic, Trapezoidal
from .splines import Spline
from .tables import BSpline, Tabulated

__all__ = ["BSpline", "CartesianLine", "Constant", "IntegratedLaw", "Law", "MinimumJerk", "ModifiedTrapezoidal",
           "MotionLaw",
           "Quintic", "Spline", "Tabulated", "TimeGrid", "Trapezoidal", "as_law", "time_grid"]


def __getattr__(name):
    # Cartesian lines need the rigid-body package (inverse kinematics): imported on first use.
    if name == "CartesianLine":
        from .cartesian import CartesianLine

        return CartesianLine
    raise AttributeError(f"module 'structcheck.motion' has no attribute {name!r}")
