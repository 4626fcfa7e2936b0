//! Running another program with a deadline: `git`, an agent's own CLI, a clipboard reader, the
//! `claude` CLI the practice coach talks to. One loop for all of them, so none can hang
//! devcoach: the input is written and both outputs are drained on threads (a program that
//! writes more than a pipe holds never blocks), each output is read up to a cap, and a program
//! still running at the deadline is killed and reaped.

use std::io::{Read, Write};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a finished program left.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    /// Its stdout, at most the cap (lossy UTF-8).
    pub stdout: String,
    /// Its stderr, at most the cap (lossy UTF-8).
    pub stderr: String,
}

/// Why a program gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("could not start `{program}`: {source}")]
    Start { program: String, source: std::io::Error },
    #[error("`{program}` did not finish within {} s", limit.as_secs())]
    Timeout { program: String, limit: Duration },
    #[error("waiting for `{program}` failed: {source}")]
    Wait { program: String, source: std::io::Error },
}

/// How to run it: what goes to its stdin, how long it may take, how much of each output is kept.
#[derive(Debug, Clone, Copy)]
pub struct Limits<'a> {
    pub input: Option<&'a [u8]>,
    pub deadline: Duration,
    pub output_cap: u64,
    /// Run it in a process group of its own and end the whole group, at the deadline and once
    /// it exits: a test runner's children (a hung test binary, a server a test left running)
    /// go with it. Unix only; elsewhere only the program itself is ended.
    pub whole_group: bool,
}

impl Default for Limits<'_> {
    fn default() -> Self {
        Self {
            input: None,
            deadline: Duration::from_secs(3),
            output_cap: devcoach_core::limits::CHILD_OUTPUT_BYTES,
            whole_group: false,
        }
    }
}

/// Ends every process of the group the program led (its id is the group's).
fn end_group(group: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = group.and_then(|id| i32::try_from(id).ok()).and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = group;
}

/// The groups of the programs running now with `whole_group`, so a process that is stopping
/// (Ctrl-C in a hands-on session) ends them too instead of leaving a test run going.
static RUNNING: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Set once the process is stopping: a `whole_group` run that starts after it is ended at once.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ends every process group a `whole_group` run of this process leads now, and any such run
/// that starts from now on.
pub fn end_running_groups() {
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
    let groups = std::mem::take(&mut *RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    for group in groups {
        end_group(Some(group));
    }
}

/// A group in [`RUNNING`] while its leader runs (once it is gone, its id may become another
/// process's).
struct Running(Option<u32>);

impl Running {
    fn new(group: Option<u32>) -> Self {
        if let Some(group) = group {
            RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(group);
            // Registered after a stop began: end it as the stop would have.
            if STOPPING.load(std::sync::atomic::Ordering::SeqCst) {
                end_group(Some(group));
            }
        }
        Self(group)
    }

    /// Ends the group (what it left running) and forgets it, before its leader is reaped.
    fn end(&mut self) {
        if let Some(group) = self.0.take() {
            end_group(Some(group));
            RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|g| *g != group);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(group) = self.0 {
            RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|g| *g != group);
        }
    }
}

/// One output being read: what was read so far, and whether the pipe has closed.
struct Drain {
    read: Arc<Mutex<Vec<u8>>>,
    done: std::sync::mpsc::Receiver<()>,
}

fn drain(pipe: Option<impl Read + Send + 'static>, cap: u64) -> Drain {
    let read = Arc::new(Mutex::new(Vec::new()));
    let (tx, done) = std::sync::mpsc::channel();
    let shared = Arc::clone(&read);
    std::thread::spawn(move || {
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut buf = shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                        // Past the cap the rest is read and dropped, so the program can still finish.
                        let room = usize::try_from(cap).unwrap_or(usize::MAX).saturating_sub(buf.len());
                        buf.extend_from_slice(&chunk[..n.min(room)]);
                    }
                }
            }
        }
        let _ = tx.send(());
    });
    Drain { read, done }
}

