"""How many of a manuscript's citations `rag check` reads: key occurrences rag reads against an independent
count, on the real theses of ``../shared/real/manuscripts`` (PROVENANCE.md there gives each one's main file,
how it is built, and its author's count, a cross-check of the count here).

The independent count is a separate, simple parser (regular expressions, no pylatexenc, no markdown-it,
nothing of rag.manuscripts):

- LaTeX: from the main file, ``\\input``/``\\include``/``\\subfile``/``\\import``-family and one-argument
  macros wrapping them followed, each name looked for in the build folder, then beside the including file;
  comments, ``comment``/verbatim environments, ``\\iffalse...\\fi`` and the preamble's own text dropped; every
  key of every ``\\...cite...`` command with a braced key list but ``\\nocite`` (multicites: each group);
- Pandoc/Quarto/R Markdown: the chapter files in the order the project lists them (Quarto: ``_quarto.yml``
  and every ``_quarto-*.yml`` profile; bookdown: ``rmd_files`` or ``index.Rmd`` and the numbered files);
  YAML front matter, fenced code (indented or not), inline code, HTML comments and raw LaTeX dropped; each
  ``@key`` in a ``[...]`` group and each bare ``@key`` counted; cross-references (``@fig-``...) and e-mail
  addresses not.

Coverage is rag's count over the independent one, per manuscript; the keys one side has more of are listed.

    python benchmarks/manuscript_coverage.py [--details]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

from rag.manuscripts.reading import read_path

ROOT = Path(__file__).resolve().parent.parent
MANUSCRIPTS = ROOT.parent / "shared" / "real" / "manuscripts"
# (folder, what is passed to rag: the main file or the folder, the build folder as the README builds it)
CASES = (
    ("ErikBjare__thesis", "docs/tex/thesis.tex", "docs/tex", 85),  # latexmk -cd docs/tex/thesis.tex
    ("chrisjbillington__thesis", "thesis.tex", ".", 348),
    ("diegoferigo__phd-thesis", "thesis.tex", ".", 236),
    ("bentharnist-fmi__bcnn-prob-nowcasting-thesis", "thesis-bent-harnist.tex", ".", 128),
    ("morteza__thesis", ".", ".", 463),  # quarto render --profile thesis
    ("elliotmartin92__Thesis", ".", ".", 787),  # bookdown::render_book("index.Rmd")
)  # the last number: PROVENANCE.md's own count of key occurrences
GOAL = 0.98

# --- the independent count: LaTeX ---

_TEX_COMMENT = re.compile(r"(?<!\\)%.*")
_TEX_BLOCKS = re.compile(r"\\begin\{(comment|verbatim|lstlisting|minted)\}.*?\\end\{\1\}|\\iffalse\b.*?\\fi\b", re.S)
_TEX_INPUT = re.compile(
    r"\\(input|include|subfile|import|subimport|inputfrom|includefrom|subinputfrom|subincludefrom)\*?"
    r"\s*\{([^{}]*)\}(?:\s*\{([^{}]*)\})?"
)
_TEX_WRAPPER = re.compile(
    r"\\(?:re)?newcommand\*?\s*\{?\\(\w+)\}?\s*\[1\]\s*\{\s*\\(input|include|subfile)\s*\{([^{}#]*)#1([^{}]*)\}\s*\}"
    r"|\\def\\(\w+)#1\s*\{\s*\\(input|include|subfile)\s*\{([^{}#]*)#1([^{}]*)\}\s*\}"
)
_TEX_CITE = re.compile(r"\\([A-Za-z]*cite[A-Za-z]*)\*?((?:\s*\[[^\]]*\]|\s*\([^)]*\))*)\s*\{([^{}]*)\}")
_TEX_MORE_KEYS = re.compile(r"(?:\s*\[[^\]]*\]){0,2}\s*\{([^{}]*)\}")
_NOT_CITES = {"nocite", "citeleft", "citeright", "citetext", "citestyle", "shortcites", "citealias", "defcitealias"}


def _tex_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return _TEX_BLOCKS.sub("", "\n".join(_TEX_COMMENT.sub("", line) for line in text.splitlines()))


def _tex_find(name: str, build: Path, including: Path, page: bool) -> Path | None:
    names = [name] if name.endswith(".tex") else [name + ".tex"] + ([] if page else [name])
    for folder in (build, including.parent):
        for candidate in names:
            if (folder / candidate).is_file():
                return folder / candidate
    return None


def _tex_keys(path: Path, build: Path, seen: set[Path], wrappers: dict[str, tuple[str, str, str]]) -> list[str]:
    """The key occurrences of one file and what it reads; in the main file, those of its body only (what
    the preamble reads is followed for the macros it defines, its citations are not typeset)."""
    text = _tex_text(path)
    seen.add(path.resolve())
    begin = text.find("\\begin{document}") if not seen - {path.resolve()} else -1
    keys: list[str] = []
    for match in _tokens(wrappers).finditer(text):
        counted = match.start() > begin
        if match.group(1):
            command, first, second = match.group(1), match.group(2), match.group(3)
            name = f"{first.rstrip('/')}/{second}" if "import" in command or "from" in command else first
            found = _tex_follow(name.strip(), build, path, command in ("include", "subfile"), seen, wrappers)
            keys += found if counted else []
        elif match.group(4):
            if match.group(4) in _NOT_CITES or not counted:
                continue
            keys += [key.strip() for key in match.group(6).split(",") if key.strip()]
            if match.group(4).endswith("cites"):
                at = match.end()
                while (more := _TEX_MORE_KEYS.match(text, at)) is not None:
                    keys += [key.strip() for key in more.group(1).split(",") if key.strip()]
                    at = more.end()
        elif match.group(7):
            command, prefix, suffix = wrappers[match.group(7)]
            keys += _tex_follow(prefix + match.group(8) + suffix, build, path, command == "include", seen, wrappers)
        else:  # a wrapper's definition: known from here on
            groups = match.groups()[9:]
            name, command, prefix, suffix = groups[:4] if groups[0] else groups[4:]
            wrappers[name] = (command, prefix, suffix)
    return keys


def _tokens(wrappers: dict[str, tuple[str, str, str]]) -> re.Pattern[str]:
    uses = "|".join(re.escape(name) for name in wrappers) or "(?!)"
    use = r"\\(" + uses + r")\s*\{([^{}]*)\}"
    return re.compile(f"{_TEX_INPUT.pattern}|{_TEX_CITE.pattern}|{use}|(?:{_TEX_WRAPPER.pattern})")


def _tex_follow(
    name: str, build: Path, including: Path, page: bool, seen: set[Path], wrappers: dict[str, tuple[str, str, str]]
) -> list[str]:
    found = _tex_find(name, build, including, page)
    if found is None or found.resolve() in seen:
        return []
    return _tex_keys(found, build, seen, wrappers)


def latex_count(main: Path, build: Path) -> list[str]:
    """Every key occurrence of the document's body, in order."""
    return _tex_keys(main, build, set(), {})


