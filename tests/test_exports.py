"""The exports people have: RIS, Web of Science, MEDLINE, the databases' CSVs, BibTeX's LaTeX; their bad
inputs; and every real file in ../shared/real read as its PROVENANCE counts it."""

# ruff: noqa: E501 (export fixtures keep one header or record per line, as the files have them)

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rag.corpus import latex_to_text, load_paths, split_names, split_run_together, surname
from rag.records import Paper

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REAL = SHARED / "real"
# Markup that must not reach a title or abstract: text macros, accents, braced macros, math with macros.
MARKUP = re.compile(r"\\(?:text[a-z]+|emph|math[a-z]+|url|[`'\"^~=.][{\w])|\{\\|\$[^$]*\\[a-zA-Z]+[^$]*\$")
INITIALS = re.compile(r"(?:[A-ZÀ-Þ]\.?-?){1,4}")


# A first author read wrongly: initials left as the surname ('Liu R.' read as given name Liu, surname R.).
# A source may give a one-letter surname itself ('M, Kabilan'): that is its data, not a misreading.
def misread(name: str) -> bool:
    last = surname(name).strip()
    if not INITIALS.fullmatch(last):
        return False
    return "." in last if "," in name else " " in name.strip()  # one word alone is a group ('NOAA')


def read(path: Path) -> tuple[list[Paper], list[str]]:
    result = load_paths([path])
    return sorted(result.papers.values(), key=lambda p: p.sources[0]), result.warnings


def details(paper: Paper) -> tuple[object, ...]:
    return (
        paper.venue,
        paper.volume,
        paper.issue,
        paper.pages,
        paper.publisher,
        paper.doi,
        paper.url,
        paper.item_type,
    )


# IEEE Xplore's line ends: CRLF, and a stray CR before every TY after the first.
RIS = (
    "TY  - JOUR\r\nTI  - Sparse Experts on Small GPUs\r\nAU  - Liu, Rui\r\nAU  - Adler, D. G.\r\n"
    "T2  - Journal of Systems\r\nVL  - 12\r\nIS  - 3\r\nSP  - 101\r\nEP  - 119\r\nPY  - 2021/05//\r\n"
    "PB  - ACM\r\nDO  - https://doi.org/10.1000/sparse\r\nUR  - https://example.org/sparse\r\n"
    "AB  - We route tokens to experts\r\n      that fit in memory.\r\nER  - \r\n\n\r"
    "TY  - CONF\r\nTI  - Pipelines for Long Contexts\r\nAU  - G. Kalbe\r\nT2  - Proc. of LongConf\r\n"
    "PY  - 2020\r\nAB  - Long sequences are cut into chunks.\r\n\n\r"
    "TY  - CHAP\r\nT1  - Scheduling on Mixed Clusters\r\nA1  - Roe, Ann\r\nBT  - A Book of Clusters\r\n"
    "Y1  - 2019\r\nN2  - Jobs are placed on mixed GPUs.\r\nER  - \r\n"
    "TY  - JOUR\r\nTI  - The Last Record\r\nAU  - Poe, Bo\r\nPY  - 2018\r\n"
)


def test_ris_reads_every_field_and_a_missing_er_loses_nothing(tmp_path: Path) -> None:
    (tmp_path / "ieee.ris").write_bytes(RIS.encode())
    papers, warnings = read(tmp_path / "ieee.ris")
    assert [p.title for p in papers] == [
        "Sparse Experts on Small GPUs",
        "Pipelines for Long Contexts",
        "Scheduling on Mixed Clusters",
        "The Last Record",
    ]
    sparse, pipelines, chapter, last = papers
    assert sparse.text == "We route tokens to experts that fit in memory."
    assert (sparse.authors, sparse.year) == (["Liu, Rui", "Adler, D. G."], 2021)
    assert details(sparse) == (
        "Journal of Systems",
        "12",
        "3",
        "101-119",
        "ACM",
        "10.1000/sparse",
        "https://example.org/sparse",
        "article-journal",
    )
    assert (pipelines.authors, pipelines.venue, pipelines.item_type) == (
        ["G. Kalbe"],
        "Proc. of LongConf",
        "paper-conference",
    )
    assert (chapter.authors, chapter.venue, chapter.item_type, chapter.text) == (
        ["Roe, Ann"],
        "A Book of Clusters",
        "chapter",
        "Jobs are placed on mixed GPUs.",
    )
    assert last.no_abstract and last.sources == ["ieee.ris#4"]
    assert warnings == [
        "ieee.ris:19: record has no ER before the next TY (line 27); read up to there",
        "ieee.ris:34: last record has no ER; read to the end of the file",
        "ieee.ris: 1 entry has no abstract and is searched by title only",
    ]


def test_ris_in_a_txt_file_and_lines_outside_records(tmp_path: Path) -> None:
    text = "1.\nTY  - JOUR\nTI  - First\nAB  - One.\nER  - \n\nAU  - Orphan, A.\nTI  - Lost title\nER  - \n"
    (tmp_path / "ovid.txt").write_text(text)
    papers, warnings = read(tmp_path / "ovid.txt")
    assert [p.title for p in papers] == ["First"]
    assert warnings == ["ovid.txt:7: 'AU' line outside a record (no TY before it), skipped"]


