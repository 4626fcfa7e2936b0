//! `sync`: set up, run, show and stop syncing across machines (docs/SYNC.md). The work is in
//! `devcoach_sync`; this module asks for the passphrase and prints.

use std::borrow::Cow;
use std::io::IsTerminal as _;

use devcoach_sync::{InitOptions, Status, SyncError, SyncReport};
use serde_json::json;

use crate::cli::{Command, SyncArgs, SyncCommand};
use crate::context::Ctx;
use crate::failure;
use crate::output::table::{Column, Table};
use crate::output::{self, Style};

/// Where a script gives the passphrase (a terminal is asked instead).
pub const PASSPHRASE_ENV: &str = "DEVCOACH_SYNC_PASSPHRASE";
/// Shorter passphrases are refused: the sealed key sits on the host, open to guessing offline.
const MIN_PASSPHRASE_CHARS: usize = 8;

pub fn run(ctx: &Ctx, args: &SyncArgs) -> anyhow::Result<()> {
    match &args.command {
        None => now(ctx, args.json, args.background),
        Some(SyncCommand::Init { target, encrypt, name, every }) => {
            init(ctx, target, *encrypt, name.as_deref(), *every)
        }
        Some(SyncCommand::Status(flag)) => status(ctx, flag.json),
        Some(SyncCommand::Off) => off(ctx),
    }
}

/// One printed line fitted to the terminal: `lead` before it, continuation lines indented.
fn fit(ctx: &Ctx, lead: &str, text: &str) -> String {
    output::wrap_indented(text, ctx.term.width, lead, &format!("{lead}  "))
}

fn passphrase(new: bool) -> anyhow::Result<String> {
    if let Some(p) = std::env::var(PASSPHRASE_ENV).ok().filter(|p| !p.is_empty()) {
        return Ok(p);
    }
    if !std::io::stdin().is_terminal() {
        return Err(failure::invalid(format!(
            "an encrypted sync needs its passphrase: run this in a terminal to be asked, or set {PASSPHRASE_ENV}"
        )));
    }
    let first = rpassword::prompt_password(if new { "New sync passphrase: " } else { "Sync passphrase: " })?;
    if new {
        let again = rpassword::prompt_password("The same passphrase again: ")?;
        if again != first {
            return Err(failure::invalid("the two passphrases differ; nothing was set up — run the command again"));
        }
    }
    Ok(first)
}

/// Refuses a short passphrase before anything is written (every folder devcoach seals was sealed
/// with a long one, so joining needs no shorter).
fn checked_length(passphrase: String) -> anyhow::Result<String> {
    if passphrase.chars().count() < MIN_PASSPHRASE_CHARS {
        return Err(failure::invalid(format!(
            "a sync passphrase needs at least {MIN_PASSPHRASE_CHARS} characters (the sealed key sits where others may guess at it); nothing was set up"
        )));
    }
    Ok(passphrase)
}

