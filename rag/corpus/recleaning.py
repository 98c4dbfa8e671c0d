"""Saved papers cleaned again by today's text cleaner (``rag reindex`` on a library an older rag made).

Only the saved text is there: what needs a PDF's page layout (running headers, page numbers) is left as
the older rag saved it, and comes out when the PDF is ingested again. A paper whose id was made from its
text gets the id a fresh ingest would give it, so reading the same file later finds it unchanged.
"""

from __future__ import annotations

from rag.corpus.cleaning import clean_prose, clean_title
from rag.corpus.identity import content_id
from rag.records import Paper


def clean_again(paper: Paper) -> bool:
    """The paper's title, abstract and passages through the cleaner (in place); True when any changed."""
    before = paper.to_dict()
    old_text, old_title = paper.text, paper.title
    paper.title = clean_title(old_title) if old_title else old_title
    # A paper without an abstract is indexed by its title, which is its text too.
    paper.text = (paper.title or old_text) if paper.no_abstract and old_text == old_title else clean_prose(old_text)
    for passage in paper.passages:
        passage.text = clean_prose(passage.text, notices=False)
    names = "; ".join(paper.authors)
    if paper.id == content_id(old_text):
        paper.id = content_id(paper.text)
    elif paper.id == content_id(f"{old_title}\n{names}"):
        paper.id = content_id(f"{paper.title}\n{names}")
    return paper.to_dict() != before
