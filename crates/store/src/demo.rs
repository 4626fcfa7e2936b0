//! A realistic demo profile: an onboarded learner with a few weeks of lessons, feedback, stars and
//! two lessons shared by a colleague, so a newcomer can see the product without an agent.

use chrono::{DateTime, Duration, Utc};
use devcoach_core::Lesson;
use devcoach_core::feedback::FeedbackChoice;
use devcoach_core::lesson::{Feedback, Level, Platform};
use devcoach_core::time::lesson_stamp;

use devcoach_core::course::{CourseId, StepKind, StepStatus};

use crate::courses::NewCourse;
use crate::{Result, Store};

/// How many lessons the demo holds.
pub const DEMO_LESSON_COUNT: usize = LESSONS.len() + SHARED.len();

const PROFILE: &[(&str, i64, &str)] = &[
    ("rust", 5, "Languages"),
    ("typescript", 7, "Languages"),
    ("python", 4, "Languages"),
    ("sql", 6, "Data"),
    ("postgresql", 5, "Data"),
    ("sqlite", 4, "Data"),
    ("redis", 3, "Data"),
    ("git", 7, "Tooling"),
    ("docker", 6, "Tooling"),
    ("testing", 5, "Tooling"),
    ("ci_cd", 4, "Tooling"),
    ("security", 3, "Practices"),
    ("performance", 5, "Practices"),
    ("architecture", 6, "Practices"),
    ("networking", 4, ""),
    ("linux", 6, ""),
];

struct DemoLesson {
    id: &'static str,
    topic: &'static str,
    categories: &'static [&'static str],
    title: &'static str,
    level: Level,
    summary: &'static str,
    body: &'static str,
    /// Hours before "now".
    hours_ago: i64,
    feedback: Option<Feedback>,
    starred: bool,
    shared_by: Option<&'static str>,
}

macro_rules! lesson {
    ($id:literal, $topic:literal, [$($cat:literal),*], $title:literal, $level:ident, $summary:literal, $body:literal, $hours:literal, $fb:expr, $star:literal) => {
        DemoLesson { id: $id, topic: $topic, categories: &[$($cat),*], title: $title, level: Level::$level, summary: $summary,
            body: $body, hours_ago: $hours, feedback: $fb, starred: $star, shared_by: None }
    };
}

const KNOW: Option<Feedback> = Some(Feedback::Know);
const GOT: Option<Feedback> = Some(Feedback::Understood);
const LOST: Option<Feedback> = Some(Feedback::DontKnow);

