"""The Why? panel in plain words (internals behind Details), and "Answer again without
this": the other answer appears in the panel, the saved reply stays, nothing is learned."""

from __future__ import annotations

from support.qt_waits import wait_idle
from test_chat_page import history, open_page, scripted, type_and_send, wait_reply

from core.storage.orm import Interaction
from core.views.reply_context import UsedItem
from desktop.chat.why_panel import ITEM_ROLE, WhyPanel
from desktop.main_window import MainWindow


def test_the_panel_says_what_was_used_and_hides_the_internals_until_details(
        qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Your bees are on the roof."))
    ctx.hearth.facts.remember("home_city", "Lisbon", category="location")
    ctx.hearth.memories.add("The user keeps bees on the roof of their building.")
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "Where do I keep my bees?")
    wait_reply(qtbot, page).why_button.click()
    panel = page.why_panel
    qtbot.waitUntil(lambda: bool(panel.items), timeout=10_000)

    assert panel.summary.text().startswith("This reply used 1 fact and 1 memory.")
    assert "tokens" not in panel.summary.text()
    assert panel.tree.isColumnHidden(1) and panel.tree.isColumnHidden(2)
    panel.details_button.click()
    assert not panel.tree.isColumnHidden(1) and "tokens of the prompt" in panel.summary.text()
    panel.details_button.click()
    assert panel.tree.isColumnHidden(1)


def test_answer_again_without_a_memory_shows_the_other_answer_and_saves_nothing(
        qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Your bees are on the roof.",
                                             "I do not know where you keep them."))
    memory = ctx.hearth.memories.add("The user keeps bees on the roof of their building.")
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "Where do I keep my bees?")
    reply = wait_reply(qtbot, page)
    wait_idle(qtbot, ctx)
    reply.why_button.click()
    panel = page.why_panel
    qtbot.waitUntil(lambda: bool(panel.items), timeout=10_000)
    memories = panel.model.item(0)
    assert memories.text() == "Memories (1)"
    assert not panel.without_button.isEnabled()  # nothing selected yet
    panel.tree.setCurrentIndex(memories.child(0, 0).index())
    assert panel.without_button.isEnabled() and panel.fix_button.isEnabled()

    panel.without_button.click()
    qtbot.waitUntil(lambda: page._without is not None and not page._without.running,
                    timeout=30_000)

    assert panel.alternative.isVisible()
    assert "I do not know where you keep them." in panel.alternative.toPlainText()
    assert "Without “The user keeps bees" in panel.alternative_title.text()
    assert ctx.assistant is not None
    asked = [r for r in ctx.assistant.conversation.provider.requests if r.kind == "chat"]
    assert "bees on the roof" in asked[0].messages[-1].content
    assert "bees on the roof" not in " ".join(m.content for m in asked[-1].messages)
    assert asked[-1].tools == []  # the comparison cannot change anything
    # the reply on screen and in the chat is the original; no exchange was added
    assert reply.text == "Your bees are on the roof."
    (saved,) = history(ctx, page.current_session)
    assert saved.agent_response == "Your bees are on the roof."
    with ctx.hearth.storage.read() as session:
        assert session.query(Interaction).count() == 1
    assert ctx.hearth.memories.get(memory.id) is not None


def test_fix_or_forget_opens_the_view_that_holds_the_item_with_it_selected(
        qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Your bees are on the roof, in Lisbon."))
    for key, value in (("favourite_colour", "green"), ("home_city", "Lisbon"),
                       ("pet", "a cat")):
        ctx.hearth.facts.remember(key, value, category="general")
    for text in ("The user's sister lives in Porto.", "The user repairs old radios."):
        ctx.hearth.memories.add(text)
    memory = ctx.hearth.memories.add("The user keeps bees on the roof of their building.")
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=30_000):
        ctx.start_assistant()
    page = window.show_page("chat")
    wait_idle(qtbot, ctx)
    facts = window.pages["facts"]
    window.show_page("facts")
    wait_idle(qtbot, ctx)
    facts.search.setText("colour")  # left typed: it must not hide the fact asked for
    qtbot.waitUntil(lambda: facts.model.rowCount() == 1)
    window.show_page("chat")
    type_and_send(qtbot, page, "Where do I keep my bees?")
    wait_reply(qtbot, page).why_button.click()
    panel = page.why_panel
    qtbot.waitUntil(lambda: bool(panel.items), timeout=10_000)

    def choose(kind: str, text: str) -> None:
        rows = [group.child(n) for group in map(panel.model.item,
                                                range(panel.model.rowCount()))
                for n in range(group.rowCount())]
        panel.tree.setCurrentIndex(next(
            row.index() for row in rows if (item := row.data(ITEM_ROLE)) is not None
            and item.kind == kind and text in item.text))
        assert panel.fix_button.isEnabled()
        panel.fix_button.click()

    choose("fact", "Lisbon")
    assert panel.detail.text().startswith("home city: Lisbon")  # as Facts names it
    qtbot.waitUntil(lambda: window.current_page() is facts
                    and facts.selected() is not None, timeout=10_000)
    assert facts.selected().key == "home_city" and facts.search.text() == ""
    assert facts.detail.isVisible()

    window.show_page("chat")
    choose("memory", "bees")
    memories = window.pages["memories"]
    qtbot.waitUntil(lambda: window.current_page() is memories
                    and memories.selected() is not None, timeout=10_000)
    assert memories.selected().id == memory.id
    qtbot.waitUntil(lambda: memories.detail_pane.detail is not None
                    and memories.detail_pane.detail.id == memory.id)
    assert "bees on the roof" in memories.detail_pane.browser.toPlainText()


def test_fix_or_forget_is_grey_and_says_why_for_a_chat_summary(qtbot) -> None:
    panel = WhyPanel()
    qtbot.addWidget(panel)
    panel.show_items([UsedItem("memory", 7, "The user keeps bees.", 0.4, 8, "from chat"),
                      UsedItem("summary", 4, "Summary: bees", 0.5, 12, "chat summary")])
    memory, summary = (panel.model.item(row).child(0).index() for row in range(2))
    panel.tree.setCurrentIndex(summary)
    assert panel.without_button.isEnabled() and not panel.fix_button.isEnabled()
    assert "when that chat is deleted" in panel.fix_button.toolTip()
    panel.tree.setCurrentIndex(memory)
    assert panel.fix_button.isEnabled() and "selected" in panel.fix_button.toolTip()


def test_about_you_is_listed_without_its_markdown_marks(qtbot) -> None:
    panel = WhyPanel()
    qtbot.addWidget(panel)
    panel.show_items([UsedItem("about_you", 1, "## Personal\nMaya is a designer.", None, 9,
                               "About you, v2")])
    line = panel.model.item(0).child(0)
    assert line.text() == "Personal Maya is a designer."
    panel.tree.setCurrentIndex(line.index())
    assert panel.detail.text().startswith("Personal\nMaya is a designer.")
