"""Turning input files into ``Paper`` records."""
