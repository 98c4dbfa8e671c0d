"""A paper's own voice turned into the citing voice, changing the subject and nothing else.

"We show that X" -> "Kharitonov and Baroni (2020) show that X"; "In this paper, we propose Y" -> "Hazra et al.
(2021) propose Y"; "This study investigated Z" -> "Du et al. (2018) investigated Z"; "Our results suggest W" ->
"The results of Du et al. (2018) suggest W" (later first-person words become "they", "their", "them"). A
sentence that cannot be turned safely (it starts with "It" or "This is", refers back to what the abstract said
before, or is first person in a way these rules do not cover) is quoted and attributed instead: "Chaabouni et al.
(2020) write that “...”". A sentence in the third person that stands on its own is kept as written, cited at
its end. Rules, not a model: the words stay the source's, and every change is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum

from rag.corpus.identity import surname
from rag.records import Paper
from rag.text import stopwords


def _words(text: str) -> frozenset[str]:
    """A set of words written as one string (a long list reads better as prose)."""
    return frozenset(text.split())


class Voice(StrEnum):
    """How a source sentence became the draft's: its subject turned, kept as written, or quoted."""

    CITING = "citing_voice"
    VERBATIM = "verbatim"
    QUOTED = "quoted"


@dataclass(frozen=True)
class Turned:
    """A source sentence as the draft writes it."""

    text: str
    voice: Voice
    # The author-year naming the paper inside the text ("Hazra et al. (2021)"): the in-text citation.
    label: str | None = None
    # (what the paper wrote, what the draft writes), in order.
    changes: tuple[tuple[str, str], ...] = field(default_factory=tuple)


