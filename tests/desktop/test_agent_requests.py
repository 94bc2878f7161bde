"""A program connecting over MCP is no longer invisible: its first call without access puts
a card in the window's notification area, saying what reading would cover, with the
narrower choices and Allow read / Allow read and write / Deny. The answer is the grant the
tools enforce; the Agents view shows and changes the same scope."""

from __future__ import annotations

import pytest
from support.qt_waits import wait_idle

from core.agents.tools import AccessDenied, AgentTools
from core.operations import agents
from desktop.agent_requests import AccessRequestCard
from desktop.main_window import MainWindow


@pytest.fixture
def window(qtbot, ctx) -> MainWindow:
    shown = MainWindow(ctx)
    qtbot.addWidget(shown)
    shown.resize(1200, 780)
    shown.show()
    qtbot.waitExposed(shown)
    ctx.hearth.facts.remember("home_city", "Porto", category="location")
    ctx.hearth.facts.remember("allergy", "penicillin", category="health")
    return shown


def knocks(ctx, name: str = "notes-bot") -> AgentTools:
    """The program calls a tool (in ``hearth mcp``, another process: only the database
    tells the window) and is refused: it has no access yet."""
    tools = AgentTools(ctx.hearth.agent_services(), name)
    with pytest.raises(AccessDenied):
        tools.call("list_facts", {})
    return tools


def request_card(qtbot, window: MainWindow) -> AccessRequestCard:
    window.agent_requests.check()
    qtbot.waitUntil(lambda: bool(window.agent_requests.cards), timeout=10_000)
    (card,) = window.agent_requests.cards
    return card


def test_a_new_agent_asks_and_allow_read_grants_the_narrower_scope_chosen(
        qtbot, ctx, window) -> None:
    tools = knocks(ctx)
    card = request_card(qtbot, window)
    assert window.notification_area.isVisible() and window.isAncestorOf(card)
    assert card.title.text() == "“notes-bot” asks to use your memory"
    assert "health-related ones too" in card.scope.sentence.text()
    assert [button.text() for button in card.buttons.values()] == [
        "Allow read", "Allow read and write", "Deny"]

    card.scope.only_search.click()
    card.scope.private["health"].click()
    sentence = card.scope.sentence.text()
    assert sentence.startswith("It may only search your memories and notes, except anything "
                               "about your health")
    card.buttons["read"].click()
    qtbot.waitUntil(lambda: not window.agent_requests.cards, timeout=10_000)
    wait_idle(qtbot, ctx)
    (info,) = agents.list_agents(ctx.hearth)
    assert (info.access, info.scope, info.hidden, info.asking) == (
        "read", "search", ("health",), False)
    assert tools.call("search_memory", {"query": "Porto"}) is not None
    with pytest.raises(AccessDenied, match="only search"):
        tools.call("list_facts", {})
    assert "notes-bot may read your memory" in window.statusBar().currentMessage()


def test_deny_is_an_answer_and_the_agent_is_not_asked_about_again(qtbot, ctx, window) -> None:
    tools = knocks(ctx)
    request_card(qtbot, window).buttons["none"].click()
    qtbot.waitUntil(lambda: not window.agent_requests.cards, timeout=10_000)
    wait_idle(qtbot, ctx)
    with pytest.raises(AccessDenied):
        tools.call("list_facts", {})
    window.agent_requests.check()
    wait_idle(qtbot, ctx)
    assert window.agent_requests.cards == [] and agents.asking(ctx.hearth) == ()


def test_set_aside_it_waits_in_the_agents_view_which_narrows_a_grant(
        qtbot, ctx, window) -> None:
    tools = knocks(ctx)
    request_card(qtbot, window).close_button.click()
    window.agent_requests.check()
    wait_idle(qtbot, ctx)
    assert window.agent_requests.cards == []  # not brought back this session
    page = window.show_page("agents")
    wait_idle(qtbot, ctx)
    assert page.proxy.index(0, 1).data() == "no access (asks for access)"
    assert page.select("notes-bot")
    assert not page.detail.scope.isEnabled()
    page.read.click()
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(lambda: page.detail.scope.isEnabled())
    assert "health-related ones too" in page.detail.scope.sentence.text()
    page.detail.scope.private["health"].click()
    wait_idle(qtbot, ctx)
    assert [fact["key"] for fact in tools.call("list_facts", {})["facts"]] == ["home_city"]
    qtbot.waitUntil(lambda: page.proxy.index(0, 2).data() == "everything, not health")
