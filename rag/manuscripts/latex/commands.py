"""The LaTeX commands a manuscript reader must know by name: citations, inputs, bibliographies, glossaries
and cross-references. Everything else is read as text (pylatexenc's latex2text).
"""

from __future__ import annotations

import re

# natbib, biblatex, the cite package, apacite, chicago and harvard styles: one key list, optional notes.
CITE_COMMANDS = (
    "cite", "citep", "citet", "citealt", "citealp", "citeauthor", "citeyear", "citeyearpar", "citenum", "citen",
    "citeonline", "citetitle", "citedate", "citeurl", "citefield", "fullcite", "footfullcite", "parencite",
    "Cite", "Citep", "Citet", "Citealt", "Citealp", "Citeauthor", "Citetitle", "Parencite",
    "autocite", "Autocite", "textcite", "Textcite", "smartcite", "Smartcite", "supercite", "footcite",
    "footcitetext", "Footcite", "Footcitetext", "nptextcite", "citeA", "citeNP", "citeyearNP", "citeauthorNP",
    "fullciteA", "shortcite", "shortciteA", "shortciteNP", "citeasnoun", "possessivecite", "citeaffixed",
)  # fmt: skip
# biblatex's multicites: \cites(pre)(post)[pre][post]{a}[pre][post]{b}...
MULTICITE_COMMANDS = (
    "cites", "Cites", "parencites", "Parencites", "footcites", "footcitetexts", "smartcites", "Smartcites",
    "textcites", "Textcites", "supercites", "autocites", "Autocites",
)  # fmt: skip
# Any other command with "cite" in its name and a {key} argument is a citation (a style's own \citeX) except
# these: they name no work the text cites, or take no key list.
NOT_CITATIONS = frozenset(
    {
        "nocite", "citeleft", "citeright", "citemid", "citepunct", "citedash", "citeform", "citestyle",
        "citesetup", "citetext", "citeindextrue", "citeindexfalse", "citename", "shortcites", "citenamefont",
        "citeauthorstyle", "citeyearstyle", "citenumfont", "citeurlfont", "citetrackerfalse", "citetrackertrue",
        "DeclareCiteCommand", "citereset", "citeresetsection", "citealias", "defcitealias",
    }
)  # fmt: skip
_CITE_LIKE = re.compile(r"\\([a-zA-Z]*[cC]ite[a-zA-Z]*)")

# Commands that read another file into the manuscript, with their arguments: the import package's take a
# folder then a file; \input also has TeX's own form, ``\input chapter``.
INPUT_SIGNATURES = {
    "input": "m", "include": "m", "subfile": "m", "loadglsentries": "om", "InputIfFileExists": "m",
    "import": "mm", "subimport": "smm", "inputfrom": "mm", "includefrom": "mm",
    "subinputfrom": "mm", "subincludefrom": "mm",
}  # fmt: skip
# Found from the folder the command names, relative to the one the file that names it was imported from.
RELATIVE_IMPORTS = ("subimport", "subinputfrom", "subincludefrom")
IMPORTS = ("import", "inputfrom", "includefrom", *RELATIVE_IMPORTS)
# \include (and what acts like it) starts a page: what it reads is never part of the paragraph around it.
PAGE_INCLUDES = ("include", "subfile", "includefrom", "subincludefrom")

BIBLIOGRAPHY_SIGNATURES = {
    "bibliography": "m", "nobibliography": "m", "addbibresource": "om", "addglobalbib": "om",
    "addsectionbib": "om", "bibliographyfile": "m",
}  # fmt: skip
BIBTEX_LISTS = ("bibliography", "nobibliography")  # a list of names, .bib added: \bibliography{a,b}

# glossaries, glossaries-extra, acronym and acro: the definitions, then the commands that show an entry.
GLOSSARY_DEFINITIONS = {
    "newacronym": "ommm", "newabbreviation": "ommm", "newglossaryentry": "mm", "longnewglossaryentry": "mmm",
    "acro": "mom", "newacro": "mom", "acrodef": "mom", "DeclareAcronym": "mm", "newdualentry": "ommmm",
}  # fmt: skip
# What each shows: the short form, the long one, both, the name; "first" is \gls's "long (short)" on first use.
GLOSSARY_USES = {
    "gls": "first", "Gls": "first", "GLS": "first", "glspl": "first", "Glspl": "first", "GLSpl": "first",
    "glstext": "name", "Glstext": "name", "glsname": "name", "Glsname": "name", "glsentryname": "name",
    "glsentrytext": "name", "glssymbol": "short", "glsdesc": "long", "glsentrydesc": "long",
    "acrshort": "short", "Acrshort": "short", "ACRshort": "short", "acrshortpl": "short", "Acrshortpl": "short",
    "acrlong": "long", "Acrlong": "long", "ACRlong": "long", "acrlongpl": "long", "Acrlongpl": "long",
    "acrfull": "full", "Acrfull": "full", "ACRfull": "full", "acrfullpl": "full", "Acrfullpl": "full",
    "glsxtrshort": "short", "glsxtrlong": "long", "glsxtrfull": "full", "Glsxtrshort": "short",
    "Glsxtrlong": "long", "Glsxtrfull": "full", "glsfmtshort": "short", "glsfmtlong": "long",
    "ac": "first", "Ac": "first", "acp": "first", "Acp": "first", "acs": "short", "acsp": "short",
    "acl": "long", "Acl": "long", "aclp": "long", "Aclp": "long", "acf": "full", "Acf": "full",
    "acfp": "full", "Acfp": "full", "acsu": "short", "aclu": "long", "acused": "none",
    "glsxtrfullpl": "full", "Glsxtrfullpl": "full", "glsxtrshortpl": "short", "Glsxtrshortpl": "short",
    "glsxtrlongpl": "long", "Glsxtrlongpl": "long", "glsplural": "name", "Glsplural": "name",
    "glsfirst": "full", "Glsfirst": "full", "glsadd": "none", "glsunset": "none", "glsreset": "none",
    "acreset": "none", "Acs": "short", "Acsp": "short", "acfi": "full", "Acfi": "full",
}  # fmt: skip
# \glsdisp{key}{text}, \glslink{key}{text}: the text given is what is printed.
GLOSSARY_LINKS = ("glsdisp", "glslink", "Glsdisp", "Glslink")
PLURAL_USES = frozenset(
    {name for name in GLOSSARY_USES if name.endswith("pl")}
    | {"acp", "Acp", "acsp", "Acsp", "aclp", "Aclp", "acfp", "Acfp", "glsplural", "Glsplural"}
)
CAPITALISED_USES = frozenset(name for name in GLOSSARY_USES if name[0].isupper())

