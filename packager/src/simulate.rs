//! `fmu3d simulate`: a model file run by the engine linked into `fmu3d`, or an `.fmu` run
//! through its own FMI 2.0 API; either way the results as CSV (time, then every output).

use crate::animation::{self, animate::POSE_HELP, Track};
use crate::cli::SimulateArgs;
use crate::fmu_import::{self, Fmu};
use crate::input_table::InputTable;
use fmi::fmi2::schema::Causality as FmiCausality;
use fmi::schema::traits::DefaultExperiment;
use fmu_runtime::assembly::{Causality, VisualScene};
use fmu_runtime::model::{self, suggest::did_you_mean};
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use nalgebra::Isometry3;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// What the CSV loop needs of a running simulation.
trait Run {
    fn output_names(&self) -> Vec<String>;
    fn advance_to(&mut self, t: f64) -> Result<(), String>;
    fn outputs(&mut self) -> Result<Vec<f64>, String>;
    /// One line for the end of the run.
    fn summary(&self) -> String;
    /// The inputs that [`Run::set_inputs`] sets, by name, in its order.
    fn bind_inputs(&mut self, names: &[String]) -> Result<(), String>;
    /// Sets the bound inputs' values and slopes at the current time.
    fn set_inputs(&mut self, values: &[f64], slopes: &[f64]) -> Result<(), String>;
    /// The visual description, ready for [`Run::poses`].
    fn visual(&mut self) -> Result<VisualScene, String>;
    /// The moving bodies' poses at the current time, in the visual description's order.
    fn poses(&mut self) -> Result<Vec<Isometry3<f64>>, String>;
}

/// Finds each of `names` among `candidates` (name, key); an unknown name is an error that
/// says what it should have been (`what`: "input", "parameter").
fn resolve<T: Copy>(
    names: &[String],
    candidates: &[(String, T)],
    what: &str,
) -> Result<Vec<T>, String> {
    names
        .iter()
        .map(|name| {
            candidates
                .iter()
                .find(|(candidate, _)| candidate == name)
                .map(|(_, key)| *key)
                .ok_or_else(|| {
                    let help = did_you_mean(name, candidates.iter().map(|(n, _)| n.as_str()))
                        .unwrap_or_else(|| {
                            let all: Vec<&str> =
                                candidates.iter().map(|(n, _)| n.as_str()).collect();
                            if all.is_empty() {
                                format!("the model has no {what}s")
                            } else {
                                format!("its {what}s are: {}", all.join(", "))
                            }
                        });
                    let article = if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    };
                    format!("`{name}` is not {article} {what} of the model: {help}")
                })
        })
        .collect()
}

/// A model file run by the engine.
struct ModelRun {
    simulation: Simulation,
    /// Variable-table indices of the bound inputs.
    inputs: Vec<usize>,
}

impl Run for ModelRun {
    fn output_names(&self) -> Vec<String> {
        self.simulation
            .variables
            .outputs()
            .map(|(_, v)| v.name.clone())
            .collect()
    }
    fn advance_to(&mut self, t: f64) -> Result<(), String> {
        self.simulation.advance_to(t).map_err(|e| e.to_string())
    }
    fn outputs(&mut self) -> Result<Vec<f64>, String> {
        Ok(self.simulation.output_values())
    }
    fn summary(&self) -> String {
        let s = &self.simulation;
        let stops = match s.mechanism().end_stops().count() {
            0 => String::new(),
            _ => format!(", {} end-stop events", s.stop_events()),
        };
        format!(
            "{} states; {}; {} outputs interpolated; {} contact events, {} contacts started, {} \
             stick-slip events{stops}",
            s.state_count(),
            s.stats(),
            s.interpolated_outputs(),
            s.events(),
            s.contact_starts(),
            s.friction_events()
        )
    }
    fn bind_inputs(&mut self, names: &[String]) -> Result<(), String> {
        let candidates: Vec<(String, usize)> = self
            .simulation
            .variables
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.causality == Causality::Input)
            .map(|(i, v)| (v.name.clone(), i))
            .collect();
        self.inputs = resolve(names, &candidates, "input")?;
        Ok(())
    }
    fn set_inputs(&mut self, values: &[f64], slopes: &[f64]) -> Result<(), String> {
        for ((&index, &value), &slope) in self.inputs.iter().zip(values).zip(slopes) {
            self.simulation
                .set_input(index, value)
                .and_then(|()| self.simulation.set_input_derivative(index, 1, slope))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }
    fn visual(&mut self) -> Result<VisualScene, String> {
        Ok(self.simulation.visual_scene())
    }
    fn poses(&mut self) -> Result<Vec<Isometry3<f64>>, String> {
        Ok(self.simulation.body_poses().into_iter().skip(1).collect())
    }
}

/// An FMU stepped from communication point to communication point.
struct FmuRun {
    fmu: Fmu,
    time: f64,
    outputs: Vec<(String, u32)>,
    steps: u64,
    /// Value references of the bound inputs.
    inputs: Vec<u32>,
    /// The FMU's file, for its visual description.
    path: PathBuf,
    /// Value references of each moving body's pose outputs (see [`animation::pose_variables`]).
    poses: Vec<[u32; 7]>,
}