WOS_PLAIN = """FN Clarivate Analytics Web of Science
VR 1.0
PT J
AU Alvarez-Manzaneda, I
   del Arco, I
AF Alvarez-Manzaneda, Ines
   del Arco, Irene
TI Do magnetic adsorbents impact
   zooplankton?
SO SCIENCE OF THE TOTAL ENVIRONMENT
DT Article; Proceedings Paper
AB Magnetic particles were tested.
PU ELSEVIER
PY 2019
VL 656
BP 598
EP 607
DI 10.1016/j.scitotenv.2018.11.375
ER

EF
"""


def test_web_of_science_plain_text(tmp_path: Path) -> None:
    (tmp_path / "savedrecs.ciw").write_text(WOS_PLAIN)
    (tmp_path / "savedrecs.txt").write_text(WOS_PLAIN)
    for name in ("savedrecs.ciw", "savedrecs.txt"):
        [paper], warnings = read(tmp_path / name)
        assert warnings == []
        assert (paper.title, paper.text, paper.year) == (
            "Do magnetic adsorbents impact zooplankton?",
            "Magnetic particles were tested.",
            2019,
        )
        assert paper.authors == ["Alvarez-Manzaneda, Ines", "del Arco, Irene"]
        assert details(paper) == (
            "SCIENCE OF THE TOTAL ENVIRONMENT",
            "656",
            None,
            "598-607",
            "ELSEVIER",
            "10.1016/j.scitotenv.2018.11.375",
            None,
            "paper-conference",
        )


WOS_TAB = (
    "PT\tAU\tAF\tTI\tSO\tDT\tAB\tPY\tVL\tIS\tBP\tEP\tDI\tUT\n"
    'J\tOwen-Smith, J; Powell, WW\t\tKnowledge "networks" as conduits\tORGANIZATION SCIENCE\tArticle\t'
    "Spillovers travel.\t2004\t15\t1\t5\t21\t10.1287/orsc.1030.0054\tWOS:000189\t\n"
)


@pytest.mark.parametrize(
    ("name", "encoding"), [("wos.txt", "utf-8-sig"), ("wos16.txt", "utf-16"), ("wos.tsv", "utf-8")]
)
def test_web_of_science_tab_delimited(tmp_path: Path, name: str, encoding: str) -> None:
    (tmp_path / name).write_bytes(WOS_TAB.encode(encoding))
    [paper], warnings = read(tmp_path / name)
    assert warnings == []
    assert paper.title == 'Knowledge "networks" as conduits'  # WoS writes quotes unescaped
    assert (paper.authors, paper.year, paper.pages, paper.item_type) == (
        ["Owen-Smith, J", "Powell, WW"],
        2004,
        "5-21",
        "article-journal",
    )


MEDLINE_TEXT = """
PMID- 30689646
OWN - NLM
VI  - 14
IP  - 1
DP  - 2019 Jan 28
TI  - Ecosystem services changes in the Loess Plateau, China: A
      response to ecological restoration.
PG  - e0209483
LID - 10.1371/journal.pone.0209483 [doi]
AB  - The Loess Plateau of China is one of the most severe soil loss areas in
      the world.
FAU - Wu, Dan
AU  - Wu D
FAU - Zou, Changxin
AU  - Zou C
PT  - Journal Article
TA  - PLoS One
JT  - PloS one

PMID- 30000001
TI  - A title-only record.
PT  - Letter
"""


def test_medline_nbib_and_txt(tmp_path: Path) -> None:
    (tmp_path / "pubmed.nbib").write_text(MEDLINE_TEXT)
    (tmp_path / "pubmed-set.txt").write_text(MEDLINE_TEXT)
    for name in ("pubmed.nbib", "pubmed-set.txt"):
        papers, _ = read(tmp_path / name)
        assert [p.title for p in papers] == [
            "Ecosystem services changes in the Loess Plateau, China: A response to ecological restoration.",
            "A title-only record.",
        ]
        loess = papers[0]
        assert loess.text == "The Loess Plateau of China is one of the most severe soil loss areas in the world."
        assert (loess.authors, loess.year) == (["Wu, Dan", "Zou, Changxin"], 2019)
        assert details(loess) == (
            "PloS one",
            "14",
            "1",
            "e0209483",
            None,
            "10.1371/journal.pone.0209483",
            "https://pubmed.ncbi.nlm.nih.gov/30689646/",
            "article-journal",
        )


