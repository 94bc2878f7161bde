"""The data folder itself: its lock, its private permissions, which process is doing
what (liveness), backups of the database and the health check."""
