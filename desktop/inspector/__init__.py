"""The inspector: views that show what Hearth knows about its user and let the user correct
it (facts, profile, scaffold, learnings, intentions, memories, activity, stats). Every view
reads and writes through core's services, in background jobs."""
