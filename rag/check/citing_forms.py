"""How a citing sentence cites: forms whose poor fit to the paper cited says nothing of the citation being wrong
("see [x]", "as previously described [x]", a detail borrowed, a plan), and sentences leading into an equation or
a list, which state nothing yet. Text only: read by the fit (rag.check.manuscript) and by the judge's verdict
(rag.check.verdicts), which every command's start-up imports.

Of 35 wrong-paper flags read by hand on four theses (none a wrong citation), 5 were these or textbooks.
"""

from __future__ import annotations

import re

# A sentence that leads into an equation or a list says what it is about only in what follows, and "see [x]"
# sends the reader to a source for more, whatever it is about. (A sentence whose subject points back, "It may
# not ...", is left to the fit: not judging those cost 4 points of planted swaps caught for 0.35 of real
# citations flagged on the six theses.)
# With its equation taken out, "... is defined as" leads in as a colon does (a spelt-out abbreviation may follow).
_LEADS_IN = re.compile(
    r"(?::|\b(?:defined|given|written|expressed|computed|calculated|obtained|approximated|formulated) (?:by|as)"
    r"|\bas follows)(?:\s*\([^()]*\))?\s*[.,;]?\s*$",
    re.IGNORECASE,
)
_SEE = re.compile(r"\b(?:see|cf)\b\.?(?:\s+also)?(?=\s*(?:[.;)\]]|for\b|$))", re.IGNORECASE)
# A method done "as previously described [x]" cites where the method is written up: the sentence states nothing
# of it (2 of 27 flags read on a bookdown thesis).
_DESCRIBED = re.compile(
    r"\bas (?:previously |earlier |already )?described(?: (?:previously|before|earlier|elsewhere|in detail))?\b",
    re.IGNORECASE,
)


# A detail taken from a source, "(the parameters ...) as proposed by [x]", "Following [x], we ...", and a pointer
# to surveys "for the interested reader" name where the detail or the overview is, not what the abstract
# states; a plan, "Future work will ...", states nothing a source could. (Of 15 flags read by hand on two
# theses, none a wrong citation, 4 were these.)
_BORROWED = re.compile(
    r"\bas (?:originally |first )?(?:proposed|suggested|introduced|defined|recommended|implemented|adopted|done)"
    r" (?:by|in)\b|^(?:following|as in)\s*,|\binterested reader|\bfor (?:a|an) (?:\w+ )?(?:review|survey|overview)\b"
    r"|^(?:in the future|future (?:work|works|activities|research|directions?|studies))\b",
    re.IGNORECASE,
)


# A sentence telling what the author did ("Next, we used polysome profile analysis [x]", "Motif enrichment analysis
# was performed using Homer [x]") cites the tool, data, reagent or protocol it used, whose abstract may well be
# on something else: 7 of the 44 real citations called the wrong paper on six theses, none wrong when read.
_OWN_METHOD = re.compile(
    r"\bwe\s+(?:\w+ly\s+|then\s+|next\s+|also\s+|further\s+|first\s+|again\s+)?"
    r"(?:used|use|performed|perform|utili[sz]ed|utili[sz]e|employed|employ|applied|apply|analy[sz]ed|created|"
    r"generated|obtained|downloaded|implemented|adopted|depleted|measured|built|trained|ran|computed|calculated|"
    r"carried out|conducted|developed|designed|collected|extracted|selected|chose|took|leveraged|relied)\b"
    r"|\b(?:was|were|is|are)\s+(?:\w+ly\s+)?(?:performed|done|carried out|conducted|computed|calculated|obtained|"
    r"generated|implemented|made|run|measured|analy[sz]ed|quantified|processed)\s+(?:using|with|by|via|in)\b"
    r"|^(?:using|with the help of)\b",
    re.IGNORECASE,
)


# The author telling of their own work in the singular ("An earlier version of my model", "I did not encounter
# ..."): a thesis's narrative, whose citations point at what it mentions. "I" as a pronoun only: not "type I".
_SINGULAR_OWN = re.compile(r"\b(?:[Mm]y|me)\b|(?:^|[,;:]\s*|\b(?i:and|but|as|that|which|when|because|so)\s+)I\b")


# What research has not done yet ("There is comparatively less work comparing ...", "the same has yet to be
# demonstrated for the Drosophila ortholog", "little is known about ...", "remains poorly understood"): a claim
# about the literature, which no cited paper's findings say otherwise of (the judge reads "otherwise" into it:
# 2 of the 5 real citations it flagged as contradicted on six theses).
_GAP = re.compile(
    r"\b(?:little|less) is known\b|\bfew (?:\w+ )?(?:studies|works|papers|attempts)\b"
    r"|\b(?:comparatively |relatively |very )?(?:little|less|limited) (?:\w+ )?(?:research|work|attention)"
    r" (?:has|have|is|was|exists?|on|in|into|comparing|examining|addressing|studying)\b"
    r"|\bthere (?:is|are|has been|have been) (?:comparatively |relatively |very )?(?:little|less|limited|few|no) "
    r"(?:\w+ )?(?:research|work|works|studies|study|literature|attention)\b"
    r"|\bno (?:previous |prior |published )?(?:study|studies|work|research) (?:has|have)\b"
    r"|\b(?:has|have|had|is|are|remains?) (?:yet|still) to be\b"
    r"|\bremains? (?:\w+ly )?(?:unclear|unknown|elusive|uncertain|unexplored|understudied|an open question|"
    r"(?:poorly|largely|not (?:well|fully)) understood|to be (?:determined|elucidated|established|shown))\b"
    r"|\b(?:has|have) (?:not|never|rarely|seldom) (?:yet )?(?:been )?(?:systematically |thoroughly |well |fully |"
    r"directly )?(?:studied|explored|investigated|examined|addressed)\b",
    re.IGNORECASE,
)


def tells_a_gap(sentence: str) -> bool:
    """Whether the sentence tells what research has not done yet ("little is known", "has yet to be shown",
    "remains unclear"): a claim about the literature, not one a source's findings could say otherwise of."""
    return bool(_GAP.search(sentence))


def leads_in(sentence: str) -> bool:
    """Whether the sentence leads into an equation or a list ("The KL-divergence is defined as"): what it says is
    in what follows, which the check does not read."""
    return bool(_LEADS_IN.search(sentence))


def generic_sentence(sentence: str) -> bool:
    """A sentence leading into an equation ("... the probability of a trajectory τ as:"), "see [x]", a method done
    "as previously described", a detail borrowed or a plan: it says nothing a poor fit could be judged by."""
    return any(pattern.search(sentence) for pattern in (_LEADS_IN, _SEE, _DESCRIBED, _BORROWED))


def own_method(sentence: str) -> bool:
    """Whether the sentence tells what the author did and with what ("we used", "was performed using"), or tells of
    the author's own work in the singular ("my model", "I did not"): it cites what was used or mentioned, which a
    poor fit does not make wrong, unless the paper fits it worse than nearly any other."""
    return bool(_OWN_METHOD.search(sentence) or _SINGULAR_OWN.search(sentence))