impl Run for FmuRun {
    fn output_names(&self) -> Vec<String> {
        self.outputs.iter().map(|(n, _)| n.clone()).collect()
    }
    fn advance_to(&mut self, t: f64) -> Result<(), String> {
        if t > self.time {
            self.fmu.do_step(self.time, t - self.time)?;
            self.time = t;
            self.steps += 1;
        }
        Ok(())
    }
    fn outputs(&mut self) -> Result<Vec<f64>, String> {
        let references: Vec<u32> = self.outputs.iter().map(|(_, vr)| *vr).collect();
        self.fmu.get_real(&references)
    }
    fn summary(&self) -> String {
        format!("{} fmi2DoStep calls through the FMU's C API", self.steps)
    }
    fn bind_inputs(&mut self, names: &[String]) -> Result<(), String> {
        let candidates = fmu_variables(&self.fmu, FmiCausality::Input);
        self.inputs = resolve(names, &candidates, "input")?;
        Ok(())
    }
    fn set_inputs(&mut self, values: &[f64], slopes: &[f64]) -> Result<(), String> {
        let inputs = self.inputs.clone();
        self.fmu.set_real(&inputs, values)?;
        // As the FMU declares: with input derivatives it interpolates within the step.
        if self.fmu.can_interpolate_inputs() {
            self.fmu.set_input_slopes(&inputs, slopes)?;
        }
        Ok(())
    }
    fn visual(&mut self) -> Result<VisualScene, String> {
        let visual = animation::animate::read_visual(&self.path)?;
        let outputs: Vec<String> = self.outputs.iter().map(|(n, _)| n.clone()).collect();
        let source = self.path.display().to_string();
        let columns = animation::pose_columns(&visual, &outputs, &source, "output", POSE_HELP)?;
        self.poses = columns
            .iter()
            .map(|c| c.map(|i| self.outputs[i].1))
            .collect();
        Ok(visual)
    }
    fn poses(&mut self) -> Result<Vec<Isometry3<f64>>, String> {
        let references: Vec<u32> = self.poses.iter().flatten().copied().collect();
        let values = self.fmu.get_real(&references)?;
        Ok(values.chunks(7).map(animation::pose_from_values).collect())
    }
}

/// The FMU's Real variables of one causality: (name, value reference).
fn fmu_variables(fmu: &Fmu, causality: FmiCausality) -> Vec<(String, u32)> {
    fmu.description()
        .get_model_variables()
        .filter(|v| v.causality == causality && fmu_import::type_name(&v.elem) == "Real")
        .map(|v| (v.name.clone(), v.value_reference))
        .collect()
}

/// `NAME=VALUE` of `--param`.
fn parameter_assignment(text: &str) -> Result<(String, f64), String> {
    let (name, value) = text
        .split_once('=')
        .filter(|(n, v)| !n.trim().is_empty() && !v.trim().is_empty())
        .ok_or_else(|| format!("--param {text}: expected NAME=VALUE"))?;
    let value: f64 = value.trim().parse().map_err(|_| {
        format!("--param {text}: `{value}` is not a number (values are in SI units)")
    })?;
    if !value.is_finite() {
        return Err(format!("--param {text}: the value must be finite"));
    }
    Ok((name.trim().to_string(), value))
}

/// The experiment both kinds of run are driven with.
struct Experiment {
    name: String,
    start: f64,
    stop: f64,
    step: f64,
}

pub fn run(args: &SimulateArgs) -> Result<(), String> {
    let parameters = args
        .parameters
        .iter()
        .map(|text| parameter_assignment(text))
        .collect::<Result<Vec<_>, _>>()?;
    let inputs = args.input.as_deref().map(InputTable::read).transpose()?;
    let is_fmu = args
        .model
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fmu"));
    if is_fmu && args.linear_solver.is_some() {
        return Err(format!(
            "--linear-solver applies to a model file, not to {}: an FMU chooses its linear \
             algebra by the model's size",
            args.model.display()
        ));
    }
    let (mut run, experiment): (Box<dyn Run>, Experiment) = if is_fmu {
        let mut fmu = Fmu::open(&args.model)?;
        let d = fmu.description();
        let start = d.start_time().unwrap_or(0.0);
        let tolerance = args.tolerance.or(d.tolerance());
        let experiment = experiment(
            args,
            d.model_name.clone(),
            start,
            d.stop_time().unwrap_or(1.0),
            d.step_size().unwrap_or(0.01),
        )?;
        let outputs = d
            .get_model_variables()
            .filter(|v| v.causality == FmiCausality::Output)
            .map(|v| (v.name.clone(), v.value_reference))
            .collect();
        let names: Vec<String> = parameters.iter().map(|(n, _)| n.clone()).collect();
        let references = resolve(
            &names,
            &fmu_variables(&fmu, FmiCausality::Parameter),
            "parameter",
        )
        .map_err(|e| format!("--param: {e}"))?;
        let values: Vec<(u32, f64)> = references
            .into_iter()
            .zip(parameters.iter().map(|(_, v)| *v))
            .collect();
        fmu.initialize(start, experiment.stop, tolerance, &values)
            .map_err(|e| format!("{}: {e}", args.model.display()))?;
        (
            Box::new(FmuRun {
                fmu,
                time: start,
                outputs,
                steps: 0,
                inputs: Vec::new(),
                path: args.model.clone(),
                poses: Vec::new(),
            }),
            experiment,
        )
    } else {
        let options = SimulationOptions {
            tolerance: args.tolerance,
            linear_solver: args.linear_solver.map(Into::into),
            ..SimulationOptions::default()
        };
        let source = std::fs::read_to_string(&args.model)
            .map_err(|e| format!("cannot read {}: {e}", args.model.display()))?;
        let spec = model::load_str_with(&source, &args.model.display().to_string(), &parameters)
            .map_err(|e| e.to_string())?;
        let sim = Simulation::new(spec, options).map_err(|e| e.to_string())?;
        let e = sim.spec.experiment.clone();
        let experiment = experiment(
            args,
            sim.spec.name.clone(),
            e.start_time,
            e.stop_time,
            e.interval,
        )?;

        let run = ModelRun {
            simulation: sim,
            inputs: Vec::new(),
        };
        (Box::new(run), experiment)
    };
    if let Some(table) = &inputs {
        run.bind_inputs(&table.names).map_err(|e| {
            format!(
                "--input {}: {e}",
                args.input
                    .as_deref()
                    .unwrap_or(std::path::Path::new(""))
                    .display()
            )
        })?;
    }
    write_csv(args, run.as_mut(), &experiment, inputs.as_ref())
}

