//! `fmu3d`: check a model file, simulate it, and (with the FMI runtime) build FMUs from it.

mod check;
mod cli;
mod simulate;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Check(args) => check::run(&args),
        cli::Command::Simulate(args) => simulate::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}