def test_scopus_csv_is_recognised_with_its_quirks(tmp_path: Path) -> None:
    header = "Authors,Author full names,Title,Year,Source title,Volume,Issue,Page start,Page end,DOI,Link,Abstract,Publisher,Document Type,EID"
    rows = [
        '"Liu R., Adler D.G.","Liu, Rui (5720); Adler, Douglas G. (5721)",Duplication of Things,2022,Gut,71,2,10,20,'
        "10.1000/dup,https://scopus.example/1,We duplicate things.,BMJ,Article,2-s2.0-1,",
        '"Roe A.",,A Title Only,2021,Gut,70,,,,,,[No abstract available],,Conference Paper,2-s2.0-2,',
    ]
    (tmp_path / "scopus.csv").write_text("\ufeff" + header + "\n" + "\n".join(rows) + "\n")
    papers, warnings = read(tmp_path / "scopus.csv")
    dup, title_only = papers
    assert dup.authors == ["Liu, Rui", "Adler, Douglas G."]
    assert details(dup) == (
        "Gut",
        "71",
        "2",
        "10-20",
        "BMJ",
        "10.1000/dup",
        "https://scopus.example/1",
        "article-journal",
    )
    assert title_only.no_abstract and title_only.authors == ["Roe, A."] and title_only.item_type == "paper-conference"
    assert warnings == ["scopus.csv: 1 entry has no abstract and is searched by title only"]  # empty extra cells: fine


def test_an_abstract_field_holding_only_where_the_paper_appeared_is_no_abstract(tmp_path: Path) -> None:
    """Some exports put the reference in the abstract field ("Oncogene 29, 4253 (2010). doi:..."): the paper is
    then searched by its title, not matched against a journal name and a DOI."""
    (tmp_path / "refs.bib").write_text(
        "@article{ref, title = {Feedback loops in oncogene signalling}, author = {Roe, Ann}, year = {2010},\n"
        "  abstract = {Oncogene 29, 4253 (2010). doi:10.1038/onc.2010.189}}\n"
        "@article{link, title = {A measurement of the fine structure}, author = {Doe, Jon}, year = {1931},\n"
        "  abstract = {DOI:https://doi.org/10.1103/PhysRev.38.2082.2}}\n"
        "@article{real, title = {Coffee and sleep}, author = {Lee, Kim}, year = {2020},\n"
        "  abstract = {We followed 50 adults (doi:10.1000/data) and found that coffee shortened their sleep.}}\n"
    )
    papers, _ = read(tmp_path / "refs.bib")
    by_key = {p.citekey: p for p in papers}
    assert {key: p.no_abstract for key, p in by_key.items()} == {"ref": True, "link": True, "real": False}
    assert by_key["ref"].text == "Feedback loops in oncogene signalling"


def test_initials_never_become_the_surname() -> None:
    assert split_names("Liu R., Adler D.G.") == ["Liu, R.", "Adler, D.G."]
    assert split_names("Klionsky DJ, Abdel-Aziz AK, Weinstock RS.") == [
        "Klionsky, DJ",
        "Abdel-Aziz, AK",
        "Weinstock, RS.",
    ]
    assert split_names("Huang H.-B., Zhu Y.-B.") == ["Huang, H.-B.", "Zhu, Y.-B."]
    assert split_names("P. Kogge; J. Shalf") == ["P. Kogge", "J. Shalf"]
    assert split_names("Contreras, JD; Islam, M") == ["Contreras, JD", "Islam, M"]
    assert split_names("Hall V.\n\nJohnson D.") == ["Hall, V.", "Johnson, D."]
    assert split_names("Bornstein SR, Bajtel Á., Sumbul, Akhtar F.") == [
        "Bornstein, SR",
        "Bajtel, Á.",
        "Sumbul",
        "Akhtar, F.",
    ]
    assert split_names("Dolz Marco, R.") == ["Dolz Marco, R."]
    # Scopus' full names: a surname of two words is one name, its author id aside
    assert split_names("Bou Zerdan, Maroun (57222239351); Kassab, Joseph (57804194500)") == [
        "Bou Zerdan, Maroun",
        "Kassab, Joseph",
    ]
    assert split_names("Van Dijk, Elon H. C. (57200)") == ["Van Dijk, Elon H. C."]
    assert split_names("Yuan, Binhang and Zhang, Ce") == ["Yuan, Binhang", "Zhang, Ce"]
    assert split_names("William B. Gould IV; Ann Roe Jr.") == ["Gould, William B., IV", "Roe, Ann, Jr."]
    assert split_run_together("Prof. Rafik A. AlievDr. Janusz KacprzykJohn McDonald") == [
        "Rafik A. Aliev",
        "Janusz Kacprzyk",
        "John McDonald",
    ]


def test_headers_in_any_case_with_a_bom_and_a_duplicate_column(tmp_path: Path) -> None:
    text = '\ufeffTITLE,AUTHORS,Year, abstract ,Title\nGPU Things,"Roe, Ann; Poe, Bo",2024,We study GPUs.,Other\n'
    (tmp_path / "mine.csv").write_text(text)
    [paper], warnings = read(tmp_path / "mine.csv")
    assert (paper.title, paper.text, paper.authors, paper.year) == (
        "GPU Things",
        "We study GPUs.",
        ["Roe, Ann", "Poe, Bo"],
        2024,
    )
    assert warnings == ["mine.csv:1: column 'Title' appears more than once; the first is read"]


