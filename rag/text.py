"""Words and sentences, shared by retrieval and writing: tokenizing, sentence splitting, term coverage,
and showing untrusted text safely.

Imports nothing of rag: the index (BM25) and the writing layer (extractive
answers, verification, outlines) must agree on what a term is.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache
from typing import Any

# Bump when tokenize() changes: saved indexes with another version are rebuilt.
TOKENIZER_VERSION = "nltk179-snowball-acronym-plural-1"
# Shorter words ending in 's' ("bus", "gas") are left alone.
MIN_PLURAL_LENGTH = 3
_TOKEN = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


def stem(word: str) -> str:
    """The word's English stem, lower-cased ("increased" -> "increas")."""
    return str(_stemmer().stemWord(word.lower()))


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    # NLTK's English list (179 words): unlike the 33-word Lucene list it also drops
    # question words ("which", "what", "about", "how"), which questions to a paper
    # library are full of. SciFact nDCG@10 is unchanged, the dev questions gain.
    from bm25s.stopwords import STOPWORDS_EN_PLUS

    return frozenset(STOPWORDS_EN_PLUS)


# English prose is a fifth or more function words ("the", "of", "we"); a German, French or Italian abstract is
# under a tenth (0.04-0.08 in six theses' bibliographies, English abstracts 0.17 and up). Shorter texts say too
# little to tell and count as English.
ENGLISH_FUNCTION_WORDS = 0.12
MIN_WORDS_TO_TELL = 8
_LETTERS = re.compile(r"[^\W\d_]+")


def letter_words(text: str) -> list[str]:
    """The runs of letters in ``text``, lower-cased (no digits, no underscores): its words, as written."""
    return [word.lower() for word in _LETTERS.findall(text)]


def reads_as_english(text: str) -> bool:
    """Whether ``text`` is English prose, as far as its share of English function words tells."""
    words = letter_words(text)
    return len(words) < MIN_WORDS_TO_TELL or sum(w in stopwords() for w in words) >= ENGLISH_FUNCTION_WORDS * len(words)


def tokenize(text: str) -> list[str]:
    """Lower-cased, stop words dropped, Snowball-stemmed word tokens."""
    stop = stopwords()
    words = [w for w in _TOKEN.findall(text.lower()) if w not in stop and len(w) > 1]
    return [_strip_acronym_plural(word, stem) for word, stem in zip(words, _stemmer().stemWords(words), strict=True)]


def _strip_acronym_plural(word: str, stem: str) -> str:
    """Snowball keeps 'gpus', 'llms', 'dnns' whole; match them to 'gpu', 'llm', 'dnn'."""
    if stem == word and len(word) > MIN_PLURAL_LENGTH and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return stem


