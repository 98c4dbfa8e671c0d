"""The check's judge: does a source passage state a sentence, say otherwise, or neither?

A small cross-encoder (all-MiniLM-L6-v2 fine-tuned on public claim/evidence data by training/train_judge.py,
int8 ONNX, shipped in ``judge/`` beside this module) reads the sentence against the few stretches of the source
it is closest to, one or two sentences each, and the best is taken: a faithful paraphrase, or a sentence
drawing on two sentences of one abstract, is read as stated even when it shares few words with any one of
them. "Smith et al. (2020) report that ..." is judged on what it reports: the paper's authors and year are
who it cites, not a claim about the world.

Turned off (the ``judge`` setting, ``RAG_JUDGE=false``), or with its model missing, the check reads with the
fitted score and the rules alone, as it did before the judge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from rag.check.rules import MIN_ALIGNED_SHARE, aligned_share, best_aligned, content_words, windows
from rag.check.rules.opposites import Opposite, Turn, borne_out, opposites
from rag.check.titles import without_title
from rag.corpus.roles import is_aim, is_method
from rag.embed.cross_encoder import CrossEncoder
from rag.text import split_sentences

JUDGE_DIR = Path(__file__).with_name("judge")
# The model was trained on passages and sentences cut to this many tokens together (training/train_judge.py).
MAX_TOKENS = 160
# Stretches of a source the judge reads for one sentence: the closest by shared content words.
PASSAGES_READ = 3
ENTAILMENT, CONTRADICTION, NEUTRAL = 0, 1, 2
# The source states the sentence's opposite (rag.check.rules.opposites) when the judge reads the opposite as
# stated with at least this probability, by at least this much more than the sentence itself, in a passage
# whose own words bear it out. A dropped denial needs more: the judge leans to "stated" for any sentence
# without "not". Chosen on a coarse grid over SciFact's labelled claims and the six real theses' citations with
# an abstract (taken as fine), first at 0.5 for a denial: 18 of 194 contradicted claims read as stating the
# opposite, 1 of 370 supported ones and 1 of 1,253 real citations (none flagged by `rag check`). A denial's margin
# is 0.3 since the judge was found reading a sentence given a "not" as stated too (0.64 for "Similar ideas have
# not been transferred to the control of simulated robots", whose source states they have): planted reversals in
# the real theses caught 60 -> 69 of 257 (benchmarks/check_real.py --rounds 1), real flags unchanged, one by one
# (after "not ... until" stopped being read as a denial), SciFact's verdicts unchanged.
OPPOSITE_STATED = {Turn.DIRECTION: (0.7, 0.3), Turn.DENIAL: (0.9, 0.3)}
# ...and in a passage restating the sentence (MIN_ALIGNED_SHARE of its content words), at this: there the judge
# reads what the sentence says, not a passage on a neighbouring point. A dropped denial: on SciFact's claims 2 more
# contradicted ones (the held-out groups' 15 -> 17 of 46) and no supported or neither-nor one; the real theses'
# flags unchanged (the same bar for every passage flagged 3 more real citations: "it does not indicate if these
# mRNAs are translated" against a passage on translational control). A direction turned needs only to be read more
# surely than the sentence: "Therapeutics receiving accelerated approval encounter a lower frequency of
# post-marketing safety events", read as stated at 0.50, whose opposite the passage restating it ("... were
# statistically significantly more frequent among ... those receiving accelerated approval") states at 0.72 (one
# more held-out contradicted claim; no other verdict of SciFact's or flag of the theses changed).
RESTATED_OPPOSITE_STATED = {Turn.DIRECTION: (0.7, 0.1), Turn.DENIAL: (0.8, 0.3)}
# "Smith et al. (2020) report that", "The authors found that", "According to Lee (2019),": who says it.
_ATTRIBUTION = re.compile(
    r"^(?:(?:according to|as (?:shown|reported|noted|found) by)\s+[^,]{1,80},\s*"
    r"|(?:[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?(?:\s+et\s+al\.?)?|the\s+authors|this\s+(?:study|paper|work)"
    r"|the\s+(?:study|paper|work|review|trial|analysis))\s*(?:\(\d{4}[a-z]?\)\s*)?"
    r"(?:also\s+|further\s+)?(?:report|reported|reports|show|showed|shows|shown|found|find|finds|demonstrate|"
    r"demonstrated|demonstrates|observe|observed|observes|note|noted|notes|conclude|concluded|concludes|argue|"
    r"argued|argues|suggest|suggested|suggests|propose|proposed|proposes|describe|described|describes)\s+(?:that\s+)?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Judgement:
    """What the judge read of a sentence against a source: the probability that the source states it (the best
    over the stretches read), that it says otherwise (in that stretch), and the stretch."""

    stated: float
    contradicted: float
    passage: str
    # Every passage stating the sentence's opposite, surest first: where the surest is the paper's title naming
    # its topic, which states no opposite (rag.check.verdicts), another may.
    opposites: tuple[str, ...] = ()
    # P(the source says otherwise) in each other passage restating the sentence (MIN_ALIGNED_SHARE of its
    # content words), with the passage: a result reversing the sentence may be read as stating it less well than
    # a passage on another of its points (rag check reads them; an answer's check does not).
    restated: tuple[tuple[float, str], ...] = ()

    @property
    def opposite(self) -> str:
        """The surest passage stating the sentence's opposite; empty when none does."""
        return self.opposites[0] if self.opposites else ""


