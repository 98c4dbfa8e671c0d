"""Measuring rag: retrieval metrics (nDCG, recall, MRR), BEIR folders, and how well the
citation check tells support from contradiction on labelled claims.

May import: everything below rag.services (it runs the writing layer's checks on labelled pairs).
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "load_beir": "rag.evaluation.beir",
    "evaluate": "rag.evaluation.metrics",
    "load_questions": "rag.evaluation.metrics",
    "ndcg": "rag.evaluation.metrics",
    "roc_auc": "rag.evaluation.support",
    "wilson": "rag.evaluation.support",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
