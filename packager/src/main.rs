//! `fmu3d`: check a model file, simulate it, build an FMI 2.0 FMU (Co-Simulation and Model
//! Exchange) from it, and put that FMU with others into an SSP 1.0 system ([`ssp`]), and
//! animate results as glTF ([`animation`]).
//!
//! `fmu3d build` goes through one module per stage: [`model_description`] (the XML, with
//! [`units`] for the unit definitions), [`documentation`] (the HTML page) and [`fmu_archive`]
//! (the zip, written atomically). [`view`] writes the page that plays an animation, [`plot`] a
//! PNG of result columns ([`results`] finds the columns and their units). [`csv_table`] reads
//! every CSV that `fmu3d` takes: results to plot, view or animate, and `simulate --input` tables.
//! [`simulate`] runs a model file with the engine linked in, an `.fmu` through [`fmu_import`].

mod animation;
mod build;
mod check;
mod cli;
mod csv_table;
mod documentation;
mod fmu_archive;
mod fmu_import;
mod input_table;
mod model_description;
mod plot;
mod results;
mod simulate;
mod ssp;
mod urdf;
mod view;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    restore_default_sigpipe();
    let cli = cli::Cli::parse();
    let result = match cli.command {
        cli::Command::Check(args) => check::run(&args),
        cli::Command::Simulate(args) => simulate::run(&args),
        cli::Command::Build(args) => build::run(&args),
        cli::Command::Convert(args) => convert(&args),
        cli::Command::Ssp(args) => ssp::run(&args),
        cli::Command::Animate(args) => animation::animate::run(&args),
        cli::Command::View(args) => view::run(&args),
        cli::Command::Plot(args) => plot::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// `fmu3d convert`: the URDF robot as a model file, its notes on the standard error.
fn convert(args: &cli::ConvertArgs) -> Result<(), String> {
    let output = args.output.clone().unwrap_or_else(|| {
        let stem = args.urdf.file_stem().unwrap_or_default().to_string_lossy();
        std::path::PathBuf::from(format!("{stem}.m3d"))
    });
    let notes = urdf::write_model(
        &args.urdf,
        &output,
        &args.urdf_args.package_path,
        &urdf_settings(&args.urdf_args),
    )?;
    for note in &notes {
        eprintln!("{note}");
    }
    eprintln!(
        "{}: wrote {} ({} note{})",
        args.urdf.display(),
        output.display(),
        notes.len(),
        if notes.len() == 1 { "" } else { "s" }
    );
    Ok(())
}

/// The conversion's settings from the command line.
fn urdf_settings(args: &cli::UrdfArgs) -> urdf::Settings {
    urdf::Settings {
        floating_base: args.floating_base,
        self_collision: args.self_collision,
        contact_material: args.contact_material.clone(),
    }
}

/// Lets a closed pipe end the program quietly, as it ends `cat` or `grep` (`fmu3d check M | head`),
/// instead of a failed write to stdout panicking: Rust starts programs with SIGPIPE ignored.
fn restore_default_sigpipe() {
    // SAFETY: called first in `main`, before any thread exists; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
