"""Read models for front ends: the questions a window asks of the memory (a memory's whole
story, the graph to draw, growth over time) answered in one place, so no widget writes SQL
and the CLI can ask the same questions."""