fn init(ctx: &Ctx, target: &str, encrypt: bool, name: Option<&str>, every: u32) -> anyhow::Result<()> {
    if target.trim().is_empty() {
        return Err(failure::usage("give a folder or a git URL to sync through"));
    }
    if let Some(name) = name
        && (name.trim().is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control))
    {
        return Err(failure::invalid("a device name is 1 to 64 characters, without control characters"));
    }
    let mut store = ctx.open()?;
    let mut options =
        InitOptions { encrypt, passphrase: None, name: name.map(|n| n.trim().to_owned()), every_minutes: Some(every) };
    if encrypt {
        options.passphrase = Some(checked_length(passphrase(true)?)?);
    } else if let Some(p) = std::env::var(PASSPHRASE_ENV).ok().filter(|p| !p.is_empty()) {
        // A passphrase set for this command expects an encrypted folder: one that says plain
        // is refused rather than joined in the clear (its host may have stripped it).
        options.passphrase = Some(p);
    }
    let report = loop {
        match devcoach_sync::init(&mut store, &ctx.dir, target, &options) {
            // Joining an encrypted folder this device was not told about: ask once.
            Err(SyncError::NeedPassphrase) if options.passphrase.is_none() => {
                options.passphrase = Some(checked_length(passphrase(false)?)?);
            }
            Err(e) => return Err(e.into()),
            Ok(report) => break report,
        }
    };
    let config = &report.config;
    let how = if config.encrypted { " (end-to-end encrypted)" } else { "" };
    let verb = if report.already {
        "Already set up:"
    } else if report.resumed {
        "Resumed"
    } else if report.joined {
        "Joined"
    } else {
        "Set up"
    };
    output::print(&format!(
        "{}\n{}",
        fit(
            ctx,
            "",
            &format!("{} {verb} sync through {}{how}.", ctx.term.out(Style::Green, "✓"), config.transport.describe())
        ),
        fit(ctx, "  ", &format!("This device: {} ({})", config.name, config.device)),
    ))?;
    if report.already && (name.is_some() || (encrypt && !config.encrypted)) {
        output::print(&fit(
            ctx,
            "  ",
            "--encrypt and --name apply when sync is set up; to change them, run `devcoach sync off` first (and pick a new folder to encrypt).",
        ))?;
    }
    if !config.encrypted {
        output::print(&fit(
            ctx,
            "  ",
            "Not encrypted: whoever can write this folder (or repository) can read and change your record, and steer your agent through the coaching notebook. `sync init --encrypt` proves every file came from one of your devices.",
        ))?;
    }
    let synced = sync_once(ctx, &mut store, false)?;
    print_report(ctx, &synced)?;
    if !report.joined && !report.already {
        let other = match &config.transport {
            devcoach_sync::Transport::Folder(p) => format!("devcoach sync init {}", p.display()),
            devcoach_sync::Transport::Git(url) => format!("devcoach sync init {url}"),
        };
        let flag = if config.encrypted { " (same passphrase)" } else { "" };
        output::print(&fit(ctx, "  ", &format!("On your other machines: {other}{flag}")))?;
    }
    Ok(())
}

fn sync_once(ctx: &Ctx, store: &mut devcoach_store::Store, quiet: bool) -> Result<SyncReport, SyncError> {
    let show = !quiet && std::io::stderr().is_terminal();
    if show {
        output::status("Syncing…");
    }
    let mut shown = show;
    let result = devcoach_sync::sync(store, &ctx.dir, ctx.now, &mut |done, total| {
        if show && total >= 20 && (done % 10 == 0 || done == total) {
            output::status(&format!("Reading the sync folder: {done} of {total} files"));
            shown = true;
        }
    });
    if shown {
        output::clear_status();
    }
    result
}

fn now(ctx: &Ctx, json: bool, background: bool) -> anyhow::Result<()> {
    let Some(mut store) = ctx.open_existing()? else {
        if background {
            return Ok(());
        }
        return Err(SyncError::NotSetUp.into());
    };
    let result = sync_once(ctx, &mut store, background || json);
    if background {
        // Nobody is there to read it; `sync status` and doctor show the last error.
        return Ok(());
    }
    let report = result?;
    if json {
        return output::json(&json!({
            "logged": report.logged,
            "received": report.received,
            "written": report.written,
            "devices": report.devices,
            "refused": report.refused,
            "pushed": report.pushed,
            "renamed": report.renamed.as_ref().map(|(old, new, _)| json!({"from": old.as_str(), "to": new.as_str()})),
            "problems": report.problems.iter().map(|p| json!({"path": p.path, "problem": p.what})).collect::<Vec<_>>(),
        }));
    }
    print_report(ctx, &report)
}

fn print_report(ctx: &Ctx, report: &SyncReport) -> anyhow::Result<()> {
    let mut text = fit(
        ctx,
        "",
        &format!(
            "{} Synced: {} · sent {} · received {}",
            ctx.term.out(Style::Green, "✓"),
            output::plural(report.devices, "device"),
            output::plural(report.logged, "change"),
            output::plural(report.received, "change"),
        ),
    );
    if let Some((old, new, why)) = &report.renamed {
        let because = match why {
            devcoach_sync::Renamed::Copied => format!("This data folder is a copy of device {old}'s"),
            devcoach_sync::Renamed::SharedId => format!("Another machine writes as device {old} (a cloned disk?)"),
        };
        text.push('\n');
        text.push_str(&fit(
            ctx,
            "  ",
            &format!("{because}; this machine now syncs as a new device, {new}. Nothing is lost."),
        ));
    }
    if report.refused > 0 {
        text.push('\n');
        text.push_str(&fit(
            ctx,
            "  ",
            &format!(
                "{} from other devices could not be stored here (see `devcoach sync status`).",
                output::plural(report.refused, "record")
            ),
        ));
    }
    output::print(&text)?;
    print_problems(ctx, &report.problems);
    Ok(())
}

