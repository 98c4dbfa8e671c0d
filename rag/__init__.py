"""rag: a command-line research assistant over a library of paper abstracts."""

__version__ = "0.1.0"
