"""Drives `devcoach mcp` with the official Python MCP SDK and prints what it saw as JSON.

Usage: python mcp_python_client.py <devcoach binary> <data dir> [review]
Run by the Rust test `mcp_python::the_python_sdk_can_use_every_part`, which checks the output.
With `review`, it comes back two days later and goes through the review queue instead.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def review(session: ClientSession, seen: dict) -> None:
    due = await session.call_tool("get_due_reviews", {})
    seen["due"] = due.structured_content
    card = due.structured_content["cards"][0]
    # The agent asked the question, read the learner's words and graded them: a checked review.
    graded = await session.call_tool(
        "grade_review",
        {
            "lesson_id": card["lesson_id"], "grade": "hard",
            "answer": "You gather them, I think, and await that.",
            "missing": "asyncio.gather(a(), b(), c()) starts all three before awaiting any",
        },
    )
    seen["graded"] = graded.structured_content
    calibration = await session.read_resource("devcoach://calibration")
    seen["calibration"] = json.loads(calibration.contents[0].text)
    after = await session.read_resource("devcoach://reviews/due")
    seen["due_after"] = json.loads(after.contents[0].text)


async def main(binary: str, data_dir: str, mode: str) -> None:
    env = {
        "DEVCOACH_DIR": data_dir,
        "DEVCOACH_NOW": "2026-12-02T12:00:00Z" if mode == "review" else "2026-11-30T12:00:00Z",
        "HOME": os.environ.get("HOME", data_dir),
        "PATH": os.environ.get("PATH", ""),
    }
    params = StdioServerParameters(command=binary, args=["mcp"], env=env)
    seen: dict = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = init.server_info.name
            if mode == "review":
                await review(session, seen)
                print(json.dumps(seen))
                return
            seen["protocol"] = init.protocol_version
            tools = await session.list_tools()
            seen["tools"] = sorted(t.name for t in tools.tools)
            seen["with_output_schema"] = sorted(t.name for t in tools.tools if t.output_schema)
            onboard = await session.call_tool(
                "complete_onboarding", {"topics": {"python": 6, "asyncio": 3}, "groups": {"Languages": ["python"]}}
            )
            seen["onboard_error"] = bool(onboard.is_error)
            logged = await session.call_tool(
                "log_lesson",
                {
                    "id": "py-client", "topic_id": "asyncio", "categories": ["python", "asyncio"],
                    "title": "Gather, don't await in a loop", "level": "mid", "summary": "Run coroutines together.",
                    "body": "Use asyncio.gather.\n\n💡 *Senior tip:* bound concurrency with a semaphore.",
                    "review": {"question": "How do you run three coroutines at once?", "answer": "asyncio.gather(a(), b(), c())."},
                },
            )
            seen["logged"] = logged.structured_content
            feedback = await session.call_tool("submit_feedback", {"lesson_id": "py-client", "feedback": "know"})
            seen["feedback"] = feedback.structured_content
            # The learner said they knew it, then explained it back; the agent graded the words.
            explained = await session.call_tool(
                "submit_feedback",
                {
                    "lesson_id": "py-client",
                    "explain_back": {
                        "answer": "You await each one in turn.", "grade": "wrong",
                        "missing": "gather runs them concurrently; awaiting in a loop runs them one after another",
                    },
                },
            )
            seen["explained"] = explained.structured_content
            bad = await session.call_tool("star_lesson", {"lesson_id": "missing", "starred": True})
            seen["bad_is_error"] = bool(bad.is_error)
            seen["bad_text"] = bad.content[0].text
            resources = await session.list_resources()
            seen["resources"] = sorted(str(r.uri) for r in resources.resources)
            briefing = await session.read_resource("devcoach://briefing")
            seen["briefing"] = json.loads(briefing.contents[0].text)
            prompt = await session.get_prompt("devcoach_instructions")
            seen["prompt_chars"] = len(prompt.messages[0].content.text)
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""))
