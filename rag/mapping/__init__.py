"""`rag map`: a library as a 2D picture. The vector maths (rag.mapping.layout), the picture as plain
records (rag.mapping.picture) and its renderers (rag.mapping.png, rag.mapping.html).

May import: rag.writing (the outline's themes), rag.records and below. Never the index: it is given
papers and their vectors.
"""