const LESSONS: &[DemoLesson] = &[
    lesson!(
        "borrow-vs-clone",
        "rust",
        ["rust", "memory"],
        "Borrow before you clone",
        Mid,
        "Cloning to satisfy the borrow checker hides a design question: who owns this data?",
        "The fix you applied cloned a `Vec<String>` inside a loop so the closure could keep it. It compiles, but every iteration now copies the whole list.\n\nPassing `&[String]` lets the closure read the data the caller already owns. When a value must outlive its owner, move it once (or share it with `Arc`) instead of copying it per call.\n\n💡 *Senior tip:* when you reach for `.clone()` to silence an error, first ask which function should own the value.",
        3,
        None,
        false
    ),
    lesson!(
        "sqlite-busy-timeout",
        "sqlite",
        ["sqlite", "concurrency"],
        "Why SQLite says \"database is locked\"",
        Mid,
        "Two writers on one file wait for each other only if you tell SQLite how long to wait.",
        "The hook and the server both write `coaching.db`. Without a busy timeout, the second writer fails at once with SQLITE_BUSY.\n\nSetting `busy_timeout` makes SQLite retry for a while, and `BEGIN IMMEDIATE` takes the write lock up front, so a transaction never has to upgrade a read lock halfway through (which can fail without waiting).\n\n💡 *Senior tip:* start every write transaction with `BEGIN IMMEDIATE`; it turns most deadlocks into short waits.",
        28,
        GOT,
        true
    ),
    lesson!(
        "ts-discriminated-unions",
        "typescript",
        ["typescript", "types"],
        "Discriminated unions beat optional fields",
        Senior,
        "A `kind` tag lets the compiler prove which fields exist, instead of checking each one for undefined.",
        "The response type you edited had six optional fields, and every caller checked some of them. A union of `{ kind: \"ok\", data }` and `{ kind: \"error\", message }` states the same thing exactly.\n\nA `switch` on `kind` narrows the type in each branch, and `never` in the default branch makes the compiler flag a new variant nobody handles.\n\n💡 *Senior tip:* if two optional fields are never set together, they are a union in disguise.",
        50,
        KNOW,
        false
    ),
    lesson!(
        "git-rebase-onto",
        "git",
        ["git", "history"],
        "Moving a branch with rebase --onto",
        Senior,
        "`git rebase --onto new-base old-base branch` replays only the commits you own.",
        "Your feature branch started from a branch that was later squash-merged, so a plain rebase tried to replay commits that were already in `main`.\n\n`git rebase --onto main old-base feature` takes the commits after `old-base` and replays them on `main`, skipping everything before.\n\n💡 *Senior tip:* `git log --oneline old-base..feature` shows exactly what `--onto` will move; check it first.",
        75,
        KNOW,
        false
    ),
    lesson!(
        "docker-layer-cache",
        "docker",
        ["docker", "build"],
        "Order Dockerfile steps by how often they change",
        Mid,
        "Copy the dependency manifest and install before copying the source, so code edits reuse the cached install layer.",
        "Each Dockerfile instruction is a cached layer, and a change invalidates it and every layer after it. Copying the whole repository before `npm ci` meant any edit reinstalled every dependency.\n\nCopy `package.json` and the lockfile, install, then copy the rest. Builds after a code change now start from the install layer.\n\n💡 *Senior tip:* a `.dockerignore` that drops `node_modules` and `.git` keeps the build context small and the cache stable.",
        99,
        GOT,
        true
    ),
    lesson!(
        "pg-explain-analyze",
        "postgresql",
        ["postgresql", "performance"],
        "Reading EXPLAIN ANALYZE from the inside out",
        Mid,
        "The deepest node runs first; compare its estimated rows with the actual rows to find the bad guess.",
        "The slow query's plan showed a nested loop fed by an index scan estimated at 12 rows that actually returned 48,000.\n\nWhen estimates are that far off, the planner picks the wrong join. Fresh statistics (`ANALYZE`), or an extended statistic on correlated columns, usually fix the estimate and the plan with it.\n\n💡 *Senior tip:* add `BUFFERS` to see whether time goes to reading pages or to computing.",
        123,
        LOST,
        false
    ),
    lesson!(
        "rust-error-context",
        "rust",
        ["rust", "errors"],
        "Errors that say what to do next",
        Junior,
        "An error message should name the thing that failed and the action that fixes it.",
        "The command failed with `No such file or directory` and no path. The file it could not open was the config in the data directory.\n\nWrap the I/O error with the path and the operation (`cannot read config at ~/.app/config.toml`), and keep the original as the source so nothing is lost.\n\n💡 *Senior tip:* write the message for the person at 2 a.m. who has only the terminal output.",
        148,
        KNOW,
        false
    ),
    lesson!(
        "redis-ttl-jitter",
        "redis",
        ["redis", "caching"],
        "Add jitter to cache expiry",
        Mid,
        "Keys written together expire together; a random spread avoids a stampede on the database.",
        "The cache warm-up wrote ten thousand keys with the same one-hour TTL, so they all expired in the same second and every request fell through to the database.\n\nAdding a random few percent to each TTL spreads the expiry out, and the database sees a trickle instead of a wave.\n\n💡 *Senior tip:* for very hot keys, refresh early in the background instead of waiting for expiry.",
        170,
        None,
        false
    ),
    lesson!(
        "security-parameterized-sql",
        "security",
        ["security", "sql"],
        "Parameters, never string concatenation",
        Junior,
        "Bind values as parameters so the database never reads user input as SQL.",
        "The search endpoint built its `WHERE` clause by formatting the user's text into the SQL string. A quote in the search box ended the string and let the rest run as SQL.\n\nWith placeholders (`?` or `$1`), the text travels separately from the statement and can never change its meaning. Column names cannot be bound, so check those against a fixed list.\n\n💡 *Senior tip:* a sort-by parameter is the classic hole: whitelist it.",
        195,
        GOT,
        true
    ),
    lesson!(
        "testing-table-driven",
        "testing",
        ["testing", "design"],
        "Table-driven tests for boundary cases",
        Mid,
        "One check function plus a table of inputs makes the boundaries visible at a glance.",
        "The rate-limit tests repeated the same setup twelve times with one number changed, and the interesting case (exactly at the limit) was missing.\n\nA single `check(input, expected)` helper and a table of rows puts every boundary next to its neighbours, so the missing one stands out.\n\n💡 *Senior tip:* for each limit, test one below, exactly at, and one above.",
        220,
        KNOW,
        false
    ),
    lesson!(
        "ci-cache-keys",
        "ci_cd",
        ["ci_cd", "caching"],
        "Cache keys from lockfiles",
        Mid,
        "Key the CI cache on the lockfile's hash, so it refreshes exactly when dependencies change.",
        "The pipeline cached `~/.cargo` under a fixed key, so it never picked up new dependencies and kept growing.\n\nHashing `Cargo.lock` into the key gives a fresh cache when dependencies change, and a restore key prefix still gives a warm start from the previous one.\n\n💡 *Senior tip:* cache downloads, not build outputs that depend on the compiler version, unless the key includes it.",
        245,
        None,
        false
    ),
    lesson!(
        "linux-file-descriptors",
        "linux",
        ["linux", "processes"],
        "Too many open files",
        Mid,
        "Each socket and file holds a descriptor; leaks show up as EMFILE long after the cause.",
        "The server started refusing connections after a day with `Too many open files`. `ls /proc/<pid>/fd | wc -l` showed thousands of descriptors, most of them for a log file reopened on every request.\n\nOpening it once fixed the leak. Raising `ulimit -n` would only have delayed the failure.\n\n💡 *Senior tip:* `lsof -p <pid>` groups descriptors by type, which points straight at the leak.",
        270,
        KNOW,
        false
    ),
    lesson!(
        "perf-measure-first",
        "performance",
        ["performance", "profiling"],
        "Profile before you optimise",
        Junior,
        "Measure where the time goes; the slow part is rarely where it feels slow.",
        "The JSON serialisation looked expensive, but a profile showed 80% of the time in a regex compiled on every call.\n\nCompiling it once cut the request time by three quarters; the serialiser was never the problem.\n\n💡 *Senior tip:* keep the benchmark you used, so the next change can be checked against it.",
        300,
        GOT,
        false
    ),
    lesson!(
        "arch-ports-adapters",
        "architecture",
        ["architecture", "design"],
        "Keep I/O at the edges",
        Senior,
        "A pure core that takes values and returns decisions is easy to test; adapters do the I/O.",
        "The pacing logic read the clock and the database directly, so its tests needed a real file and sleeps.\n\nPassing `now` and a small state interface in, and applying the decision outside, lets every rule be tested at its exact boundary with an in-memory fake.\n\n💡 *Senior tip:* if a test needs `sleep`, the code under test owns a clock it should be given.",
        330,
        KNOW,
        true
    ),
    lesson!(
        "network-dns-ttl",
        "networking",
        ["networking", "dns"],
        "DNS answers are cached, and not only by you",
        Mid,
        "After changing a record, old answers live on in resolvers until their TTL runs out.",
        "The migration switched the A record, but half the clients kept hitting the old server for an hour: the previous TTL was 3600 seconds.\n\nLowering the TTL a day before a planned move, then raising it again afterwards, shortens that tail.\n\n💡 *Senior tip:* `dig +trace` shows which server gave which answer.",
        360,
        LOST,
        false
    ),
    lesson!(
        "python-generators",
        "python",
        ["python", "memory"],
        "Stream with generators instead of lists",
        Junior,
        "A generator yields one item at a time, so a large file never has to fit in memory.",
        "The import script read the whole CSV into a list before processing it, and ran out of memory on a 4 GB file.\n\nTurning the reader into a generator (`yield` each parsed row) keeps one row in memory at a time, and the rest of the code did not change.\n\n💡 *Senior tip:* `itertools.islice` lets you test the pipeline on the first hundred rows.",
        400,
        GOT,
        false
    ),
    lesson!(
        "sql-window-functions",
        "sql",
        ["sql", "analytics"],
        "Running totals with window functions",
        Mid,
        "`SUM(x) OVER (ORDER BY day)` computes a running total without a self-join.",
        "The weekly report joined the table to itself to add up previous days, which grew quadratically.\n\nA window function computes each row's running total in one pass. `PARTITION BY` restarts it per group.\n\n💡 *Senior tip:* name windows with a `WINDOW` clause when several columns share one.",
        430,
        KNOW,
        false
    ),
    lesson!(
        "git-bisect",
        "git",
        ["git", "debugging"],
        "Find the breaking commit with bisect",
        Mid,
        "`git bisect run <test>` binary-searches history for the first bad commit.",
        "The test passed last month and fails now, with 140 commits in between. Marking one good and one bad commit and running `git bisect run cargo test name` found the culprit in eight steps.\n\nThe script's exit code decides good (0) or bad (1–127, except 125 which skips).\n\n💡 *Senior tip:* write the failing check as a tiny script first; bisect is only as good as its test.",
        470,
        GOT,
        false
    ),
    lesson!(
        "docker-healthcheck",
        "docker",
        ["docker", "operations"],
        "Health checks that mean something",
        Mid,
        "A health check should test what the service needs, not just that the process is alive.",
        "The container reported healthy while every request failed, because its check only curled a static route.\n\nChecking a route that touches the database (cheaply) makes the orchestrator restart the container when it is really broken.\n\n💡 *Senior tip:* keep liveness cheap and readiness honest; they answer different questions.",
        500,
        None,
        false
    ),
    lesson!(
        "rust-iterators",
        "rust",
        ["rust", "iterators"],
        "Iterator chains instead of index loops",
        Junior,
        "`iter().filter().map().collect()` says what you want and avoids off-by-one errors.",
        "The loop kept an index, pushed to a vector and skipped entries with `continue`. An iterator chain expresses the same thing in one line, and the compiler optimises it as well as the loop.\n\nUse `iter()` to borrow, `into_iter()` to consume, and `iter_mut()` to edit in place.\n\n💡 *Senior tip:* `collect::<Result<Vec<_>, _>>()` stops at the first error.",
        530,
        KNOW,
        false
    ),
    lesson!(
        "ts-satisfies",
        "typescript",
        ["typescript", "types"],
        "`satisfies` keeps the literal types",
        Mid,
        "`satisfies` checks a value against a type without widening it.",
        "The config object was annotated `: Record<string, Route>`, so `config.home` was typed as possibly missing.\n\nWriting `} satisfies Record<string, Route>` checks every entry and still lets the compiler know exactly which keys exist.\n\n💡 *Senior tip:* use annotations for values you will reassign, `satisfies` for constants.",
        560,
        GOT,
        false
    ),
    lesson!(
        "security-secrets-in-logs",
        "security",
        ["security", "logging"],
        "Keep secrets out of logs",
        Mid,
        "Redact tokens before logging requests; logs are copied to more places than the database.",
        "The debug log printed whole request headers, including the `Authorization` token, and the logs were shipped to a third-party service.\n\nA redaction step for known header names, and a wrapper type whose `Debug` prints `***`, keeps secrets out even when someone logs a whole struct.\n\n💡 *Senior tip:* rotate any secret that ever reached a log; deleting the line is not enough.",
        600,
        LOST,
        true
    ),
    lesson!(
        "testing-flaky-time",
        "testing",
        ["testing", "time"],
        "Flaky tests that depend on the clock",
        Mid,
        "Pass the current time into code under test instead of reading the clock inside it.",
        "A test failed only around midnight UTC, because the code read the clock twice and the date changed in between.\n\nGiving the function `now` as a parameter makes the test deterministic and lets it check the exact midnight boundary on purpose.\n\n💡 *Senior tip:* a test that fails once a month is telling you about a boundary.",
        650,
        KNOW,
        false
    ),
    lesson!(
        "pg-indexes-partial",
        "postgresql",
        ["postgresql", "indexes"],
        "Partial indexes for the rows you query",
        Senior,
        "An index with a `WHERE` clause covers only the rows that match, so it stays small and fast.",
        "Queries only ever looked for unprocessed jobs, a tiny fraction of the table, but the index covered all fifty million rows.\n\n`CREATE INDEX ... WHERE processed = false` indexes just the pending rows; the planner uses it when the query repeats the condition.\n\n💡 *Senior tip:* check `pg_stat_user_indexes` for indexes that are never scanned.",
        700,
        GOT,
        false
    ),
    lesson!(
        "linux-signals",
        "linux",
        ["linux", "processes"],
        "SIGTERM first, SIGKILL last",
        Junior,
        "Handle SIGTERM to finish cleanly; SIGKILL cannot be caught.",
        "The service lost in-flight writes on every deploy because it exited as soon as it got SIGTERM.\n\nCatching the signal, stopping new work and finishing what is in flight (with a deadline) makes restarts safe; the orchestrator sends SIGKILL only after its grace period.\n\n💡 *Senior tip:* in containers, make sure your process is PID 1 or run under a small init that forwards signals.",
        750,
        None,
        false
    ),
    lesson!(
        "arch-idempotent-handlers",
        "architecture",
        ["architecture", "reliability"],
        "Make handlers safe to run twice",
        Mid,
        "Retries and double clicks happen; an idempotent handler makes them harmless.",
        "The feedback button added a point every time it was clicked, and a slow network meant users clicked twice.\n\nComparing the new value with the stored one inside the same transaction turns the second click into a no-op.\n\n💡 *Senior tip:* describe the desired end state, not the change, and repeats stop mattering.",
        800,
        KNOW,
        false
    ),
    lesson!(
        "ci-fail-fast",
        "ci_cd",
        ["ci_cd", "pipelines"],
        "Run the cheap checks first",
        Junior,
        "Formatting and lint take seconds; run them before the long test suite.",
        "The pipeline ran a 20-minute test suite before noticing a formatting error.\n\nOrdering jobs from cheapest to most expensive (format, lint, unit tests, integration tests) gets most failures reported in the first minute.\n\n💡 *Senior tip:* run the same script locally and in CI so the two never disagree.",
        850,
        GOT,
        false
    ),
    lesson!(
        "sqlite-wal",
        "sqlite",
        ["sqlite", "storage"],
        "Rollback journal or WAL?",
        Senior,
        "WAL lets readers proceed during a write; the rollback journal keeps a single file.",
        "The dashboard stalled while a long import wrote. In WAL mode readers see the last committed state while a writer appends to the log, so reads no longer wait.\n\nWAL adds `-wal` and `-shm` files next to the database and needs shared memory, so it does not work on network filesystems.\n\n💡 *Senior tip:* measure with your real mix of readers and writers before switching.",
        900,
        None,
        false
    ),
];