# Where the abstract says what kind of passage follows ("Objective.", "RESULTS:"): not part of a sentence...
SECTION_NAMES = (
    r"(?i:background|objectives?|aims?|purpose|introduction|context|importance|methods?|methodology|design|"
    r"setting|approach|results?|main results|findings|conclusions?|significance|interpretation|discussion|"
    r"summary|clinical significance|clinical relevance|clinical implications|materials and methods|"
    r"results and discussion|study design|practical implications)"
)
# ... with a full stop or a colon after it, or run into the sentence it heads ("Conclusions The ...").
_SECTION = re.compile(rf"^{SECTION_NAMES}(?:\s*[.:]\s+|\s+(?=[A-Z][a-z]))")
# Words that tie a sentence to the one before it in the abstract; dropped, the sentence stands alone. Words
# that also open a plain sentence ("Overall survival", "Further research", "First-line") only with a comma.
_CONNECTIVE = re.compile(
    r"^(?:(?:however|thus|hence|therefore|furthermore|moreover|additionally|in addition|finally|in summary|"
    r"in conclusion|to conclude|consequently|accordingly|importantly|notably|specifically|in particular|"
    r"as a result|taken together|collectively|altogether|nevertheless|nonetheless|conversely|in contrast|"
    r"on the other hand|firstly|secondly|thirdly|lastly|similarly|likewise|indeed|here|herein|in short|"
    r"in brief|in this context)\b,?|(?:also|overall|together|further|first|second|third|next|then|now),)\s+",
    re.IGNORECASE,
)
_DOCUMENT = (
    r"(?:paper|work|study|article|letter|research|review|thesis|report|manuscript|contribution|chapter|note|"
    r"communication|investigation|survey|project|analysis|essay|dissertation|trial)"
)
# "In this paper, ..." / "In the present study we ...": where the sentence is, said by the paper itself.
_FRAME = re.compile(rf"^(?:in|within|through) (?:this|the present|the current|our) {_DOCUMENT},?\s+", re.IGNORECASE)
# "This paper presents", "The present study investigated": the paper as the subject.
_DOCUMENT_SUBJECT = re.compile(
    rf"^(?:(?:this|the present|the current|our) {_DOCUMENT}|the (?:paper|study|article|review))\s+(\w+)\b",
    re.IGNORECASE,
)
# The same anywhere in a sentence ("The results of this study ..."): named "the study by ...".
_DOCUMENT_MENTION = re.compile(rf"\b(?:this|the present|the current) ({_DOCUMENT})\b", re.IGNORECASE)
# What the paper proposed, anywhere in a sentence ("the results show that the proposed approach ...").
_PROPOSED = re.compile(
    r"\b(the proposed|our proposed) (approach|method|model|framework|algorithm|system|scheme|technique|"
    r"architecture|network|strategy|procedure|protocol|design|tool|index|metric|measure)\b",
    re.IGNORECASE,
)
# Verbs a paper does what its authors do with ("This paper presents" = "the authors present").
_REPORTING = {
    "presents": "present", "proposes": "propose", "introduces": "introduce", "describes": "describe",
    "reports": "report", "shows": "show", "demonstrates": "demonstrate", "investigates": "investigate",
    "examines": "examine", "explores": "explore", "studies": "study", "provides": "provide", "develops": "develop",
    "evaluates": "evaluate", "analyzes": "analyze", "analyses": "analyse", "compares": "compare",
    "discusses": "discuss", "reviews": "review", "addresses": "address", "offers": "offer", "outlines": "outline",
    "argues": "argue", "suggests": "suggest", "summarizes": "summarize", "summarises": "summarise",
    "assesses": "assess", "quantifies": "quantify", "characterizes": "characterize", "tests": "test",
    "aims": "aim", "seeks": "seek", "identifies": "identify", "highlights": "highlight", "uses": "use",
    "applies": "apply", "extends": "extend", "considers": "consider", "measures": "measure",
    "documents": "document", "synthesizes": "synthesize", "maps": "map", "focuses": "focus",
    "presented": "presented", "proposed": "proposed", "introduced": "introduced", "described": "described",
    "reported": "reported", "showed": "showed", "demonstrated": "demonstrated", "investigated": "investigated",
    "examined": "examined", "explored": "explored", "studied": "studied", "provided": "provided",
    "developed": "developed", "evaluated": "evaluated", "analyzed": "analyzed", "analysed": "analysed",
    "compared": "compared", "assessed": "assessed", "aimed": "aimed", "sought": "sought", "tested": "tested",
    "quantified": "quantified", "identified": "identified", "used": "used", "applied": "applied",
}  # fmt: skip
# A structured abstract's aim written as an infinitive with no clause of its own ("To evaluate the wear of
# ..."): no sentence in a paragraph; "X et al. (2019) aimed to evaluate ..." is. Words that make a main clause
# (a finite verb, a subject) or follow "To" without being its verb ("To date, ...", "To this end, ...") rule it out.
_INFINITIVE_AIM = re.compile(r"^To ([a-z]+)\b(?! with,)")  # not "To start with, you'll ..." (an opener)
_MAIN_CLAUSE = _words(
    "we i you is are was were has have had will would can could may might should must did does do showed found "
    "revealed indicated suggested demonstrated"
)
# A sentence starting with one of these refers back to the abstract's earlier sentences.
_PRONOUN_START = re.compile(r"^(?:it|its|they|their|them|he|she|such|both|the latter|the former)\b", re.IGNORECASE)
_DEMONSTRATIVE = re.compile(r"^(this|these|that|those|the proposed|the resulting)\s+", re.IGNORECASE)
# Words that end a short noun phrase: the verb after "This method" or "Our results".
_VERBS = _words(
    "is are was were has have had can could may might will would should must does did allows allowed "
    "enables enabled shows showed show suggests suggested suggest indicates indicated indicate implies "
    "implied reveals revealed reveal provides provided provide makes made leads led yields yielded "
    "demonstrates demonstrated demonstrate confirms confirmed confirm supports supported support "
    "highlights highlighted highlight improves improved improve outperforms outperformed outperform "
    "achieves achieved achieve offers offered requires required resulted remains remained seems seemed "
    "appears appeared"
)
_NOUN_PHRASE_WORDS = 3
# What "This ..." or "These ..." in an abstract names when it is the paper's own work, not something the
# abstract spoke of before ("These models are typically trained ..." are everyone's models).
_OWN_WORK = _words(
    "method approach framework algorithm system technique scheme architecture tool study work paper article "
    "analysis analyses results findings experiments evaluation design protocol review survey procedure strategy "
    "platform dataset implementation solution investigation research contribution thesis observations outcomes "
    "data estimates simulations"
)
# ...and what else "our" owns when it is the authors' ("our aim", "our sample", "our earlier survey"); what it
# owns beyond these is everyone's ("our memories", "our understanding of") and is not given to the paper.
_OWNED = _words(
    "aim aims goal goals objective objectives purpose hypothesis hypotheses model models sample samples cohort "
    "participants measurements experiment team group laboratory lab intervention programme program "
    "questionnaire interviews trials"
)
# First person: the subject "we" (or "I"), and the words that follow it once the paper is named.
_FIRST_PERSON = re.compile(r"\b(?:[Ww]e|[Oo]ur|[Uu]s|[Oo]urs|[Oo]urselves|I|[Mm]y|[Mm]e)\b")
_LATER = {"we": "they", "our": "their", "us": "them", "ours": "theirs", "ourselves": "themselves", "my": "their"}
_ADVERBS = _words(
    "also further then first here now therefore thus additionally finally next subsequently still only "
    "even both hereby herein then empirically again"
)
_MODALS = _words("can could will would may might should must shall")
# After "we", these say what anyone should or needs to do ("we must act"), not what the authors did: the sentence
# is quoted, never "Workman et al. (2022) must act"...
_GENERIC_AFTER_WE = _words("must should need needs ought shall")
# ...and these what anyone can do ("By integrating X, we can achieve Y"), unless the sentence gives a measure of
# it ("we can predict task difficulty with 64.99% precision": the authors' result). "Could" ("we could not
# detect") and "will" (a protocol's plan) report the authors' own work.
_POSSIBLE_AFTER_WE = _words("can cannot may might would")
# Stop words that are verbs: what may follow "we" and agree with a new subject.
_AUXILIARIES = _words("have has had are were was is do does did am be been can could will would should must")
_IRREGULAR = {"have": "has", "are": "is", "were": "was", "do": "does", "go": "goes", "am": "is"}
_IRREGULAR_PAST = _words(
    "found made took gave built ran saw began chose brought sought thought wrote undertook drew led held "
    "met set put read got kept left lost paid sent spent understood won became did had was"
)