/// The most problems printed one by one: a folder someone filled with junk can hold thousands
/// (`--json` lists them all).
const PROBLEMS_SHOWN: usize = 10;

fn print_problems(ctx: &Ctx, problems: &[devcoach_sync::folder::Problem]) {
    for p in problems.iter().take(PROBLEMS_SHOWN) {
        let line = format!("{} {}", p.path.display(), p.what);
        output::note(&output::wrap_indented(&line, ctx.term.width, &ctx.term.err(Style::Yellow, "! "), "  "));
    }
    if problems.len() > PROBLEMS_SHOWN {
        let more = format!(
            "and {} more like these (`devcoach sync status --json` lists them all)",
            problems.len() - PROBLEMS_SHOWN
        );
        output::note(&output::wrap_indented(&more, ctx.term.width, &ctx.term.err(Style::Yellow, "! "), "  "));
    }
}

fn status(ctx: &Ctx, json: bool) -> anyhow::Result<()> {
    let store = ctx.open_existing()?;
    let config = match &store {
        Some(s) => devcoach_sync::config(s)?,
        None => None,
    };
    let (Some(store), Some(_)) = (store, config) else {
        if json {
            return output::json(&json!({"enabled": false}));
        }
        output::print(&fit(
            ctx,
            "",
            "Sync is off. Set it up with `devcoach sync init <folder|git-url>` (see `devcoach sync init --help`).",
        ))?;
        return Ok(());
    };
    let status = devcoach_sync::status(&store, &ctx.dir)?;
    if json {
        return output::json(&status_json(&status));
    }
    print_status(ctx, &status)
}

pub fn status_json(status: &Status) -> serde_json::Value {
    let c = &status.config;
    json!({
        "enabled": true,
        "transport": match &c.transport { devcoach_sync::Transport::Folder(_) => "folder", devcoach_sync::Transport::Git(_) => "git" },
        "target": match &c.transport { devcoach_sync::Transport::Folder(p) => p.display().to_string(), devcoach_sync::Transport::Git(u) => u.clone() },
        "encrypted": c.encrypted,
        "device": c.device.as_str(),
        "name": c.name,
        "every_minutes": c.every_minutes,
        "last_sync": c.last_sync.map(devcoach_core::time::iso_ms),
        "last_error": c.last_error,
        "pending": status.pending,
        "joining": status.joining,
        "refused": status.refused,
        "refused_records": status.refused_records.iter().map(|(t, k)| serde_json::json!({"table": t, "key": k})).collect::<Vec<_>>(),
        "devices": status.devices.iter().map(|d| json!({
            "device": d.device.as_str(),
            "name": d.name,
            "this": d.this,
            "files": d.files,
            "applied_files": d.applied,
            "last_written": d.written_at,
            "waiting": d.blocked,
        })).collect::<Vec<_>>(),
        "problems": status.problems.iter().map(|p| json!({"path": p.path, "problem": p.what})).collect::<Vec<_>>(),
    })
}

