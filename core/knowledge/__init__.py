"""What Hearth knows about its user: one small service per kind of knowledge (facts,
follow-ups, habits, memories, notes, the profile and its scaffold), each over the storage port."""