def in_text_label(paper: Paper) -> str | None:
    """'Hazra et al. (2021)', 'Kharitonov and Baroni (2020)', 'Scotton (2019)': how a sentence names a paper
    as its subject (None without authors: such a paper is cited, never named)."""
    names = [name for name in (surname(a).strip() for a in paper.authors) if name and name.lower() != "others"]
    if not names:
        return None
    many = len(names) > 2 or (len(paper.authors) > len(names))  # "A and others" is "A et al."
    who = f"{names[0]} et al." if many else " and ".join(names)
    return f"{who} ({paper.year})" if paper.year else who


def _singular(paper: Paper) -> bool:
    return len(paper.authors) == 1


def third_person(verb: str) -> str | None:
    """'show' -> 'shows', 'have' -> 'has', 'found' -> 'found'; None for what does not look like a verb."""
    lower = verb.lower()
    if not lower.isalpha() or verb != lower or _FIRST_PERSON.fullmatch(verb):
        return None
    if lower in stopwords() and lower not in _AUXILIARIES:
        return None  # "we all", "we the": not a verb after the subject
    if lower in _MODALS or lower in _IRREGULAR_PAST or lower.endswith("ed"):
        return verb
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower.endswith("s") and not lower.endswith(("ss", "us")):
        return None  # "presents" after "we" is no base form: nothing to agree
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(lower) > 2 and lower.endswith("y") and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _verb_at(words: list[str]) -> int | None:
    """Where the verb stands in ``words`` (what follows a subject), the adverbs before it skipped ("also show");
    None when there are only adverbs."""
    for i, word in enumerate(words):
        bare = word.strip(",")
        if not (bare.lower() in _ADVERBS or (bare.endswith("ly") and bare.isalpha())):
            return i
    return None


