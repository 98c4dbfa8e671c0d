"""Unique citekeys on a shared server, where two clients may ingest at the same moment.

Each client gives keys from the library it read when it started; two clients
adding papers with the same author, year and title word then give one key
twice. Chroma has no transactions, so every client checks its new keys after
writing them: on a clash, the paper written first keeps the key and the others
take the next free one. Every client settles the same way (by write time, then
id), whichever order their writes and checks interleave in.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rag.corpus.identity import citekey_stem, free_key
from rag.index.chroma import WRITTEN_KEY, VectorStore
from rag.records import Paper

# A re-key can clash again with a third client's newest write; each round settles one more.
SETTLE_ROUNDS = 5


def settle_citekeys(store: VectorStore, added: Sequence[Paper], known_keys: set[str]) -> list[str]:
    """Mark ``added`` (just written) with the time, then move any that lost a key clash; warnings say which."""
    if not added:
        return []
    claimed = dict.fromkeys((p.id for p in added), time.time_ns())
    store.update_papers({paper_id: {WRITTEN_KEY: at} for paper_id, at in claimed.items()})
    warnings: list[str] = []
    for _ in range(SETTLE_ROUNDS):
        owners = store.citekey_owners(p.citekey for p in added)
        losers = [p for p in added if min(owners.get(p.citekey, []), default=(0, "")) < (claimed[p.id], p.id)]
        if not losers:
            break
        used = known_keys | set(owners)
        moved: dict[str, dict[str, str | int]] = {}
        for paper in losers:
            old = paper.citekey
            paper.citekey = free_key(old if paper.bibtex else citekey_stem(paper), used)[0]
            used.add(paper.citekey)
            # A new claim: it yields to whoever holds that key already, even if they wrote later.
            claimed[paper.id] = time.time_ns()
            moved[paper.id] = {"citekey": paper.citekey, WRITTEN_KEY: claimed[paper.id]}
            warnings.append(
                f"citekey '{old}' was given to another paper by a client writing at the same time; "
                f"this one is '{paper.citekey}'"
            )
        store.update_papers(moved)
    return warnings
