"""Bad input to ingest: one clear reason per file, nothing half-read."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SEEDS

from rag.corpus import load_paths
from rag.errors import InputError

SEED_FILE = SEEDS / "000_e22c73655386b99b.txt"


def test_missing_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or folder"):
        load_paths([tmp_path / "nope.txt"])


def test_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(InputError, match=r"empty\.txt: file is empty"):
        load_paths([tmp_path / "empty.txt"])


def test_binary_file(tmp_path: Path) -> None:
    (tmp_path / "blob.txt").write_bytes(b"Related papers: x\x00\x01\x02")
    with pytest.raises(InputError, match="binary file"):
        load_paths([tmp_path / "blob.txt"])


def test_non_utf8_text(tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes("Related papers: Café\n\nUn résumé.".encode("latin-1"))
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xe9 at offset 19\)"):
        load_paths([tmp_path / "latin.txt"])


def test_plain_text_that_is_not_a_seed_list_is_one_document(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("just some notes\n\nmore notes about GPUs.\n")
    paper = next(iter(load_paths([tmp_path / "notes.txt"]).papers.values()))
    assert (paper.title, paper.text, paper.sources) == ("just some notes", "more notes about GPUs.", ["notes.txt#1"])


def test_folder_with_mixed_files_keeps_the_good_ones(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.txt").write_text(SEED_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "empty.txt").write_text("")
    (folder / "paper.pdf").write_bytes(b"%PDF-1.4")
    (folder / "image.png").write_bytes(b"\x89PNG")
    (folder / ".hidden.txt").write_text("ignored")
    result = load_paths([folder])
    assert result.files_read == 1
    assert len(result.papers) == 20
    assert len(result.warnings) == 3
    assert any("empty.txt: file is empty" in w for w in result.warnings)
    assert any("paper.pdf: unreadable PDF" in w for w in result.warnings)
    assert any("image.png: unsupported file type" in w for w in result.warnings)


def test_tsv_beside_a_user_list_adds_titles(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("Related papers: My paper\n\nAn abstract about GPUs.\n")
    (tmp_path / "papers.tsv").write_text(
        "file\tentry\ttitle\tfirst_author\tyear\tarxiv\nmine.txt\t1\tGPU Things\tRoe (Ann)\t2024\t2401.00001\n"
    )
    paper = next(iter(load_paths([tmp_path / "mine.txt"]).papers.values()))
    assert (paper.title, paper.year, paper.authors, paper.truncated) == ("GPU Things", 2024, ["Roe, Ann"], False)


def test_header_without_abstracts(tmp_path: Path) -> None:
    (tmp_path / "h.txt").write_text("Related papers: nothing follows\n")
    with pytest.raises(InputError, match="no abstracts"):
        load_paths([tmp_path / "h.txt"])


def test_reading_a_folder_reports_progress(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"note{i}.md").write_text(f"# Paper number {i}\n\nAn abstract about topic {i}.\n")
    seen: list[tuple[str, int, int]] = []
    result = load_paths([tmp_path], progress=lambda what, done, total: seen.append((what, done, total)))
    assert len(result.papers) == 3
    assert seen == [("reading files", n, 3) for n in range(4)], "from none read to all read"


def test_a_huge_one_line_file_is_cut_to_bounded_abstract_and_key(tmp_path: Path) -> None:
    """A 20 MB line once became one paper with a 20-million-character citekey and slowed every search."""
    from rag.corpus import MAX_ABSTRACT_CHARS, MAX_CITEKEY_CHARS

    (tmp_path / "dump.txt").write_text("x" * 20_000_000 + "\n", encoding="utf-8")
    result = load_paths([tmp_path / "dump.txt"])
    (paper,) = result.papers.values()
    assert len(paper.text) == MAX_ABSTRACT_CHARS + 1 and paper.text.endswith("…") and paper.truncated
    assert "dump.txt#1: abstract of 20,000,000 characters cut to 20,000" in result.warnings
    from rag.corpus import assign_citekeys

    assign_citekeys([paper])
    assert len(paper.citekey) <= MAX_CITEKEY_CHARS


def test_a_key_too_long_to_be_typed_is_replaced_and_said(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("@article{" + "k" * 300 + ",\n title = {Sparse experts},\n}\n")
    result = load_paths([tmp_path / "refs.bib"])
    (paper,) = result.papers.values()
    assert paper.citekey == "" and any("citekey of 300 characters is not kept" in w for w in result.warnings)


def test_a_long_key_from_the_users_own_file_is_kept_as_written(tmp_path: Path) -> None:
    """JabRef and Zotero write keys of 70-150 characters; a thesis cites them: renaming one breaks its \\cite."""
    key = "Brewer2008NbActiv4mediumimprovementtoNeurobasal/B27increasesneuronsynapsedensitiesonarrays.JNeurosciMethods"
    (tmp_path / "refs.bib").write_text("@article{" + key + ",\n title = {NbActiv4 medium},\n}\n")
    (paper,) = load_paths([tmp_path / "refs.bib"]).papers.values()
    assert paper.citekey == key
