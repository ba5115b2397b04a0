//! `fmu3d simulate`: a model file run by the engine linked into `fmu3d`, or an `.fmu` run
//! through its own FMI 2.0 API; either way the results as CSV (time, then every output).

use crate::cli::SimulateArgs;
use crate::fmu_host::Fmu;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
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
}

impl Run for Simulation {
    fn output_names(&self) -> Vec<String> {
        self.variables
            .outputs()
            .map(|(_, v)| v.name.clone())
            .collect()
    }
    fn advance_to(&mut self, t: f64) -> Result<(), String> {
        Simulation::advance_to(self, t).map_err(|e| e.to_string())
    }
    fn outputs(&mut self) -> Result<Vec<f64>, String> {
        Ok(self.output_values())
    }
    fn summary(&self) -> String {
        format!(
            "{} states; {}; {} contact events, {} contacts started, {} stick-slip events",
            self.state_count(),
            self.stats(),
            self.events(),
            self.contact_starts(),
            self.friction_events()
        )
    }
}

/// An FMU stepped from communication point to communication point.
struct FmuRun {
    fmu: Fmu,
    time: f64,
    outputs: Vec<(String, u32)>,
    steps: u64,
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
}

/// The experiment both kinds of run are driven with.
struct Experiment {
    name: String,
    start: f64,
    stop: f64,
    step: f64,
}

pub fn run(args: &SimulateArgs) -> Result<(), String> {
    let is_fmu = args
        .model
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fmu"));
    let (mut run, experiment): (Box<dyn Run>, Experiment) = if is_fmu {
        let mut fmu = Fmu::open(&args.model)?;
        let d = fmu.description.clone();
        let start = d.start_time.unwrap_or(0.0);
        let experiment = experiment(
            args,
            d.model_name.clone(),
            start,
            d.stop_time.unwrap_or(1.0),
            d.step_size.unwrap_or(0.01),
        )?;
        let outputs = d
            .variables
            .iter()
            .filter(|v| v.causality == "output")
            .map(|v| (v.name.clone(), v.value_reference))
            .collect();
        fmu.initialize(start, experiment.stop, args.tolerance.or(d.tolerance))?;
        (
            Box::new(FmuRun {
                fmu,
                time: start,
                outputs,
                steps: 0,
            }),
            experiment,
        )
    } else {
        let options = SimulationOptions {
            tolerance: args.tolerance,
            ..SimulationOptions::default()
        };
        let sim = Simulation::from_file(&args.model, options).map_err(|e| e.to_string())?;
        let e = sim.spec.experiment.clone();
        let experiment = experiment(
            args,
            sim.spec.name.clone(),
            e.start_time,
            e.stop_time,
            e.interval,
        )?;
        (Box::new(sim), experiment)
    };
    write_csv(args, run.as_mut(), &experiment)
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
) -> Result<(), String> {
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.csv", experiment.name)));
    let mut csv = String::from("time");
    for name in run.output_names() {
        csv.push(',');
        csv.push_str(&name);
    }
    csv.push('\n');

    let started = Instant::now();
    let progress = std::io::stderr().is_terminal();
    let mut last_report = started;
    let count = ((experiment.stop - experiment.start) / experiment.step).round() as u64;
    for i in 0..=count {
        let t = if i == count {
            experiment.stop
        } else {
            experiment.start + i as f64 * experiment.step
        };
        run.advance_to(t)
            .map_err(|e| format!("{}: at t = {t} s: {e}", args.model.display()))?;
        write_row(&mut csv, t, &run.outputs()?);
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
    let wall = started.elapsed().as_secs_f64();
    eprintln!(
        "{}: {} s simulated in {wall:.3} s wall; {}; wrote {}",
        experiment.name,
        experiment.stop - experiment.start,
        run.summary(),
        path.display()
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