def test_ragged_rows_are_said_once(tmp_path: Path) -> None:
    text = "Title,Abstract\nA,One.,extra\nB,Two.,extra\nC,Three.\n"
    (tmp_path / "ragged.csv").write_text(text)
    papers, warnings = read(tmp_path / "ragged.csv")
    assert [p.title for p in papers] == ["A", "B", "C"]
    assert warnings == [
        "ragged.csv:2: 2 rows have more cells than the header's 2 columns; cells are read by position and the extra ones ignored"
    ]


def test_embase_field_per_line_layout(tmp_path: Path) -> None:
    text = (
        '"TITLE","Liver-targeting prodrugs"\n"AUTHOR NAMES","Wang Y.","Guo D."\n"SOURCE TITLE","Medicine"\n'
        '"PUBLICATION YEAR","2024"\n"VOLUME","21"\n"PUBLICATION TYPE","Article"\n"ABSTRACT","Prodrugs target the liver."\n'
        '"DOI","10.1016/j.medidd.2023.100172"\n\n"TITLE","Drones in forests"\n"AUTHOR NAMES","Salehi B."\n'
        '"FIRST PAGE","3"\n"LAST PAGE","9"\n'
    )
    (tmp_path / "embase.csv").write_text(text)
    papers, _ = read(tmp_path / "embase.csv")
    prodrugs, drones = sorted(papers, key=lambda p: p.title or "")[::-1]
    assert (prodrugs.authors, prodrugs.year, prodrugs.text) == (
        ["Wang, Y.", "Guo, D."],
        2024,
        "Prodrugs target the liver.",
    )
    assert details(prodrugs)[:2] == ("Medicine", "21") and prodrugs.item_type == "article-journal"
    assert (drones.authors, drones.pages, drones.no_abstract) == (["Salehi, B."], "3-9", True)


def test_ovid_csv_in_windows_1252_with_multi_line_cells(tmp_path: Path) -> None:
    text = (
        "ORN,VN,DB,UI,TI,SO,AU,PB,AB\n"
        '1,Ovid Technologies,Embase,2011722477,Travel and biologic therapy.,"Journal of Travel Medicine. 25 (1) '
        '(no pagination), 2018. Article Number: tay018.","Hall V.\n\nJohnson D.",Oxford University Press,'
        '"Biologic therapy \u00ae 2018 changes travel."\n'
    )
    (tmp_path / "ovid.csv").write_bytes(text.encode("cp1252"))
    [paper], warnings = read(tmp_path / "ovid.csv")
    assert (paper.authors, paper.year, paper.text) == (
        ["Hall, V.", "Johnson, D."],
        2018,
        "Biologic therapy ® 2018 changes travel.",  # not ©: a notice "© 2018 ..." is cut at ingest
    )
    assert (paper.venue, paper.volume, paper.issue, paper.publisher) == (
        "Journal of Travel Medicine",
        "25",
        "1",
        "Oxford University Press",
    )
    assert warnings == [
        "ovid.csv: not UTF-8 (byte 0xae at offset 243); read as Windows-1252, so check its accents, or re-save it as UTF-8"
    ]