NOT_READ = Judgement(0.0, 0.0, "")


_switch = {"on": True}


def use_judge(on: bool) -> None:
    """Whether the check reads with the judge in this process (the ``judge`` setting; a command's Context
    sets it)."""
    _switch["on"] = on


def keep_readings(path: Path) -> None:
    """Keep what the judge reads on disk at ``path``: `rag check` run again reads only the sentences that changed."""
    judge = load_judge()
    if judge is not None:
        judge.keep_on_disk(path)


def load_judge() -> CrossEncoder | None:
    """The shipped judge (loaded once), or None when it is turned off or not installed."""
    return _shipped_judge() if _switch["on"] else None


@lru_cache(maxsize=1)
def _shipped_judge() -> CrossEncoder | None:
    model, tokenizer, _ = judge_files()
    if not model.is_file() or not tokenizer.is_file():
        return None
    return CrossEncoder(model, tokenizer, MAX_TOKENS)


def judge_files() -> tuple[Path, Path, Path]:
    """The shipped judge's model, tokenizer and combination files."""
    return JUDGE_DIR / "judge.onnx", JUDGE_DIR / "tokenizer.json", JUDGE_DIR / "combine.json"


def what_it_reports(sentence: str) -> str:
    """The sentence without its attribution: "Smith et al. (2020) report that X rose" -> "X rose"."""
    stripped = _ATTRIBUTION.sub("", sentence.strip(), count=1)
    return stripped[:1].upper() + stripped[1:] if stripped and stripped != sentence.strip() else sentence.strip()


def passages_for(sentence: str, text: str) -> list[str]:
    """The stretches of ``text`` (one or two sentences in a row) the sentence shares most content words with,
    and its two closest sentences read together wherever they stand (a sentence drawing on both)."""
    sentences = split_sentences(text)
    stretches = windows(sentences)
    if len(stretches) <= PASSAGES_READ:
        return list(stretches)
    mine = content_words(sentence)
    ranked = sorted(stretches, key=lambda s: -len(mine & content_words(s)))
    best, _ = best_aligned(sentence, stretches)
    chosen = list(dict.fromkeys([best, *ranked] if best else ranked))[:PASSAGES_READ]
    closest = sorted(range(len(sentences)), key=lambda i: -len(mine & content_words(sentences[i])))[:2]
    together = " ".join(sentences[i] for i in sorted(closest))
    return chosen if together in chosen else [*chosen, together]


def judge_texts(
    sentences: Sequence[str], texts: Sequence[str], titles: Sequence[str | None] | None = None
) -> list[Judgement]:
    """Each sentence against its source text (``texts[i]`` for ``sentences[i]``), and whether the text states its
    opposite, read in its findings (``_findings``: the paper's title, ``titles[i]``, where it only names its
    topic, aside); NOT_READ without a judge."""
    judge = load_judge()
    if judge is None:
        return [NOT_READ] * len(sentences)
    reported = [what_it_reports(s) for s in sentences]
    read = _best_readings(judge, reported, [passages_for(s, t) for s, t in zip(reported, texts, strict=True)])
    named = titles or [None] * len(texts)
    to_turn = [(i, o) for i, s in enumerate(reported) for o in opposites(s)]
    # Only the texts of sentences that have an opposite are read for their findings, each once.
    findings = {i: _findings(texts[i], named[i]) for i in dict.fromkeys(i for i, _ in to_turn)}
    turned = [(i, o, passages_for(o.text, findings[i])) for i, o in to_turn]
    turned = [(i, o, passages) for i, o, passages in turned if _may_state_opposite(o, passages, read[i])]
    if not turned:
        return read
    readings = _readings(judge, [o.text for _, o, _ in turned], [passages for _, _, passages in turned])
    for (i, opposite, _), rows in zip(turned, readings, strict=True):
        surest_first = sorted(rows, key=lambda row: -row[0])
        stating = tuple(p for stated, _, p in surest_first if _states(opposite, stated, p, read[i]))
        if stating and not read[i].opposites:
            read[i] = replace(read[i], opposites=stating)
    return read


