"""A folder -> the manuscript in it, in the order its build reads it:

1. a Quarto project (``_quarto.yml``): its book's chapters and appendices (parts included), else the files
   ``project: render:`` lists, else a manuscript project's article, else every ``.qmd``/``.md``/``.Rmd`` file
   Quarto would render (not those whose name starts with ``_`` or ``.``). Profiles (``_quarto-<name>.yml``,
   chosen with ``quarto render --profile``) are merged into ``_quarto.yml`` as Quarto merges them, lists
   joined in order without duplicates, and all of them at once: rag does not know which one the build uses,
   so every chapter any profile lists is read, once;
2. a bookdown project (``_bookdown.yml`` or an ``index.Rmd`` with ``bookdown::`` in it): ``rmd_files`` when
   given, else ``index.Rmd`` then the other ``.Rmd`` files by name, not those starting with ``_`` (bookdown's
   own order; subfolders only with ``rmd_subdir``);
3. else its LaTeX main files (a ``\\documentclass`` not of a subfile or a standalone figure) with what each
   reads, a file read by one main not read again;
4. else every ``.tex``/``.md``/``.qmd``/``.Rmd`` file under it, by name.

The bibliographies a project's configuration names (``bibliography:``) are found in the project folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rag.errors import InputError
from rag.manuscripts.citing import Manuscript
from rag.manuscripts.files import read_file
from rag.manuscripts.metadata import load, names
from rag.manuscripts.sources import Finder, find_bibliographies, shown

MARKDOWN_ENDINGS = (".qmd", ".md", ".rmd", ".markdown")
MANUSCRIPT_ENDINGS = (".tex", *MARKDOWN_ENDINGS)
_MAIN = re.compile(r"^[^%\n]*\\documentclass\s*(?:\[[^\]]*\])?\s*\{\s*([^}\s]+)\s*\}", re.MULTILINE)
# Folders a build writes or a tool keeps, never the manuscript's sources.
_SKIPPED_FOLDERS = ("node_modules", "renv", "venv", "site-packages")


def _visible(path: Path, folder: Path) -> bool:
    parts = path.relative_to(folder).parts
    return not any(part.startswith((".", "_")) or part in _SKIPPED_FOLDERS for part in parts)


def _files(folder: Path, endings: tuple[str, ...], recursive: bool = True) -> list[Path]:
    found = folder.rglob("*") if recursive else folder.glob("*")
    return sorted(p for p in found if p.is_file() and p.suffix.lower() in endings and _visible(p, folder))


def _merged(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Quarto's merge of a profile into the project's settings: mappings merged, lists joined."""
    merged = dict(base)
    for key, value in other.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        elif isinstance(value, list) and isinstance(merged.get(key), list):
            merged[key] = merged[key] + [item for item in value if item not in merged[key]]
        else:
            merged[key] = value
    return merged


def _mapping(settings: dict[str, Any], key: str) -> dict[str, Any]:
    value = settings.get(key)
    return value if isinstance(value, dict) else {}


def _chapters(value: Any) -> list[str]:
    """A book's chapter list: names, and parts (``- part: x.qmd`` or a title, with their own chapters)."""
    found: list[str] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            part = item.get("part")
            if isinstance(part, str) and part.lower().endswith(MARKDOWN_ENDINGS):
                found.append(part)
            found += _chapters(item.get("chapters"))
    return found


def _quarto(folder: Path) -> tuple[list[str], dict[str, Any], list[str]]:
    """The files a Quarto project renders, in order, its merged settings, and warnings."""
    settings, warnings = load((folder / "_quarto.yml").read_text(encoding="utf-8", errors="replace"), "_quarto.yml")
    for profile in sorted(folder.glob("_quarto-*.yml")):
        more, problems = load(profile.read_text(encoding="utf-8", errors="replace"), shown(profile))
        settings, warnings = _merged(settings, more), warnings + problems
    book, project, manuscript = (_mapping(settings, key) for key in ("book", "project", "manuscript"))
    listed = _chapters(book.get("chapters")) + _chapters(book.get("appendices"))
    rendered = [name for name in names(project.get("render")) if "*" not in name]  # globs: all files below
    listed = listed or rendered or names(manuscript.get("article"))
    if not listed:
        listed = [str(path.relative_to(folder)) for path in _files(folder, MARKDOWN_ENDINGS)]
    return list(dict.fromkeys(listed)), settings, warnings


