"""The mesh cache: meshes that studies generate for a parameter (``--set wall_mm=5``) are built once and kept in
``~/.cache/structcheck`` (or ``$STRUCTCHECK_CACHE``), one folder per parameter set and generator version.
``structcheck cache`` lists it and ``structcheck cache --clear`` empties it."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def cache_dir() -> Path:
    """The cache folder: ``$STRUCTCHECK_CACHE`` if set, else ``~/.cache/structcheck``."""
    env = os.environ.get("STRUCTCHECK_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "structcheck"


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else path.stat().st_size


def cache_entries() -> list[tuple[str, int]]:
    """(name, size [bytes]) of every entry of the cache, by name."""
    root = cache_dir()
    return [(p.name, _size(p)) for p in sorted(root.iterdir())] if root.is_dir() else []


def clear_cache() -> int:
    """Remove every entry of the cache; returns the bytes freed."""
    freed = 0
    root = cache_dir()
    for name, size in cache_entries():
        path = root / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()
        freed += size
    return freed


def announce(folder: Path, what: str) -> None:
    """Say on stderr that ``what`` was written to the cache ``folder`` (a user should know where disk goes)."""
    print(f"structcheck: {what} written to the mesh cache {folder} (`structcheck cache --clear` empties it)",
          file=sys.stderr)
