"""The Graph view: memories as nodes and their links as edges, drawn with pyqtgraph.

``page`` (the sidebar page) puts together ``scene`` (the plot), ``legend`` (legend and
filters), ``details`` (the clicked memory); ``layout``, ``filters`` and ``cache`` are plain
numpy with no Qt, so they are tested on their own. The data comes from
``core.views.graph``.
"""
