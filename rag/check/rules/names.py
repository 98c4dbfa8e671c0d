"""Names the cited sources do not use: places, institutions, datasets, methods, acronyms, gene and model
identifiers (a capitalised first word of the sentence is not a name; accents and hyphens are folded)."""

from __future__ import annotations

from functools import partial

from rag.check.rules.facts import SourceFacts
from rag.check.rules.finding import Finding
from rag.check.rules.name_facts import name_in, name_mentions
from rag.check.rules.presence import describe_unstated, unstated
from rag.check.rules.rule import Comparison, Example, Rule, Stage

CODE = "unstated-name"


def _names(forms: tuple[str, ...], source: SourceFacts) -> bool:
    return any(name_in(form, source.folded) for form in forms)


def find(c: Comparison) -> list[Finding]:
    return unstated(CODE, [(forms[0], partial(_names, forms)) for forms in name_mentions(c.sentence)], c)


SOURCE = "A cohort study at the University of Tokyo measured IL-18 in Dünner's sample."
RULE = Rule(
    CODE,
    reverses=False,
    stage=Stage.PRESENCE,
    find=find,
    describe=describe_unstated,
    must_find=(
        Example("A cohort study in Germany measured IL-18.", SOURCE),
        Example("The study measured IL-6 levels.", SOURCE),
        Example(
            "Agents were trained on five Atari environments.",
            "We train agents in five control environments to attribute progress.",
        ),
        Example("Only Swiss households took part.", "Households in Sweden took part."),
        Example("Many of Vienna's Jews changed their surnames.", "Jews born in Prague changed their surnames."),
        Example(  # a drug, in lower case
            "Stromal miR21 confers cisplatin resistance in ovarian cancer cells.",
            "Exosomal transfer of stroma-derived miR21 confers paclitaxel resistance in ovarian cancer cells.",
        ),
        Example(  # a name that starts with a small letter
            "Using fMRI, naming tools engaged the precentral gyrus.",
            "Using positron emission tomography, naming tools engaged the precentral gyrus.",
        ),
    ),
    must_pass=(
        Example("The University of Tokyo measured IL-18 in Dunner's sample.", SOURCE),
        Example("As reported, a cohort study measured IL18.", SOURCE),
        Example("Kenyan and Chinese households took part.", "Households in Kenya and China took part."),
        Example("Spanish and Swedish households took part.", "Households in Spain and Sweden took part."),
        Example("Swiss and Dutch households took part.", "Households in Switzerland and the Netherlands took part."),
        Example("Households in Switzerland took part.", "Swiss households took part."),
        Example(
            "Values of d13C-DIC and CO2 uptake were low.", "The δ¹³C_DIC values and carbon dioxide uptake were low."
        ),
        Example("A model-based RL agent learned to walk.", "A model-based reinforcement learning agent walked."),
        Example("Statins and heparin were given.", "Patients received simvastatin and heparin."),
        Example(
            "Activated PKR inhibits eIF2α in infected cells.", "Activated PKR inhibits eIF2 alpha in infected cells."
        ),
        Example(  # a name starting with a small letter, spelt out
            "With fMRI, the eGFR of each patient was related to brain activity.",
            "Functional magnetic resonance imaging related each patient's estimated glomerular filtration rate to "
            "brain activity.",
        ),
        Example(  # spelt out in hyphenated words; a kind of molecule is no name
            "Changes in the BOLD signal and in mRNA levels were seen.",
            "Changes in the blood-oxygen level-dependent signal and in transcript levels were seen.",
        ),
        Example("Loss of miR-132-deficient T cells' IL-10 was seen.", "miR-132 knockout T cells lost IL-10."),
        Example("Temperatures rose in Grønfjorden.", "Temperatures rose in Gronfjorden."),
        Example("Many of Prague's Jews changed their surnames.", "Jews born in Prague changed their surnames."),
        Example(  # a plain-text abstract writes super- and subscripts in brackets
            "Losing ADAM10 raised PrPC levels and PtdIns(4,5)P2 in p38AF mice.",
            "Loss of ADAM10 raised PrP(C) levels and PtdIns(4,5)P(2) in p38(AF/+) mice.",
        ),
    ),
)
