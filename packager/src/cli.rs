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
    /// Package a model (or a URDF robot) as an FMI 2.0 FMU for Co-Simulation and Model Exchange.
    Build(BuildArgs),
    /// Convert a URDF robot into a model file (and its meshes beside it) to read and edit.
    Convert(ConvertArgs),
    /// Write an SSP 1.0 system: the model's FMU, other FMUs, their connections and parameters.
    Ssp(SspArgs),
    /// Turn a result CSV of any importer into an animated glTF 2.0 binary (.glb).
    Animate(AnimateArgs),
    /// Write one self-contained HTML page that plays an animation (.glb) in a browser.
    View(ViewArgs),
    /// Plot columns of a result CSV into a PNG, with the model's units on the axes.
    Plot(PlotArgs),
}

#[derive(Debug, Args)]
pub struct AnimateArgs {
    /// The result: a CSV with a `time` column and the pose columns `BODY.r[1..3]`,
    /// `BODY.Q[1..4]` of every moving body (fmpy, OpenModelica, Dymola, `fmu3d simulate`).
    pub result: PathBuf,
    /// The FMU that made the result (its `resources/visual.json` describes the shapes).
    #[arg(long, value_name = "MODEL.fmu")]
    pub fmu: PathBuf,
    /// Where to write the animation (default: the result's name with `.glb`).
    #[arg(short = 'o', long, value_name = "OUT.glb")]
    pub output: Option<PathBuf>,
}

/// How a URDF robot becomes a model (`convert`, and `build` of a `.urdf`).
#[derive(Debug, Args, Clone)]
pub struct UrdfArgs {
    /// The robot's root link moves on a free joint (a mobile robot); by default it is fixed to
    /// the world, as an arm bolted down.
    #[arg(long)]
    pub floating_base: bool,
    /// The robot's links collide with each other (by default only with the model's other
    /// shapes).
    #[arg(long)]
    pub self_collision: bool,
    /// A folder in which `package://NAME/...` mesh paths are looked for (NAME as a subfolder,
    /// or the folder itself named NAME), after the URDF's folder and its parents. Repeatable.
    #[arg(long, value_name = "DIR")]
    pub package_path: Vec<PathBuf>,
    /// The solid material of the collision geometry (docs/model-format.md, solid materials).
    #[arg(long, value_name = "NAME", default_value = "steel")]
    pub contact_material: String,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The robot description (.urdf).
    pub urdf: PathBuf,
    /// Where to write the model file (default: `<robot file's stem>.m3d` in the current
    /// folder); its meshes go to the folder `<stem>_meshes` beside it.
    #[arg(short = 'o', long, value_name = "OUT.m3d")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub urdf_args: UrdfArgs,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The model file (.m3d), or a robot description (.urdf), converted as `fmu3d convert`
    /// would.
    pub model: PathBuf,
    /// Where to write the FMU (default: `<model name>.fmu` in the current folder).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Make every moving body's pose an output (`BODY.r[1..3]`, `BODY.Q[1..4]`, with `v` and
    /// `w`), so that `fmu3d animate` can animate any importer's result.
    #[arg(long)]
    pub animation_outputs: bool,
    /// The platforms whose binaries the FMU carries, e.g. `linux64,win64` (default: both when
    /// `bash scripts/build.sh` has built the Windows runtime, else `linux64`).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub platforms: Vec<crate::build::Platform>,
    #[command(flatten)]
    pub urdf_args: UrdfArgs,
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
    /// A parameter's value in SI units (repeatable), e.g. `--param mu_k=0.3`.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub parameters: Vec<String>,
    /// Input signals over time: a CSV in fmpy's layout (a `time` column, then one column per
    /// input, by name; a time given twice is a jump), interpolated linearly between its rows.
    #[arg(long, value_name = "INPUTS.csv")]
    pub input: Option<PathBuf>,
    /// The integrator's linear algebra for a model file (default: `blocks` for scenes of
    /// separate bodies from 300 states on, `articulated` for trees of revolute and prismatic
    /// joints alone of more than 16 bodies, `dense` otherwise). Mechanisms with loops are
    /// always dense.
    #[arg(long, value_enum, value_name = "KIND")]
    pub linear_solver: Option<LinearSolverArg>,
    /// Also write the motion as an animated glTF 2.0 binary (.glb).
    #[arg(long, value_name = "OUT.glb")]
    pub animation: Option<PathBuf>,
}