def _says_what_anyone_may(rest: str, measured: bool) -> bool:
    """Whether ``rest`` (what follows "we") opens, past any adverbs, on a word of what must or (in a sentence
    with no number: not ``measured``) can be done."""
    words = rest.split(" ")
    if (i := _verb_at(words)) is None:
        return False
    verb = words[i].strip(",").lower()
    return verb in _GENERIC_AFTER_WE or (verb in _POSSIBLE_AFTER_WE and not measured)


def _agree(rest: str, singular: bool) -> str | None:
    """``rest`` (what follows a new subject that was "we") with its verb in the third person singular when the
    subject is one author; adverbs before the verb are skipped ("also show" -> "also shows")."""
    if not singular:
        return rest
    words = rest.split(" ")
    if (i := _verb_at(words)) is None:
        return None
    bare = words[i].strip(",")
    turned = third_person(bare)
    if turned is None:
        return None
    words[i] = turned + words[i][len(bare) :]
    return " ".join(words)


_COORDINATED = re.compile(r"(,\s+(?:and\s+)?|\s+and\s+)([a-z]+)\b")
# Where the main clause of the turned subject ends: verbs after these have subjects of their own.
_SUBORDINATE = re.compile(r"\b(?:that|which|who|whom|whose|where|whereas|while|because|although|if|when)\b")
# Base forms that are nouns as often as verbs ("and study", "and review"): left as written.
_NOUN_LIKE = _words("study review test use map focus measure document report aim seek")


def _coordinated(text: str, start: int, singular: bool) -> str:
    """Verbs coordinated with the turned one, in its clause, agree with the new subject too: "Lotte et al.
    (2018) provide X, present Y" (the paper wrote "This paper provides X, presents Y")."""
    end = match.start() if (match := _SUBORDINATE.search(text, start)) else len(text)
    if singular:
        table = {base: third for third, base in _REPORTING.items() if base != third and base not in _NOUN_LIKE}
    else:
        table = _REPORTING

    def agree(match: re.Match[str]) -> str:
        return match.group(1) + table.get(match.group(2), match.group(2))

    return text[:start] + _COORDINATED.sub(agree, text[start:end]) + text[end:]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _strip_openers(sentence: str) -> tuple[str, list[tuple[str, str]]]:
    """A section label ("RESULTS:") and connectives tying the sentence to the one before it, dropped."""
    changes: list[tuple[str, str]] = []
    for pattern in (_SECTION, _CONNECTIVE, _CONNECTIVE):
        match = pattern.match(sentence)
        if match and match.end() < len(sentence):
            changes.append((match.group(0).strip(), ""))
            sentence = _capital(sentence[match.end() :])
    return sentence, changes


def _noun_phrase_end(words: list[str]) -> int | None:
    """How many of ``words`` form a short noun phrase before its verb ("method" in "method is evaluated")."""
    for i, word in enumerate(words[: _NOUN_PHRASE_WORDS + 1]):
        bare = word.strip(",;:").lower()
        if bare in _VERBS:
            return i if i > 0 and word == bare else None
        if not bare.replace("-", "").isalpha() or bare in stopwords() or _FIRST_PERSON.fullmatch(bare):
            return None
        if word != word.strip(",;:"):
            return None
    return None


