"""Populations, organisms, cells, conditions, study designs, models fitted and elements the cited sources do not
name ("in children", "in mice", "in humans", "T cells", "stroke patients", "prostate cancer", "a randomised trial",
"a random forest", "sodium atoms"): each group of words is one fact ("murine" names mice, "tumour" cancer, "87Rb"
rubidium; a plural is the same word). The words: rag.check.rules.kind_words."""

from __future__ import annotations

from functools import partial

from rag.check.rules.facts import SourceFacts, fold, kinds_in, names_kind
from rag.check.rules.finding import Finding
from rag.check.rules.presence import describe_unstated, unstated
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "unstated-kind"


def _names_kind(group: int, source: SourceFacts) -> bool:
    return names_kind(group, source.folded)


def find(c: Comparison) -> list[Finding]:
    facts = [(word, partial(_names_kind, group)) for group, word in kinds_in(fold(c.sentence)).items()]
    return unstated(CODE, facts, c)


SOURCE = "In a prospective cohort of murine models, hearing loss predicted cognitive decline."
ATOMS = "We show that light-induced atom desorption loads a large magneto-optical trap of 87Rb atoms."
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.PRESENCE,
    find=find,
    describe=describe_unstated,
    must_find=(
        Example("In children, hearing loss predicted cognitive decline.", SOURCE),
        Example("A randomized trial found that hearing loss predicted cognitive decline.", SOURCE),
        Example("Sodium atoms were cooled far below the recoil limit.", ATOMS),
        Example(  # the condition studied
            "Thirty stroke patients committed more errors than controls in routine activities.",
            "Thirty patients with closed head injury committed more errors than controls in routine activities.",
        ),
        Example("In patients with blindsight, the effects were linked to awareness.", "Participants reported faces."),
        Example(  # a finding in animals moved to humans
            "Depleting nestin-positive cells in humans lowered the number of stem cells in their marrow.",
            "In mice, nestin+ cell depletion rapidly reduces HSC content in the bone marrow.",
        ),
        Example(  # which cells, which cancer
            "Immune complexes were carried into follicles by T cells.",
            "B cells captured immune complexes from macrophages and took them to the follicle.",
        ),
        Example(
            "Prostate cancer cells grew faster with wedelolactone.",
            "Wedelolactone stimulated the growth of breast cancer cells.",
        ),
        Example(
            "The model predicted mean clutch size across 2,521 assemblages of reptiles.",
            "We applied the species-level model to predict mean clutch size across 2,521 bird assemblages.",
        ),
        Example(  # the model fitted
            "Their best model, a random forest, reached a ranked probability score of 0.2156.",
            "Our best model using gradient boosting achieved a ranked probability score of 0.2156.",
        ),
    ),
    must_pass=(
        Example("In mice, hearing loss predicted cognitive decline.", SOURCE),
        Example("A prospective cohort study found hearing loss predicted decline.", SOURCE),
        Example("Light-induced desorption loaded a large magneto-optical trap of rubidium atoms.", ATOMS),
        Example(
            "Calcium cycling drives thermogenesis in beige fat.", "Ca2+ cycling drives thermogenesis in beige fat."
        ),
        Example("Mice given 5 mg of the drug gained weight.", "Mice given 5 mg of the drug gained weight."),
        Example("Patients with a brain tumour had lower scores.", "Patients with brain cancer had lower scores."),
        Example("Epileptic patients showed early activation.", "A patient with epilepsy showed early activation."),
        # humans are stated by the people a source studied, and asked only of a source on another organism
        Example("In humans, the drug lowered blood pressure.", "In 40 volunteers, the drug lowered blood pressure."),
        Example("TD-Gammon played close to the best human players.", "TD-Gammon played close to the best players."),
        Example("CD4+ T cells were depleted.", "CD4+ lymphocytes were depleted."),
        Example("In insects and fish, the clock gene cycles.", "In Drosophila and zebrafish, the clock gene cycles."),
    ),
)
