#!/usr/bin/env python3
"""Fill a devcoach database with N synthetic lessons (for benchmarks only).

Usage: seed.py DB_PATH N [FIRST]
Lessons are numbered from FIRST (0 unless given). The database must already have the v6 schema (create it with `devcoach demo --dir DIR`).
"""
import sqlite3
import sys

TOPICS = ["rust", "typescript", "python", "sql", "git", "docker", "testing", "security", "linux", "redis"]
LEVELS = ["junior", "mid", "senior"]
FEEDBACK = [None, "know", "understood", "dont_know"]


def main() -> None:
    path, n = sys.argv[1], int(sys.argv[2])
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    db = sqlite3.connect(path)
    rows = []
    for i in range(first, first + n):
        topic = TOPICS[i % len(TOPICS)]
        day = 1 + (i % 28)
        month = 1 + (i // 28) % 11
        rows.append((
            f"bench-{i:05d}", f"2026-{month:02d}-{day:02d}T{i % 24:02d}:{i % 60:02d}:00Z", topic,
            f'["{topic}", "bench"]', f"Lesson {i}: {topic} in practice", LEVELS[i % 3],
            f"A short summary about {topic} (lesson {i}).",
            f"Paragraph one about **{topic}**.\n\nParagraph two with `code` and detail {i}.\n\n💡 *Senior tip:* measure first.",
            f"bench task {i}", "bench-project", "example/bench-project", "main", f"{i:040x}", None, FEEDBACK[i % 4],
            "github", i % 7 == 0, 0, None,
        ))
    db.executemany(
        "INSERT OR REPLACE INTO lessons (id, timestamp, topic_id, categories, title, level, summary, body, task_context, "
        "project, repository, branch, commit_hash, folder, feedback, repository_platform, starred, imported, shared_by) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.commit()


if __name__ == "__main__":
    main()
