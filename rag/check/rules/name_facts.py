"""Names in a sentence and whether a source states them: places, institutions, datasets, methods, acronyms,
gene and model identifiers, drugs (the part of rag.check.rules.facts that reads names). A name counts as the
source's as written (accents, hyphens, a plural aside), as the place a people is named for ("Kenyan" of Kenya),
or spelt out ("RL" for reinforcement learning, "BOLD" for blood-oxygen level-dependent)."""

from __future__ import annotations

import re
from functools import lru_cache

from rag.check.markers import CITATION_GROUP
from rag.check.rules.facts import GREEK_NAMES, fold, is_unit
from rag.check.rules.kind_words import FORMULAS, IRREGULAR_DEMONYMS
from rag.text import stopwords

# Letters glued to digits (IL-18, BCL2, 3T3, GPT-3, CD4+, COVID-19): an identifier, compared as a name.
_IDENTIFIER = re.compile(r"(?<![\w-])(?:[A-Za-z]+[-]?\d[\w-]*|\d+[A-Za-z][\w-]*)(?![\w])")
# Names: a capitalised word or a run of them (acronyms too), allowing the small words inside institution names.
# A name starts with a capital, or with one or two small letters before capitals ("fMRI", "rTMS", "qPCR").
_NAME = re.compile(r"\b(?:[A-Z]|[a-z]{1,2}[A-Z]{2})[\w'’-]*(?:\s+(?:of|for|the|de|di|van|von)?\s*[A-Z][\w'’-]*)*")
# Abbreviations of statistics and of the sentence's own structure: naming them adds no fact.
_STATISTICS = "CI HR OR RR SD SE SEM IQR AUC ROC P N NS vs VS EG IE ET AL"
_NOT_NAMES = frozenset(_STATISTICS.split())
# Drugs, written in lower case, known by the endings of their international names (cisplatin, paclitaxel,
# trastuzumab, imatinib): each a name a sentence must take from its source.
_DRUG = re.compile(
    r"\b[a-z]{3,}(?:platin|taxel|rubicin|mycin|cycline|cillin|floxacin|conazole|statin|sartan|prazole|olol|dipine|"
    r"gliptin|gliflozin|setron|profen|trexate|mustine|ciclovir|clovir|navir|mab|tinib|parin|lukast|triptan|semide)s?\b"
)
# Kinds of molecule written with a small letter first: common nouns in their fields, not names ("mRNAs",
# "scRNA-seq", "cAMP").
_MOLECULE_CLASS = re.compile(r"[a-z]{1,2}(?:RNA|DNA|AMP|GMP|TP)s?(?:-seq)?")
_POSSESSIVE = re.compile(r"['’]s$")
_DELTA = re.compile(r"(?<![a-z])d(?=\d)")
_DESCRIBED = re.compile(
    r"-(?:deficient|driven|based|like|related|derived|mediated|induced|treated|dependent|specific|positive|"
    r"negative|null|knockout|expressing|associated|type|only|free|rich|containing)$"
)
_SPLIT_FORMULA = re.compile(r"(?<=[a-z]) (?=\d)")
_SPLIT_GREEK = re.compile(rf"(?<=[a-z0-9])[ -](?=(?:{'|'.join(GREEK_NAMES.split())})\b)")
# A short bracket glued to the word before it: a superscript or subscript, not an aside ("p38(AF/+)", "Ca(2+)").
_SCRIPT_BRACKETS = re.compile(r"(?<=[a-z0-9])\(([^()\s]{1,8})\)")
# A people named for its place: the place's stem and an ending ("kenya-n", "chin-ese", "bangladesh-i").
_DEMONYM = re.compile(r"(?P<stem>[a-z]{4,}?)(?:ian|ean|an|ese|i|ish|ic|n)")
DEMONYM_STEM = 3  # the shortest stem a place is known by ("spa-in" for "Spanish")
_ACRONYM = re.compile(r"[a-z]{0,2}[A-Z]{2,6}s?")


