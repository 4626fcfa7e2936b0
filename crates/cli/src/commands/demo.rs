//! `devcoach demo`: a sandbox data directory holding a realistic learner.

use std::path::{Path, PathBuf};

use devcoach_store::{DEMO_LESSON_COUNT, DataDir, Store};

use crate::cli::DemoArgs;
use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::Style;

/// Marks a directory as ours to overwrite.
const MARKER: &str = ".devcoach-demo";

/// The demo directory, seeded when it holds no demo yet (for `ui --demo`).
pub fn ensure(ctx: &Ctx) -> anyhow::Result<DataDir> {
    let root = default_dir();
    let dir = DataDir::new(&root);
    if !(root.join(MARKER).is_file() && dir.db_path().is_file()) {
        prepare(&root, ctx)?;
        Store::open(&dir)?.seed_demo(ctx.now)?;
    }
    Ok(dir)
}

pub fn default_dir() -> PathBuf {
    std::env::temp_dir().join("devcoach-demo")
}

pub fn run(ctx: &Ctx, args: &DemoArgs) -> anyhow::Result<()> {
    let root = args.dir.clone().unwrap_or_else(default_dir);
    prepare(&root, ctx)?;
    let dir = DataDir::new(&root);
    let mut store = Store::open(&dir)?;
    store.seed_demo(ctx.now)?;
    let stats = store.stats(ctx.now)?;
    let topics = store.profile()?.knowledge.len();

    let t = &ctx.term;
    let env = format!("DEVCOACH_DIR={}", devcoach_agents::launch::shell_quote(&root.display().to_string()));
    let mut out = format!(
        "{} Demo learner ready in {}\n  {DEMO_LESSON_COUNT} lessons ({} shared by a colleague), {topics} topics, feedback and stars.\n\n{}\n",
        t.out(Style::Green, "✓"),
        root.display(),
        stats.imported_lessons,
        t.out(Style::Bold, "Look around (the demo never touches your own data):"),
    );
    // The dashboard first: `ui --demo` opens this very folder when it is the default one.
    let ui = if same_dir(&root, &default_dir()) {
        t.out(Style::Cyan, "devcoach ui --demo")
    } else {
        format!("{} {}", t.out(Style::Dim, &env), t.out(Style::Cyan, "devcoach ui"))
    };
    out.push_str(&format!("  {ui}\n      {}\n", t.out(Style::Dim, "the dashboard in your browser")));
    for (cmd, what) in [
        ("devcoach stats", "where the learner stands"),
        ("devcoach lessons --starred", "lessons worth keeping"),
        ("devcoach lesson sqlite-busy-timeout", "one lesson in full"),
        ("devcoach profile", "the knowledge map"),
        ("devcoach feedback redis-ttl-jitter know", "answer a lesson and watch the map move"),
    ] {
        out.push_str(&format!(
            "  {} {}\n      {}\n",
            t.out(Style::Dim, &env),
            t.out(Style::Cyan, cmd),
            t.out(Style::Dim, what)
        ));
    }
    Ok(crate::output::print(&out)?)
}

/// Makes `root` an empty demo directory, refusing anything that may hold real data.
fn prepare(root: &Path, ctx: &Ctx) -> anyhow::Result<()> {
    if same_dir(root, ctx.dir.root()) && std::env::var_os(DataDir::ENV).is_none() {
        return Err(invalid(format!(
            "{} is your real data directory; pick another --dir for the demo",
            root.display()
        )));
    }
    // Anything devcoach keeps, in a folder the demo did not make, is somebody's data.
    if !root.join(MARKER).exists()
        && let Some(found) = ["coaching.db", "learning-state.md", "courses", "practice"]
            .into_iter()
            .find(|name| std::fs::symlink_metadata(root.join(name)).is_ok())
    {
        return Err(invalid(format!(
            "{} already holds devcoach data ({found}) that is not a demo; pick another --dir (nothing was changed)",
            root.display()
        )));
    }
    for name in ["coaching.db", "coaching.db-journal", "coaching.db-wal", "coaching.db-shm", "learning-state.md"] {
        match std::fs::remove_file(root.join(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(anyhow::Error::new(e).context(format!("cannot reset the demo in {}", root.display())));
            }
        }
    }
    std::fs::create_dir_all(root)
        .map_err(|e| anyhow::Error::new(e).context(format!("cannot create {}", root.display())))?;
    std::fs::write(root.join(MARKER), "This directory holds devcoach demo data; `devcoach demo` may overwrite it.\n")?;
    Ok(())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}
