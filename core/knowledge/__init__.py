"""What Hearth knows about its user: one small service per kind of knowledge (facts,
follow-ups, habits, memories, notes, About you, Notes about you), each over the storage
port."""
