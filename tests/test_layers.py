"""The package's folders are its layers: no module imports a layer above it.

Data flows settings/core → store → ingest → cache → sources → api → wiring →
plugin routes, the `tbmf` CLI and the Python API `frames` (../shared/DESIGN.md). Each module's imports
of `tb_multiframework.*` are read from its source with `ast` (function-level,
lazy imports included) and checked against the layer order below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tb_multiframework"

# Layer of each top-level part, and the layers it may import (besides
# `i18n`, which every part may import: see _EVERYWHERE). `core` is pure
# (numpy + stdlib) and may import nothing else of the package; `settings`
# (the user's config file and saved layouts) sits beside it at the bottom.
ALLOWED = {
    # The message catalogs: text only, below every layer, usable by all.
    "i18n": {"i18n"},
    "core": {"core"},
    "settings": {"settings", "core"},
    "store": {"store", "core"},
    "ingest": {"ingest", "store", "settings", "core"},
    "cache": {"cache", "ingest", "store", "settings", "core"},
    "sources": {"sources", "cache", "ingest", "store", "settings", "core"},
    "api": {"api", "sources", "store", "settings", "core"},
    "wiring": {"api", "sources", "ingest", "store", "settings", "core"},
    "route_args": {"api", "core"},
    "plugin": {
        "route_args",
        "wiring",
        "api",
        "sources",
        "store",
        "settings",
        "core",
    },
    "cli": {"cli", "wiring", "api", "settings", "core"},
    # The Python API (`tb_multiframework.read`): a front door beside the
    # routes and the CLI, on the same wiring and api.
    "frames": {"frames", "wiring", "api", "sources", "store", "core"},
}
# Parts any layer may import: the message catalogs import nothing.
_EVERYWHERE = {"i18n"}
for _allowed in ALLOWED.values():
    _allowed |= _EVERYWHERE
# The package's own metadata (`__version__`) may be read from anywhere.
_ROOT_NAMES = {"__version__"}


def _part(module: str) -> str:
    """`tb_multiframework.api.scalars` → `api`; `tb_multiframework.plugin` → `plugin`."""
    return module.split(".")[1]


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported tb_multiframework module) of every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ["tb_multiframework", *path.relative_to(PACKAGE).parts[:-1]]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            # `from ..types import X` in core/anomalies/ → tb_multiframework.core.types
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            if module == "tb_multiframework":
                found += [
                    (node.lineno, f"tb_multiframework.{a.name}")
                    for a in node.names
                    if a.name not in _ROOT_NAMES
                ]
            else:
                found.append((node.lineno, module))
    return [(n, m) for n, m in found if m.startswith("tb_multiframework.")]


def _modules() -> list[Path]:
    return sorted(
        p
        for p in PACKAGE.rglob("*.py")
        if "static" not in p.relative_to(PACKAGE).parts
        and p != PACKAGE / "__init__.py"
    )


def test_every_top_level_part_has_a_layer():
    parts = {
        p.stem if p.suffix == ".py" else p.name
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py")
        or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert parts == set(ALLOWED), (
        "a new top-level module or package needs its place in ALLOWED"
    )


@pytest.mark.parametrize(
    "path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_module_imports_a_layer_above_it(path):
    rel = path.relative_to(PACKAGE)
    own = rel.parts[0] if len(rel.parts) > 1 else rel.stem
    bad = [
        f"{rel}:{line} imports {module}"
        for line, module in _imports(path)
        if _part(module) not in ALLOWED[own]
    ]
    assert not bad, "\n".join(bad)
