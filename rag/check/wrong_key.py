"""Which of a sentence's citations is the wrong paper: never one its abstract is read as stating, and at most one
of a sentence's (a key typed wrong is one key); and how the check tells why a paper looks like the wrong one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rag.check.library_view import LibraryView
from rag.check.sentences import Support
from rag.check.verdicts import NONE_FIT, STATED_TOGETHER, CitationCheck, Verdict
from rag.records import Paper
from rag.text import plural

# Of a sentence's citations that would each be the wrong paper, the one whose fit is at most this fraction of the
# next worst's is the wrong key, the rest notes. On six real theses and two rounds of keys planted in them: of the
# 15 real sentences with two or more such citations, the worst fits at least 0.28 of the next (none called
# wrong); of 42 with a planted key, 11 hold it this far below the rest (at a third: 18, and 2 real sentences).
FAR_WORSE = 0.2


def shielded(check: CitationCheck, stated_without: Callable[[Paper], bool]) -> bool:
    """Whether the citation's paper is read as stating the sentence, so that it is never the wrong paper. Stated
    together shields it only where the sentence needs it: a key that fits the sentence poorly beside papers that
    state it without it is a wrong key among right ones (six real theses, one round of planted swaps: 121 -> 152
    of 244 caught; real citations flagged 48 -> 52 of 1,253); and only where its own abstract bears on the
    sentence: one the check finds no evidence in adds nothing to the others' reading (156 -> 161 of 252 caught;
    real citations flagged 56 -> 57 of 2,047)."""
    if check.verdict is not Verdict.FITS_STATED:
        return False
    if check.reason != STATED_TOGETHER:
        return True
    assert check.paper is not None  # stated: read against a paper of the library
    return check.label is not Support.UNSUPPORTED and not stated_without(check.paper)


def one_wrong_key_at_most(checks: Sequence[CitationCheck]) -> None:
    """At most one of a sentence's citations called the wrong paper. When two or more would be, the sentence is
    what fits none of its papers (NONE_FIT), unless one of them fits it far worse than the rest (FAR_WORSE): a
    key typed wrong is one key, beside papers that fit the sentence poorly as its field's background does. On six
    real theses 19 of the 53 real citations flagged were such sentences (2 to 4 of one sentence's papers)."""
    wrong = sorted(
        (check for check in checks if check.verdict is Verdict.WRONG_PAPER),
        key=lambda check: check.fit if check.fit is not None else 1.0,
    )
    if len(wrong) < 2:
        return
    worst, next_worst = wrong[0].fit, wrong[1].fit
    alone = worst is not None and next_worst is not None and worst <= FAR_WORSE * next_worst
    for check in wrong[1:] if alone else wrong:
        as_note(check, NONE_FIT)


def as_note(check: CitationCheck, reason: str) -> None:
    """``check`` turned from a problem into a note (not stated in the abstract), saying why, suggesting nothing."""
    check.verdict, check.reason, check.suggestions = Verdict.FITS_NOT_STATED, reason, []


def misfit(paper: Paper, library: LibraryView, index: int) -> str:
    """Why the paper looks like the wrong one: where it ranks for the sentence among the library's papers."""
    scores = library.scores
    if scores is None or paper.id not in library.column:
        return "it does not fit the sentence"  # never reached: the fit needs the scores
    row = scores.similarity[index] if scores.has_vectors else scores.lexical[index]
    rank = int((row > row[library.column[paper.id]]).sum()) + 1
    return f"{plural(rank - 1, 'other paper')} of the library fit the sentence better (rank {rank} of {len(row)})"