@pytest.mark.parametrize(
    ("header", "row", "expected"),
    [
        (  # Zotero: 'Key' is Zotero's item key, not a citekey
            "Key,Item Type,Publication Year,Author,Title,Publication Title,DOI,Url,Abstract Note,Pages,Issue,Volume,Publisher",
            'J6WKGJ3W,conferencePaper,2025,"Roe, Ann; Poe, Bo",Zotero Paper,Proc. Z,10.1000/z,https://z.org,Zotero text.,1-9,2,3,ACM',
            (
                "Zotero Paper",
                ["Roe, Ann", "Poe, Bo"],
                ("Proc. Z", "3", "2", "1-9", "ACM", "10.1000/z", "https://z.org", "paper-conference"),
            ),
        ),
        (  # PubMed CSV: no abstracts; volume, issue and pages only in the citation
            "PMID,Title,Authors,Citation,First Author,Journal/Book,Publication Year,Create Date,PMCID,NIHMS ID,DOI",
            '33634751,Autophagy Guidelines,"Klionsky DJ, Abdel-Aziz AK","Autophagy. 2021 Jan;17(1):1-382. doi: x.",'
            "Klionsky DJ,Autophagy,2021,2021/02/26,,,10.1080/15548627.2020.1797280",
            (
                "Autophagy Guidelines",
                ["Klionsky, DJ", "Abdel-Aziz, AK"],
                (
                    "Autophagy",
                    "17",
                    "1",
                    "1-382",
                    None,
                    "10.1080/15548627.2020.1797280",
                    "https://pubmed.ncbi.nlm.nih.gov/33634751/",
                    None,
                ),
            ),
        ),
        (  # OpenAlex's CSV: dotted column names, '|' between authors
            "id,doi,display_name,publication_year,type,authorships.author.display_name,primary_location.source.display_name,"
            "biblio.volume,biblio.issue,biblio.first_page,biblio.last_page",
            "https://openalex.org/W1,https://doi.org/10.1000/oa,Open Work,2023,book-chapter,Ann Roe|Bo Poe,Big Book,4,,7,8",
            (
                "Open Work",
                ["Ann Roe", "Bo Poe"],
                ("Big Book", "4", None, "7-8", None, "10.1000/oa", "https://doi.org/10.1000/oa", "chapter"),
            ),
        ),
        (  # Cochrane CENTRAL
            "CENTRAL ID,Author(s),Title,Source,Year,Abstract,Volume,Issue,Pages,Publication Type,DOI,URL",
            'CN-1,"Contreras, JD; Islam, M",Child Feces,J Epi,2024,Trial text.,14,3,765\u2010778,Journal article,10.1000/c,https://c.org',
            (
                "Child Feces",
                ["Contreras, JD", "Islam, M"],
                ("J Epi", "14", "3", "765-778", None, "10.1000/c", "https://c.org", "article-journal"),
            ),
        ),
        (  # IEEE Xplore
            "Document Title,Authors,Publication Title,Publication Year,Volume,Issue,Start Page,End Page,Abstract,DOI,PDF Link,Publisher,Document Identifier",
            'Exascale Trends,"P. Kogge; J. Shalf",CiSE,2013,15,6,16,26,We now have data.,10.1109/M,https://x.org/p,IEEE,IEEE Magazines',
            (
                "Exascale Trends",
                ["P. Kogge", "J. Shalf"],
                ("CiSE", "15", "6", "16-26", "IEEE", "10.1109/M", "https://x.org/p", "article-magazine"),
            ),
        ),
        (  # SpringerLink: names with nothing between them
            "Item Title,Publication Title,Book Series Title,Journal Volume,Journal Issue,Item DOI,Authors,Publication Year,URL,Content Type",
            "Load Balancing,Soft Computing,,,,10.1007/978,Araz R. AlievNigar T. Ismayilova,2022,http://link.springer.com/c,Chapter",
            (
                "Load Balancing",
                ["Araz R. Aliev", "Nigar T. Ismayilova"],
                ("Soft Computing", None, None, None, None, "10.1007/978", "http://link.springer.com/c", "chapter"),
            ),
        ),
        (  # Embase classic
            "Title,Author Names,Source title,Publication Year,Volume,Issue,First Page,Last Page,Publication Type,Abstract,DOI,Full Text Link",
            '"Probiotics","Shekar S., Venkatachalapathy R.",J Care,2025,13,1,62,70,Review,Diarrhea is common.,10.1186/s,http://dx.doi.org/10.1186/s',
            (
                "Probiotics",
                ["Shekar, S.", "Venkatachalapathy, R."],
                ("J Care", "13", "1", "62-70", None, "10.1186/s", "http://dx.doi.org/10.1186/s", "article-journal"),
            ),
        ),
    ],
)
def test_known_csv_exports_need_no_field_mapping(
    tmp_path: Path, header: str, row: str, expected: tuple[str, list[str], tuple[object, ...]]
) -> None:
    (tmp_path / "export.csv").write_text(f"{header}\n{row}\n")
    [paper], _ = read(tmp_path / "export.csv")
    assert (paper.title, paper.authors, details(paper)) == expected
    assert paper.citekey in ("", None) or not paper.citekey.isupper()  # Zotero's item key is no citekey


def test_field_mapping_reaches_the_new_fields(tmp_path: Path) -> None:
    (tmp_path / "mine.csv").write_text("name,summary,where\nGPU Things,We study GPUs.,Journal of GPUs\n")
    [paper] = load_paths(
        [tmp_path / "mine.csv"], {"title": "name", "abstract": "summary", "venue": "where"}
    ).papers.values()
    assert (paper.title, paper.text, paper.venue) == ("GPU Things", "We study GPUs.", "Journal of GPUs")


ZOTERO_BIB = r"""@article{kharitonov_emergent_2020,
  title = {Emergent Language: \textit{Entropy} and the {\textbackslash}beta Rule},
  author = {Kharitonov, Eugene and Schr{\"o}der, J{\"u}rgen},
  journaltitle = {Trans. {ACL}},
  date = {2020-05-01},
  volume = {8},
  number = {2},
  pages = {10--20},
  doi = {10.1000/ent},
  url = {https://example.org/ent},
  abstract = {We show that H$_2$O and $\alpha$-helices {\textquotesingle}agree{\textquotesingle}, 79% of the time {\textless}p{\textgreater}(p {\textless} 0.05){\textless}/p{\textgreater}.}
}
@InProceedings{Roe2019,
  Title = {Capitalised Fields from {JabRef}},
  Author = {Roe, Ann},
  Booktitle = {Proc. of Things},
  Year = {2019},
  Publisher = {ACM}
}
"""


