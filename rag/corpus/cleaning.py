"""Debris that PDFs and exports leave in running text, removed once at ingest so that search and quotes
see the same clean words: broken encodings and ligatures ("notiﬁcation" is not "notification" to BM25),
soft hyphens, words split at a line end ("communi- cation"), line numbers of a review manuscript,
copyright notices, funding, registration and keywords appended to an abstract, and section headings glued
onto the sentence after them ("3.3 Fault Tolerance Since the MapReduce ...").

Everything here works on text already run into one line (``normalize_text``), so a library saved by an
older rag can be cleaned again from its saved papers (``rag reindex``) with the very rules a new ingest
uses; what needs the page layout (running headers, page numbers) is rag.corpus.pdf.page_cleaning's job.
Each rule is idempotent: cleaning clean text changes nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from rag.corpus.identity import normalize_text

# Bump whenever a rule here or in rag.corpus.pdf.page_cleaning changes what it removes: libraries record the
# cleaner that made them, and one made by an older one is told, once, that `rag reindex` cleans it.
CLEANER_VERSION = 2


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Full NFKC would also turn "10⁶" into "106", "x²" into "x2" and the "…" that marks a cut abstract into
# "...": only the compatibility characters PDFs leave by accident are folded (ftfy's ligature fix).
_INVISIBLE = re.compile("[\u00ad\u200b\u2060\ufeff]")  # soft hyphen, zero-width space, word joiner, BOM
# A spacing accent that TeX-made PDFs put before its letter ("Universit´e", "G¨odel").
_SPACING_ACCENT = re.compile("([\u00b4`\u00a8])([AEIOUaeiouyn])")
_COMBINING = {"\u00b4": "\u0301", "`": "\u0300", "\u00a8": "\u0308"}

# "communi- cation": a word cut at a line end (run into one line), or "communi-\ncation" with the line end still
# there. Not "intra- and cross-dataset" (a suspended hyphen).
_BROKEN_WORD = re.compile(r"\b([^\W\d_]{1,30})- ([a-z][^\W\d_]{0,30})\b")
_LINE_END_BREAK = re.compile(r"\b([^\W\d_]{1,30})-\n\s*([a-z][^\W\d_]{0,30})\b")
_SUSPENDED = frozenset({"and", "or", "to", "nor", "vs", "versus", "but", "as", "than"})
# Compounds hyphenated in their own right, so the hyphen of "fine- grained" stays: their second part ...
_COMPOUND_HEADS = _words(
    "based driven aware specific related dependent like free rich level scale wise oriented centric grained "
    "world time trained term order art end source quality resolution layer step shot stage way class type "
    "dimensional domain agent user task performance sensitive efficient intensive invariant standing"
)
# ... or their first part, a whole word that rarely ends a line as a syllable.
_COMPOUND_FIRSTS = _words(
    "self non fine real high low well state long short large small full half zero one two three four five "
    "first second third top bottom open closed deep single double semi anti multi cross slow fast cost "
    "end all peer"
)
_WORD_ENDING = re.compile(r"(?:ing|ed|tion|sion|ment|ness|ity|ical|ive|ous|ful|less|able)$")
# Where the line end is gone, "x- y" is as often a dash typed as a hyphen ("sources- actual speech",
# "OpenFluor- an online library"): only a second part that is plainly a word's ending is joined to the first.
# A line-end hyphen left inside a word whose line end is gone with no space ("a higher probabil-ity of"): the
# second part is a suffix that is never a word of its own, so no compound is broken ("co-mention" and
# "inter-session" stay).
_SPLIT_SUFFIX = re.compile(
    r"\b([^\W\d_]{3,30})-(ity|ities|tion|tions|sion|sions|ment|ments|ness|ance|ances|ence|ences|ation|ations|"
    r"ization|izations|isation|isations|ically)\b"
)
_SUFFIX_START = re.compile(r"^(?:[a-z]{0,3}(?:tion|sion)|(?:s|c|l)?ity|ment|ness|ance|ence|ulat|lization|ization|ture)")

# Line numbers of a manuscript under review, run into the text: 7, 8, 9 ... each between two words of a
# sentence and a line's worth of words (3 to 25) apart. Four in a row, most of them mid-sentence.
_NUMBER = re.compile(r"[0-9]{1,4}")
MIN_LINE_NUMBER_RUN = 4
LINE_WORDS = (3, 25)
# A number after these is a label ("Experiment 2", "Cluster 3"), not a line number.
_LABEL_WORDS = _words(
    "experiment experiments study studies section sections table tables figure figures fig fig. step steps "
    "phase stage group groups cluster clusters type level model version day days week weeks month months year "
    "years trial cohort case example equation eq eq. lemma theorem hypothesis question part round grade class "
    "wave session task condition series chapter page pages no. number"
)

# "© 2013 Elsevier B.V.", "Copyright © 2021 AAAI", "(c) 2012 APA", "Copyright of X is the property of".
_COPYRIGHT = re.compile(
    r"(?:\[ABSTRACT FROM [A-Z ]+\]\s*)?(?:\(?\bcopyright\b\s*(?:©|\(c\)|of\b|\d{4})|©|\([cC]\)\s*(?:19|20)\d\d)",
    re.IGNORECASE,
)
_NOTICE_END = re.compile(r"\ball rights reserved\.?\)?|\bpublished by [^.]+\.", re.IGNORECASE)
# A notice this far into the text runs to its end: what follows it is more of the notice.
NOTICE_FROM = 0.4
# Characters of an opening parenthesis before the notice that are part of it.
MAX_NOTICE_LEAD = 60

# What an export appends to an abstract that is not its text: who funded it, where it is registered, its keywords,
# disclosures ("... diagnostic classifiers. Supported By: European Union's Horizon 2020 ... Keywords: ADHD, ...",
# "Trial registration: ClinicalTrials.gov NCT01741363."). A label opening a sentence (not the text) is removed
# with what follows it up to the abstract's next section of its own ("RESULTS: ..."), or to the end when it comes
# past NOTICE_FROM of the text or within MAX_BACK_MATTER_CHARS of its end (a paper's own "(Registration:
# PACTR...)" inside a sentence stays). In the real libraries' 5,115 abstracts it cuts 115, all of them rightly.
_BACK_MATTER = re.compile(
    r"(?:^|(?<=\s))(?=[A-Z])(?i:supported by|funding(?: information| statement| sources?)?|financial support|"
    r"grant support|sources? of funding|key ?words|author keywords|disclosures?|conflicts? of interests?|"
    r"competing interests?|declarations? of (?:competing )?interests?|acknowledge?ments?|(?:(?:clinical )?trial|"
    r"study|systematic review|protocol|prospero) registration(?: numbers?)?|registration|data availability"
    r"(?: statement)?)\s?:"
)
MAX_BACK_MATTER_CHARS = 300
# The word "Abstract" a publisher's page put before the text ("Abstract. The deep sea ...", "Abstract In 2014, the
# discovery ..."): 102 of the real libraries' abstracts open so. Not a title-case term it begins ("Abstract Syntax
# Trees are ...").
_ABSTRACT_WORD = re.compile(r"^(?:Abstract|ABSTRACT)(?:\s*[.:]\s*|\s+(?=[A-Z0-9][\w'’-]*\s+[^A-Z\s]))")
_OWN_SECTION = re.compile(
    r"\s(?=(?=[A-Z])(?i:background|objectives?|aims?|methods?|results?|findings|conclusions?|interpretation)\s?:)"
)

# "3.3 Fault Tolerance Since the ...", "2. Preliminaries and notation The notation ...", "1 Introduction Deep
# ...": a section number at a sentence start, a short heading, then the sentence. The heading ends before
# the capitalised word that starts the sentence (followed by a lower-case word).
_HEADING_NUMBER = re.compile(r"(?:(?<=^)|(?<=[.!?:]\s))((?:(?:1?\d|20)(?:\.\d{1,2}){0,3}\.?|[IVX]{1,4}\.)\s+)(?=[A-Z])")
MAX_HEADING_WORDS = 6
_SMALL_WORDS = _words("a an and as at by for from in of on or the to via with vs")
SECTION_NAMES = _words(
    "abstract introduction background motivation overview preliminaries related method methods methodology "
    "approach design implementation evaluation experiments experimental results discussion conclusion "
    "conclusions summary limitations acknowledgements acknowledgments appendix analysis setup model problem "
    "system architecture"
)


@lru_cache(maxsize=1)
def _ftfy_config() -> Any:
    import ftfy

    # Encoding repair (mojibake, Windows-1252 quotes in Latin-1 text) and ligatures; quotes, widths, HTML
    # entities and Unicode normal form are left as the readers made them (ids hash NFC text).
    return ftfy.TextFixerConfig(
        unescape_html=False, uncurl_quotes=False, fix_character_width=False, normalization="NFC", explain=False
    )


def fix_unicode(text: str) -> str:
    """Mojibake repaired, ligatures unfolded, invisible characters and TeX's spacing accents mended."""
    import ftfy

    if text.isascii():
        return text
    text = ftfy.fix_text(text, _ftfy_config())
    text = _INVISIBLE.sub("", text)
    if "\u00b4" in text or "`" in text or "\u00a8" in text:
        text = _SPACING_ACCENT.sub(lambda m: _compose(m.group(2) + _COMBINING[m.group(1)]), text)
    return text


