"""Every stored vector of one kind, read in keyset pages into one preallocated matrix.

Both adapters hand the link stage and the merge stage their vectors this way, so the peak is
the matrix itself (100k x 384 floats: 154 MB), not a list of blobs beside it; they differ only
in the column they select and how its bytes become floats (sqlite-vec stores native float32,
pgvector's ``vector_send`` a 4-byte header and big-endian float32).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import text as sql
from sqlalchemy.orm import Session

PAGE = 10_000


def read_vector_pages(session: Session, source: str, column: str, dimensions: int,
                      decode: Callable[[Sequence[Any]], np.ndarray]) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """(ids int64 (n,), float32 (n, dimensions)) of ``SELECT e.id, <column> <source>``, by
    id; ``source`` is ``FROM … WHERE …`` over a vector table aliased ``e``, and
    ``decode(blobs)`` turns one page's column values into a (count, dimensions) matrix. Rows
    deleted between the count and the last page are left out."""
    total = session.execute(sql(f"SELECT count(*) {source}")).scalar_one()
    ids = np.empty(total, dtype=np.int64)
    matrix = np.empty((total, dimensions), dtype=np.float32)
    filled, after = 0, 0
    while filled < total:
        page = session.execute(sql(f"SELECT e.id, {column} {source} AND e.id > :after "
                                   f"ORDER BY e.id LIMIT :page"),
                               {"after": after, "page": PAGE}).all()
        if not page:
            break  # rows deleted since the count: return what exists
        page = page[:total - filled]
        count = len(page)
        ids[filled:filled + count] = [row[0] for row in page]
        matrix[filled:filled + count] = decode([row[1] for row in page]).reshape(
            count, dimensions)
        filled += count
        after = page[-1][0]
    return ids[:filled], matrix[:filled]
