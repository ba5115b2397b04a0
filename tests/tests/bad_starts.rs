//! Regression: shapes that start inside each other, and an integrator that gives up inside a
//! contact, are reported in the user's terms.
//!
//! A block placed 1.6 mm into a ramp used to fail at t = 0.0004 s with "raise max_num_steps":
//! the spring of a 1.6 mm deep contact stores far more energy than the scene holds, and the
//! integrator ran out of steps flinging the block out. A start deeper than
//! `contacts::MAX_START_PENETRATION` (0.1 mm, at most a tenth of the smaller shape's inradius) is
//! now refused when the simulation is built (`fmu3d check`, `build`, `fmi2ExitInitializationMode`),
//! naming both objects, the depth and the move that separates them. When the integrator gives up
//! while shapes touch, its message names the objects in contact, the time, and the settings that
//! govern the contact.

use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

/// A steel block (10 × 5 × 10 cm) on a dry-wood slab, `sink` below touching.
const BLOCK: &str = r#"
model block_on_ramp "a block on a ramp"
parameters { sink = 1.6 mm "how far the block starts inside the ramp" }
experiment { stop_time = 0.1 s; interval = 1 ms; tolerance = 1e-6 }
object ramp {
  parent = world; position = [0, -0.05, 0] m
  shape box { lengths = [1, 0.1, 1] m }
  contact { material = dry_wood }
}
object block {
  shape box { lengths = [0.1, 0.05, 0.1] m }
  mass { material = steel }
  contact { material = steel }
  output = true
}
joint slide free { from = world; to = block; position = [0, 0.025 - sink, 0] }
"#;

fn start(source: &str, parameters: &[(&str, f64)]) -> Result<Simulation, String> {
    let overrides: Vec<(String, f64)> = parameters
        .iter()
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    let spec = model::load_str_with(source, "test.m3d", &overrides).expect("the model loads");
    Simulation::new(spec, SimulationOptions::default()).map_err(|e| e.to_string())
}

#[test]
fn a_block_started_inside_a_ramp_is_refused_with_both_names_the_depth_and_the_fix() {
    let message = start(BLOCK, &[]).expect_err("a 1.6 mm deep start is refused");
    eprintln!("{message}");
    for expected in [
        "`ramp` and `block` overlap by 1.6000 mm",
        "more than the 0.1000 mm a start may have",
        "moving `block` by 1.6000 mm along [",
        "touch or are apart",
    ] {
        assert!(
            message.contains(expected),
            "`{expected}` missing: {message}"
        );
    }
    // The normal that separates them is the ramp's upward face normal (+y).
    let along = message.split("along [").nth(1).expect("a direction");
    let direction: Vec<f64> = along
        .split(']')
        .next()
        .expect("a closing bracket")
        .split(',')
        .map(|x| x.trim().parse().expect("a number"))
        .collect();
    assert_eq!(direction.len(), 3);
    assert!(
        (direction[1] - 1.0).abs() < 1e-4 && direction[0].abs() < 1e-4,
        "{direction:?}"
    );
}

#[test]
fn touching_or_slightly_inside_starts() {
    // Touching, and 0.05 mm in (positions rounded, or a part placed at its resting depth).
    for sink in [0.0, 5e-5, -1e-3] {
        let mut simulation =
            start(BLOCK, &[("sink", sink)]).unwrap_or_else(|e| panic!("sink {sink} m: {e}"));
        simulation.advance_to(0.01).expect("it runs");
    }
    // Just beyond the limit: refused.
    assert!(start(BLOCK, &[("sink", 1.1e-4)]).is_err());
}

/// The limit is a tenth of the smaller shape's inradius for small shapes: a 1 mm ball may start
/// 0.05 mm deep, not 0.06 mm.
#[test]
fn small_shapes_have_a_proportionally_smaller_limit() {
    let ball = BLOCK
        .replace(
            "shape box { lengths = [0.1, 0.05, 0.1] m }",
            "shape sphere { diameter = 1 mm }",
        )
        .replace("0.025 - sink", "0.0005 - sink");
    assert!(start(&ball, &[("sink", 4e-5)]).is_ok());
    let message = start(&ball, &[("sink", 6e-5)]).expect_err("refused");
    assert!(message.contains("more than the 0.0500 mm"), "{message}");
}

/// The integrator gives up on a contact regularized far below the documented range
/// (`v_small` = 1 pm/s, where the rolling ball's normal damping is nearly discontinuous) at a
/// tolerance of 1e-13 (at the model's 1e-8 it runs to the end: its friction slides by Coulomb's
/// law and then rolls, whatever `v_small`): the message says when, which objects touch, and
/// what to change.
#[test]
fn an_integrator_failure_in_a_contact_names_the_objects_and_the_settings() {
    let path = fmu3d_tests::model_path("rolling_ball");
    let source = std::fs::read_to_string(path)
        .expect("the model file is readable")
        .replace("tolerance = 1e-8", "tolerance = 1e-13");
    let mut simulation = start(&source, &[("v_small", 1e-12)]).expect("it starts");
    let message = simulation
        .advance_to(1.0)
        .expect_err("the integrator gives up")
        .to_string();
    eprintln!("{message}");
    for expected in [
        "the integrator failed at t = ",
        "`table` and `ball` (",
        "mm deep) in contact",
        "now 1e-12 m/s",
        "loosen the tolerance, now 1e-13",
    ] {
        assert!(
            message.contains(expected),
            "`{expected}` missing: {message}"
        );
    }
}
