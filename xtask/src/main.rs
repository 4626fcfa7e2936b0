//! Release tooling, kept out of the shipped binary: `cargo xtask write-packages <dir>` writes
//! every package that wires devcoach into an agent without `devcoach install` (see
//! `packaging.rs`) under the repository root or a staging directory.

// The output door (every outside text cleaned on its way to the terminal) is the shipped
// binary's rule; this tool prints only its own fixed words and a path the developer typed.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod packaging;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask write-packages <dir>   (the repository root, or a staging directory)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["write-packages", dir] => match packaging::write(&PathBuf::from(dir)) {
            Ok(n) => {
                println!("{n} package files written under {dir}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: cannot write the packages under {dir}: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}