def _is_pronoun_i(text: str, at: int) -> bool:
    """'I' as the subject ("I argue", ", I show"), not a numeral ("type I diabetes", "Phase I")."""
    before = text[:at].rstrip()
    return not before or before.endswith((",", ";", ":")) or before.endswith((" and", " but"))


def _first_person(text: str, label: str, singular: bool, named: bool) -> tuple[str, list[tuple[str, str]]] | None:
    """Each first-person word turned: the first one names the paper (unless ``named``), the later ones become
    "they", "their", "them". None when one cannot be turned safely."""
    changes: list[tuple[str, str]] = []
    at = 0
    while (match := _FIRST_PERSON.search(text, at)) is not None:
        word, lower = match.group(0), match.group(0).lower()
        head, after = text[: match.start()], text[match.end() :].lstrip()
        if word == "I" and not _is_pronoun_i(text, match.start()):
            at = match.end()
            continue
        if word == "I" and not singular:
            return None
        if not named and lower in ("we", "i"):
            if _says_what_anyone_may(after, measured=any(c.isdigit() for c in text)):
                return None
            rest = _agree(after, singular)
            if rest is None:
                return None
            changes.append((f"{word} {after.split(' ')[0]}", f"{label} {rest.split(' ')[0]}"))
            at, named = len(head) + len(label), True
            text = _coordinated(f"{head}{label} {rest}", at, singular)
            continue
        if not named and lower in ("our", "my"):
            words = after.split(" ")
            end = _noun_phrase_end(words)
            if end is None or not _names_own_work(words[:end]):
                return None  # everyone's ("how our memories are formed"), not the authors' work
            phrase = " ".join(words[:end])
            the = "The" if not head else "the"
            named_phrase = f"{the} {phrase} {_of(phrase)} {label}"
            changes.append((f"{word} {phrase}", named_phrase))
            text, at, named = f"{head}{named_phrase} {' '.join(words[end:])}", len(head) + len(named_phrase), True
            continue
        if not named:  # "us" or "me" before the paper is named: an object, not a subject to replace
            return None
        if lower in ("our", "my") and not _names_own_work(after.split(" ")):
            return None  # "improve our understanding of": everyone's, not theirs
        turned = "they" if lower == "i" else _LATER.get(lower, "them")
        turned = _capital(turned) if not head else turned
        changes.append((word, turned))
        text, at = head + turned + text[match.end() :], len(head) + len(turned)
    return text, changes


def _names_own_work(words: list[str]) -> bool:
    """Whether the short noun phrase ``words`` open ends on the authors' own work ("previous survey")."""
    for word in words[: _NOUN_PHRASE_WORDS + 1]:
        bare = word.strip(",;:.").lower()
        if bare in _OWN_WORK or bare in _OWNED:
            return True
        if not bare.replace("-", "").isalpha() or bare in stopwords() or word != word.strip(",;:."):
            return False
    return False


def _of(phrase: str) -> str:
    """'the study by X', 'the results of X'."""
    return "by" if re.fullmatch(_DOCUMENT, phrase.split(" ")[-1].lower()) else "of"


