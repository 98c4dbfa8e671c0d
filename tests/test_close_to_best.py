"""Quotes only from papers close to the best match (issue 39: bullets on papers that match only part of the
question): a paper far below the best one's retrieval score is named among the papers found, not quoted."""

from __future__ import annotations

from rag.llm.types import Completion
from rag.records import Hit, Paper
from rag.writing.extractive import CLOSE_TO_BEST, close_to_best, extractive_answer
from rag.writing.generation import Composer

QUESTION = "Does caffeine reduce theta power in the resting EEG?"
CAFFEINE = Paper(
    id="a",
    title="Caffeine and the resting EEG",
    text="Caffeine reduced theta power in the resting EEG of healthy adults. Alpha power was unchanged.",
)
SECOND = Paper(
    id="b",
    title="A second caffeine trial",
    text="In a second trial, caffeine reduced resting EEG theta power in older adults.",
)
HANDBOOK = "Caffeine, theta power and the resting EEG: a handbook"
TITLE_ONLY = Paper(id="t", title=HANDBOOK, text=HANDBOOK, no_abstract=True)


def test_a_paper_far_below_the_best_is_not_quoted() -> None:
    far = extractive_answer(QUESTION, [Hit(CAFFEINE, 1, 1.0), Hit(SECOND, 2, CLOSE_TO_BEST / 2)], None, 0.3)
    assert [c.paper.id for c in far.citations] == ["a"]
    assert [p.id for p in far.uncited] == []  # not evidence at all: never a bullet
    near = extractive_answer(QUESTION, [Hit(CAFFEINE, 1, 1.0), Hit(SECOND, 2, 0.9)], None, 0.3)
    assert [c.paper.id for c in near.citations] == ["a", "b"]


def test_a_title_only_leader_does_not_set_the_bar() -> None:
    """The best that may be quoted sets it: a paper known by its title alone quotes nothing."""
    hits = [Hit(TITLE_ONLY, 1, 1.0), Hit(CAFFEINE, 2, 0.5), Hit(SECOND, 3, 0.45)]
    answer = extractive_answer(QUESTION, hits, None, 0.3)
    assert [c.paper.id for c in answer.citations] == ["a", "b"]
    assert [p.id for p in answer.related] == ["t"]


def test_close_to_best_keeps_order_and_handles_nothing() -> None:
    hits = [Hit(CAFFEINE, 1, 0.8), Hit(SECOND, 2, 1.0)]
    assert close_to_best(hits) == hits
    assert close_to_best([]) == []


class PromptReader:
    """A chat model that keeps the prompt it was given and answers with the first source's own words."""

    name = "prompt-reader"
    accepts_schema = False

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def complete(self, system: str, user: str, on_token: object = None, **_: object) -> Completion:
        self.prompts.append(user)
        return Completion("Caffeine reduced theta power in the resting EEG of healthy adults [1].")


def test_a_model_is_shown_only_the_papers_close_to_the_best() -> None:
    model = PromptReader()
    far = Paper(id="c", title="Coffee and sleep", text="Caffeine delayed sleep onset in the resting EEG lab.")
    Composer(model, None).answer(QUESTION, [Hit(CAFFEINE, 1, 1.0), Hit(SECOND, 2, 0.9), Hit(far, 3, 0.2)], 0.3)
    assert "A second caffeine trial" in model.prompts[0]
    assert "Coffee and sleep" not in model.prompts[0]
