"""The change set operations return: views reload only for what it names."""

from core.operations.changes import NOTHING, Changes, Domain


def test_a_change_set_names_what_moved_and_combines() -> None:
    facts = Changes.of(Domain.FACTS)
    assert facts.touches(Domain.FACTS, Domain.ABOUT_YOU)
    assert not facts.touches(Domain.CHATS)
    both = facts | Changes.of(Domain.CHATS)
    assert both.touches(Domain.CHATS) and both.touches(Domain.FACTS)
    assert not NOTHING and both
    assert Changes.knowledge().touches(Domain.MEMORIES)
    assert not Changes.knowledge().touches(Domain.CHATS)
