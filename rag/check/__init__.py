"""The citation check: does a source state what a sentence says? One check for answers, summaries, drafts,
the streamed preview and manuscripts, under two policies (rag.check.policy: an answer's sentence must be
stated by what it cites; a manuscript's author read the whole paper).

In the order it runs: ``claims`` (the [n] protocol; ``markers``) and ``replies`` (a model's JSON or [n] text
read into claims), ``screen`` (fragments, titles restated, repeats), ``scoring`` (the fitted support model,
``support_model``; ``model_judge`` for --verify llm) against ``sources``, ``reading`` (what the sentence adds
to or changes in them, by the rules of the ``rules/`` subpackage), ``policy``, then ``answers`` (a model's
reply as a checked answer), ``live`` (the streamed preview) and ``manuscript`` (a manuscript's citations,
``verdicts``, ``paper_fit``, the wrong-paper model, and ``named``, a sentence naming another paper's
author; weighed against a ``library_view``). ``sentences`` holds the records, ``subjects`` names a
vague subject.

May import: rag.records, rag.errors, rag.config, rag.text, rag.corpus.identity, rag.llm (types, prompts),
rag.embed (types), rag.manuscripts (citing sentences). Never writing, the index, formats or services.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.check.answers import REVERSED as REVERSED
    from rag.check.answers import UNSTATED as UNSTATED
    from rag.check.answers import Checked as Checked
    from rag.check.answers import check_each as check_each
    from rag.check.answers import check_reply as check_reply
    from rag.check.answers import has_supported_sentence as has_supported_sentence
    from rag.check.claims import Claim as Claim
    from rag.check.claims import rewrite_citation_runs as rewrite_citation_runs
    from rag.check.claims import split_cited_sentences as split_cited_sentences
    from rag.check.claims import with_citations as with_citations
    from rag.check.library_view import LibraryView as LibraryView
    from rag.check.live import OnSentence as OnSentence
    from rag.check.live import SentenceFeed as SentenceFeed
    from rag.check.manuscript import ManuscriptChecker as ManuscriptChecker
    from rag.check.markers import CITATION_GROUP as CITATION_GROUP
    from rag.check.markers import expand as expand
    from rag.check.model_judge import judge_with_model as judge_with_model
    from rag.check.paper_fit import ManuscriptScores as ManuscriptScores
    from rag.check.paper_fit import surnames_of as surnames_of
    from rag.check.policy import answer_label as answer_label
    from rag.check.reading import CitedText as CitedText
    from rag.check.reading import prepare as prepare
    from rag.check.replies import citation_schema as citation_schema
    from rag.check.replies import parse_structured as parse_structured
    from rag.check.replies import read_claims as read_claims
    from rag.check.replies import readable_stream as readable_stream
    from rag.check.scoring import score_against_group as score_against_group
    from rag.check.screen import first_occurrences as first_occurrences
    from rag.check.screen import fragment_reason as fragment_reason
    from rag.check.screen import no_news_terms as no_news_terms
    from rag.check.screen import repetition_watch as repetition_watch
    from rag.check.screen import restates_title as restates_title
    from rag.check.sentences import Answer as Answer
    from rag.check.sentences import AnswerMode as AnswerMode
    from rag.check.sentences import Citation as Citation
    from rag.check.sentences import CitedSentence as CitedSentence
    from rag.check.sentences import DroppedSentence as DroppedSentence
    from rag.check.sentences import Provenance as Provenance
    from rag.check.sentences import Support as Support
    from rag.check.sources import author_year as author_year
    from rag.check.sources import source_block as source_block
    from rag.check.sources import sources_text as sources_text
    from rag.check.subjects import cited_subjects as cited_subjects
    from rag.check.subjects import name_vague_subject as name_vague_subject
    from rag.check.support_model import load_support_model as load_support_model
    from rag.check.verdicts import CitationCheck as CitationCheck
    from rag.check.verdicts import Verdict as Verdict
    from rag.check.verdicts import finding as finding

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
