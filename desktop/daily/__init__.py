"""The daily views: Today (tasks, reminders, follow-ups), Notes, Journal and Read later."""