def test_bibtex_latex_becomes_text_and_every_field_is_kept(tmp_path: Path) -> None:
    (tmp_path / "zotero.bib").write_text(ZOTERO_BIB)
    papers, _ = read(tmp_path / "zotero.bib")
    jabref, zotero = sorted(papers, key=lambda p: p.citekey)
    assert zotero.title == "Emergent Language: Entropy and the β Rule"
    assert zotero.text == "We show that H₂O and α-helices 'agree', 79% of the time (p < 0.05)."
    assert (zotero.authors, zotero.year) == (["Kharitonov, Eugene", "Schröder, Jürgen"], 2020)
    assert details(zotero) == (
        "Trans. ACL",
        "8",
        "2",
        "10-20",
        None,
        "10.1000/ent",
        "https://example.org/ent",
        "article-journal",
    )
    assert zotero.bibtex is not None and r"{\textbackslash}beta" in zotero.bibtex  # the user's entry, untouched
    assert (jabref.title, jabref.authors, jabref.year) == ("Capitalised Fields from JabRef", ["Roe, Ann"], 2019)
    assert (jabref.venue, jabref.publisher, jabref.item_type) == ("Proc. of Things", "ACM", "paper-conference")


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"\emph{heterogeneous} -- and ``quoted''", "heterogeneous – and “quoted”"),
        (
            r"{\textbackslash}mathbf8 1. 9 7 \% {\textbackslash}rightarrow 92 {\textbackslash}times 2",
            "8 1. 9 7 % → 92 × 2",
        ),
        (r"$^{13}$C and $\mathrm{CO}_2$ in 50{\textasciitilde}60 {\textbar} x", "¹³C and CO₂ in 50~60 | x"),
        (r"Schr{\"o}dinger {\'e}t{\'e} \c{c} \ss{}", "Schrödinger été ç ß"),
        # Better BibTeX's thin spaces: spacing by a length, not the text "1mu"
        (r"(RR: .85, p{$\mkern1mu$}={$\mkern1mu$}.021) 10\mkern3mu mg, A\kern-0.5em B", "(RR: .85, p=.021) 10 mg, AB"),
    ],
)
def test_latex_to_text(latex: str, text: str) -> None:
    assert latex_to_text(latex) == text


def test_csl_json_fills_the_bibliography_fields(tmp_path: Path) -> None:
    item = {
        "id": "blasi2022",
        "type": "paper-conference",
        "title": "Systematic Inequalities",
        "author": [{"family": "Blasi", "given": "Damian"}],
        "collection-title": "Proceedings of ACL",
        "page": "5486-5505",
        "publisher": "ACL",
        "DOI": "https://doi.org/10.18653/v1/x",
        "URL": "https://aclanthology.org/x https://doi.org/10.18653/v1/x",
        "abstract": "Costs <i>$2.00</i> a day, about \\approx6,500 languages.",
        "issued": {"date-parts": [["2022", 5]]},
    }
    (tmp_path / "refs.json").write_text(json.dumps([item]))
    [paper], _ = read(tmp_path / "refs.json")
    assert paper.text == "Costs $2.00 a day, about ≈6,500 languages."
    assert (paper.year, paper.citekey) == (2022, "blasi2022")
    assert details(paper) == (
        "Proceedings of ACL",
        None,
        None,
        "5486-5505",
        "ACL",
        "10.18653/v1/x",
        "https://aclanthology.org/x",
        "paper-conference",
    )


