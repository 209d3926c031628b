"""A mesh's edges and facets (skfem's ``Mesh.edges``, ``t2e``, ``facets``, ``t2f``), found by sorting integer keys.

skfem finds them with ``np.unique(..., axis=1)`` on rows of vertex indices, which numpy sorts as opaque byte
records: 5.3 s of the 15 s it takes to read the paper-004 meshes. The same rows, each read as one int64 (the sorted
vertex indices as digits in base n_vertices), sort as plain integers in a fraction of that, in the same order
(lexicographic on the rows is numeric on the keys) and with the same first occurrences (a stable sort in both), so
the arrays are skfem's own, element for element (tests/fe/test_entities.py). :func:`install` makes skfem use it.
"""
from __future__ import annotations

import numpy as np


def build_entities(t: np.ndarray, indices) -> tuple[np.ndarray, np.ndarray] | None:
    """skfem's ``Mesh.build_entities(t, indices)`` (sorted): the unique entities (k, n_entities), vertex indices
    ascending in each column and columns in lexicographic order, and the map (len(indices), n_elements) from each
    element's local entity to its column. ``t`` (>= 4, n_elements) element vertices; ``indices`` the local vertex
    tuples of each entity (the reference domain's ``edges`` or ``facets``). None when the keys would not fit in
    int64 (more than about two million vertices for facets): skfem's own search then."""
    rows = np.sort(np.hstack([t[list(ix)] for ix in indices]), axis=0)  # (k, n_local * n_elements)
    key = row_keys(rows)
    if key is None:
        return None
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return np.ascontiguousarray(rows[:, first]), inverse.reshape(len(indices), t.shape[1])


def row_keys(rows: np.ndarray, base: int | None = None) -> np.ndarray | None:
    """One int64 per column of ``rows`` (k, n) of non-negative integers: the column's entries as digits in ``base``
    (default: one more than the largest entry), first row most significant, so that keys order as the columns do
    lexicographically. None when base^k would not fit in int64."""
    rows = np.asarray(rows)
    base = (int(rows.max()) + 1 if rows.size else 1) if base is None else base
    if base ** rows.shape[0] >= 2 ** 63:
        return None
    key = rows[0].astype(np.int64)
    for r in rows[1:]:
        key = key * base + r
    return key


def find_columns(table: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """Index in ``table`` (k, n) of distinct columns of vertex indices of each column of ``columns`` (k, m), as
    vertex sets (order within a column ignored); -1 where it is not in the table."""
    table, columns = np.sort(np.asarray(table), axis=0), np.sort(np.asarray(columns), axis=0)
    if table.shape[1] == 0 or columns.shape[1] == 0:
        return np.full(columns.shape[1], -1, dtype=np.int64)
    base = int(max(table.max(), columns.max())) + 1
    kt, kc = row_keys(table, base), row_keys(columns, base)
    if kt is None:  # beyond int64: numpy's search on the columns themselves
        _, inv = np.unique(np.hstack([table, columns]), axis=1, return_inverse=True)
        inv = inv.ravel()
        pos = np.full(inv.max() + 1, -1, dtype=np.int64)
        pos[inv[:table.shape[1]]] = np.arange(table.shape[1])
        return pos[inv[table.shape[1]:]]
    order = np.argsort(kt, kind="stable")
    ordered = kt[order]
    i = np.minimum(np.searchsorted(ordered, kc), len(kt) - 1)
    return np.where(ordered[i] == kc, order[i], -1).astype(np.int64)


def install() -> None:
    """Let skfem's ``Mesh.build_entities`` (every skfem mesh's edges and facets) use :func:`build_entities`: the
    same arrays, faster; its own search where the keys would not fit or unsorted entities are asked for. Done once,
    on importing structcheck.fe."""
    from skfem.mesh.mesh import Mesh

    original = Mesh.__dict__["build_entities"].__func__
    if getattr(original, "structcheck", False):  # installed already
        return

    def fast(t, indices, sort=True):
        built = build_entities(t, indices) if sort and indices is not None else None
        return original(t, indices, sort) if built is None else built

    fast.structcheck, fast.original = True, original
    fast.__doc__ = original.__doc__
    Mesh.build_entities = staticmethod(fast)