impl Drain {
    /// What was read, once the pipe closed or `patience` passed: a process the program left
    /// behind (one that escaped its group) may hold the pipe open for ever.
    fn take(self, patience: Duration) -> String {
        let _ = self.done.recv_timeout(patience);
        let buf = std::mem::take(&mut *self.read.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        String::from_utf8_lossy(&buf).into_owned()
    }
}

/// Runs `cmd` under `limits`; its status and outputs once it exits, or why not.
pub fn run(mut cmd: Command, limits: Limits<'_>) -> Result<Finished, ChildError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(if limits.input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    if limits.whole_group {
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    }
    let mut child = cmd.spawn().map_err(|source| ChildError::Start { program: program.clone(), source })?;
    let group = limits.whole_group.then(|| child.id());
    let mut running = Running::new(group);
    if let (Some(mut stdin), Some(input)) = (child.stdin.take(), limits.input) {
        let input = input.to_vec();
        // A program that never reads its input must not stop us writing it.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let out = drain(child.stdout.take(), limits.output_cap);
    let err = drain(child.stderr.take(), limits.output_cap);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                // What it started and left running would hold its outputs open. The group is
                // forgotten now, not after the outputs are drained: its id is free again soon.
                running.end();
                break status;
            }
            Ok(None) if started.elapsed() >= limits.deadline => {
                running.end();
                let _ = child.kill();
                let _ = child.wait();
                return Err(ChildError::Timeout { program, limit: limits.deadline });
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(source) => return Err(ChildError::Wait { program, source }),
        }
    };
    let patience = Duration::from_secs(2);
    Ok(Finished { status, stdout: out.take(patience), stderr: err.take(patience) })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        cmd
    }

    #[test]
    fn a_program_answers_with_its_outputs_and_status() {
        let done = run(
            sh("read x; echo \"got $x\"; echo oops >&2; exit 3"),
            Limits { input: Some(b"hi\n"), ..Limits::default() },
        )
        .expect("ran");
        assert_eq!((done.stdout.as_str(), done.stderr.as_str(), done.status.code()), ("got hi\n", "oops\n", Some(3)));
    }

    #[test]
    fn a_program_past_its_deadline_is_killed() {
        let started = Instant::now();
        let err = run(sh("sleep 30"), Limits { deadline: Duration::from_millis(200), ..Limits::default() })
            .expect_err("timed out");
        assert!(matches!(err, ChildError::Timeout { .. }), "{err}");
        assert!(started.elapsed() < Duration::from_secs(10), "killed, not waited for");
    }

    #[test]
    fn a_flood_of_output_is_capped_and_never_blocks() {
        let done =
            run(sh("head -c 5000000 /dev/zero; echo done >&2"), Limits { output_cap: 1000, ..Limits::default() })
                .expect("ran");
        assert_eq!((done.stdout.len(), done.stderr.as_str()), (1000, "done\n"));
    }

    #[test]
    fn a_whole_group_ends_with_its_leader_children_and_all() {
        // The leader starts a grandchild that would hold the output open for a minute.
        let started = Instant::now();
        let done = run(sh("sleep 60 & echo started"), Limits { whole_group: true, ..Limits::default() }).expect("ran");
        assert_eq!(done.stdout, "started\n");
        assert!(started.elapsed() < Duration::from_secs(10), "the grandchild went with the group");
        let err = run(
            sh("sh -c 'sleep 60' & sleep 60"),
            Limits { deadline: Duration::from_millis(300), whole_group: true, ..Limits::default() },
        )
        .expect_err("timed out");
        assert!(matches!(err, ChildError::Timeout { .. }), "{err}");
        // One that left its group (`setsid`) and holds the output open is waited for briefly.
        let started = Instant::now();
        let done =
            run(sh("setsid sleep 60 & echo left"), Limits { whole_group: true, ..Limits::default() }).expect("ran");
        assert_eq!(done.stdout, "left\n");
        assert!(started.elapsed() < Duration::from_secs(10), "not held by the escaped process");
    }

    #[test]
    fn a_stopping_process_ends_the_groups_it_runs() {
        let marker = tempfile::tempdir().expect("tmp");
        let file = marker.path().join("finished");
        let script = format!("(sleep 2; touch '{}') & sleep 60", file.display());
        let running = std::thread::spawn(move || {
            run(sh(&script), Limits { deadline: Duration::from_mins(1), whole_group: true, ..Limits::default() })
        });
        let started = Instant::now();
        while RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty() {
            assert!(started.elapsed() < Duration::from_secs(10), "the run began");
            std::thread::sleep(Duration::from_millis(10));
        }
        end_running_groups();
        let done = running.join().expect("joined").expect("ended");
        assert!(!done.status.success(), "killed");
        assert!(started.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_secs(3));
        assert!(!file.exists(), "the run's children went with it");
        assert!(RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty());
    }

    #[test]
    fn a_run_that_starts_once_the_process_is_stopping_is_ended_at_once() {
        end_running_groups();
        let started = Instant::now();
        let done =
            run(sh("sleep 30"), Limits { deadline: Duration::from_mins(1), whole_group: true, ..Limits::default() })
                .expect("ended");
        assert!(!done.status.success() && started.elapsed() < Duration::from_secs(10));
        assert!(RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty());
    }

    #[test]
    fn a_missing_program_says_so() {
        let err = run(Command::new("/nonexistent/devcoach-no-such-program"), Limits::default()).expect_err("absent");
        assert!(matches!(err, ChildError::Start { .. }), "{err}");
    }
}
