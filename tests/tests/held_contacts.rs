//! A contact whose shapes part by less than the integrator's tolerance scale goes on without an
//! event: its hold gap is the relative tolerance times the smaller bounding radius of the pair.
//!
//! Balls resting against each other in a heap open and close their contacts by gaps of
//! nanometres, at the scale of the integrator's error. Each opening used to be a contact's end
//! and each closing a start: an event and a restart of the integrator apiece, half of the 4 716
//! contact events of 36 poured balls (models/pour.m3d, staggered) within 1 µm. The force of a
//! contact is zero in the gap and continuous at zero distance, so nothing needs the restart; a
//! contact now ends only when its shapes have parted by the hold gap, and keeps its friction
//! state until then. A contact that starts is still located at zero distance.
//!
//! The reference is a ball moved by a prescribed motion over a floor: its gap to the floor is a
//! known function of time, so the events it must make are counted from that function alone.

use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

/// The ball's radius [m]: the smaller bounding radius of the pair (the floor's is 0.14 m).
const RADIUS: f64 = 0.01;
/// The experiment's relative tolerance.
const TOLERANCE: f64 = 1e-6;
/// The hold gap the documentation gives: tolerance × the smaller bounding radius [m].
const HOLD_GAP: f64 = TOLERANCE * RADIUS;
/// How deep the ball starts in the floor [m].
const START_DEPTH: f64 = 2e-9;
/// The period of the ball's motion [s].
const PERIOD: f64 = 0.1;

/// A ball of radius [`RADIUS`] whose lowest point is `gap(t) = −d0 + A (1 − cos 2πt/T)` above
/// a floor: in contact at the start, apart by 2A − d0 at most, once per period.
fn ball_over_floor(amplitude: f64) -> Simulation {
    let text = format!(
        r#"
model held "a ball lifted by a gap of nanometres off a floor, and lowered again"
parameters {{ R = {RADIUS} m; d0 = {START_DEPTH:e} m; A = {amplitude:e} m; T = {PERIOD} s }}
gravity none
experiment {{ stop_time = {stop} s; interval = 1 ms; tolerance = {TOLERANCE:e} }}
object floor {{ parent = world; position = [0, -0.01, 0] m; shape box {{ lengths = [0.2, 0.02, 0.2] m }}; contact {{ material = dry_wood }} }}
object ball {{ shape sphere {{ diameter = 2*R }}; mass {{ material = steel }}; contact {{ material = steel }} }}
joint lift prismatic {{ from = world; to = ball; axis = y; motion = R - d0 + A*(1 - cos(2*pi*t/T)); can_collide = true }}
"#,
        stop = 5.0 * PERIOD
    );
    let spec = model::load_str(&text, "held.m3d").expect("the model loads");
    // The gap of nanometres cannot carry the ball through the floor, so the step bound against
    // tunnelling would let a step pass whole periods; a period is given 100 steps here, so that
    // every crossing is seen.
    let options = SimulationOptions {
        max_step: Some(PERIOD / 100.0),
        ..SimulationOptions::default()
    };
    Simulation::new(spec, options).expect("the simulation starts")
}

/// The amplitude A at which the largest gap 2A − d0 is `largest`.
fn amplitude_for(largest: f64) -> f64 {
    (largest + START_DEPTH) / 2.0
}

/// Contact events over five periods: none while the largest gap is half the hold gap; two a
/// period (the end where the gap rises through the hold gap, the start where it falls through
/// zero) while it is twice the hold gap.
#[test]
fn a_contact_parted_by_less_than_its_hold_gap_makes_no_event() {
    for (largest, expected) in [(0.5 * HOLD_GAP, 0), (2.0 * HOLD_GAP, 10)] {
        let mut sim = ball_over_floor(amplitude_for(largest));
        sim.advance_to(5.0 * PERIOD)
            .expect("the run reaches its stop");
        println!(
            "largest gap {:.1} × the hold gap: {} contact events, {} contacts started",
            largest / HOLD_GAP,
            sim.events(),
            sim.contact_starts()
        );
        assert_eq!(sim.events(), expected, "largest gap {largest:e} m");
        assert_eq!(
            sim.contact_starts(),
            expected / 2,
            "largest gap {largest:e} m"
        );
    }
}

/// The ball's gap to the floor at time `t` for amplitude `a`.
fn gap(a: f64, t: f64) -> f64 {
    -START_DEPTH + a * (1.0 - (2.0 * std::f64::consts::PI * t / PERIOD).cos())
}

/// The collider's event indicator of a contact recorded at the start is the hold gap less the
/// gap: positive while the shapes part by less, through zero where they part by the hold gap.
/// A hold gap that scaled with the larger radius, or missed the tolerance by 10 %, fails.
#[test]
fn a_held_contacts_indicator_is_its_hold_gap_less_its_gap() {
    let a = amplitude_for(2.0 * HOLD_GAP);
    let mut sim = ball_over_floor(a);
    sim.enter_model_exchange();
    let mut worst = 0.0f64;
    for t in [0.0, 0.01, 0.02, 0.025, 0.03, 0.05] {
        sim.set_time(t).expect("time set");
        let mut g = vec![0.0; sim.event_indicator_count()];
        sim.event_indicators(&mut g).expect("indicators");
        let least = g.iter().copied().fold(f64::INFINITY, f64::min);
        let expected = HOLD_GAP - gap(a, t);
        println!(
            "t = {t} s: gap {:.3e} m, indicator {least:.3e} m",
            gap(a, t)
        );
        worst = worst.max((least - expected).abs());
    }
    println!("indicator within {worst:.1e} m of hold gap − gap");
    // The narrow phase of a sphere on a box is exact to round-off at 1 cm (1e-18 m).
    assert!(worst < 1e-15, "{worst:e} m");
}

/// A snapshot taken while the contact is held across its gap carries it, with the friction
/// state it had: the restored simulation, as the original, makes no event when the gap closes
/// again. Restored from the
/// state alone, the contact would count as apart and start again at zero distance.
#[test]
fn a_snapshot_keeps_a_contact_held_across_its_gap() {
    let a = amplitude_for(0.5 * HOLD_GAP);
    let mut original = ball_over_floor(a);
    // Half a period: the gap is at its largest, 0.5 × the hold gap.
    original.advance_to(0.5 * PERIOD).expect("half a period");
    assert!(gap(a, 0.5 * PERIOD) > 0.0);
    let snapshot = original.snapshot().expect("snapshot");
    assert_eq!(snapshot.contacts.len(), 1, "the held contact is saved");
    // It kept the friction state it started with (at rest on the floor: not sliding), which a
    // contact that ended would have lost.
    assert_eq!(
        snapshot.frictions.len(),
        1,
        "the held contact's friction state is kept"
    );
    let mut restored = ball_over_floor(a);
    restored.restore(&snapshot).expect("restore");
    for sim in [&mut original, &mut restored] {
        let before = sim.events();
        sim.advance_to(2.0 * PERIOD).expect("two periods");
        assert_eq!(sim.events(), before, "no event where the gap closes");
    }
}
