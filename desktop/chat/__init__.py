"""The Chat page: the conversation list, the transcript with streamed Markdown replies, the
composer, and the "why" panel that shows what the assistant was given for a reply."""
