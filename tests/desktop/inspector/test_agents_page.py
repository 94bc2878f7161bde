"""The Agents view: agents with their grants, changed with the buttons; the selected
agent's held writes accepted or rejected (a forget asked once more), its history, and its
HTTP tokens made (shown once, copied) and revoked (asked first)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication

from core.agents.tokens import AgentTokens
from core.agents.tools import AgentTools
from core.operations import agents
from desktop.context import AppContext
from desktop import confirm
from desktop.inspector.agents import AgentsPage
from support.qt_waits import wait_idle


@pytest.fixture
def page(qtbot, ctx: AppContext) -> AgentsPage:
    hearth = ctx.hearth
    hearth.facts.remember("home_city", "Porto", category="location")
    agents.grant(hearth, "notes-bot", "write")
    tools = AgentTools(hearth.agent_services(), "notes-bot")
    tools.call("remember_fact", {"key": "bike", "value": "a green Brompton"})
    tools.call("forget_fact", {"key": "home_city"})
    tools.call("list_facts", {})
    agents.grant(hearth, "reader", "read")
    return opened(qtbot, ctx)


def opened(qtbot, ctx: AppContext) -> AgentsPage:
    """The view on screen with its agents loaded."""
    view = AgentsPage(ctx)
    qtbot.addWidget(view)
    view.resize(1100, 600)
    view.show()
    view.activate()
    wait_idle(qtbot, ctx)
    return view


def held_previews(view: AgentsPage) -> list[str]:
    return [view.detail.held.item(i).text().split("  (")[0]
            for i in range(view.detail.held.count())]


def choose(qtbot, ctx: AppContext, view: AgentsPage, name: str) -> None:
    assert view.select(name)
    qtbot.waitUntil(lambda: view.detail.history.count() > 0 or name == "reader")
    wait_idle(qtbot, ctx)


def test_agents_are_listed_with_their_grants_and_history(qtbot, ctx, page) -> None:
    rows = {page.proxy.index(r, 0).data(): (page.proxy.index(r, 1).data(),
                                            page.proxy.index(r, 4).data())
            for r in range(page.proxy.rowCount())}
    assert rows == {"notes-bot": ("read and write", "2"), "reader": ("read", "")}
    choose(qtbot, ctx, page, "notes-bot")
    assert held_previews(page) == ["Remember bike: a green Brompton (general)",
                                   "Forget the fact “home city”"]
    history = [page.detail.history.item(i).text() for i in range(page.detail.history.count())]
    assert "read  list_facts: 1 facts: home_city" in history[0]
    assert "write  remember_fact" in history[-1]
    assert not page.write.isEnabled() and page.read.isEnabled() and page.trust.isEnabled()


def test_grant_and_trust_buttons_change_the_agent(qtbot, ctx, page) -> None:
    choose(qtbot, ctx, page, "reader")
    assert not page.trust.isEnabled()  # trust needs write access
    page.write.click()
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(lambda: page.trust.isEnabled())
    page.trust.click()
    wait_idle(qtbot, ctx)
    (reader,) = [a for a in agents.list_agents(ctx.hearth) if a.name == "reader"]
    assert (reader.access, reader.trusted) == ("write", True)
    qtbot.waitUntil(lambda: page.trust.text() == "Stop &trusting")


def test_held_writes_are_accepted_or_rejected_and_a_forget_is_asked_first(
        qtbot, ctx, page, monkeypatch) -> None:
    asked: list[str] = []

    def ask(_parent: Any, title: str, text: str, action: str = "Delete") -> bool:
        asked.append(text)
        return len(asked) > 1  # no the first time, yes after

    monkeypatch.setattr(confirm, "ask", ask)
    choose(qtbot, ctx, page, "notes-bot")
    page.detail.held.setCurrentRow(0)
    page.detail.accept.click()
    wait_idle(qtbot, ctx)
    assert ctx.hearth.facts.get("bike").value == "a green Brompton"
    qtbot.waitUntil(lambda: held_previews(page) == ["Forget the fact “home city”"])

    page.detail.held.setCurrentRow(0)
    page.detail.accept.click()  # the user says no: nothing is forgotten
    wait_idle(qtbot, ctx)
    assert "home city" in asked[0] and ctx.hearth.facts.get("home_city") is not None
    page.detail.accept.click()
    wait_idle(qtbot, ctx)
    assert ctx.hearth.facts.get("home_city") is None
    qtbot.waitUntil(lambda: held_previews(page) == [])
    assert [w.status for w in agents.writes_of(ctx.hearth, "notes-bot")] == ["accepted",
                                                                            "accepted"]


def test_a_token_is_made_shown_once_copied_and_revoked(qtbot, ctx, page, monkeypatch) -> None:
    answers = iter([False, True])
    monkeypatch.setattr(confirm, "ask", lambda *_args, **_kw: next(answers))
    choose(qtbot, ctx, page, "reader")
    assert page.detail.tokens.count() == 0 and not page.detail.revoke.isEnabled()

    page.detail.new_token.click()
    qtbot.waitUntil(lambda: page.token_dialog is not None and page.token_dialog.isVisible())
    dialog = page.token_dialog
    token = dialog.token.text()
    assert AgentTokens(ctx.hearth.storage).agent_of(token) == "reader"
    assert f"Bearer {token}" in dialog.configuration.toPlainText()
    dialog.copy_token.click()
    assert QGuiApplication.clipboard().text() == token
    dialog.copy_configuration.click()
    assert QGuiApplication.clipboard().text() == dialog.configuration.toPlainText()
    dialog.reject()

    qtbot.waitUntil(lambda: page.detail.tokens.count() == 1)
    assert page.detail.tokens.item(0).text().startswith("Token ")
    assert token not in page.detail.tokens.item(0).text()
    page.detail.tokens.setCurrentRow(0)
    page.detail.revoke.click()  # the user says no: the token still works
    wait_idle(qtbot, ctx)
    assert AgentTokens(ctx.hearth.storage).agent_of(token) == "reader"
    page.detail.revoke.click()
    wait_idle(qtbot, ctx)
    assert AgentTokens(ctx.hearth.storage).agent_of(token) is None
    qtbot.waitUntil(lambda: page.detail.tokens.count() == 0)


def test_with_no_agent_yet_the_view_says_how_to_add_one(qtbot, ctx) -> None:
    view = opened(qtbot, ctx)
    assert view.empty_hint.isVisible() and "hearth mcp" in view.empty_hint.text()

    agents.grant(ctx.hearth, "reader", "read")
    view.reload()
    wait_idle(qtbot, ctx)
    assert view.proxy.rowCount() == 1 and not view.empty_hint.isVisible()