def name_mentions(sentence: str) -> list[tuple[str, ...]]:
    """Names, acronyms and identifiers the sentence uses, each as the ways it may be written in a source (the
    first as the sentence writes it). A capitalised word that only starts the sentence ("As", "In", "While")
    is not part of a name, and a name that starts it may be read without its first word."""
    text = CITATION_GROUP.sub("", sentence)
    common = stopwords()
    found: list[tuple[str, ...]] = []
    for match in _NAME.finditer(text):
        parts = match.group(0).split()
        while parts and parts[0].lower() in common:
            parts = parts[1:]  # "The University of Tokyo" is named "University of Tokyo"; "As Yuan" is "Yuan"
        at_start = not text[: match.start()].strip(" \"'“(")
        if not parts or (len(parts) == 1 and at_start and parts == match.group(0).split()):
            continue  # a capitalised first word is just the start of the sentence
        name = " ".join(parts)
        if name in _NOT_NAMES or _MOLECULE_CLASS.fullmatch(name):
            continue
        forms = [name]
        if at_start and len(parts) > 1:  # "Reduction of Rpl38" may be "Rpl38" after the sentence's first word
            rest = parts[1:]
            while rest and rest[0].lower() in common:
                rest = rest[1:]
            forms.append(" ".join(rest))
        head = re.match(r"[A-Z][\w'’]*(?=-[a-z])", name)
        if head and len(head.group(0)) > 1:  # "Aire-expressing": the name is "Aire"
            forms.append(head.group(0))
        found.append(tuple(f for f in forms if f))
    found += [(m.group(0),) for m in _DRUG.finditer(text)]
    named = " ".join(form for forms in found for form in forms)
    for match in _IDENTIFIER.finditer(text):
        number = re.fullmatch(r"[\d.]+([A-Za-zμ°]+)", match.group(0))
        area = re.fullmatch(r"([a-zμ]{1,2})[23]", match.group(0))  # m2, km2, cm3: a unit of area or volume
        if area is not None and is_unit(area.group(1)):
            continue
        if (number is None or not is_unit(number.group(1))) and match.group(0) not in named:
            found.append((match.group(0),))
    return list(dict.fromkeys(found))


def name_in(name: str, folded_source: str) -> bool:
    """The source uses the name: as written (accents, hyphens and a plural aside), as the place a people is
    named for ("Kenyan" in a source saying Kenya), or spelt out ("RL" for reinforcement learning)."""
    folded = _POSSESSIVE.sub("", fold(name))
    # "miR-132-deficient", "p53-driven": the name without the word that describes it.
    bare = _DESCRIBED.sub("", folded)
    # "d13C" is how plain text writes δ13C (folded "delta13c"); "CO2" is named "carbon dioxide".
    forms = {folded, bare, _DELTA.sub("delta", folded), *FORMULAS.get(folded, ())}
    forms |= {formula for formula, names in FORMULAS.items() if folded in names}
    variants = {v for form in forms for v in (form, form.removesuffix("s"), form.replace("-", " "))}
    squashed = _squashed(folded_source)
    if any(v and (v in folded_source or _squashed(v) in squashed) for v in variants):
        return True
    for whole in (bare, _DELTA.sub("delta", bare)):
        # "North Pacific DOM", "eIF4G-eIF4E"; "Prague's Jews" of a source on the Jews of Prague
        parts = [_POSSESSIVE.sub("", w) for w in re.split(r"[\s-]+", whole) if len(w) > 1]
        if len(parts) > 1 and all(re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z])", folded_source) for w in parts):
            return True
    return (
        _demonym_of(folded, folded_source)
        or _irregular_demonym(folded, folded_source)
        or _acronym_of(name, folded_source)
    )


# A source is squashed once however many names are looked up in it.
@lru_cache(maxsize=4_096)
def _squashed(text: str) -> str:
    """Without hyphens, the spaces some sources put inside a formula ("CO 2", "PM 2.5") or before a Greek letter
    ("eIF2 alpha" for eIF2α) and the brackets a plain-text abstract writes a superscript or a subscript in
    ("PrP(C)" for PrPᶜ, "PtdIns(4,5)P(2)")."""
    text = _SPLIT_GREEK.sub("", _SPLIT_FORMULA.sub("", _SCRIPT_BRACKETS.sub(r"\1", text)))
    return text.replace("-", "")


def _demonym_of(folded: str, folded_source: str) -> bool:
    """ "kenyan", "chinese", "bangladeshi": the source names the place (a word starting with the stem)."""
    match = _DEMONYM.fullmatch(folded)
    if match is None:
        return False
    stem = match.group("stem")
    # Cut to no fewer than DEMONYM_STEM letters: "Atari" cut to "at" was read as named by "attribute".
    cuts = [stem[: len(stem) - cut] for cut in (0, 1, 2) if len(stem) - cut >= DEMONYM_STEM]
    return any(re.search(rf"\b{re.escape(cut)}", folded_source) for cut in cuts)


def _irregular_demonym(folded: str, folded_source: str) -> bool:
    """ "swiss" where the source names Switzerland, and "switzerland" where it says "Swiss"."""
    pairs = [(people, place) for people, places in IRREGULAR_DEMONYMS.items() for place in places]
    named = [people for people, place in pairs if place == folded] + [
        place for people, place in pairs if people in (folded, folded.removesuffix("s"))
    ]
    return any(re.search(rf"(?<![a-z]){re.escape(word)}(?![a-z])", folded_source) for word in named)


def _acronym_of(name: str, folded_source: str) -> bool:
    """An acronym the source spells out: each letter the start of a word in a row, or of a part of a hyphenated
    word ("RL": "reinforcement learning"; "BOLD": "blood-oxygen level-dependent")."""
    if not _ACRONYM.fullmatch(name):
        return False
    letters = name.rstrip("s").lower()
    pattern = r"\b" + r"[\w']*(?:\s+|-)(?:(?:of|and|for|the|in|to|on|a)\s+)?".join(letters) + r"[\w'-]*"
    return re.search(pattern, folded_source) is not None
