"""One function per command: each takes a ``Context`` (settings, reporting, seams) and a
request record, and returns a result record (rag.services.results, or an Answer).

May import: everything below it. Never typer or rich: the CLI and the MCP server
are adapters over these functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.services.check import library_view as library_view
    from rag.services.configuration import ConfigView as ConfigView
    from rag.services.configuration import effective as effective
    from rag.services.configuration import set_value as set_value
    from rag.services.configuration import unset_value as unset_value
    from rag.services.context import Context as Context
    from rag.services.contracts import answer_json as answer_json
    from rag.services.contracts import check_json as check_json
    from rag.services.contracts import collections_json as collections_json
    from rag.services.contracts import config_json as config_json
    from rag.services.contracts import doctor_json as doctor_json
    from rag.services.contracts import draft_json as draft_json
    from rag.services.contracts import eval_json as eval_json
    from rag.services.contracts import ingest_json as ingest_json
    from rag.services.contracts import listing_json as listing_json
    from rag.services.contracts import log_json as log_json
    from rag.services.contracts import remove_json as remove_json
    from rag.services.contracts import search_json as search_json
    from rag.services.contracts import show_json as show_json
    from rag.services.contracts import support_eval_json as support_eval_json
    from rag.services.doctor import diagnose as diagnose
    from rag.services.drafting import draft as draft
    from rag.services.evaluation import evaluate_retrieval as evaluate_retrieval
    from rag.services.evaluation import evaluate_support as evaluate_support
    from rag.services.history import entry as entry
    from rag.services.history import recent as recent
    from rag.services.ingest import reindex as reindex
    from rag.services.library import Library as Library
    from rag.services.manage import collections as collections
    from rag.services.manage import delete_library as delete_library
    from rag.services.manage import export as export
    from rag.services.manage import remove as remove
    from rag.services.mapping import build_map as build_map
    from rag.services.mapping import draw_map as draw_map
    from rag.services.read import papers as papers
    from rag.services.read import search as search
    from rag.services.read import show as show
    from rag.services.requests import DEFAULT_DOCUMENT as DEFAULT_DOCUMENT
    from rag.services.requests import DEFAULT_EXPORT as DEFAULT_EXPORT
    from rag.services.requests import DEFAULT_MAP_SEED as DEFAULT_MAP_SEED
    from rag.services.requests import INGEST_FORMATS as INGEST_FORMATS
    from rag.services.requests import CheckRequest as CheckRequest
    from rag.services.requests import DraftRequest as DraftRequest
    from rag.services.requests import EvalRequest as EvalRequest
    from rag.services.requests import MapRequest as MapRequest
    from rag.services.requests import SearchRequest as SearchRequest
    from rag.services.requests import SummaryRequest as SummaryRequest
    from rag.services.requests import SupportEvalRequest as SupportEvalRequest
    from rag.services.requests import WritingOptions as WritingOptions
    from rag.services.results import CheckReport as CheckReport
    from rag.services.results import Collections as Collections
    from rag.services.results import DoctorReport as DoctorReport
    from rag.services.results import EvalRun as EvalRun
    from rag.services.results import IngestResult as IngestResult
    from rag.services.results import Listing as Listing
    from rag.services.results import PaperView as PaperView
    from rag.services.results import RemoveResult as RemoveResult
    from rag.services.results import SearchResult as SearchResult
    from rag.services.results import SupportEvalRun as SupportEvalRun
    from rag.services.writing import ask as ask
    from rag.services.writing import summarize as summarize

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
