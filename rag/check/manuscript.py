"""A manuscript's citations checked like a linter, under the manuscript policy of the one citation check.

Its author read the whole paper, so what the abstract does not state is a note, not a problem. Problems are
what a reviewer must catch: *likely the wrong paper* (the cited paper fits the sentence far less than other
papers of the library do: rag.check.paper_fit, with the papers that fit better, keys ready to paste; or
the sentence names another paper's author, or a coined name only another paper uses: rag.check.named),
*contradicts* (the abstract states the opposite: the sentence restates one of its sentences closely and
reverses it, or the judge reads the abstract as stating its opposite or as saying otherwise, or the model judge
says so with --verify llm), and *retracted*. Notes: *fits, stated* (with the
evidence sentence), *fits, not stated in the abstract*, *cannot check* (not in the library, known by its
title only, no sentence). Each citation occurrence is checked; a sentence citing several papers is also read
against all of them together (each may state one half of it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache, partial

from rag.check.citation_place import Pairing, Place, stated_surely, suggested
from rag.check.citing_forms import generic_sentence, own_method
from rag.check.full_text import with_full_text
from rag.check.library_view import LibraryView
from rag.check.model_judge import judge_with_model
from rag.check.named import NamedWorks, coined_names, named_instead, names_another, names_other_work, work_named_instead
from rag.check.paper_fit import (
    CONTEXT_SENTENCES,
    FitModel,
    Pair,
    features,
    load_fit_model,
    textbook,
)
from rag.check.policy import MANUSCRIPT, conflict_of
from rag.check.reading import CitedText, describe, read_against, reversed_in
from rag.check.scoring import SourceScore, score_against_group, score_against_sources
from rag.check.sentences import Support
from rag.check.support_model import load_support_model
from rag.check.verdicts import (
    NO_SENTENCE,
    NOT_IN_LIBRARY,
    NOT_STATED,
    OTHER_LANGUAGE,
    STATED,
    STATED_TOGETHER,
    STATES_OPPOSITE,
    TITLE_ONLY,
    UNREADABLE_ENTRY,
    UNRELATED,
    CitationCheck,
    Suggestion,
    Verdict,
    judged_reversal,
    stating_opposite,
)
from rag.check.wrong_key import as_note, misfit, one_wrong_key_at_most, shielded
from rag.llm.types import ChatModel, Usage
from rag.manuscripts.citing import Cite, CitingSentence, Context
from rag.records import Paper, ProgressFn
from rag.text import reads_as_english

MAX_SUGGESTIONS = 3
# Papers of the library (closest to the sentence first) weighed as better fits for a flagged citation.
SUGGESTION_POOL = 10
# Not sentences (a table row's cells side by side, a heading): read leniently, never called a problem
# (a retraction is one wherever it is cited).
LENIENT = (Context.TABLE, Context.HEADING)


@dataclass
class ManuscriptChecker:
    library: LibraryView
    judge: ChatModel | None = None
    usage: Usage = field(default_factory=Usage)
    progress: ProgressFn | None = None
    fit_model: FitModel | None = None  # None: the shipped one (benchmarks/check_real.py calibrates with its own)
    max_suggestions: int = MAX_SUGGESTIONS
    _pairs: dict[tuple[str, str], Pairing] = field(default_factory=dict, init=False)
    _texts: dict[str, CitedText] = field(default_factory=dict, init=False)
    _fitted_scores: dict[tuple[str, str], float] = field(default_factory=dict, init=False)
    _nearby: dict[int, list[str]] = field(default_factory=dict, init=False)
    _works: NamedWorks | None = field(default=None, init=False)

    def check(self, sentences: Sequence[CitingSentence]) -> list[CitationCheck]:
        """One check per citation occurrence, in document order."""
        total = sum(len(s.cites) for s in sentences)
        cited_in = self._cited_in(sentences)
        if self.progress is not None and total:
            self.progress("checking citations", 0, total)  # the clock for "show a bar past 2 s" starts now
        results: list[CitationCheck] = []
        for index, sentence in enumerate(sentences):
            results += self._sentence(index, sentence, cited_in)
            if self.progress is not None:
                self.progress("checking citations", len(results), total)
        return results

    def check_some(self, sentences: Sequence[CitingSentence], indices: Sequence[int]) -> dict[int, list[CitationCheck]]:
        """The checks of the sentences at ``indices`` only (an editor's edited paragraph), each read against the
        whole manuscript as ``check`` reads it: the same key elsewhere, the papers its neighbours cite."""
        cited_in = self._cited_in(sentences)
        return {i: self._sentence(i, sentences[i], cited_in) for i in indices}

    def _sentence(self, index: int, sentence: CitingSentence, cited_in: dict[str, list[int]]) -> list[CitationCheck]:
        papers = [self.library.resolve(cite.key) for cite in sentence.cites]
        known = list({p.id: p for p in papers if p is not None and not p.no_abstract}.values())
        # Read together only when one of them does not state it alone (most sentences never need it).
        together = cache(lambda: self._together(sentence.reading, known) if len(known) > 1 else None)
        stated_without = partial(self._stated_without, sentence.reading, known)
        checks = []
        for cite, paper in zip(sentence.cites, papers, strict=True):
            place = Place.of(index, sentence, papers, paper, cited_in)
            check = self._citation(place, cite, paper, together, stated_without)
            check.context = sentence.context
            if sentence.context in LENIENT and check.verdict in (Verdict.WRONG_PAPER, Verdict.CONTRADICTS):
                as_note(check, f"in a {sentence.context.value}: not read as a sentence ({check.reason})")
            checks.append(check)
        one_wrong_key_at_most(checks)
        return checks

    def _citation(
        self,
        place: Place,
        cite: Cite,
        paper: Paper | None,
        together: Callable[[], Support | None],
        stated_without: Callable[[Paper], bool],
    ) -> CitationCheck:
        text, shown = place.text, place.shown
        if paper is None and self.library.listed(cite.key):
            return CitationCheck(cite, shown, Verdict.CANNOT_CHECK, UNREADABLE_ENTRY)
        if paper is None:  # LaTeX prints "?" for it, whatever the sentence
            near = self.library.near(cite.key)
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            return CitationCheck(cite, shown, Verdict.MISSING_KEY, NOT_IN_LIBRARY + hint)
        if not text:
            return CitationCheck(cite, shown, Verdict.CANNOT_CHECK, NO_SENTENCE, paper=paper)
        fit, threshold, named = self._fit(place, paper)
        if paper.retracted:
            return CitationCheck(cite, shown, Verdict.RETRACTED, "the paper was retracted", paper=paper, fit=fit)
        # A paper known by its title alone cannot be judged either way, and one whose author the sentence names
        # ("Bell's theorem") is the one meant: neither is ever called the wrong one; nor is a generic citation.
        # Nor can one whose abstract is in another language be judged (Born 1926 in German, cited in English).
        foreign = not paper.no_abstract and not reads_as_english(paper.text) and reads_as_english(text)
        poor = fit is not None and threshold is not None and fit < threshold and not paper.no_abstract and not named
        poor = poor and not foreign and not generic_sentence(text)
        if paper.no_abstract or foreign:
            reason = TITLE_ONLY if paper.no_abstract else OTHER_LANGUAGE
            check = CitationCheck(cite, shown, Verdict.CANNOT_CHECK, reason, paper=paper, fit=fit)
        else:
            check = self._read(place, cite, paper, fit, together)
        poor = poor and not shielded(check, stated_without)
        self._call_wrong(check, place, fit, poor, named)
        return check

    def _read(
        self, place: Place, cite: Cite, paper: Paper, fit: float | None, together: Callable[[], Support | None]
    ) -> CitationCheck:
        """The citation read against its paper: contradicted, stated (alone or with the sentence's other papers)
        or not stated in the abstract."""
        pairing = self._pair(place.text, paper)
        check = CitationCheck(
            cite, place.shown, Verdict.FITS_NOT_STATED, NOT_STATED, pairing.label, pairing.score.score,
            pairing.score.sentence or None, paper, fit=fit,
        )  # fmt: skip
        if pairing.contradiction:
            check.verdict, check.reason = Verdict.CONTRADICTS, pairing.contradiction
            if pairing.contradiction == STATES_OPPOSITE:
                check.evidence = stating_opposite(pairing.score, paper.title)
            elif pairing.reversed_in:
                check.evidence = pairing.reversed_in
        elif pairing.label.is_top:
            check.verdict = Verdict.FITS_STATED
            check.reason = STATED if pairing.passage is None else f"the full text states it ({pairing.passage})"
        elif (read := together()) is not None and read.is_top:
            check.verdict, check.reason = Verdict.FITS_STATED, STATED_TOGETHER
        return check

    def _call_wrong(self, check: CitationCheck, place: Place, fit: float | None, poor: bool, named: bool) -> None:
        """``check`` called the wrong paper where another paper is clearly meant: a tool, a survey or a "see [x]"
        that fits the sentence ``poor``ly is how citations are written, not a mistake. A textbook is cited for its
        field, unless it fits the sentence worse than nearly any paper ("Radar Meteorology" for backpropagation);
        so is what the author used ("we used [x]"). A coined name the paper never uses, which one other paper
        does, tells the key is wrong however well the paper fits ("we use the RLlib framework" citing a paper on
        trust regions), where its abstract neither states the sentence nor says otherwise (so it was read: it has
        one, in English) and the sentence has not ``named`` one of its authors."""
        paper = check.paper
        assert paper is not None  # a paper of the library is cited
        wrong = poor and not textbook(paper) and not own_method(place.text)
        meant = self._clearly_meant(place, paper, fit or 0.0) if wrong else []
        by_name = self._named_instead(place, paper) if wrong and not meant else []
        unstated = check.verdict is Verdict.FITS_NOT_STATED and not (named or meant or by_name)
        coined = unstated and bool(coined_names(place.shown))
        work = self._work_named_instead(place, paper, check.cite.key) if coined else None
        if meant:
            check.reason, check.suggestions = misfit(paper, self.library, place.index), meant
        elif by_name:
            check.reason, check.suggestions = names_another(by_name[0].paper), by_name
        elif work:
            check.reason, check.suggestions = names_other_work(work[0]), [work[1]]
        elif poor and self._unrelated(fit):
            check.reason = f"{misfit(paper, self.library, place.index)}; {UNRELATED}"
        else:
            return
        check.verdict, check.suggestions = Verdict.WRONG_PAPER, check.suggestions[: self.max_suggestions]

    def _unrelated(self, fit: float | None) -> bool:
        """Whether the cited paper fits its sentence so poorly that it is the wrong one, with no other paper
        clearly meant (FitModel.unrelated_below)."""
        model = self._fit_model()
        return model is not None and fit is not None and model.unrelated(fit)

    def _fit(self, place: Place, paper: Paper) -> tuple[float | None, float | None, bool]:
        """How well ``paper`` fits its sentence against the library, the wrong-paper threshold, and whether the
        sentence names one of its authors."""
        model = self._fit_model()
        values = self._fit_values(place, paper)
        if model is None or values is None:
            return None, None, False
        return model.probability(values), model.wrong_below(values), values["names_author"] > 0

    def _fit_values(self, place: Place, paper: Paper) -> dict[str, float] | None:
        scores, column = self.library.scores, self.library.column
        if scores is None or paper.id not in column:
            return None
        support = 0.0 if paper.no_abstract else self._pair(place.text, paper).score.fitted
        siblings_at = place.sibling_columns(column)
        nearby = [column[p] for p in self._nearby.get(place.index, ()) if p in column and p != paper.id]
        pair = Pair(place.index, column[paper.id], place.text, support, siblings_at, place.same_key, nearby)
        return features(scores, pair)

    def fit_values(self, sentences: Sequence[CitingSentence]) -> list[dict[str, float] | None]:
        """Each citation's fit features, in document order, as the check computes them (for fitting the model:
        benchmarks/check_real.py); None where the key is not in the library."""
        cited_in = self._cited_in(sentences)
        found: list[dict[str, float] | None] = []
        for index, sentence in enumerate(sentences):
            papers = [self.library.resolve(cite.key) for cite in sentence.cites]
            for paper in papers:
                place = Place.of(index, sentence, papers, paper, cited_in)
                found.append(None if paper is None else self._fit_values(place, paper))
        return found

    def _cited_in(self, sentences: Sequence[CitingSentence]) -> dict[str, list[int]]:
        """Each cited paper's sentences (by index); and, kept for the fit, the papers each sentence's
        neighbours cite."""
        cited_in: dict[str, list[int]] = {}
        cites: list[list[str]] = []
        for index, sentence in enumerate(sentences):
            cites.append([])
            for cite in sentence.cites:
                if (paper := self.library.resolve(cite.key)) is not None:
                    cited_in.setdefault(paper.id, []).append(index)
                    cites[-1].append(paper.id)
        self._nearby = {
            i: [p for j in range(max(i - CONTEXT_SENTENCES, 0), i + CONTEXT_SENTENCES + 1) if j != i
                for p in (cites[j] if j < len(cites) else [])]
            for i in range(len(cites))
        }  # fmt: skip
        return cited_in

    def _pair(self, text: str, paper: Paper) -> Pairing:
        """The support label of one (sentence, paper) pair and any reversal, worked out once; a paper whose
        full text the library holds is read in its abstract and the passages closest to the sentence."""
        key = (text, paper.id)
        if key not in self._pairs:
            read, passages = with_full_text(paper, text)
            score = score_against_sources([text], [read])[0][0]
            if passages:
                cited = CitedText.of(read)
            else:
                if paper.id not in self._texts:
                    self._texts[paper.id] = CitedText.of(paper)
                cited = self._texts[paper.id]
            reading = read_against(text, [cited])
            label = MANUSCRIPT.label(score.support, reading, conflict_of(score, reading, text))
            where_reversed = ""
            if reversed_here := MANUSCRIPT.reversals(reading):
                contradiction = describe(reversed_here, "the abstract")
                where_reversed = reversed_in(text, reversed_here, cited, reading)
            else:
                contradiction = judged_reversal(text, score, self._fit_model(), paper.title)
            if self.judge is not None:
                label = judge_with_model(text, [(1, paper)], self.judge, self.usage)
                contradiction = "the model judge: the paper contradicts it" if label is Support.CONTRADICTED else ""
            where = next((p.where for p in passages if score.sentence and score.sentence in p.text), None)
            self._pairs[key] = Pairing(score, label, contradiction, where, where_reversed if contradiction else "")
        return self._pairs[key]

    def reading(self, text: str, paper: Paper) -> SourceScore:
        """How ``paper`` backs ``text``, as this check read it (read once; benchmarks calibrate on it)."""
        return self._pair(text, paper).score

    def _stated_without(self, text: str, papers: Sequence[Paper], paper: Paper) -> bool:
        """Whether the other ``papers`` of a sentence state it without ``paper``: alone, or read together."""
        others = [p for p in papers if p.id != paper.id]
        if len(others) == 1:
            return self._pair(text, others[0]).label.is_top
        return len(others) > 1 and self._together(text, others).is_top

    def _together(self, text: str, papers: Sequence[Paper]) -> Support:
        if self.judge is not None:
            return judge_with_model(text, list(enumerate(papers, start=1)), self.judge, self.usage)
        together = score_against_group(text, papers)[0]
        return Support.CONTRADICTED if together.conflict else together.support

    def _clearly_meant(self, place: Place, cited: Paper, fit: float) -> list[Suggestion]:
        """Papers of the library the sentence clearly means instead of the one cited: each fits the sentence
        better against the library, says something of it, and is read by the judge as stating it (or fits it
        very well); ranked by the judge's reading, then the fit."""
        index, text, siblings = place.index, place.text, place.siblings
        scores, model = self.library.scores, self._fit_model()
        if scores is None or model is None:
            return []
        row = scores.similarity[index] if scores.has_vectors else scores.lexical[index]
        taken = {cited.id, *siblings}
        ranked = [int(j) for j in row.argsort()[::-1] if self.library.papers[int(j)].id not in taken]
        columns = place.sibling_columns(self.library.column)
        chosen: list[Suggestion] = []
        for j in ranked[:SUGGESTION_POOL]:
            paper = self.library.papers[j]
            support = 0.0 if paper.no_abstract else self._fitted(text, paper)
            values = features(scores, Pair(index, j, text, support, columns))
            probability = model.probability(values)
            if probability < model.wrong_below(values) or probability <= fit:
                continue  # decided by the fit alone: the judge reads only the papers that could be meant
            pairing = None if paper.no_abstract else self._pair(text, paper)
            # A paper named as the better one must say something of the sentence itself: its abstract at
            # least relates to it, or (known by title only) its title shares the sentence's words.
            speaks = values["title_coverage"] > 0 if pairing is None else pairing.label is not Support.UNSUPPORTED
            if not speaks:
                continue
            stated = 0.0 if pairing is None else stated_surely(pairing)
            if model.clearly_meant(stated, probability):
                chosen.append(suggested(paper, pairing, probability))
        return sorted(chosen, key=lambda s: (-s.stated, -s.score))

    def _named_instead(self, place: Place, cited: Paper) -> list[Suggestion]:
        """The paper whose author the sentence names ("Fucci et al."), when it cites another (rag.check.named)."""
        meant = named_instead(place.shown, self._cited_with(place, cited), self.library.papers)
        return [] if meant is None else self._suggestion(place, meant)

    def _work_named_instead(self, place: Place, cited: Paper, key: str) -> tuple[str, Suggestion] | None:
        """The coined name the sentence uses and the one paper using it, when the cited paper and the sentence's
        other papers do not (rag.check.named)."""
        if self._works is None:
            self._works = NamedWorks(self.library.papers)
        found = work_named_instead(place.shown, self._cited_with(place, cited), self._works, key)
        offered = self._suggestion(place, found[1]) if found else []
        return (found[0], offered[0]) if found and offered else None

    def _cited_with(self, place: Place, cited: Paper) -> list[Paper]:
        papers = self.library.papers
        return [cited, *(papers[j] for j in place.sibling_columns(self.library.column))]

    def _suggestion(self, place: Place, meant: Paper) -> list[Suggestion]:
        """``meant`` suggested for the sentence, with how well it fits it."""
        column, scores, model = self.library.column, self.library.scores, self._fit_model()
        if scores is None or model is None or meant.id not in column:
            return []
        siblings = place.sibling_columns(column)
        pairing = None if meant.no_abstract else self._pair(place.text, meant)
        support = 0.0 if pairing is None else pairing.score.fitted
        fits = model.probability(features(scores, Pair(place.index, column[meant.id], place.text, support, siblings)))
        return [suggested(meant, pairing, fits)]

    def _fitted(self, text: str, paper: Paper) -> float:
        """The fitted support score of the pair (what the fit model weighs), without the judge's reading."""
        key = (text, paper.id)
        if key in self._pairs:
            return self._pairs[key].score.fitted
        if key not in self._fitted_scores:
            read, _ = with_full_text(paper, text)
            self._fitted_scores[key] = load_support_model().score([text], [read.searchable_text()])[0].score
        return self._fitted_scores[key]

    def _fit_model(self) -> FitModel | None:
        return self.fit_model if self.fit_model is not None else load_fit_model()
