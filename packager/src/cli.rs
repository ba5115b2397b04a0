//! The command line, as fixed by the design brief.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "fmu3d",
    version,
    about = "3D mechanical assemblies as FMI 2.0 co-simulation units"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate a model file and print what the FMU would expose.
    Check(CheckArgs),
    /// Simulate a model or an FMU and write a CSV: time first, then every output.
    Simulate(SimulateArgs),
    /// Package a model as an FMI 2.0 Co-Simulation FMU.
    Build(BuildArgs),
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The model file (.m3d).
    pub model: PathBuf,
    /// Where to write the FMU (default: `<model name>.fmu` in the current folder).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The model file (.m3d).
    pub model: PathBuf,
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The model file (.m3d), or an FMU (.fmu) to run through its own FMI API.
    pub model: PathBuf,
    /// Stop time [s] (default: the model's experiment).
    #[arg(long)]
    pub stop_time: Option<f64>,
    /// Output interval [s] (default: the model's experiment).
    #[arg(long)]
    pub step: Option<f64>,
    /// Relative tolerance of the integrator (default: the model's experiment).
    #[arg(long)]
    pub tolerance: Option<f64>,
    /// Where to write the CSV (default: `<model name>.csv` in the current folder).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}