# --- the independent count: Pandoc ---

_MD_FRONT = re.compile(r"\A---\s*\n.*?\n(?:---|\.\.\.)\s*\n", re.S)
_MD_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.S | re.M)
_MD_INLINE_CODE = re.compile(r"(`+).+?\1", re.S)
_MD_COMMENT = re.compile(r"<!--.*?-->", re.S)
_MD_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_MD_GROUP = re.compile(r"\[([^\[\]]*@[^\[\]]*)\]")
_MD_KEY = re.compile(r"(?<![\w.@\\])-?@\{?([\w][\w:.#$%&+?<>~/-]*)")
_CROSS_REF = re.compile(r"(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|def|exm|exr|apx)[-:]")


def pandoc_count(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    for pattern in (_MD_FRONT, _MD_FENCE, _MD_COMMENT, _MD_INLINE_CODE, _MD_LINK_TARGET):
        text = pattern.sub(" ", text)
    keys = []
    for match in re.finditer(_MD_GROUP.pattern + "|" + _MD_KEY.pattern, text):
        inside = match.group(1)
        found = [m.group(1) for m in _MD_KEY.finditer(inside)] if inside is not None else [match.group(2)]
        keys += [key.rstrip(".:") for key in found if not _CROSS_REF.match(key)]
    return keys


def _yaml_list(text: str, key: str) -> list[str]:
    """The files a YAML list under ``key:`` names (chapters, appendices, rmd_files), commented lines skipped."""
    found, inside = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if re.match(rf"\s*{key}\s*:", line):
            inside = True
            inline = re.findall(r"[\w./-]+\.(?:qmd|md|Rmd)", line)
            found += inline
            continue
        if inside and stripped.startswith("- "):
            found += re.findall(r"[\w./-]+\.(?:qmd|md|Rmd|rmd)", stripped)
        elif inside and stripped and not stripped.startswith("#"):
            inside = False
    return found


def project_files(folder: Path) -> list[Path]:
    configs = sorted(folder.glob("_quarto*.yml"))
    names: list[str] = []
    for config in configs:
        text = config.read_text()
        for key in ("chapters", "appendices"):
            names += [n for n in _yaml_list(text, key) if n not in names]
    bookdown = folder / "_bookdown.yml"
    if bookdown.is_file():
        names = _yaml_list(bookdown.read_text(), "rmd_files")
        if not names:
            names = ["index.Rmd", *sorted(p.name for p in folder.glob("[0-9]*.Rmd"))]
    return [folder / name for name in names if (folder / name).is_file()]


def independent_count(folder: Path, given: str, build: str) -> list[str]:
    path = folder / given
    if path.is_dir():
        return [key for file in project_files(path) for key in pandoc_count(file)]
    return latex_count(path, folder / build)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--details", action="store_true", help="list the keys that differ")
    args = parser.parse_args()
    if not MANUSCRIPTS.is_dir():
        print(f"no manuscripts at {MANUSCRIPTS}", file=sys.stderr)
        return 2
    columns = "rag reads | independent count | PROVENANCE.md | coverage | seconds"
    print(f"| manuscript | passed to rag | build folder | {columns} |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    worst = 1.0
    for name, given, build, provenance in CASES:
        folder = MANUSCRIPTS / name
        started = time.perf_counter()
        manuscript = read_path(folder / given, folder / build)
        seconds = time.perf_counter() - started
        read = [cite.key for cite in manuscript.cites]
        expected = independent_count(folder, given, build)
        matched = sum((Counter(read) & Counter(expected)).values()) / len(expected) if expected else 1.0
        worst = min(worst, matched)
        counts = f"{len(read)} | {len(expected)} | {provenance} | {matched:.1%} | {seconds:.1f}"
        print(f"| {name} | {given} | {build} | {counts} |")
        if args.details:
            missing, extra = Counter(expected) - Counter(read), Counter(read) - Counter(expected)
            print(f"    missing: {dict(missing)}\n    extra: {dict(extra)}")
            for warning in manuscript.warnings[:20]:
                print(f"    warning: {warning}")
    print(f"\nworst coverage {worst:.1%} (goal {GOAL:.0%}: keys read that the independent count also finds)")
    return 0 if worst >= GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