# Cross-references: \ref stays LaTeX's "??"; cleveref and hyperref name the kind from the label's prefix.
PLAIN_REFERENCES = ("ref", "pageref", "nameref", "labelcref", "cpageref", "Cpageref", "vpageref", "Vpageref", "eqref")
NAMED_REFERENCES = (
    "cref", "Cref", "autoref", "Autoref", "crefrange", "Crefrange", "namecref", "nameCref", "vref", "Vref",
    "fullref", "Fullref",
)  # fmt: skip
REFERENCE_KINDS = {
    "fig": "Figure", "figure": "Figure", "sfig": "Figure", "subfig": "Figure",
    "tab": "Table", "tbl": "Table", "table": "Table",
    "sec": "Section", "ssec": "Section", "subsec": "Section", "sub": "Section", "section": "Section",
    "subsection": "Section", "par": "Paragraph",
    "ch": "Chapter", "chap": "Chapter", "chapter": "Chapter", "part": "Part",
    "eq": "Equation", "eqn": "Equation", "equation": "Equation",
    "app": "Appendix", "appx": "Appendix", "apx": "Appendix", "appendix": "Appendix",
    "alg": "Algorithm", "algo": "Algorithm", "algorithm": "Algorithm", "lst": "Listing", "listing": "Listing",
    "code": "Listing", "thm": "Theorem", "theorem": "Theorem", "lem": "Lemma", "lemma": "Lemma",
    "def": "Definition", "defn": "Definition", "prop": "Proposition", "cor": "Corollary", "rem": "Remark",
    "ex": "Example", "exm": "Example", "item": "Item", "fn": "Footnote", "note": "Footnote",
}  # fmt: skip
_LABEL_PREFIX = re.compile(r"\s*([A-Za-z]+)[:_-]")


# What the prose reader makes of a document's structure.
SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph")
UNREAD_MACROS = (
    "label", "includegraphics", "bibliographystyle", "nocite", "citeleft", "citeright", "printbibliography",
    "vspace", "hspace", "newpage", "clearpage", "cleardoublepage", "maketitle", "tableofcontents", "printglossaries",
    "printglossary", "printacronyms", "listoffigures", "listoftables",
)  # fmt: skip
FLOATS = ("figure", "figure*", "table", "table*", "wrapfigure", "sidewaysfigure", "sidewaystable", "subfigure")
TABLES = ("tabular", "tabular*", "tabularx", "longtable", "array", "tabu", "tblr", "longtblr", "supertabular")
DISPLAY_MATH = (
    "equation", "equation*", "align", "align*", "gather", "gather*", "multline", "multline*",
    "eqnarray", "eqnarray*", "flalign", "flalign*", "alignat", "alignat*", "displaymath",
)  # fmt: skip
UNREAD_ENVIRONMENTS = ("thebibliography", "tikzpicture", "filecontents", "filecontents*", "acronym")
# Font and box commands pylatexenc reads as nothing: their argument is text of the sentence.
TEXT_WRAPPERS = (
    "texttt", "textsf", "textsc", "textrm", "textnormal", "textup", "textmd", "textsl", "mbox", "hbox",
    "textsuperscript", "textsubscript", "uppercase", "lowercase", "MakeUppercase", "MakeLowercase", "enquote",
    "textquote",
)  # fmt: skip
TEXT_AFTER_ONE = ("foreignlanguage", "textcolor", "colorbox", "hyperlink")  # \textcolor{red}{the text}
BLOCKS = ("abstract", "quote", "quotation", "center", "itemize", "enumerate", "description", "minipage")


def is_citation(name: str) -> bool:
    """``\\name`` cites the keys of its ``{...}`` argument."""
    return name in CITE_COMMANDS or ("cite" in name.lower() and name not in NOT_CITATIONS)


def citation_names(text: str) -> frozenset[str]:
    """The citation commands a text uses that are not among the known ones (a style's own ``\\citeX``)."""
    names = {m.group(1) for m in _CITE_LIKE.finditer(text)}
    return frozenset(name for name in names if is_citation(name) and name not in CITE_COMMANDS)


def reference_text(labels: str, capital: bool = True) -> str:
    """What ``\\cref{fig:a,fig:b}`` typesets, with "??" for the numbers: "Figures ?? and ??"."""
    names = [label for label in labels.split(",") if label.strip()]
    prefix = _LABEL_PREFIX.match(names[0]) if names else None
    kind = REFERENCE_KINDS.get(prefix.group(1).lower()) if prefix else None
    numbers = " and ".join(["??"] * len(names)) if len(names) < 3 else "??"
    if kind is None:
        return numbers or "??"
    kind = kind if capital else kind.lower()
    return f"{kind}{'s' if len(names) > 1 else ''} {numbers}"