def _bookdown(folder: Path) -> tuple[list[str], dict[str, Any], list[str]]:
    config = folder / "_bookdown.yml"
    settings, warnings = (
        load(config.read_text(encoding="utf-8", errors="replace"), "_bookdown.yml") if config.is_file() else ({}, [])
    )
    listed = settings.get("rmd_files")
    if isinstance(listed, dict):  # one list per output format: each file once, in the order first listed
        listed = [name for names_of in listed.values() for name in names(names_of)]
    chosen = names(listed)
    if not chosen:
        files = _files(folder, (".rmd",), recursive=bool(settings.get("rmd_subdir")))
        others = [str(p.relative_to(folder)) for p in files if p.name.lower() != "index.rmd"]
        chosen = (["index.Rmd"] if (folder / "index.Rmd").is_file() else []) + others
    return list(dict.fromkeys(chosen)), settings, warnings


def _is_bookdown(folder: Path) -> bool:
    index = folder / "index.Rmd"
    return (folder / "_bookdown.yml").is_file() or (
        index.is_file() and "bookdown::" in index.read_text(encoding="utf-8", errors="replace")
    )


def _read(path: Path, folder: Path, build_dir: Path | None, manuscript: Manuscript) -> None:
    """One file (and what it reads) added to ``manuscript``; a file that cannot be read is a warning."""
    try:
        manuscript.extend(read_file(path, build_dir, also_in=(folder,)))
    except InputError as exc:
        manuscript.warnings.append(f"{exc}; not checked")


def _project(
    folder: Path, build_dir: Path | None, listed: list[str], settings: dict[str, Any], config: str
) -> Manuscript:
    manuscript = Manuscript()
    for name in listed:
        path = folder / name
        if not path.is_file():
            manuscript.warnings.append(f"{shown(folder / config)}: {name} is listed but not found; not checked")
            continue
        if path.suffix.lower() not in MARKDOWN_ENDINGS:
            manuscript.warnings.append(f"{shown(folder / config)}: {name} is not Markdown; not checked")
            continue
        _read(path, folder, build_dir, manuscript)
    finder = Finder(build_dir or folder, folder)
    bibliographies, missing = find_bibliographies(
        names(settings.get("bibliography")), shown(folder / config), str(folder / config), finder
    )
    manuscript.bibliographies += [path for path in bibliographies if path not in manuscript.bibliographies]
    manuscript.warnings += missing
    return manuscript


def _latex_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """The main files under ``folder``, and the other .tex files that are not figures of their own."""
    mains, others = [], []
    for path in _files(folder, (".tex",)):
        found = _MAIN.search(path.read_text(encoding="utf-8", errors="replace"))
        if found is None or found.group(1) == "subfiles":
            others.append(path)
        elif found.group(1) != "standalone":
            mains.append(path)
    return mains, others


def read_folder(folder: Path, build_dir: Path | None = None) -> Manuscript:
    """The manuscript a folder holds (see the module's doc for the order); InputError when it holds none."""
    if (folder / "_quarto.yml").is_file():
        listed, settings, warnings = _quarto(folder)
        manuscript = _project(folder, build_dir, listed, settings, "_quarto.yml")
    elif _is_bookdown(folder):
        listed, settings, warnings = _bookdown(folder)
        manuscript = _project(folder, build_dir, listed, settings, "_bookdown.yml")
    elif (latex := _latex_files(folder))[0]:
        manuscript, warnings = Manuscript(), []
        for main in latex[0]:
            if shown(main) not in manuscript.files:
                _read(main, folder, build_dir, manuscript)
        unread = [shown(p) for p in latex[1] if shown(p) not in manuscript.files]
        if unread:
            more = f" and {len(unread) - 5} more" if len(unread) > 5 else ""
            warnings.append(
                f"{shown(folder)}: not read by any main file, so not checked: {', '.join(unread[:5])}{more}"
            )
    else:
        manuscript, warnings = Manuscript(), []
        for path in _files(folder, MANUSCRIPT_ENDINGS):
            _read(path, folder, build_dir, manuscript)
    manuscript.warnings[:0] = warnings
    if not manuscript.files:
        raise InputError(f"{shown(folder)}: no manuscript in it (no .tex, .md, .qmd or .Rmd file)")
    return manuscript
