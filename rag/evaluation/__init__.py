"""Measuring rag: retrieval metrics (nDCG, recall, MRR), BEIR folders, and how well the
citation check tells support from contradiction on labelled claims.

May import: everything below rag.services (it runs the writing layer's checks on labelled pairs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.evaluation.beir import beir_ids as beir_ids
    from rag.evaluation.beir import is_beir_folder as is_beir_folder
    from rag.evaluation.beir import load_beir as load_beir
    from rag.evaluation.metrics import MRR_DEPTH as MRR_DEPTH
    from rag.evaluation.metrics import NDCG_DEPTH as NDCG_DEPTH
    from rag.evaluation.metrics import EvalReport as EvalReport
    from rag.evaluation.metrics import LabelledQuestion as LabelledQuestion
    from rag.evaluation.metrics import evaluate as evaluate
    from rag.evaluation.metrics import load_questions as load_questions
    from rag.evaluation.metrics import ndcg as ndcg
    from rag.evaluation.perturbations import Kind as Kind
    from rag.evaluation.perturbations import Perturbed as Perturbed
    from rag.evaluation.perturbations import make_perturbations as make_perturbations
    from rag.evaluation.support import LabelledPair as LabelledPair
    from rag.evaluation.support import PairResult as PairResult
    from rag.evaluation.support import SupportReport as SupportReport
    from rag.evaluation.support import load_pairs as load_pairs
    from rag.evaluation.support import report as report
    from rag.evaluation.support import roc_auc as roc_auc
    from rag.evaluation.support import wilson as wilson

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