def turn(sentence: str, paper: Paper) -> Turned:
    """``sentence`` of ``paper`` in the citing voice, kept as written, or quoted and attributed."""
    source = " ".join(sentence.split())
    label = in_text_label(paper)
    text, changes = _strip_openers(source)
    if label is None:
        return Turned(text, Voice.VERBATIM, None, tuple(changes)) if _stands_alone(text) else quoted(source, paper)
    singular = _singular(paper)
    named = False
    if (frame := _FRAME.match(text)) and not re.match(r"(?:we|I)\b", text[frame.end() :]):
        changes.append((frame.group(0).strip(), f"In {label},"))
        text, named = f"In {label}, {text[frame.end() :]}", True
    elif frame:
        changes.append((frame.group(0).strip(), ""))
        text = text[frame.end() :]
    elif (subject := _DOCUMENT_SUBJECT.match(text)) and subject.group(1).lower() in _REPORTING:
        verb = subject.group(1)
        agreed = verb if singular else _REPORTING[verb.lower()]
        changes.append((text[: subject.end()], f"{label} {agreed}"))
        text, named = _coordinated(f"{label} {agreed}{text[subject.end() :]}", len(label), singular), True
    elif (demonstrative := _DEMONSTRATIVE.match(text)) is not None:
        words = text[demonstrative.end() :].split(" ")
        end = _noun_phrase_end(words)
        if end is None:
            return quoted(source, paper)
        phrase = " ".join(words[:end])
        if words[end - 1].lower() not in _OWN_WORK:  # "These models" may be anyone's: only the paper's own work
            return quoted(source, paper)
        lead = demonstrative.group(1)
        start = _capital(lead.lower()) if lead.lower().startswith("the ") else "The"
        changes.append((f"{demonstrative.group(0)}{phrase}", f"{start} {phrase} {_of(phrase)} {label}"))
        text, named = f"{start} {phrase} {_of(phrase)} {label} {' '.join(words[end:])}", True
    if aim_fragment(text):
        aimed = f"{label} aimed to {text[len('To ') :]}"
        changes.append(("To", f"{label} aimed to"))
        return Turned(aimed, Voice.CITING, label, tuple(changes))
    if _PRONOUN_START.match(text):
        return quoted(source, paper)
    turned = _first_person(text, label, singular, named)
    if turned is None:
        return quoted(source, paper)
    text, more = turned
    changes += more
    named = named or any(label in new for _, new in more)
    if not named and (mention := _DOCUMENT_MENTION.search(text)):
        by = f"the {mention.group(1).lower()} by {label}"
        by = _capital(by) if mention.start() == 0 else by
        changes.append((mention.group(0), by))
        text, named = text[: mention.start()] + by + text[mention.end() :], True
    if not named and (proposed := _PROPOSED.search(text)):
        of = f"{proposed.group(1)} {proposed.group(2)} of {label}"
        changes.append((proposed.group(0), of))
        text, named = text[: proposed.start()] + of + text[proposed.end() :], True
    if not named:
        return Turned(text, Voice.VERBATIM, None, tuple(changes))
    return Turned(text, Voice.CITING, label, tuple(changes))


def aim_fragment(sentence: str) -> bool:
    """Whether ``sentence`` (its section label and connectives aside) is an aim with no main clause: "OBJECTIVE:
    To evaluate the wear of posterior restorations."."""
    text = _strip_openers(" ".join(sentence.split()))[0]
    match = _INFINITIVE_AIM.match(text)
    if match is None or match.group(1) in stopwords() or third_person(match.group(1)) is None:
        return False
    return not any(word in _MAIN_CLAUSE for word in re.findall(r"[a-z]+", text.lower()))


def _stands_alone(text: str) -> bool:
    return not (_PRONOUN_START.match(text) or _DEMONSTRATIVE.match(text) or _FIRST_PERSON.search(text))


def quoted(sentence: str, paper: Paper) -> Turned:
    """'Chaabouni et al. (2020) write that “...”': the sentence whole, in quotation marks, attributed."""
    source = " ".join(sentence.split()).rstrip()
    body = source[:-1] if source.endswith(".") else source
    body = body.replace("“", "‘").replace("”", "’")  # a quotation inside the quotation
    label = in_text_label(paper)
    if label is None:
        return Turned(f"“{body}”.", Voice.QUOTED, None, ((source, f"“{body}”"),))
    first = body.split(" ", 1)[0]
    if first.lower() in stopwords() and first[1:].islower():  # "write that “this ...": not a name
        body = first.lower() + body[len(first) :]
    verb = "writes" if _singular(paper) else "write"
    return Turned(f"{label} {verb} that “{body}”.", Voice.QUOTED, label, ((source, f"{label} {verb} that “…”"),))
