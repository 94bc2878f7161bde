"""The inspector: views that show what Hearth knows about its user and let the user correct
it (facts, About you, Notes about you, habits, follow-ups, memories, activity, stats). Every view
reads and writes through core's services, in background jobs."""