# Every real file: (path under shared/real, entries read, of them with an abstract). The numbers are
# PROVENANCE.md's, less what it says cannot be read (noted per file).
REAL_FILES = [
    ("bibtex/AhmedThahir__Zotero_Database/My Library.bib", 42, 35),
    ("bibtex/ErikBjare__thesis/docs/tex/misc.bib", 5, 0),
    ("bibtex/ErikBjare__thesis/docs/tex/zotero.bib", 75, 68),
    ("bibtex/JabRef__jabref/jablib/src/main/resources/Chocolate.bib", 15, 0),
    ("bibtex/JabRef__jabref/jablib/src/test/resources/testbib/jabref-authors.bib", 212, 0),
    ("bibtex/JabRef__jabref/jablib/src/test/resources/testbib/testjabref.bib", 156, 36),
    ("bibtex/KhalidMHASNI__SLR-automatic-screening-/New collection.bib", 467, 246),
    ("bibtex/crcox__MASTERBIB/Abstracts.bib", 672 - 140, 532),  # 140 entries hold neither title nor abstract
    ("bibtex/crcox__MASTERBIB/Main.bib", 707, 2),
    ("bibtex/fatihserta__reference-directory/My Library.bib", 1679 - 1, 1206),  # 'noauthor_notitle_nodate' is empty
    # PROVENANCE counts 2 (bibtexparser fails the entry that repeats a field); rag keeps that one too.
    ("bibtex/mjwestgate__synthesisr/tests/testthat/testdata/Scopus_bib_example.bib", 3, 3),
    ("csl-json/EricMFink__Zotero/My Library.json", 1018, 457),
    ("csl-json/danjustice2__Dan-Justice-s-Thesis/My Library.json", 56 - 3, 9 - 2),  # 3 repeated ids, kept once
    ("csl-json/theRatramnus__easy-csl-styles/Exported Items.json", 1, 1),
    ("exports/BharatBlade__AIML/csv-33634751-set.csv", 200, 0),
    ("exports/BharatBlade__AIML/embase.csv", 91, 85),
    ("exports/BharatBlade__AIML/records.ris", 91, 85),
    ("exports/BharatBlade__AIML/scopus2.csv", 97, 91),
    ("exports/DevInnovationLab__i-h2o-living-meta/data/cochrane.csv", 427, 425),
    ("exports/DevInnovationLab__i-h2o-living-meta/data/embase.csv", 500, 457),
    ("exports/ESHackathon__CiteSource/tests/testthat/data/1_WoS.ris", 219, 218),
    ("exports/ESHackathon__CiteSource/vignettes/new_stage_data/Dimensions_246.ris", 246, 243),
    ("exports/ESHackathon__CiteSource/vignettes/new_stage_data/econlit_3.ris", 3, 3),
    ("exports/KhalidMHASNI__SLR-automatic-screening-/Exported Items.csv", 466, 246),
    ("exports/KhalidMHASNI__SLR-automatic-screening-/Exported Items.ris", 467, 246),
    ("exports/NLeSC__litstudy/tests/resources/example.ris", 25, 25),
    ("exports/NLeSC__litstudy/tests/resources/ieee.csv", 10, 10),
    ("exports/NLeSC__litstudy/tests/resources/scopus.csv", 58, 57),
    ("exports/NLeSC__litstudy/tests/resources/springer.csv", 18, 0),
    ("exports/mjwestgate__revtools/examples/restoration_WoS.ciw", 247, 215),
    ("exports/mjwestgate__revtools/examples/restoration_pubmed.nbib", 104, 96),
    ("exports/mjwestgate__revtools/examples/restoration_scopus.ris", 286, 281),
    ("exports/mjwestgate__synthesisr/tests/testthat/testdata/ASP_ris_example.ris", 4, 4),
    ("exports/mjwestgate__synthesisr/tests/testthat/testdata/Ovid_ris_example.ris", 4, 4),
    ("exports/mjwestgate__synthesisr/tests/testthat/testdata/PubMed_example.txt", 3, 3),
    ("exports/mjwestgate__synthesisr/tests/testthat/testdata/Scopus_ris_example.ris", 3, 3),
    ("exports/mjwestgate__synthesisr/tests/testthat/testdata/WoS_txt_example.txt", 4, 4),
    ("exports/rachelnewnham__AHRO-Python/embase.csv", 4, 4),
    ("exports/rafguns__wosfile/data/wos_plaintext.txt", 50, 49),
    ("exports/rafguns__wosfile/data/wos_tab_delimited_win_utf16.txt", 50, 49),
    ("exports/rafguns__wosfile/data/wos_tab_delimited_win_utf8.txt", 50, 49),
]
needs_real = pytest.mark.skipif(not REAL.is_dir(), reason=f"no real reference-manager files at {REAL}")


@needs_real
@pytest.mark.parametrize(("path", "entries", "abstracts"), REAL_FILES, ids=[p for p, _, _ in REAL_FILES])
def test_real_files_read_as_provenance_counts_them(path: str, entries: int, abstracts: int) -> None:
    papers = list(load_paths([REAL / path]).papers.values())  # the same content twice is one paper, two sources
    assert sum(len(p.sources) for p in papers) == entries
    assert sum(len(p.sources) for p in papers if not p.no_abstract) == abstracts
    initials = [p.first_author for p in papers if p.first_author and misread(p.first_author)]
    assert initials == []  # a surname that is initials would give citekeys like 'rduplication'
    left = [(p.title, p.text[:80]) for p in papers if MARKUP.search(f"{p.title} {p.text}")]
    assert left == []
    contained = [p for p in papers if p.item_type in ("article-journal", "paper-conference", "chapter")]
    if path.startswith("exports/"):  # a database says where each article appeared (a user's .bib may not)
        assert sum(bool(p.venue) for p in contained) >= 0.9 * len(contained)


@needs_real
def test_the_real_string_macro_file_is_one_clear_line() -> None:
    from rag.errors import InputError

    with pytest.raises(InputError, match=r"AuthorIDs\.bib: no usable BibTeX entry"):
        load_paths([REAL / "bibtex/crcox__MASTERBIB/AuthorIDs.bib"])


