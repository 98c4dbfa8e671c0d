"""A package's face: the names other packages, scripts and tests import from the package itself, written once
as the package's ``if TYPE_CHECKING:`` imports (so type checkers see each name's real type), and loaded from
its module on first use (PEP 562), so importing a package stays cheap and a module can move without breaking
them."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Mapping
from pathlib import Path


def face_of(init_file: str) -> dict[str, str]:
    """Name -> module of a package's face, read from the ``if TYPE_CHECKING:`` imports of its ``__init__``
    (the one list of it: the type checker reads the imports, the package loads each name when first asked)."""
    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    face: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    face |= {alias.asname or alias.name: statement.module for alias in statement.names}
    return face


def face_attribute(package: str, face: Mapping[str, str], name: str) -> object:
    """``name`` of ``package``'s face, imported from its module (and kept on the package); AttributeError for a
    name the face lacks, as for any module (so that ``from package import submodule`` still imports it)."""
    module = face.get(name)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    setattr(sys.modules[package], name, value)
    return value
