"""``hearth mcp``: serve Hearth's memory to other local programs over MCP (stdio), and the
user's side of it: which agents connected, what each may do, and the writes they asked for.

``hearth mcp`` alone serves (``core.operations.agents``): nothing but the protocol goes to
stdout. ``agents``, ``grant``, ``trust``, ``review``, ``accept``, ``reject`` and
``history`` are the consent model's commands, ``token add|list|revoke`` the agents' named
tokens for HTTP (``docs/mcp.md``)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cli import output
from cli.context import opened
from cli.daily import IdArgument, JsonOption, YesOption, done, local, show
from core.errors import InvalidInputError

mcp_app = typer.Typer(help="Hearth's memory for other local agents (MCP): serve, grant, review.",
                      invoke_without_command=True)
token_app = typer.Typer(help="Named tokens for HTTP: a token that is one agent, whatever its "
                             "client calls itself.", no_args_is_help=True)
mcp_app.add_typer(token_app, name="token")
NameArgument = Annotated[str, typer.Argument(metavar="NAME",
                                             help="The agent, as `hearth mcp agents` lists it.")]


@mcp_app.callback()
def serve(ctx: typer.Context, agent: Annotated[str | None, typer.Option(
        "--agent", help="Name this connection yourself (else the client's own name is used).",
        )] = None, http: Annotated[bool, typer.Option(
        "--http", help="Serve streamable HTTP on 127.0.0.1 instead of stdio (token needed).",
        )] = False, port: Annotated[int, typer.Option(
        help="The HTTP port (0: any free one).", min=0, max=65535)] = 8765,
        new_token: Annotated[bool, typer.Option(
        "--new-token", help="Replace the HTTP token (clients with the old one are refused).",
        )] = False) -> None:
    """Serve the memory over MCP on stdin/stdout (what an MCP client's configuration runs)."""
    if ctx.invoked_subcommand is not None:
        return
    from core.operations import agents

    name = agents.normalise_name(agent) if agent is not None else None
    with opened() as hearth:
        if not http:
            agents.serve_stdio(hearth, name)
            return

        def listening(where: agents.Listening) -> None:
            output.stderr.print(f"Serving MCP on {where.url} (token in {where.token_file}); "
                                "Ctrl-C stops.", highlight=False, markup=False)

        agents.serve_http(hearth, name, port, renew_token=new_token, listening=listening)


@mcp_app.command("agents")
def list_agents(as_json: JsonOption = False) -> None:
    """The agents that connected, with what each may do."""
    from core.operations import agents

    with opened(only_reads=True) as hearth:
        items = agents.list_agents(hearth)
    show(items, as_json, "Agents", ["agent", "access", "reads", "trusted", "last seen"],
         lambda a: (a.name, a.access + (" (asks)" if a.asking else ""), _reads(a.scope, a.hidden),
                    "yes" if a.trusted else "no", local(a.last_seen_at)))


def _reads(scope: str, hidden: tuple[str, ...]) -> str:
    """How far an agent's reading goes: "everything", "search only", "not health"."""
    parts = ["search only" if scope == "search" else "everything"]
    if hidden:
        parts.append(f"not {', '.join(hidden)}")
    return ", ".join(parts)


@mcp_app.command("grant")
def grant(name: NameArgument, access: Annotated[str, typer.Argument(
        metavar="read|write|none", help="read: search and read; write: read and write.")],
        only_search: Annotated[bool | None, typer.Option(
            "--only-search/--everything",
            help="Let it only search memories and notes (no list of facts, no profile), or "
                 "read everything its access allows. Unchanged if not given.")] = None,
        keep_private: Annotated[list[str] | None, typer.Option(
            "--keep-private", metavar="CATEGORY",
            help="A fact category whose facts and memories it never sees (repeat for more: "
                 "location, personal, preference, work, health, general).")] = None,
        share_all: Annotated[bool, typer.Option(
            "--share-all", help="Keep no category from it.")] = False,
        as_json: JsonOption = False) -> None:
    """Set what an agent may do (an agent not seen yet can be granted ahead), and say what
    that covers."""
    from core.operations import agents

    scope = None if only_search is None else ("search" if only_search else "all")
    hidden = [] if share_all else keep_private
    with opened() as hearth:
        info = agents.grant(hearth, name, access, scope=scope, hidden=hidden).value
    may = {"none": "no access", "read": "read access",
           "write": "read and write access"}[info.access]
    done(info, as_json, f"{info.name} now has {may}. {info.covers}")


@mcp_app.command("trust")
def trust(name: NameArgument, undo: Annotated[bool, typer.Option(
        "--undo", help="Hold its writes for review again.")] = False,
        as_json: JsonOption = False) -> None:
    """Apply the agent's facts and observations without review (a forget, or a change to a
    fact you set, is still held)."""
    from core.operations import agents

    with opened() as hearth:
        info = agents.trust(hearth, name, not undo).value
    state = ("trusted: its writes are applied at once, except changes to facts you set"
             if info.trusted else "not trusted: its writes are held for your review")
    done(info, as_json, f"{info.name} is {state}.")


@mcp_app.command("review")
def review(as_json: JsonOption = False) -> None:
    """The writes agents asked for, waiting for your answer (`accept` or `reject` them)."""
    from core.operations import agents

    with opened(only_reads=True) as hearth:
        items = agents.held_writes(hearth)
    show(items, as_json, "Held for your review", ["id", "agent", "write", "asked"],
         lambda w: (w.id, w.agent, w.preview, local(w.created_at)))


@mcp_app.command("accept")
def accept(write_id: IdArgument, yes: Annotated[bool, typer.Option(
        "--yes", help="Do not ask before a forget (for scripts).")] = False,
        as_json: JsonOption = False) -> None:
    """Apply a held write. A forget asks first: it removes the value everywhere."""
    from core.operations import agents

    with opened() as hearth:
        held = {item.id: item for item in agents.held_writes(hearth)}
        if write_id in held and held[write_id].action == "forget_fact" and not yes:
            _confirm_forget(held[write_id].preview)
        item = agents.accept(hearth, write_id).value
    done(item, as_json, f"Accepted: {item.result or item.preview}")


@mcp_app.command("reject")
def reject(write_id: IdArgument, as_json: JsonOption = False) -> None:
    """Drop a held write: nothing is applied."""
    from core.operations import agents

    with opened() as hearth:
        item = agents.reject(hearth, write_id).value
    done(item, as_json, f"Rejected: {item.preview}")


@mcp_app.command("history")
def history(name: NameArgument, as_json: JsonOption = False) -> None:
    """What an agent read and wrote, newest first (arguments redacted)."""
    from core.operations import agents

    with opened(only_reads=True) as hearth:
        calls = agents.calls_of(hearth, name)
    show(calls, as_json, f"What {name} did", ["when", "kind", "tool", "result"],
         lambda c: (local(c.at), c.kind, c.tool, c.summary))


@token_app.command("add")
def add_token(name: NameArgument, as_json: JsonOption = False) -> None:
    """Make a token for an agent and print it once (Hearth keeps only its hash)."""
    from core.operations import agents

    with opened() as hearth:
        made = agents.add_token(hearth, name).value
    if as_json:
        output.print_json(made)
        return
    output.stdout.print(
        f"A token for {made.info.agent}, shown only now (Hearth keeps a hash of it):\n"
        f"{made.token}\n\nIn the client's configuration (for `hearth mcp --http` on its "
        f"default port):\n{made.configuration}", markup=False, highlight=False)


@token_app.command("list")
def list_tokens(as_json: JsonOption = False) -> None:
    """The agents' live tokens: agent, made, last used (never the token)."""
    from core.operations import agents

    with opened(only_reads=True) as hearth:
        items = agents.tokens(hearth)
    show(items, as_json, "Tokens", ["id", "agent", "made", "last used"],
         lambda t: (t.id, t.agent, local(t.created_at), local(t.last_used_at) or "never"))


@token_app.command("revoke")
def revoke_token(name: NameArgument, yes: YesOption = False,
                 as_json: JsonOption = False) -> None:
    """Revoke an agent's tokens: a running server refuses them from the next request."""
    from core.operations import agents

    if not yes:
        if not sys.stdin.isatty():
            raise InvalidInputError("Revoking cuts the agent off, so it is only done when "
                                    "confirmed.", "Add --yes to revoke without asking.")
        if not typer.confirm(f"Revoke {name}'s tokens? Its client is refused from its next "
                             "request.", default=False, err=True):
            raise typer.Exit(1)
    with opened() as hearth:
        count = agents.revoke_tokens(hearth, name).value
    done(count, as_json, f"Revoked {count} token{'s' if count != 1 else ''} of {name}.")


def _confirm_forget(preview: str) -> None:
    if not sys.stdin.isatty():
        raise InvalidInputError("A forget cannot be undone, so it is only done when "
                                "confirmed.", "Add --yes to accept it without asking.")
    if not typer.confirm(f"{preview}, everywhere it appears?", err=True):
        output.stderr.print("Kept; the request is still held.", highlight=False)
        raise typer.Exit(1)