def _findings(text: str, title: str | None) -> str:
    """``text`` without the sentences saying what its paper set out to do ("To assess the association between
    macrolides and pyloric stenosis" states no association, nor its opposite), nor its ``title`` where that only
    names its topic ("Use of macrolides in mother and child and risk of infantile hypertrophic pyloric stenosis",
    which the judge reads as stating the association, alone or read with the sentence after it), nor the sentences
    labelled as its methods ("INTERVENTION Cognitive behavioral therapy ... or placebo"): they state no finding,
    and, naming what the sentence names, they crowd out of the passages read the finding that states its opposite."""
    return " ".join(s for s in split_sentences(without_title(text, title)) if not (is_aim(s) or is_method(s)))


def _may_state_opposite(opposite: Opposite, passages: Sequence[str], sentence: Judgement) -> bool:
    """Whether reading the opposite against these passages could find it stated (``_states``): one of
    them bears it out in its own words, and the sentence is not read as stated so surely that the opposite could
    not beat it by the margin. Those that cannot are not read: about a tenth of a thesis's readings
    (elliotmartin92: 3,559 -> 3,175 pairs)."""
    margin = min(_bar(opposite, p)[1] for p in passages) if passages else 1.0
    return sentence.stated <= 1 - margin and any(borne_out(opposite, p) for p in passages)


def _states(opposite: Opposite, stated: float, passage: str, sentence: Judgement) -> bool:
    """Whether ``passage``, read as stating the opposite with probability ``stated``, states it (at its
    ``_bar``: OPPOSITE_STATED, or RESTATED_OPPOSITE_STATED where it restates the sentence) in its own words."""
    at, margin = _bar(opposite, passage)
    return stated >= at and stated - sentence.stated >= margin and borne_out(opposite, passage)


def _bar(opposite: Opposite, passage: str) -> tuple[float, float]:
    """How surely, and by how much more than the sentence, ``passage`` must be read as stating the opposite. A
    word denying in itself turned to its positive form ("ineffective" -> "effective") is a word swapped for its
    opposite, as a direction is, and cleared at a direction's bar: the judge's lean to "stated" is for a sentence
    with a "not" dropped, whose undenied form any passage on its topic seems to state (SciFact's claims: "Cognitive
    behavioral therapy is an ineffective treatment for insomnia" against "interventions based on CBT are
    superior to zopiclone treatment ..."; the passage must speak of what the word denies: ``borne_out``)."""
    turn = Turn.DIRECTION if opposite.said else opposite.turn
    if aligned_share(opposite.text, passage) >= MIN_ALIGNED_SHARE:
        return RESTATED_OPPOSITE_STATED[turn]
    return OPPOSITE_STATED[turn]


def _readings(
    judge: CrossEncoder, sentences: Sequence[str], chosen: Sequence[list[str]]
) -> list[list[tuple[float, float, str]]]:
    """Each sentence read against each of its passages (``chosen[i]`` for ``sentences[i]``): P(stated),
    P(says otherwise) and the passage."""
    pairs = [(p, s) for s, passages in zip(sentences, chosen, strict=True) for p in passages]
    probabilities = judge.probabilities(pairs)
    out, at = [], 0
    for passages in chosen:
        rows = probabilities[at : at + len(passages)]
        at += len(passages)
        out.append([(float(r[ENTAILMENT]), float(r[CONTRADICTION]), p) for r, p in zip(rows, passages, strict=True)])
    return out


def _best_readings(judge: CrossEncoder, sentences: Sequence[str], chosen: Sequence[list[str]]) -> list[Judgement]:
    """Each sentence read against the stretches of its text it is closest to (``chosen[i]`` for
    ``sentences[i]``: passages_for), the best reading kept."""
    out = []
    for sentence, rows in zip(sentences, _readings(judge, sentences, chosen), strict=True):
        if not rows:
            out.append(NOT_READ)
            continue
        best = max(range(len(rows)), key=lambda k: rows[k][0])
        # The contradiction read where the sentence is stated best, or in a passage restating it: elsewhere a
        # passage on another point says "otherwise" of nearly any sentence.
        restated = tuple(
            (otherwise, passage)
            for k, (_, otherwise, passage) in enumerate(rows)
            if k != best and aligned_share(sentence, passage) >= MIN_ALIGNED_SHARE
        )
        out.append(Judgement(*rows[best], restated=restated))
    return out
