"""PDFs: title, authors and abstract from the first pages (``document``, ``titles``), what the page layout
adds removed (``page_cleaning``), the body cut into passages (``passages``) and parsed PDFs kept between
ingests (``cache``).

Imports the shared corpus modules (``identity``, ``cleaning``, ``names``). Importing this package imports
none of its modules (pypdf is loaded only when a PDF is read).
"""
