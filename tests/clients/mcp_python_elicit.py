"""Answers devcoach's feedback form with the official Python MCP SDK, which declares elicitation.

Usage: python mcp_python_elicit.py <devcoach binary> <data dir> accept|decline|cancel
Run by the Rust test `mcp_python::the_python_sdk_answers_the_feedback_form`, which checks the
printed JSON: what the form asked, what the call returned, and that a second call asked nothing.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def main(binary: str, data_dir: str, mode: str) -> None:
    env = {
        "DEVCOACH_DIR": data_dir,
        "DEVCOACH_NOW": "2026-11-30T12:00:00Z",
        "HOME": os.environ.get("HOME", data_dir),
        "PATH": os.environ.get("PATH", ""),
    }
    seen: dict = {"asked": 0}

    async def on_form(context, params):
        seen["asked"] += 1
        seen["message"] = params.message
        seen["schema"] = params.requested_schema
        if mode == "accept":
            return types.ElicitResult(
                action="accept", content={"answer": "understood", "explanation": "Await runs one at a time."}
            )
        return types.ElicitResult(action=mode)

    params = StdioServerParameters(command=binary, args=["mcp"], env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, elicitation_callback=on_form) as session:
            await session.initialize()
            lesson_id = f"py-form-{mode}"
            logged = await session.call_tool(
                "log_lesson",
                {
                    "id": lesson_id, "topic_id": "asyncio", "categories": ["Python"],
                    "title": "Awaiting in a loop runs one task at a time", "level": "mid",
                    "summary": "A loop of awaits is sequential.", "body": "Use `asyncio.gather` to run them together.",
                },
            )
            seen["feedback_by"] = logged.structured_content["feedback_by"]
            # The next turn: the learner wrote something else, so the agent asks through the form.
            first = await session.call_tool("submit_feedback", {"lesson_id": lesson_id})
            seen["first"] = first.structured_content
            seen["first_error"] = bool(first.is_error)
            second = await session.call_tool("submit_feedback", {"lesson_id": lesson_id})
            seen["second_error"] = bool(second.is_error)
            seen["second_text"] = " ".join(c.text for c in second.content if hasattr(c, "text"))
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