const SHARED: &[DemoLesson] = &[
    DemoLesson {
        id: "http-idempotency-keys",
        topic: "networking",
        categories: &["networking", "api"],
        title: "Idempotency keys for POST requests",
        level: Level::Mid,
        summary: "A client-chosen key lets the server recognise a retried POST and return the first result.",
        body: "Payments were charged twice when a client retried after a timeout. The server could not tell a retry from a new request.\n\nThe client now sends an `Idempotency-Key` header; the server stores the key with the response and replays it for a repeat.\n\n💡 *Senior tip:* expire keys after a day; retries come quickly or not at all.",
        hours_ago: 20,
        feedback: None,
        starred: false,
        shared_by: Some("Grace"),
    },
    DemoLesson {
        id: "rust-newtypes",
        topic: "rust",
        categories: &["rust", "types"],
        title: "Newtypes stop mixed-up ids",
        level: Level::Junior,
        summary: "Wrapping ids in their own types makes passing a user id as an order id a compile error.",
        body: "Two functions took `(i64, i64)` and a call swapped them. Nothing failed until production.\n\n`struct UserId(i64)` and `struct OrderId(i64)` cost nothing at runtime and turn the swap into a type error.\n\n💡 *Senior tip:* parse raw input into newtypes at the boundary, then trust them inside.",
        hours_ago: 140,
        feedback: Some(Feedback::Understood),
        starred: true,
        shared_by: Some("Grace"),
    },
];

