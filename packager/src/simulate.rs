//! `fmu3d simulate`: the model without an importer, results as CSV.

use crate::cli::SimulateArgs;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub fn run(args: &SimulateArgs) -> Result<(), String> {
    let options = SimulationOptions {
        tolerance: args.tolerance,
        ..SimulationOptions::default()
    };
    let mut sim = Simulation::from_file(&args.model, options).map_err(|e| e.to_string())?;
    let experiment = sim.spec.experiment.clone();
    let stop = args.stop_time.unwrap_or(experiment.stop_time);
    let step = args.step.unwrap_or(experiment.interval);
    if !(step > 0.0 && step.is_finite()) {
        return Err(format!(
            "--step must be a positive number of seconds, not {step}"
        ));
    }
    if !(stop >= experiment.start_time && stop.is_finite()) {
        return Err(format!(
            "--stop-time must not be before the start time {} s, not {stop}",
            experiment.start_time
        ));
    }
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.csv", sim.spec.name)));
    let mut csv = String::new();
    csv.push_str("time");
    for (_, variable) in sim.variables.outputs() {
        csv.push(',');
        csv.push_str(&variable.name);
    }
    csv.push('\n');

    let started = Instant::now();
    let progress = std::io::stderr().is_terminal();
    let mut last_report = started;
    let count = ((stop - experiment.start_time) / step).round() as u64;
    for i in 0..=count {
        let t = if i == count {
            stop
        } else {
            experiment.start_time + i as f64 * step
        };
        sim.advance_to(t)
            .map_err(|e| format!("{}: at t = {} s: {e}", args.model.display(), sim.time()))?;
        write_row(&mut csv, t, &sim.output_values());
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
    let stats = sim.stats();
    let wall = started.elapsed().as_secs_f64();
    eprintln!(
        "{}: {} s simulated in {wall:.3} s wall; {} states; {stats}; wrote {}",
        sim.spec.name,
        stop - experiment.start_time,
        sim.state_count(),
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
