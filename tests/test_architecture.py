"""The house shows its rooms: every package is on the maps a contributor reads (its parent's docstring, the
README's layer map), readers are loaded only for the files met, and what is listed once is derived, not
written out again."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO
from typer.testing import CliRunner

from rag.cli import app
from rag.corpus import FORMATS, READERS, parse_bibtex
from rag.faces import face_of
from rag.formats import csl_type
from rag.records import DESCRIPTIVE_FIELDS, STRING_LIST_FIELDS, TEXT_FIELDS, VENUE_FIELDS, Paper

PACKAGE = REPO / "rag"
# Modules at rag.corpus's top at most: readers go in its wings.
MAX_TOP_MODULES = 18
# Modules at rag.writing's top at most: the citation check is rag.check.
MAX_WRITING_MODULES = 15
# The house rule for a function's length, in lines (decorators and docstring included).
MAX_FUNCTION_LINES = 60


def _packages() -> list[Path]:
    return sorted(init.parent for init in PACKAGE.rglob("__init__.py"))


def _subpackages(package: Path) -> list[str]:
    return sorted(child.name for child in package.iterdir() if (child / "__init__.py").is_file())


def _docstring(package: Path) -> str:
    return ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8"))) or ""


def _readme_layer_map() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("- The code is layered")
    return readme[start : readme.index("\n- ", start + 1)]


def test_each_package_docstring_names_its_subpackages() -> None:
    for package in _packages():
        if package == PACKAGE:
            continue  # rag's own map is the README's (below)
        docstring = _docstring(package)
        missing = [name for name in _subpackages(package) if not re.search(rf"\b{name}\b", docstring)]
        assert not missing, f"{package.relative_to(REPO)}/__init__.py does not name {missing}"


def test_the_readme_layer_map_names_every_package_and_top_module() -> None:
    layer_map = _readme_layer_map()
    top = [*_subpackages(PACKAGE), *(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_"))]
    assert not [name for name in top if f"`{name}" not in layer_map]
    for wing in _subpackages(PACKAGE / "corpus"):
        assert f"`{wing}/`" in layer_map


def test_the_corpus_keeps_its_top_small() -> None:
    assert len(list((PACKAGE / "corpus").glob("*.py"))) <= MAX_TOP_MODULES


def test_writing_keeps_its_top_small() -> None:
    assert len(list((PACKAGE / "writing").glob("*.py"))) <= MAX_WRITING_MODULES


def test_no_function_is_longer_than_the_house_rule() -> None:
    long = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if (node.end_lineno or start) - start + 1 > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(REPO)}:{node.name}")
    assert not long


def test_every_face_entry_resolves_to_the_name_its_module_defines() -> None:
    for package in _packages():
        if package == PACKAGE:
            continue  # rag's own entry points are functions (rag.open, rag.ask), not a face
        module = ".".join(package.relative_to(REPO).parts)
        face = face_of(str(package / "__init__.py"))
        for name, source in face.items():
            assert getattr(importlib.import_module(module), name) is getattr(importlib.import_module(source), name)


def test_a_face_is_what_type_checkers_see(tmp_path: Path) -> None:
    # Each entry is imported under TYPE_CHECKING, so mypy reads the real type instead of `object`.
    probe = tmp_path / "probe.py"
    probe.write_text("from rag.writing import Composer\nfrom rag.check import check_reply\n"
                     "reveal_type(Composer)\nreveal_type(check_reply)\n")  # fmt: skip
    found = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", str(probe)],
        capture_output=True, text=True, cwd=REPO,
    )  # fmt: skip
    assert "-> rag.writing.generation.Composer" in found.stdout, found.stdout
    assert "-> rag.check.sentences.Answer" in found.stdout, found.stdout


def test_the_seeds_load_without_loading_any_other_reader() -> None:
    script = (
        "import sys; from rag.corpus.loader import load_paths; from rag.resources import seeds_dir; "
        "assert load_paths([seeds_dir()]).papers; "
        "print(sorted(m for m in sys.modules if m.startswith(('rag.corpus.exports.', 'rag.corpus.pdf.', "
        "'rag.corpus.zotero.library', 'pypdf', 'bibtexparser'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO)
    assert loaded.stdout.strip() == "[]"


def test_every_format_the_help_lists_has_a_reader_and_every_reader_is_listed() -> None:
    assert set(READERS) == {ending for file_format in FORMATS for ending in file_format.endings}
    shown = CliRunner().invoke(app, ["ingest", "--help"], env={"COLUMNS": "400"}).output
    for file_format in FORMATS:
        assert file_format.endings[0] in shown
    assert "(.nbib)" in shown and "(.ciw)" in shown and "(.ris)" in shown


def test_a_bibtex_type_is_one_csl_type_read_or_written() -> None:
    """Ingest and the CSL export read a BibTeX entry type from one table (they disagreed on @misc)."""
    for kind in ("misc", "booklet", "unpublished", "article", "inproceedings", "online"):
        entry = f"@{kind}{{k,\n  title = {{A title}},\n  author = {{Doe, Jane}},\n  year = {{2020}},\n}}\n"
        papers = parse_bibtex(entry, "refs.bib").papers
        read = papers[0].item_type
        written = csl_type(Paper(id="x", text="", bibtex=entry))  # a paper saved before item types were kept
        assert read == written, kind


def test_paper_field_lists_are_read_off_the_class() -> None:
    names = [f for f in Paper.__dataclass_fields__]
    assert set(VENUE_FIELDS) <= set(DESCRIPTIVE_FIELDS) <= set(names)
    assert {"title", "authors", "year", "doi", "venue", "pages", "item_type"} <= set(DESCRIPTIVE_FIELDS)
    assert not {"id", "text", "citekey", "sources", "passages", "aliases"} & set(DESCRIPTIVE_FIELDS)
    assert set(TEXT_FIELDS) == {n for n, f in Paper.__dataclass_fields__.items() if f.type == "str | None"}
    assert {"authors", "sources", "aliases", "collections"} <= set(STRING_LIST_FIELDS)