/// `--linear-solver`: see [`fmu_runtime::ida::LinearSolverKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LinearSolverArg {
    /// SUNDIALS' dense LU.
    Dense,
    /// The block-sparse LU, one block per body hanging from the world.
    Blocks,
    /// A tree of revolute and prismatic joints alone: its mass matrix (with the joints'
    /// springs and dampers) factored in O(n) by the articulated-body algorithm.
    Articulated,
}

impl From<LinearSolverArg> for fmu_runtime::ida::LinearSolverKind {
    fn from(arg: LinearSolverArg) -> Self {
        match arg {
            LinearSolverArg::Dense => fmu_runtime::ida::LinearSolverKind::Dense,
            LinearSolverArg::Blocks => fmu_runtime::ida::LinearSolverKind::Blocks,
            LinearSolverArg::Articulated => fmu_runtime::ida::LinearSolverKind::Factored,
        }
    }
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  fmu3d ssp crank.m3d --fmu drive=drive_train.fmu \\\n    \
    --connect drive.tau_load=crank.crank.tau --connect crank.crank.w=drive.w_load \\\n    \
    --param drive.Kp=2 --step 1e-3 -o system.ssp"
)]
pub struct SspArgs {
    /// The mechanism's model file (.m3d); its FMU is built into the SSP.
    pub model: PathBuf,
    /// The mechanism's component name in the system (default: the model's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Another FMU of the system, under a component name (repeatable).
    #[arg(long = "fmu", value_name = "NAME=PATH.fmu")]
    pub fmus: Vec<String>,
    /// Connect an output to an input, written in either order; a variable is
    /// COMPONENT.VARIABLE, e.g. crank.crank.tau (repeatable).
    #[arg(long = "connect", value_name = "A.OUTPUT=B.INPUT")]
    pub connections: Vec<String>,
    /// Set a Real, Integer or Boolean (true/false) parameter of a component (repeatable).
    #[arg(long = "param", value_name = "COMPONENT.PARAMETER=VALUE")]
    pub parameters: Vec<String>,
    /// Communication step [s] for fixed-step masters (default: the model's output interval).
    #[arg(long)]
    pub step: Option<f64>,
    /// Stop time [s] (default: the model's experiment).
    #[arg(long)]
    pub stop_time: Option<f64>,
    /// Where to write the SSP (default: `<model name>.ssp` in the current folder).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ViewArgs {
    /// The animation: a glTF 2.0 binary (.glb), e.g. from `fmu3d simulate … --animation`.
    pub animation: PathBuf,
    /// Where to write the page (default: `<animation name>.html` in the current folder).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// A result CSV of the same run (`fmu3d simulate`) whose columns `--plot` shows.
    #[arg(long, value_name = "RESULT.csv")]
    pub csv: Option<PathBuf>,
    /// Columns of the CSV to plot under the animation, with a cursor at the current time.
    #[arg(long, value_name = "VAR", num_args = 1.., requires = "csv")]
    pub plot: Vec<String>,
    #[command(flatten)]
    pub units: UnitsArgs,
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// The result CSV (`fmu3d simulate`, or fmpy's layout: `time` first).
    pub csv: PathBuf,
    /// The columns to plot against time; columns of different units go into panels of their own.
    #[arg(required = true, value_name = "VAR")]
    pub variables: Vec<String>,
    /// Where to write the PNG (default: `<csv name>.png` in the current folder).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Width of the image in pixels.
    #[arg(long, default_value_t = 1000)]
    pub width: u32,
    /// Height of the image in pixels.
    #[arg(long, default_value_t = 600)]
    pub height: u32,
    #[command(flatten)]
    pub units: UnitsArgs,
}

/// Where the units of a result's columns come from.
#[derive(Debug, Args)]
pub struct UnitsArgs {
    /// The model file that made the result: its variables' units label the axes.
    #[arg(long, value_name = "MODEL.m3d", conflicts_with = "fmu")]
    pub model: Option<PathBuf>,
    /// The FMU that made the result: the units of its modelDescription.xml label the axes.
    #[arg(long, value_name = "MODEL.fmu")]
    pub fmu: Option<PathBuf>,
}