# Where one sentence ends and the next begins: after . ! or ? and space, before a capital, a digit, a bracket
# (a citation such as "[2] shows ...") or an opening quote.
SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[(\"'])")


def split_sentences(text: str) -> list[str]:
    """A text cut at every full stop before a capital: how the fitted support check reads abstracts (its
    evidence positions and measured numbers depend on it). Prose a reader reads uses ``split_prose``."""
    return [s.strip() for s in SENTENCE_BREAK.split(text) if s.strip()]


# Words that end with a full stop without ending the sentence (compared lower-cased, without the stop).
ABBREVIATIONS = frozenset(
    {
        "al", "e.g", "i.e", "cf", "vs", "viz", "approx", "resp", "ca", "ph.d",
        "fig", "figs", "eq", "eqs", "eqn", "eqns", "sec", "secs", "sect", "ch", "chap", "tab", "tbl",
        "ref", "refs", "no", "nos", "vol", "vols", "p", "pp", "thm", "lem", "def", "prop", "cor", "alg", "app", "appx",
        "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "dept", "univ", "ed", "eds",
        "exp", "exps", "expt", "expts", "suppl", "supp",  # "In Exp. 2, ...", "Suppl. Fig. 3"
        "sp", "spp", "subsp", "var", "cv",  # taxa: "Shigella spp. (27%)", "Giardia sp. and", "var. italica"
    }
)  # fmt: skip
# An initial (J. Smith) or letters with stops (e.g., U.S.); a lone lower-case letter ends sentences ("set x.").
_INITIALS = re.compile(r"[A-Z]|(?:[^\W\d_]\.)+[^\W\d_]")
_OPENERS = "([\"'“‘"


def is_abbreviation(word: str) -> bool:
    """``word`` (the text before a full stop) is an abbreviation or an initial, not a sentence's last word."""
    word = word.lstrip(_OPENERS)
    return bool(_INITIALS.fullmatch(word)) or word.lower() in ABBREVIATIONS


@lru_cache(maxsize=4)
def _sentence_end(marks: str) -> re.Pattern[str]:
    """A sentence may end at . ! ? or … followed by closing brackets or quotes, then citation marks."""
    attached = rf"(?:\s?[{marks}])*" if marks else ""
    return re.compile(rf"(?P<stop>[.!?…]+)(?P<close>[)\]\"'’”]*)(?P<marks>{attached})\s+(?=(?P<next>\S))")


# A full stop with no space after it, before a capitalised word: sentences an export ran together ("...12 to 72
# months.ConclusionsThe present review ...", "... except group DP.ConclusionsEndodontically ..."), not a number,
# an initial or an abbreviation ("U.S.", "e.g.").
_GLUED_STOP = re.compile(r"(?:(?<=[a-z0-9%)\]]\.)|(?<=[A-Z]{2}\.))(?=[A-Z][a-z])")
# ...or before a number opening the next one ("... functional pathways.120 pathways steered the cell ..."), after
# a word that is not an abbreviation ("vol.3 of").
_GLUED_NUMBER = re.compile(r"(?<=[a-z]{3}\.)(?=\d[\d,]*\s+[a-z])")
# ...or a numbered section of a structured abstract run on after a semicolon or a full stop, as MDPI journals
# print them ("... computational resource; (2) Methods: To address this problem, ..."): a sentence of its own.
_NUMBERED_SECTION = re.compile(r"(?<=[;.])\s+(?=\(\d\)\s+[A-Z][A-Za-z ,&/-]{2,60}:\s)")


def unglue(sentence: str) -> list[str]:
    """``sentence`` cut where sentences run together, each piece as the text has it (with its full stop)."""
    cuts = [m.start() for m in _GLUED_STOP.finditer(sentence)]
    cuts += [m.end() for m in _NUMBERED_SECTION.finditer(sentence)]
    for match in _GLUED_NUMBER.finditer(sentence):
        word = sentence[: match.start() - 1].rsplit(" ", 1)[-1]
        if not is_abbreviation(word):
            cuts.append(match.start())
    pieces = [sentence[a:b] for a, b in itertools.pairwise([0, *sorted(cuts), len(sentence)])]
    return [p.strip() for p in pieces if p.strip()]


def split_prose(paragraph: str, marks: str = "") -> list[str]:
    """One paragraph (whitespace collapsed) -> its sentences, split where a reader splits them: not after
    "et al.", "e.g.", "vs.", "Fig.", initials or inside numbers, nor before a lower-case word. ``marks`` is a
    regex character class of citation marks: a citation after a full stop stays with the sentence it ends
    (one that opens a sentence, before a lower-case word, goes with that one). A piece with no word of its own
    ("[1].", a citation alone after "etc.") joins the sentence before it."""
    end_at = _sentence_end(marks)
    is_mark = re.compile(f"[{marks}]").fullmatch if marks else (lambda _: None)

    def starts_sentence(char: str) -> bool:
        return char.isupper() or char.isdigit() or char in _OPENERS or bool(is_mark(char))

    sentences: list[str] = []
    start = 0
    for match in end_at.finditer(paragraph):
        if match.group("stop") == "." and is_abbreviation(paragraph[start : match.start()].rsplit(" ", 1)[-1]):
            continue
        following = match.group("next")
        if match.group("marks") and not starts_sentence(following):
            end = match.start("marks")  # "... good. \citet{x} found that": the citation opens the next one
        elif starts_sentence(following):
            end = match.end("marks")
        else:
            continue
        sentences.append(paragraph[start:end].strip())
        start = end
    sentences.append(paragraph[start:].strip())
    joined: list[str] = []
    for sentence in filter(None, sentences):
        if joined and not re.search(r"[^\W\d_]", sentence):
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined


def term_coverage(question: str, text: str) -> float:
    """Share of the question's (stemmed, non-stop) terms that occur in ``text``."""
    wanted = set(tokenize(question))
    return len(wanted & set(tokenize(text))) / len(wanted) if wanted else 0.0


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")


def printable(text: str) -> str:
    """Untrusted text (an abstract, a title) made safe to show: ANSI sequences and control/format characters
    (zero-width included) dropped, newlines kept. Every adapter that shows papers uses it (CLI, MCP)."""
    text = _ANSI.sub("", text)
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cf"))


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """'1 paper', '2 papers'; ``nouns`` for a plural that is not noun + s ('1 entry', '2 entries')."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"
