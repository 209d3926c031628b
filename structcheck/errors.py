"""Exceptions raised by structcheck.

Every error a user can cause is an :class:`InputError` (a ``ValueError``) whose message names the
offending thing (joint, surface, file, position in an expression, time sample) and the valid choices.
"""


class InputError(ValueError):
    """Bad user input: a study, motion law, robot model, mesh or results folder that cannot be used."""


class MeshError(InputError):
    """A mesh that cannot be analysed (inverted or degenerate elements, wrong units, unsupported cells)."""
