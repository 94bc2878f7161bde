"""The assistant's daily tools: tasks, reminders, notes, journal, read-later, scheduled
prompts and alerts, and the approval gate for what a model asks to change."""
