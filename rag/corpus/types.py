"""Every format's names for kinds of work -> CSL item types, in one place (``csl_type``).

Records keep CSL's names ("article-journal", "paper-conference", "chapter", ...): they are what CSL JSON
and Pandoc write and read back, and BibTeX's entry types are derived from them when written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag.records import Paper

# CSL 1.0.2's item types.
CSL_TYPES = frozenset(
    {
        "article",
        "article-journal",
        "article-magazine",
        "article-newspaper",
        "bill",
        "book",
        "broadcast",
        "chapter",
        "classic",
        "collection",
        "dataset",
        "document",
        "entry",
        "entry-dictionary",
        "entry-encyclopedia",
        "event",
        "figure",
        "graphic",
        "hearing",
        "interview",
        "legal_case",
        "legislation",
        "manuscript",
        "map",
        "motion_picture",
        "musical_score",
        "pamphlet",
        "paper-conference",
        "patent",
        "performance",
        "periodical",
        "personal_communication",
        "post",
        "post-weblog",
        "regulation",
        "report",
        "review",
        "review-book",
        "software",
        "song",
        "speech",
        "standard",
        "thesis",
        "treaty",
        "webpage",
    }
)
_JOURNAL, _CONFERENCE = "article-journal", "paper-conference"
# Journal-like document types that many databases share (Scopus, Embase, WoS, PubMed, Cochrane, Springer).
_PERIODICAL_KINDS = {
    kind: _JOURNAL
    for kind in (
        "article",
        "journal article",
        "review",
        "editorial",
        "editorial material",
        "letter",
        "note",
        "short survey",
        "erratum",
        "correction",
        "data paper",
        "case reports",
        "comment",
        "retracted",
    )
}
_MEETING_KINDS = dict.fromkeys(
    ("conference paper", "conference review", "conference abstract", "proceedings paper", "conference proceeding"),
    _CONFERENCE,
)
_DATABASE_KINDS = {
    **_PERIODICAL_KINDS,
    **_MEETING_KINDS,
    "chapter": "chapter",
    "book chapter": "chapter",
    "book": "book",
    "preprint": "article",
    "trial registry record": "dataset",
    "reference work entry": "entry-encyclopedia",
    "meeting abstract": _CONFERENCE,
    "book review": "review-book",
}

# Each scheme: its (lower-case) type names -> CSL.
_SCHEMES: dict[str, dict[str, str]] = {
    "bibtex": {
        "article": _JOURNAL,
        "inproceedings": _CONFERENCE,
        "conference": _CONFERENCE,
        "incollection": "chapter",
        "inbook": "chapter",
        "inreference": "entry-encyclopedia",
        "book": "book",
        "mvbook": "book",
        "collection": "book",
        "proceedings": "book",
        "booklet": "pamphlet",
        "phdthesis": "thesis",
        "mastersthesis": "thesis",
        "thesis": "thesis",
        "techreport": "report",
        "report": "report",
        "manual": "report",
        "online": "webpage",
        "www": "webpage",
        "electronic": "webpage",
        "unpublished": "manuscript",
        "patent": "patent",
        "dataset": "dataset",
        "software": "software",
        "periodical": "periodical",
        "standard": "standard",
        "misc": "document",
    },
    # RIS TY values (the RIS specification, as Zotero, EndNote and the databases write them).
    "ris": {
        "jour": _JOURNAL,
        "jfull": _JOURNAL,
        "ejour": _JOURNAL,
        "inpr": _JOURNAL,
        "abst": _JOURNAL,
        "mgzn": "article-magazine",
        "news": "article-newspaper",
        "conf": _CONFERENCE,
        "cpaper": _CONFERENCE,
        "chap": "chapter",
        "echap": "chapter",
        "book": "book",
        "ebook": "book",
        "edbook": "book",
        "ser": "book",
        "thes": "thesis",
        "rprt": "report",
        "govdoc": "report",
        "elec": "webpage",
        "web": "webpage",
        "blog": "post-weblog",
        "data": "dataset",
        "comp": "software",
        "pat": "patent",
        "unpb": "manuscript",
        "manscpt": "manuscript",
        "stand": "standard",
        "dict": "entry-dictionary",
        "encyc": "entry-encyclopedia",
        "case": "legal_case",
        "stat": "legislation",
        "pcomm": "personal_communication",
        "icomm": "personal_communication",
        "video": "motion_picture",
        "map": "map",
        "gen": "document",
    },
    # Web of Science: DT (document type) first, else PT (J journal, C conference, B book, S book series, P patent).
    "wos": {**_DATABASE_KINDS, "j": _JOURNAL, "c": _CONFERENCE, "b": "book", "s": _CONFERENCE, "p": "patent"},
    "medline": {**_DATABASE_KINDS, "books and documents": "book"},
    # Zotero's item types (its CSV 'Item Type', its database).
    "zotero": {
        "journalarticle": _JOURNAL,
        "conferencepaper": _CONFERENCE,
        "booksection": "chapter",
        "book": "book",
        "thesis": "thesis",
        "report": "report",
        "webpage": "webpage",
        "preprint": "article",
        "blogpost": "post-weblog",
        "forumpost": "post",
        "magazinearticle": "article-magazine",
        "newspaperarticle": "article-newspaper",
        "document": "document",
        "manuscript": "manuscript",
        "presentation": "speech",
        "videorecording": "motion_picture",
        "film": "motion_picture",
        "computerprogram": "software",
        "dataset": "dataset",
        "patent": "patent",
        "encyclopediaarticle": "entry-encyclopedia",
        "dictionaryentry": "entry-dictionary",
        "letter": "personal_communication",
        "email": "personal_communication",
        "interview": "interview",
        "standard": "standard",
        "statute": "legislation",
        "case": "legal_case",
        "hearing": "hearing",
        "bill": "bill",
        "map": "map",
        "artwork": "graphic",
        "audiorecording": "song",
        "podcast": "broadcast",
        "radiobroadcast": "broadcast",
        "tvbroadcast": "broadcast",
    },
    # Scopus 'Document Type', Embase 'Publication Type', Cochrane, SpringerLink 'Content Type'.
    "database": _DATABASE_KINDS,
    "ieee": {
        "ieee journals": _JOURNAL,
        "ieee early access articles": _JOURNAL,
        "ibm journals": _JOURNAL,
        "ieee magazines": "article-magazine",
        "ieee conferences": _CONFERENCE,
        "ieee standards": "standard",
        "ieee books": "chapter",
    },
    # OpenAlex (and Crossref's older names, which OpenAlex once used).
    "openalex": {
        **_PERIODICAL_KINDS,
        "journal-article": _JOURNAL,
        "proceedings-article": _CONFERENCE,
        "book-chapter": "chapter",
        "book": "book",
        "monograph": "book",
        "edited-book": "book",
        "dissertation": "thesis",
        "preprint": "article",
        "posted-content": "article",
        "report": "report",
        "dataset": "dataset",
        "standard": "standard",
        "paratext": "document",
    },
    # Semantic Scholar's publicationTypes.
    "s2": {"journalarticle": _JOURNAL, "conference": _CONFERENCE, "review": _JOURNAL, "book": "book"},
}
_PARTS = re.compile(r"\s*;\s*")


def csl_type(scheme: str | None, value: object) -> str | None:
    """The CSL type for a format's type name (or list of names), None when it names no known kind.

    Compound values ("Article; Proceedings Paper", several MEDLINE PT lines) take the last part a
    scheme knows, the most specific one. Without a scheme, a CSL name is kept and others looked up in
    every scheme.
    """
    names: list[object] = [value] if isinstance(value, str) else list(value) if isinstance(value, Iterable) else []
    parts = [
        str(part).lower() for name in names if isinstance(name, str) for part in _PARTS.split(name.strip()) if part
    ]
    tables = [_SCHEMES[scheme]] if scheme in _SCHEMES else list(_SCHEMES.values())
    for part in reversed(parts):
        if part in CSL_TYPES and scheme is None:
            return part
        found = next((table[part] for table in tables if part in table), None)
        if found is not None:
            return found
    return None


# A trial registration (CENTRAL's "Trial registry record"): exports give the registry's id as its author and the
# registry's page as its source. Its text is the protocol, what the trial will do, not what it found.
_REGISTRY_ID = re.compile(
    r"(?:NCT\d{8}|ISRCTN\d{8}|CTRI/\d{4}/\d{2,3}/\d+|PACTR\d{10,}|ACTRN\d{14}|ChiCTR[\w-]+|DRKS\d{8}|IRCT\w+"
    r"|EUCTR[\w-]+|JPRN-\w+|KCT\d{7}|NTR\d+|TCTR\d+|UMIN\d+|SLCTR[\w/]+|RBR-\w+|CTIS[\w-]+)",
    re.IGNORECASE,
)
_REGISTRY_PAGE = re.compile(
    r"clinicaltrials\.gov|isrctn\.com|ctri\.nic\.in|pactr\.|anzctr\.org|chictr\.org|drks\.de|trialsearch\.who\.int"
    r"|irct\.(?:ir|behdasht)|umin\.ac\.jp|clinicaltrialsregister\.eu|trialregister\.nl|ensaiosclinicos\.gov",
    re.IGNORECASE,
)


def trial_registration(paper: Paper) -> bool:
    """Whether ``paper`` is a trial's registration: its author is a registry id, or its source a registry."""
    by_id = any(_REGISTRY_ID.fullmatch(author.strip(" ,;")) for author in paper.authors)
    return by_id or bool(paper.venue and _REGISTRY_PAGE.search(paper.venue))