fn to_lesson(d: &DemoLesson, now: DateTime<Utc>) -> Lesson {
    let own = d.shared_by.is_none();
    Lesson {
        id: d.id.to_owned(),
        timestamp: lesson_stamp(now - Duration::hours(d.hours_ago)),
        topic_id: d.topic.to_owned(),
        categories: d.categories.iter().map(|c| (*c).to_owned()).collect(),
        title: d.title.to_owned(),
        level: d.level,
        summary: d.summary.to_owned(),
        body: Some(d.body.to_owned()),
        task_context: own.then(|| format!("Working on {} in the demo project", d.topic)),
        project: own.then(|| "demo-app".to_owned()),
        repository: own.then(|| "example/demo-app".to_owned()),
        branch: own.then(|| "main".to_owned()),
        commit_hash: own.then(|| fake_commit(d.id)),
        folder: None,
        repository_platform: own.then_some(Platform::Github),
        starred: d.starred,
        feedback: None,
        imported: !own,
        shared_by: d.shared_by.map(str::to_owned),
    }
}

/// A stable, commit-looking hash for a demo lesson (FNV-1a, stretched to 40 hex digits).
fn fake_commit(seed: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = String::with_capacity(40);
    while out.len() < 40 {
        for b in seed.bytes().chain(out.len().to_le_bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out.truncate(40);
    out
}

impl Store {
    /// Fills an empty database with the demo learner. Feedback goes through the real feedback
    /// writer, so the evidence log and confidences tell a consistent story.
    pub fn seed_demo(&mut self, now: DateTime<Utc>) -> Result<()> {
        let start = now - Duration::days(45);
        let topics: Vec<(String, i64)> = PROFILE.iter().map(|(t, c, _)| ((*t).to_owned(), *c)).collect();
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for (topic, _, group) in PROFILE.iter().filter(|(_, _, g)| !g.is_empty()) {
            match groups.iter_mut().find(|(g, _)| g == group) {
                Some((_, members)) => members.push((*topic).to_owned()),
                None => groups.push(((*group).to_owned(), vec![(*topic).to_owned()])),
            }
        }
        self.complete_onboarding(&topics, &groups, start)?;
        for d in LESSONS.iter().chain(SHARED) {
            self.put_lesson(&to_lesson(d, now))?;
        }
        for d in LESSONS.iter().chain(SHARED).rev() {
            if d.feedback.is_some() {
                self.record_feedback(
                    d.id,
                    FeedbackChoice(d.feedback),
                    now - Duration::hours(d.hours_ago) + Duration::minutes(5),
                )?;
            }
        }
        // A couple of manual adjustments, as a learner would make on the knowledge page.
        self.update_knowledge("security", 1, now - Duration::days(2))?;
        self.seed_demo_course(now - Duration::days(1))?;
        Ok(())
    }

    /// One course grown from a lesson, a step in: what an agent builds with the course tools.
    fn seed_demo_course(&mut self, at: DateTime<Utc>) -> Result<()> {
        let new = NewCourse {
            title: "Cache expiry that never stampedes".into(),
            topic_id: "redis".into(),
            goal: Some("Set TTLs so a busy cache never sends every request to the database at once.".into()),
            lesson_id: Some("redis-ttl-jitter".into()),
            prerequisites: Vec::new(),
        };
        let course = self.create_course(&new, at)?;
        let id = CourseId::parse(&course.id)?;
        let path = self.data_dir().course_document_path(&id);
        std::fs::write(&path, DEMO_COURSE_DOCUMENT)
            .map_err(|e| crate::StoreError::io("cannot write the demo course", &path, e))?;
        for (title, kind, anchor) in [
            ("Why keys expire together", StepKind::Concept, "why"),
            ("Spread the expiry", StepKind::Example, "jitter"),
            ("Check yourself", StepKind::Check, "check"),
        ] {
            self.add_course_step(&id, title, kind, anchor, None, at)?;
        }
        self.set_step_status(&id, 1, StepStatus::Done, at + Duration::minutes(20))?;
        Ok(())
    }
}

/// The demo course's document: plain HTML, as an agent writes it.
const DEMO_COURSE_DOCUMENT: &str = r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Cache expiry that never stampedes</title>
<style>body { font: 16px/1.6 system-ui, sans-serif; margin: 1.25rem; } pre { padding: 0.75rem; border: 1px solid #8884; border-radius: 8px; overflow-x: auto; }</style>
</head>
<body>
<h1>Cache expiry that never stampedes</h1>
<section id="why">
  <h2>Why keys expire together</h2>
  <p>Keys written in the same burst (a deploy, a warm-up job) get the same TTL, so they also
  vanish in the same second. Every request that misses then rebuilds the value at once, and the
  database takes the whole load: a cache stampede.</p>
</section>
<section id="jitter">
  <h2>Spread the expiry</h2>
  <p>Add a random share to each TTL so expiries spread over a window instead of a point:</p>
  <pre><code class="language-python">ttl = base_ttl + random.randint(0, base_ttl // 10)
redis.set(key, value, ex=ttl)</code></pre>
  <p>Ten percent of the base TTL is a common start; widen it when misses still cluster.</p>
</section>
<section id="check">
  <h2>Check yourself</h2>
  <p>Ten thousand keys are written at 09:00 with a one-hour TTL and 10% jitter. Over which
  window do they expire, and why does that protect the database?</p>
</section>
</body>
</html>
"#;