def _compose(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFC", text)


def join_broken_words(text: str, vocabulary: frozenset[str] | None = None, at_line_ends: bool = False) -> str:
    """'communi- cation' -> 'communication', 'fine- grained' -> 'fine-grained', 'probabil-ity' -> 'probability';
    suspended hyphens stay.
    ``vocabulary`` (lower-case words of the whole document) decides first where it knows either form.
    ``at_line_ends``: the breaks are 'communi-\\ncation', known to be line ends, so an unknown word is
    joined (typesetters cut syllables far more often than at a compound's hyphen); run into one line,
    an unknown 'x- y' is left as written unless 'y' is plainly a word's ending."""
    pattern = _LINE_END_BREAK if at_line_ends else _BROKEN_WORD
    text = _SPLIT_SUFFIX.sub(r"\1\2", text)
    if ("-\n" if at_line_ends else "- ") not in text:
        return text
    known = vocabulary if vocabulary is not None else words_of(text)

    def join(match: re.Match[str]) -> str:
        first, second = match.group(1), match.group(2)
        joiner = None if second in _SUSPENDED else _joiner(first.lower(), second, known, at_line_ends)
        return f"{first}- {second}" if joiner is None else f"{first}{joiner}{second}"

    return pattern.sub(join, text)


def _joiner(first: str, second: str, known: frozenset[str], at_line_end: bool) -> str | None:
    """'' to join the parts, '-' to keep a compound's hyphen, None to leave them as written."""
    if first + second in known:
        return ""
    if f"{first}-{second}" in known or second in _COMPOUND_HEADS or first in _COMPOUND_FIRSTS:
        return "-"
    if at_line_end:
        return "-" if len(first) >= 5 and _WORD_ENDING.search(first) else ""
    return "" if _SUFFIX_START.match(second) else None


def words_of(text: str) -> frozenset[str]:
    """The lower-case words (hyphenated ones whole) of ``text``: what a hyphen break is judged against."""
    return frozenset(re.findall(r"[^\W\d_]+(?:-[^\W\d_]+)*", text.lower()))


def strip_line_numbers(text: str) -> str:
    """A manuscript's line numbers, run into its text, removed; other numbers kept."""
    tokens = text.split(" ")
    numbers = [(i, int(t)) for i, t in enumerate(tokens) if _NUMBER.fullmatch(t)]
    if len(numbers) < MIN_LINE_NUMBER_RUN:
        return text
    drop: set[int] = set()
    for start, (position, value) in enumerate(numbers):
        if position in drop:
            continue
        run = [position]
        for later, later_value in numbers[start + 1 :]:
            gap = later - run[-1] - 1
            if later_value == value + len(run) and LINE_WORDS[0] <= gap <= LINE_WORDS[1]:
                run.append(later)
            elif gap > LINE_WORDS[1]:
                break
        inside = sum(_mid_sentence(tokens, i) for i in run)
        if len(run) >= MIN_LINE_NUMBER_RUN and inside * 4 >= len(run) * 3:
            drop.update(run)
    return " ".join(t for i, t in enumerate(tokens) if i not in drop) if drop else text


def _mid_sentence(tokens: list[str], i: int) -> bool:
    if i == 0 or i + 1 >= len(tokens):
        return False
    before, after = tokens[i - 1], tokens[i + 1]
    return bool(re.search(r"[a-z,;]$", before) and re.match(r"[a-z(]", after)) and before.lower() not in _LABEL_WORDS


def strip_copyright(text: str) -> str:
    """A copyright notice removed: from it to the end when it comes late in the text (publishers append it)
    or is a database's "Copyright of X is the property of ...", else up to 'All rights reserved.' or
    'Published by X.' (a notice opening the abstract)."""
    match = _COPYRIGHT.search(text)
    if match is None:
        return text
    start = match.start()
    if start >= len(text) * NOTICE_FROM or match.group(0).lower().endswith("of"):
        head = text[:start]
        opened = head.rfind("(")  # "(PsycINFO Database Record (c) 2012 APA, ...)": the parenthesis goes too
        if opened != -1 and ")" not in head[opened:] and start - opened <= MAX_NOTICE_LEAD:
            head = head[:opened]
        return head.rstrip(" [")
    end = _NOTICE_END.search(text, match.end())
    if end is None or end.start() - start > 300:
        return text  # where the notice stops is unclear: better kept than cut into the abstract
    return (text[:start] + text[end.end() :]).strip()


def strip_back_matter(text: str) -> str:
    """An abstract without the word "Abstract" before it, nor the funding, registration, keywords and
    disclosures an export appended to it."""
    text = _ABSTRACT_WORD.sub("", text)
    for match in _BACK_MATTER.finditer(text):
        resumes = _OWN_SECTION.search(text, match.end())
        late = match.start() >= len(text) * NOTICE_FROM or len(text) - match.start() <= MAX_BACK_MATTER_CHARS
        if match.start() > 0 and (resumes or late):
            rest = text[resumes.end() :] if resumes else ""
            return strip_back_matter(f"{text[: match.start()].rstrip()} {rest}".strip())
    return text


def strip_glued_headings(text: str) -> str:
    """Numbered section headings run into the next sentence removed ('3.3 Fault Tolerance Since ...' ->
    'Since ...'); a number that starts a sentence of the text itself is left alone."""
    out: list[str] = []
    at = 0
    for match in _HEADING_NUMBER.finditer(text):
        if match.start() < at:
            continue
        end = _heading_end(text, match.end())
        if end is not None:
            out.append(text[at : match.start()])
            at = end
    out.append(text[at:])
    return "".join(out)


def _heading_end(text: str, start: int) -> int | None:
    """Where the sentence after a heading starting at ``start`` begins; None when this is no heading."""
    words = list(re.finditer(r"\S+", text[start : start + 200]))
    for n in range(1, min(len(words) - 1, MAX_HEADING_WORDS + 1)):
        word, following = words[n].group(0), words[n + 1].group(0)
        if word[0].isupper() and following[0].islower() and word.isalpha() and (len(word) > 1 or word in "AI"):
            heading = [w.group(0) for w in words[:n]]
            if _is_heading(heading):
                return start + words[n].start()
            return None
    return None


def _is_heading(words: list[str]) -> bool:
    """A section's usual name, or two or more Title Case words, without digits or sentence punctuation (one
    capitalised word after a number is as often a list item: "7. Conduct ROV transects ...")."""
    if any(not re.fullmatch(r"[A-Za-z][A-Za-z'&/-]*", w) for w in words):
        return False
    if words[0].lower() in SECTION_NAMES:
        return True
    return len(words) > 1 and all(w[0].isupper() or w.lower() in _SMALL_WORDS for w in words)


def clean_prose(text: str, notices: bool = True) -> str:
    """All of the above on one text (an abstract, a passage), as one line; ``notices`` False keeps copyright
    notices (a PDF page's are dropped as lines: cutting one "to the end" would lose the rest of the page)."""
    text = normalize_text(fix_unicode(text))
    if not text:
        return text
    text = strip_line_numbers(join_broken_words(text))
    if notices:
        text = strip_back_matter(strip_copyright(text))
    return normalize_text(strip_glued_headings(text))


# A conference abstract's number in its book of abstracts, which Embase exports at the start of its title
# ("29.3 IMPROVING MACHINE LEARNING PREDICTION ...", "T51. MACHINE LEARNING ..."). A bare number is left: it is
# a title's own as often ("21 Tesla Fourier Transform ...", "100 Years of Labor").
_ABSTRACT_NUMBER = re.compile(r"^(?:[A-Z]{1,2}\d{1,3}\.|\d{1,3}\.\d{1,2})\s+(?=[A-Z][A-Za-z])")


def clean_title(text: str) -> str:
    """A title: the Unicode repairs and broken words only (no notice or heading is a title's), without a
    conference abstract's number before it or the colon or semicolon an export left at its end ("A
    Characterization Framework for Software Deployment:")."""
    title = normalize_text(join_broken_words(normalize_text(fix_unicode(text))))
    return _ABSTRACT_NUMBER.sub("", title).rstrip(" :;,")
