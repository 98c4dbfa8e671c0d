"""A package's face: the names its other layers and tests import from the package itself, each loaded from its
module on first use (PEP 562), so importing a package stays cheap and a module can move without breaking them."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping


def face_attribute(package: str, face: Mapping[str, str], name: str) -> object:
    """``name`` of ``package``'s face, imported from its module (and kept on the package); AttributeError for a
    name the face lacks, as for any module (so that ``from package import submodule`` still imports it)."""
    module = face.get(name)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    setattr(sys.modules[package], name, value)
    return value