def test_bib_files_ingested_together_share_their_macros_and_abstracts(tmp_path: Path) -> None:
    (tmp_path / "AuthorIDs.bib").write_text(
        '@string{PattersonK = "Patterson, Karalyn"}\n@string{LambonRalphMA = "Lambon Ralph, Matthew A."}\n'
    )
    (tmp_path / "Main.bib").write_text(
        "@Article{hub_2010,\n  Title = {A semantic hub},\n  Author = LambonRalphMA # { and } # PattersonK,\n"
        "  Year = {2010}\n}\n@Article{solo_2011, Title = {Alone}, Author = PattersonK, Year = {2011}}\n"
    )
    (tmp_path / "Abstracts.bib").write_text(
        "@article{hub_2010,\n abstract = {The anterior temporal lobes act as a hub.},\n}\n"
        "@article{orphan_2012, abstract = {An abstract no other file gives a title.}}\n"
    )
    result = load_paths([tmp_path])
    papers = {p.citekey: p for p in result.papers.values()}
    assert sorted(papers) == ["hub_2010", "orphan_2012", "solo_2011"]  # no untitled copy of hub_2010
    hub = papers["hub_2010"]
    assert hub.authors == ["Lambon Ralph, Matthew A.", "Patterson, Karalyn"]
    assert hub.text == "The anterior temporal lobes act as a hub."
    assert papers["solo_2011"].authors == ["Patterson, Karalyn"]
    assert hub.bibtex is not None and "Lambon Ralph, Matthew A." in hub.bibtex and "#" not in hub.bibtex
    assert "AuthorIDs.bib: 2 @string macros for the other .bib files" in result.warnings
    assert "Abstracts.bib: 1 abstract given to the entries of their keys in another file" in result.warnings
    untitled = [w for w in result.warnings if "no title" in w]
    assert untitled == [
        'Abstracts.bib: 1 entry with an abstract but no title, listed as "(untitled)"; if another .bib file holds '
        "their titles under the same keys, ingest the files together"
    ], "orphan_2012: no other file titles it"
    # Read alone, the macros it cannot resolve are read the JabRef way (surname and initials).
    alone = next(iter(load_paths([tmp_path / "Main.bib"]).papers.values()))
    assert alone.authors == ["LambonRalph, MA", "Patterson, K"]


def test_one_author_macro_no_file_defines_is_read_as_surname_and_initials() -> None:
    """JabRef's "Author = SiegelJM" with AuthorIDs.bib not ingested: "Siegel, JM", as a '#' concatenation of such
    macros is read (it was the author "SiegelJM", shown as "(SiegelJM, 2001)" under an answer); a quoted name
    and a macro the file defines are left to their own readings."""
    from rag.corpus.exports.bibtex import parse_bibtex

    text = (
        '@string{KayP = "Kay, Paul"}\n'
        "@article{siegel_2001, title = {REM sleep and memory}, author = SiegelJM, year = 2001}\n"
        "@article{kay_2004, title = {Colour}, author = KayP, year = 2004}\n"
        "@article{openai_2023, title = {A report}, author = {OpenAI}, year = 2023}\n"
    )
    papers = {p.citekey: p.authors for p in parse_bibtex(text, "Main.bib").papers}
    assert papers == {"siegel_2001": ["Siegel, JM"], "kay_2004": ["Kay, Paul"], "openai_2023": ["OpenAI"]}


def test_string_macros_joined_with_hash_in_one_file_are_resolved() -> None:
    from rag.corpus.exports.bibtex import parse_bibtex

    text = (
        '@string{OzgenE = "{\\"O}zgen, Emre"}\n@string{KayP = "Kay, Paul"}\n'
        "@article{ozgen_2004, title = {Colour categories}, author = OzgenE # { and } # KayP, year = 2004}\n"
    )
    (paper,) = parse_bibtex(text, "one.bib").papers
    assert paper.authors == ["Özgen, Emre", "Kay, Paul"] and paper.year == 2004


def test_a_bib_syntax_error_names_its_entry_and_why() -> None:
    from rag.corpus.exports.bibtex import parse_bibtex

    parsed = parse_bibtex("@article{open_2001, title={T}, abstract={never closed\n@article{b, title={U}}\n", "x.bib")
    assert parsed.warnings == [
        "x.bib:1: syntax error in entry 'open_2001' (Was still looking for field-value closing `}`), skipped"
    ]


def test_an_unreadable_bib_beside_others_is_skipped_alone(tmp_path: Path) -> None:
    (tmp_path / "a.bib").write_text("@article{a, title = {Readable}, abstract = {Fine text here.}}\n")
    (tmp_path / "b.bib").write_bytes(b"\xff\xfe\x00@article{b, title = {Broken}}" + bytes(range(128, 256)))
    result = load_paths([tmp_path])
    assert [p.citekey for p in result.papers.values()] == ["a"]


PLAIN_LATEX = ["{RNA} {Polymerase} {II}", "pp. 12--19", "1990---2000", "``quoted''", "Fig.~2", "a----b", "50% {of} x"]


@pytest.mark.parametrize("value", PLAIN_LATEX)
def test_latex_without_macros_or_math_reads_as_the_parser_reads_it(value: str) -> None:
    from rag.corpus.latex import _convert

    assert latex_to_text(value) == _convert(value.replace("%", r"\%"))


@pytest.mark.skipif(not REAL.is_dir(), reason="needs ../shared/real")
def test_real_bibtex_values_without_macros_read_as_the_parser_reads_them() -> None:
    import bibtexparser

    from rag.corpus.latex import _convert

    values = [
        str(field.value)
        for bib in sorted(REAL.rglob("*.bib"))[:6]
        for entry in bibtexparser.parse_string(bib.read_text(errors="replace")).entries
        for field in entry.fields
        if re.search(r"[{}~]|--|``", str(field.value)) and not re.search(r"[\\$]", str(field.value))
    ]
    assert len(values) > 100
    assert [latex_to_text(v) for v in values] == [_convert(v.replace("%", r"\%")) for v in values]
