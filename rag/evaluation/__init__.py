"""Measuring rag: retrieval metrics (nDCG, recall, MRR), BEIR folders, and how well the
citation check tells support from contradiction on labelled claims.

May import: everything below rag.services (it runs the writing layer's checks on labelled pairs).
"""