fn experiment(
    args: &SimulateArgs,
    name: String,
    start: f64,
    stop: f64,
    step: f64,
) -> Result<Experiment, String> {
    let stop = args.stop_time.unwrap_or(stop);
    let step = args.step.unwrap_or(step);
    if !(step > 0.0 && step.is_finite()) {
        return Err(format!(
            "--step must be a positive number of seconds, not {step}"
        ));
    }
    if !(stop >= start && stop.is_finite()) {
        return Err(format!(
            "--stop-time must not be before the start time {start} s, not {stop}"
        ));
    }
    Ok(Experiment {
        name,
        start,
        stop,
        step,
    })
}

fn write_csv(
    args: &SimulateArgs,
    run: &mut dyn Run,
    experiment: &Experiment,
    inputs: Option<&InputTable>,
) -> Result<(), String> {
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.csv", experiment.name)));
    let names = run.output_names();
    let mut csv = crate::csv_table::header_line(
        std::iter::once("time").chain(names.iter().map(String::as_str)),
    );
    csv.push('\n');

    let started = Instant::now();
    let progress = std::io::stderr().is_terminal();
    let mut last_report = started;
    let count = ((experiment.stop - experiment.start) / experiment.step).round() as u64;
    let mut previous = experiment.start;
    let mut animation = match &args.animation {
        Some(_) => Some((run.visual()?, Track::default())),
        None => None,
    };
    for i in 0..=count {
        let t = if i == count {
            experiment.stop
        } else {
            experiment.start + i as f64 * experiment.step
        };
        let failed = |e: String| format!("{}: at t = {t} s: {e}", args.model.display());
        match inputs {
            None => run.advance_to(t).map_err(failed)?,
            // From each row of the input table to the next the signals are linear: the step
            // is split there, and each piece starts with the signals' values and slopes.
            Some(table) => {
                let from = previous;
                for to in table.breakpoints(from, t).chain([t]) {
                    let (values, slopes) = table.at(previous);
                    run.set_inputs(&values, &slopes).map_err(failed)?;
                    run.advance_to(to).map_err(failed)?;
                    previous = to;
                }
            }
        }
        write_row(&mut csv, t, &run.outputs()?);
        if let Some((_, track)) = &mut animation {
            track.push(t, run.poses()?);
        }
        if progress
            && started.elapsed() > Duration::from_secs(1)
            && last_report.elapsed() > Duration::from_millis(200)
        {
            last_report = Instant::now();
            eprint!(
                "\r{:5.1} %  t = {t:.4} s",
                100.0 * i as f64 / count.max(1) as f64
            );
        }
    }
    if progress && started.elapsed() > Duration::from_secs(1) {
        eprint!("\r");
    }
    std::fs::write(&path, csv).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let mut wrote = path.display().to_string();
    if let (Some((visual, track)), Some(glb)) = (&animation, &args.animation) {
        animation::write(glb, visual, track)?;
        wrote = format!("{wrote} and {}", glb.display());
    }
    let wall = started.elapsed().as_secs_f64();
    eprintln!(
        "{}: {} s simulated in {wall:.3} s wall; {}; wrote {}",
        experiment.name,
        experiment.stop - experiment.start,
        run.summary(),
        wrote
    );
    std::io::stderr().flush().ok();
    Ok(())
}

fn write_row(csv: &mut String, t: f64, values: &[f64]) {
    use std::fmt::Write as _;
    let _ = write!(csv, "{t}");
    for v in values {
        let _ = write!(csv, ",{v}");
    }
    csv.push('\n');
}
