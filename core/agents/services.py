"""What an agent's calls read and write: the services the composition root wires for them
(``core.app.Hearth.agent_services``), so no agent tool holds the whole ``Hearth``."""

from __future__ import annotations

from dataclasses import dataclass

from core.config import Settings
from core.forgetting.service import ForgetService
from core.knowledge.facts import FactService
from core.knowledge.about_you import AboutYouService
from core.recall import RecallService
from core.storage.port import StoragePort


@dataclass(frozen=True)
class AgentServices:
    """The database (the audit, the grants, held writes), the settings in effect (exclusions,
    whether learning is on), and the services an agent's reads and accepted writes reach."""

    storage: StoragePort
    settings: Settings
    facts: FactService
    about_you: AboutYouService
    recall: RecallService
    forgetting: ForgetService
