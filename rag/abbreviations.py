"""Abbreviations a text defines ("motoric cognitive risk syndrome (MCR)"), and its sentences spelled out for
matching: an abstract names its subject in full once and then by its short form, so the sentence that reports
the finding ("Pooled prevalence of MCR was 10%") shares no word with a question that names it in full, while
the aim that defines it does ("To review the prevalence of motoric cognitive risk syndrome (MCR)").

Definitions are found as Schwartz and Hearst (2003, "A simple algorithm for identifying abbreviation definitions
in biomedical text") find them: a short form in parentheses after its long form, the short form's letters found
in order in the words before it, the first at the start of a word, within min(|SF| + 5, 2|SF|) words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from rag.text import tokenize

# A short form: 2 to 10 characters, starting with a letter or digit, holding an upper-case letter ("MCR",
# "ESs", "mRNA", "IL-6"), no spaces.
_DEFINED = re.compile(r"\(\s*([A-Za-z0-9][\w\-/&.]{1,9}?)\s*[);,]")
_UPPER = re.compile(r"[A-Z]")
# The long form ends with the word before the parenthesis; these words are not part of it.
_WORD = re.compile(r"\S+")
MAX_EXTRA_WORDS = 5


def definitions(text: str) -> Mapping[str, str]:
    """Each short form the text defines, with its long form (the first definition of a short form wins)."""
    found: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        short = match.group(1).rstrip(".")
        if short in found or not _UPPER.search(short) or not any(c.isalpha() for c in short):
            continue
        before = _WORD.findall(text[: match.start()])
        limit = min(len(short) + MAX_EXTRA_WORDS, 2 * len(short))
        words = before[-limit:]
        # The window ends at the sentence or clause before: "... groups. Body mass index (BMI)" is "Body mass index".
        for cut in range(len(words) - 1, 0, -1):
            if words[cut - 1].endswith((".", ";", ":", ",", ")")) and not words[cut - 1].endswith("et al."):
                words = words[cut:]
                break
        long = _long_form(short, " ".join(words).strip("([{\"'“ "))
        if long is not None:
            found[short] = long
            if short.endswith("s") and short[:-1].isupper() and len(short) > 2:  # "ESs": "ES" too
                found.setdefault(short[:-1], long)
    return found


def _long_form(short: str, words: str) -> str | None:
    """The shortest end of ``words`` in which the short form's letters and digits appear in order, its first at
    the start of a word (Schwartz and Hearst's findBestLongForm), or None."""
    s, at = len(short) - 1, len(words) - 1
    while s >= 0:
        char = short[s].lower()
        if not char.isalnum():
            s -= 1
            continue
        while at >= 0 and (words[at].lower() != char or (s == 0 and at > 0 and words[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
        at -= 1
        s -= 1
    long = words[words.rfind(" ", 0, at + 1) + 1 :]
    if len(long) <= len(short) or short.lower() in long.lower().split():
        return None
    return long


# A long form counts as named by the reader's text when it holds this share of its terms ("restless legs" for
# "restless legs syndrome").
NAMED_SHARE = 0.5


def spelled_out(sentences: Sequence[str], wanted: str) -> list[str]:
    """``sentences`` for matching against ``wanted`` (a question, a claim): where ``wanted`` names a thing in
    full and a sentence only by the short form the sentences define, the sentence followed by the long form
    ("The prevalence of MCR was 10%. (Motoric cognitive risk syndrome)"); where ``wanted`` uses the short form
    and a sentence only the long form, by the short form. Never shown; other sentences unchanged (a copy of a
    sentence still matches it word for word)."""
    defined = _defined_in(" ".join(sentences))
    terms = set(tokenize(wanted))
    shorts: dict[str, list[str]] = {}
    for short, long in defined.items():
        shorts.setdefault(long, []).append(short)
    # Which way ``wanted`` names each thing defined is the same for every sentence: a long form to give, or a
    # short form; most of the time neither, and the sentences are matched as they are.
    give: dict[str, str | None] = {}
    for long, forms in shorts.items():
        long_terms = set(tokenize(long))
        names_long = len(long_terms & terms) >= NAMED_SHARE * len(long_terms) > 0
        names_short = any(set(tokenize(f)) <= terms for f in forms)
        if names_long != names_short:
            give[long] = forms[0] if names_short else None
    if not give:
        return list(sentences)
    forms_used = _short_forms(tuple(sorted(defined)))
    out = []
    for sentence in sentences:
        used = {defined[found] for found in forms_used.findall(sentence)}
        lowered = sentence.lower()
        added = []
        for long, short_form in give.items():
            has_short, has_long = long in used, long.lower() in lowered
            if short_form is None and has_short and not has_long:
                added.append(long)
            elif short_form is not None and has_long and not has_short:
                added.append(short_form)
        out.append(f"{sentence} ({'; '.join(added)})" if added else sentence)
    return out


def written_out(sentences: Sequence[str]) -> list[str]:
    """The sentences that use a short form the sentences define, each with its short forms replaced by their long
    forms in place ("It can be shown that the CSI is not unbiased" -> "... that the critical success index is not
    unbiased"): a sentence that restates one of them in full aligns with it word for word. For matching only."""
    defined = _defined_in(" ".join(sentences))
    if not defined:
        return []
    forms = _short_forms(tuple(sorted(defined)))
    out = []
    for sentence in sentences:
        lowered = sentence.lower()
        if any(defined[found].lower() not in lowered for found in forms.findall(sentence)):
            out.append(forms.sub(lambda m: defined[m.group(0)], sentence))
    return out


@lru_cache(maxsize=4096)
def _defined_in(text: str) -> Mapping[str, str]:
    """``definitions`` of an abstract, kept: the check reads one abstract against many sentences."""
    return definitions(text)


def with_long_forms(sentence: str, defined: Mapping[str, str]) -> str:
    """``sentence`` followed by the long form of each short form of ``defined`` (a manuscript's abbreviations)
    it uses without its long form: "CMB anisotropies were measured (cosmic microwave background)", so that it
    matches a cited abstract that names it in full. For matching only, never shown."""
    if not defined:
        return sentence
    found = _short_forms(tuple(sorted(defined))).findall(sentence)
    lowered = sentence.lower()
    added = dict.fromkeys(defined[s] for s in found if defined[s].lower() not in lowered)
    return f"{sentence} ({'; '.join(added)})" if added else sentence


@lru_cache(maxsize=64)
def _short_forms(shorts: tuple[str, ...]) -> re.Pattern[str]:
    longest_first = sorted(shorts, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(s) for s in longest_first) + r")(?![\w-])")