fn print_status(ctx: &Ctx, status: &Status) -> anyhow::Result<()> {
    let c = &status.config;
    let how = if c.encrypted { ", end-to-end encrypted" } else { "" };
    let last = c.last_sync.map_or_else(|| "never".to_owned(), |at| ctx.show_time(&devcoach_core::time::iso_ms(at)));
    let every = if c.every_minutes == 0 {
        "only when asked".to_owned()
    } else {
        format!("in the background at most every {} min", c.every_minutes)
    };
    let mut lines = vec![
        fit(ctx, "", &format!("Sync through {}{how}", c.transport.describe())),
        fit(ctx, "  ", &format!("This device: {} ({})", c.name, c.device)),
        fit(ctx, "  ", &format!("Last synced: {last} · syncs {every}")),
        fit(
            ctx,
            "  ",
            &match status.pending {
                _ if status.joining => {
                    "Waiting to be sent: the first sync has not run yet (`devcoach sync`)".to_owned()
                }
                Some(n) if n >= devcoach_core::limits::SYNC_PENDING_COUNTED => {
                    format!("Waiting to be sent: more than {n} changes")
                }
                Some(n) => format!("Waiting to be sent: {}", output::plural(n, "change")),
                None => "Waiting to be sent: unknown while the sync folder is not there".to_owned(),
            },
        ),
    ];
    if let Some(e) = &c.last_error {
        lines.push(fit(ctx, "  ", &format!("{} {e}", ctx.term.out(Style::Yellow, "Last sync failed:"))));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    let table = Table::new(vec![
        Column::new("Device", |d: &devcoach_sync::DeviceStatus| Cow::Owned(d.label())).shrink(3, 8),
        Column::new("Id", |d: &devcoach_sync::DeviceStatus| Cow::Owned(d.device.to_string()))
            .fixed(Style::Dim)
            .optional(1),
        Column::new("State", |d: &devcoach_sync::DeviceStatus| Cow::Owned(d.state())),
        Column::new("Files", |d: &devcoach_sync::DeviceStatus| Cow::Owned(d.files.to_string())).optional(2),
        Column::new("Last wrote", |d: &devcoach_sync::DeviceStatus| {
            Cow::Owned(d.written_at.as_deref().map_or_else(|| "–".to_owned(), |w| ctx.show_time(w)))
        })
        .optional(0),
    ])
    .title("Devices");
    text.push_str(&table.for_term(&status.devices, ctx.term));
    if status.refused > 0 {
        text.push('\n');
        text.push_str(&fit(
            ctx,
            "",
            &format!(
                "{} from other devices could not be stored in this database (a newer devcoach's record, or one this file's rules refuse); they stay in the folder.",
                output::plural(status.refused, "record")
            ),
        ));
        for (table, key) in &status.refused_records {
            // A key is another device's words: cut, and cleaned by the output module.
            let key: String = key.chars().take(60).collect();
            text.push('\n');
            text.push_str(&fit(ctx, "  ", &format!("{table} {key}")));
        }
    }
    output::print(&text)?;
    print_problems(ctx, &status.problems);
    Ok(())
}

fn off(ctx: &Ctx) -> anyhow::Result<()> {
    let Some(mut store) = ctx.open_existing()? else {
        output::print("Sync is off.")?;
        return Ok(());
    };
    if devcoach_sync::off(&mut store, &ctx.dir)? {
        output::print(&fit(
            ctx,
            "",
            &format!(
                "{} Sync is off on this machine. Your record here is kept; the shared folder and the other devices are left as they are.",
                ctx.term.out(Style::Green, "✓")
            ),
        ))?;
    } else {
        output::print("Sync was already off.")?;
    }
    Ok(())
}

/// The commands a person runs to look at or change their record: they start a background sync
/// when one is due. Never the MCP server, the hooks, or the commands that manage sync or wiring.
pub fn syncs_in_background(command: &Command) -> bool {
    matches!(
        command,
        Command::Profile(_)
            | Command::Lessons(_)
            | Command::Lesson { .. }
            | Command::Star { .. }
            | Command::Unstar { .. }
            | Command::Delete { .. }
            | Command::Feedback { .. }
            | Command::Stats(_)
            | Command::Courses(_)
            | Command::Course { .. }
            | Command::Review(_)
            | Command::Ui(_)
    )
}

/// Starts `devcoach sync --background` as its own process when a sync is due, so the command the
/// learner ran never waits on a folder or a network.
pub fn background(ctx: &Ctx) {
    // Sync never set up here (most learners): not even the database is opened to ask.
    if !devcoach_sync::may_be_on(&ctx.dir) {
        return;
    }
    let Ok(Some(store)) = devcoach_store::Store::open_for_reading(&ctx.dir) else { return };
    if !devcoach_sync::due(&store, ctx.clock.now()) {
        return;
    }
    drop(store);
    spawn_background();
}

pub fn spawn_background() {
    let Ok(exe) = std::env::current_exe() else { return };
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["sync", "--background"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // Its own process group: a Ctrl-C meant for the command does not cut a sync short.
        cmd.process_group(0);
    }
    if let Ok(mut child) = cmd.spawn() {
        // Reaped when it ends, so a long-running dashboard leaves no zombies behind.
        std::thread::spawn(move || child.wait());
    }
}
