//! `devcoach ui`: the local dashboard.

use std::io::IsTerminal;
use std::process::{Command, Stdio};

use devcoach_web::Options;

use crate::cli::UiArgs;
use crate::context::Ctx;
use crate::failure::invalid;
use crate::output::{self, Style};

pub fn run(ctx: &Ctx, args: &UiArgs) -> anyhow::Result<()> {
    let port = args.port;
    let url = format!("http://localhost:{port}");
    if args.stop {
        use devcoach_net::dashboard::Stopped;
        return match devcoach_net::dashboard::stop(port) {
            Stopped::Yes => Ok(output::print(&format!("Stopped the devcoach dashboard on port {port}."))?),
            Stopped::NothingThere => Ok(output::print(&format!("No devcoach dashboard is running on port {port}."))?),
            Stopped::NotDevcoach => Err(invalid(format!(
                "port {port} is used by another program, not a devcoach dashboard; it was left alone"
            ))),
            Stopped::Refused => Err(invalid(format!(
                "the devcoach dashboard on port {port} did not stop; stop it where it runs (Ctrl+C)"
            ))),
        };
    }
    let dir = if args.demo { super::demo::ensure(ctx)? } else { ctx.dir.clone() };
    let listener = match std::net::TcpListener::bind(("127.0.0.1", port)) {
        Ok(listener) => listener,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            use devcoach_net::dashboard::Occupant;
            let running = devcoach_net::dashboard::occupant(port, &dir.fingerprint());
            if running == Occupant::OtherData {
                let what = if args.demo {
                    "your own data, not the demo learner"
                } else {
                    "other data (the demo learner, or another DEVCOACH_DIR)"
                };
                return Err(invalid(format!(
                    "the dashboard on port {port} shows {what}; stop it with `devcoach ui --stop --port {port}`, \
                     or choose another port with --port"
                )));
            }
            if running == Occupant::Ours {
                output::print(&format!(
                    "{} devcoach dashboard already running at {}\n  (stop it with `devcoach ui --stop --port {port}`)",
                    ctx.term.out(Style::Yellow, "!"),
                    output::link(ctx.term, &url, &url)
                ))?;
                if args.open {
                    open_browser(&url);
                }
                return Ok(());
            }
            return Err(invalid(format!("port {port} is used by another program: choose another with --port")));
        }
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            return Err(invalid(format!(
                "port {port} needs administrator rights: use a port from 1024 up (the default is 7860)"
            )));
        }
        Err(e) => return Err(invalid(format!("cannot listen on 127.0.0.1:{port}: {e}"))),
    };
    listener.set_nonblocking(true)?;
    if !args.demo {
        // While the dashboard is open, the record keeps up with the other devices (a sync that
        // is due starts in its own process; the first one already started with this command).
        let (dir, clock) = (ctx.dir.clone(), ctx.clock);
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(std::time::Duration::from_mins(1));
                if let Ok(Some(store)) = devcoach_store::Store::open_for_reading(&dir)
                    && devcoach_sync::due(&store, clock.now())
                {
                    drop(store);
                    super::sync::spawn_background();
                }
            }
        });
    }
    let options = Options { dir, now: ctx.pinned(), version: devcoach_core::APP_VERSION.to_owned() };
    let runtime = devcoach_web::runtime()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let mut text = format!("devcoach UI running at {}", output::link(ctx.term, &url, &url));
        if args.demo {
            text.push_str(&format!("\n  showing the demo learner ({})", options.dir.root().display()));
        }
        if std::io::stdout().is_terminal() {
            text.push_str("\nPress Ctrl+C to stop");
        }
        output::print(&text)?;
        if args.open {
            open_browser(&url);
        }
        devcoach_web::serve(listener, options, stop_signal()).await?;
        anyhow::Ok(())
    })
}

/// How the MCP server's `open_ui` starts a dashboard: this binary's own `ui --port`, on the
/// same data, in its own process group so that the agent stopping the server leaves it running.
pub fn launcher() -> devcoach_mcp::DashboardLauncher {
    devcoach_mcp::DashboardLauncher(std::sync::Arc::new(|dir: &devcoach_store::DataDir, port: u16| {
        let exe = std::env::current_exe().map_err(|e| format!("the devcoach binary is not found ({e})"))?;
        let mut cmd = Command::new(exe);
        cmd.args(["ui", "--port", &port.to_string()])
            .env("DEVCOACH_DIR", dir.root())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        cmd.spawn().map(drop).map_err(|e| e.to_string())
    }))
}

/// Resolves on the first SIGINT, SIGTERM or SIGHUP (Ctrl+C elsewhere); a second one ends the
/// process at once with 130.
async fn stop_signal() {
    first_signal().await;
    tokio::spawn(async {
        first_signal().await;
        std::process::exit(130);
    });
}

#[cfg(unix)]
pub(crate) async fn first_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) =
        (signal(SignalKind::interrupt()), signal(SignalKind::terminate()), signal(SignalKind::hangup()))
    else {
        let _ = tokio::signal::ctrl_c().await;
        return;
    };
    tokio::select! {
        _ = int.recv() => {}
        _ = term.recv() => {}
        _ = hup.recv() => {}
    }
}

#[cfg(not(unix))]
pub(crate) async fn first_signal() {
    let _ = tokio::signal::ctrl_c().await;
}

/// Opens `url` in the default browser, without waiting for it.
fn open_browser(url: &str) {
    let mut cmd = if cfg!(target_os = "macos") {
        let mut c = Command::new("open");
        c.arg(url);
        c
    } else if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.args(["/c", "start", "", url]);
        c
    } else {
        let mut c = Command::new("xdg-open");
        c.arg(url);
        c
    };
    if cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().is_err() {
        output::note(&format!("Could not open a browser: visit {url}"));
    }
}
