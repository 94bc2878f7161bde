"""What the schedule runs on its own that speaks in a chat: the daily briefing
(``briefing``) and scheduled prompts (``prompt_runs``).

They sit above the daily services (``core.daily``) and the conversation
(``core.conversation``), which never import them: the scheduler (``core.scheduling``)
hands them the services they use.
"""
