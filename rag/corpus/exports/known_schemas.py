"""The exports rag knows by their columns (CSV) or keys (JSON), recognised without ``--field``.

A CSV is recognised by the columns in its header (``Schema.signature``, compared as
``column_key`` gives them), a JSON record by its keys; anything else is read with ``GENERIC``, the
column names most exports use. Column names are written as the exports write them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag.corpus.exports.schemas import Schema, column_key
from rag.corpus.exports.wos import WOS_SCHEMA
from rag.corpus.names import split_run_together

# PubMed's citation: "Nature. 2022 Apr;604(7906):502-508. doi: ..." (volume, issue, pages after the date).
_NLM_CITATION = re.compile(r";\s*(?P<volume>[\w-]+)?\s*(?:\((?P<issue>[^)]*)\))?\s*:\s*(?P<pages>[\w-]+)")
# Ovid's source: "Journal of Travel Medicine. 25 (1) (no pagination), 2018. Article Number: tay018. ..."
_OVID_SOURCE = re.compile(
    r"^(?P<venue>.+?)\.\s+(?P<volume>\d[\w-]*)\s*(?:\((?!no pagination)(?P<issue>[^)]*)\))?\s*"
    r"(?:\(no pagination\)|(?P<pages>[\w-]+))?\s*,\s*(?P<year>\d{4})"
)


def _groups(pattern: re.Pattern[str], text: str) -> dict[str, str]:
    found = pattern.search(text)
    return {name: value for name, value in found.groupdict().items() if value} if found else {}


def nlm_citation(text: str) -> dict[str, str]:
    return _groups(_NLM_CITATION, text)


def ovid_source(text: str) -> dict[str, str]:
    return _groups(_OVID_SOURCE, text)


GENERIC = Schema(
    "generic",
    None,
    {
        "title": ("title", "display_name", "name", "document title", "item title", "article title"),
        "abstract": ("abstract", "summary", "text", "abstract_inverted_index", "abstract note"),
        "authors": ("authors_parsed", "authors", "authorships", "author", "creators", "author names"),
        "year": ("year", "publication_year", "published", "update_date", "date", "publication date", "issued"),
        "arxiv": ("arxiv", "arxiv_id", "externalIds.ArXiv", "ids.arxiv", "eprint", "id"),
        "doi": ("doi", "externalIds.DOI", "ids.doi"),
        "key": ("citekey", "key", "bibtex_key", "citation key"),
        "venue": ("venue", "journal", "container-title", "booktitle", "source title", "publication title"),
        "volume": ("volume",),
        "issue": ("issue",),
        "pages": ("pages", "page"),
        "page_start": ("first page", "start page", "page start"),
        "page_end": ("last page", "end page", "page end"),
        "publisher": ("publisher",),
        "url": ("url", "link"),
        "type": ("type", "item type", "document type", "publication type"),
    },
)
_COMMON = {name: GENERIC.fields[name] for name in ("title", "abstract", "doi", "volume", "issue", "publisher")}

SCOPUS = Schema(
    "Scopus",
    "database",
    {
        **_COMMON,
        "authors": ("author full names", "authors"),
        "year": ("year",),
        "venue": ("source title",),
        "page_start": ("page start",),
        "page_end": ("page end",),
        "pages": ("art. no.",),
        "url": ("link",),
        "type": ("document type",),
    },
    signature=frozenset({"eid", "sourcetitle"}),
)
# Embase: the classic one-record-per-row CSV and the newer one-field-per-line layout (rag.corpus.exports.csvfile)
# have the same names, in title case or capitals.
EMBASE = Schema(
    "Embase",
    "database",
    {
        **_COMMON,
        "authors": ("author names",),
        "year": ("publication year", "date of publication"),
        "venue": ("source title",),
        "page_start": ("first page",),
        "page_end": ("last page",),
        "url": ("full text link", "embase link"),
        "type": ("publication type",),
    },
    signature=frozenset({"authornames", "sourcetitle"}),
)
OVID = Schema(
    "Ovid",
    "database",
    {
        "title": ("ti",),
        "abstract": ("ab",),
        "authors": ("au",),
        "publisher": ("pb",),
        "doi": ("do",),
        "citation": ("so",),
    },
    signature=frozenset({"ui", "ti", "so", "au"}),
    citation=ovid_source,
)
PUBMED_CSV = Schema(
    "PubMed",
    "medline",
    {
        "title": ("title",),
        "authors": ("authors",),
        "year": ("publication year",),
        "venue": ("journal/book",),
        "doi": ("doi",),
        "citation": ("citation",),
        "url_id": ("pmid",),
    },
    signature=frozenset({"pmid", "citation", "journalbook"}),
    citation=nlm_citation,
    url_template="https://pubmed.ncbi.nlm.nih.gov/{}/",
)
OPENALEX = Schema(
    "OpenAlex",
    "openalex",
    {
        "title": ("title", "display_name"),
        "abstract": ("abstract", "abstract_inverted_index"),
        "authors": ("authorships.author.display_name", "authorships"),
        "year": ("publication_year",),
        "venue": ("primary_location.source.display_name", "host_venue.display_name"),
        "volume": ("biblio.volume",),
        "issue": ("biblio.issue",),
        "page_start": ("biblio.first_page",),
        "page_end": ("biblio.last_page",),
        "doi": ("doi", "ids.doi"),
        "arxiv": ("ids.arxiv",),
        "url": ("primary_location.landing_page_url", "doi"),
        "type": ("type",),
    },
    signature=frozenset({"displayname", "publicationyear"}),
)
SEMANTIC_SCHOLAR = Schema(
    "Semantic Scholar",
    "s2",
    {
        **_COMMON,
        "authors": ("authors",),
        "year": ("year",),
        "venue": ("journal.name", "venue", "publicationVenue.name"),
        "volume": ("journal.volume",),
        "pages": ("journal.pages",),
        "doi": ("externalIds.DOI",),
        "arxiv": ("externalIds.ArXiv",),
        "url": ("url",),
        "type": ("publicationTypes",),
    },
    signature=frozenset({"paperid"}),
)
ARXIV = Schema(
    "arXiv",
    None,
    {**_COMMON, "authors": ("authors_parsed", "authors"), "year": ("update_date",), "arxiv": ("id",)},
    signature=frozenset({"authorsparsed"}),
    default_type="article",
)
COCHRANE = Schema(
    "Cochrane CENTRAL",
    "database",
    {
        **_COMMON,
        "authors": ("author(s)",),
        "year": ("year",),
        "venue": ("source",),
        "pages": ("pages",),
        "url": ("url",),
        "type": ("publication type",),
    },
    signature=frozenset({"centralid"}),
)
IEEE = Schema(
    "IEEE Xplore",
    "ieee",
    {
        **_COMMON,
        "title": ("document title",),
        "authors": ("authors",),
        "year": ("publication year",),
        "venue": ("publication title",),
        "page_start": ("start page",),
        "page_end": ("end page",),
        "url": ("pdf link",),
        "type": ("document identifier",),
    },
    signature=frozenset({"documenttitle", "documentidentifier"}),
)
SPRINGER = Schema(
    "SpringerLink",
    "database",
    {
        "title": ("item title",),
        "authors": ("authors",),
        "year": ("publication year",),
        "venue": ("publication title", "book series title"),
        "volume": ("journal volume",),
        "issue": ("journal issue",),
        "doi": ("item doi",),
        "url": ("url",),
        "type": ("content type",),
    },
    signature=frozenset({"itemtitle", "contenttype"}),
    names=split_run_together,
)
# Zotero's own CSV. Its 'Key' is Zotero's item key (J6WKGJ3W), not a citekey: rag gives one.
ZOTERO_CSV = Schema(
    "Zotero",
    "zotero",
    {
        **_COMMON,
        "abstract": ("abstract note",),
        "authors": ("author",),
        "year": ("publication year", "date"),
        "venue": ("publication title", "conference name"),
        "pages": ("pages",),
        "url": ("url",),
        "type": ("item type",),
    },
    signature=frozenset({"key", "itemtype", "abstractnote"}),
)
KNOWN = (
    ZOTERO_CSV,
    SCOPUS,
    WOS_SCHEMA,
    EMBASE,
    OVID,
    PUBMED_CSV,
    COCHRANE,
    IEEE,
    SPRINGER,
    OPENALEX,
    SEMANTIC_SCHOLAR,
    ARXIV,
)


def schema_for(columns: Iterable[str]) -> Schema:
    """The known export whose columns (or JSON keys) these are; ``GENERIC`` for any other."""
    keys = {column_key(column) for column in columns}
    return next((schema for schema in KNOWN if schema.signature <= keys), GENERIC)
