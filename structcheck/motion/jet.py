"""Second-order jets: a quantity over time with its exact first and second time derivatives, (f, f', f''), each an
array (n,) over the sample times. Arithmetic on jets is the chain rule, so a law built from them has exact
derivatives (second-order forward-mode differentiation over every sample at once)."""
from __future__ import annotations

import numpy as np


class Jet:
    """``v`` value, ``d`` first and ``dd`` second time derivative, arrays of one shape (n,) [unit, /s, /s^2]."""

    __slots__ = ("v", "d", "dd")

    def __init__(self, v, d, dd):
        self.v, self.d, self.dd = v, d, dd

    @classmethod
    def const(cls, c, n: int) -> Jet:
        """The constant ``c`` (a number or (n,) array) over n samples: zero derivatives."""
        z = np.zeros(n)
        return cls(z + c, z, z.copy())

    def __len__(self):
        return len(self.v)

    def _jet(self, other) -> Jet:
        return other if isinstance(other, Jet) else Jet.const(other, len(self))

    def __add__(self, other):
        o = self._jet(other)
        return Jet(self.v + o.v, self.d + o.d, self.dd + o.dd)

    __radd__ = __add__

    def __neg__(self):
        return Jet(-self.v, -self.d, -self.dd)

    def __sub__(self, other):
        return self + (-self._jet(other))

    def __rsub__(self, other):
        return self._jet(other) - self

    def __mul__(self, other):
        o = self._jet(other)
        return Jet(self.v * o.v, self.d * o.v + self.v * o.d, self.dd * o.v + 2 * self.d * o.d + self.v * o.dd)

    __rmul__ = __mul__

    def __truediv__(self, other):
        """Quotient; the caller checks the denominator for zeros (to name the position in the text)."""
        o = self._jet(other)
        h = self.v / o.v
        dh = (self.d - h * o.d) / o.v
        return Jet(h, dh, (self.dd - 2 * dh * o.d - h * o.dd) / o.v)

    def map(self, g, g1, g2) -> Jet:
        """g(self) from g's value ``g``, first ``g1`` and second ``g2`` derivative at self.v (arrays (n,)):
        (g u)' = g'(u) u', (g u)'' = g''(u) u'^2 + g'(u) u''."""
        return Jet(g, g1 * self.d, g2 * self.d * self.d + g1 * self.dd)

    def scaled(self, s) -> Jet:
        """Each sample times the piecewise-constant factor ``s`` (n,) (a sign, an integer part): s u, s u', s u''."""
        return Jet(s * self.v, s * self.d, s * self.dd)


def assemble(n: int, pieces) -> Jet:
    """One jet over n samples from ``pieces``: (mask (n,) bool, jet over the masked samples) with disjoint masks
    that cover every sample."""
    out = Jet(np.zeros(n), np.zeros(n), np.zeros(n))
    for mask, jet in pieces:
        out.v[mask], out.d[mask], out.dd[mask] = jet.v, jet.d, jet.dd
    return out
