//! The 16-ball break of [NO19b] §4 (Fig. 11), over the paper's 5 s: the cue ball hits the apex of
//! the rack, the balls spread, hit the cushions and come to rest. Checked on every sample
//! (0.1 ms apart, shorter than the ~0.3 ms a ball–ball contact lasts):
//!
//! - no ball leaves the table: its centre stays inside the cushion rectangle, deeper than r
//!   only by what a cushion contact can press in, and its height stays within a few static
//!   sinking depths of table top + r;
//! - no ball passes through another: the smallest centre distance stays above 2r minus the
//!   deepest Hertz penetration the start energy could produce;
//! - the break stays symmetric about the cue line to 5e-6 m (mirror pairs of rack balls, and
//!   the balls on the line stay on it).
//!
//! Regression (the residual is mirror-exact): contact loads used to be summed per body in the
//! order of the collision pairs, which differs between a rack ball and its mirror image, so the
//! two got forces that differed in the last bits; they are now summed exactly, and a mirrored
//! state gives the mirrored residual bit for bit at every instant checked while the pulse runs
//! through the rack. What asymmetry remains comes from the integrator's Newton iteration: the
//! block LU eliminates a ball and its mirror image at different places of its order, so their
//! updates round differently, and the break's chaos grows that: after 5 s, 9.3e-9 m with a
//! gapped rack and 2.2e-6 m with a touching one, 3.3e-7 m for both with a build whose Jacobian
//! differed only in rounding (the motion map's products before they skipped its zero blocks).
//!
//! The bounds follow from Table 1 of [NO19b] (E, ν of ball and table) and Hertz's law
//! f = k δ^(3/2), k = 4/3 √R E*, with the energy of the cue ball as the most any one contact
//! can store: (2/5) k δ^(5/2) ≤ ½ m v².

use fmu3d_tests::{load, simulate};

/// Plane-strain modulus E/(1 − ν²) [Pa].
fn plane_strain(e: f64, nu: f64) -> f64 {
    e / (1.0 - nu * nu)
}

/// Two moduli in series [Pa].
fn series(a: f64, b: f64) -> f64 {
    a * b / (a + b)
}

/// The deepest penetration a Hertz contact of stiffness factor `k` [N/m^1.5] reaches when it
/// stores the energy `energy` [J]: (2/5) k δ^(5/2) = energy.
fn hertz_depth(k: f64, energy: f64) -> f64 {
    (2.5 * energy / k).powf(0.4)
}

/// The mirror image of rack ball n (1..=15) about the cue line: row k, place j ↔ k − j.
fn mirror(n: usize) -> usize {
    let k = (0..5)
        .find(|k| n <= (k + 1) * (k + 2) / 2)
        .expect("a rack ball");
    let first = k * (k + 1) / 2 + 1;
    first + k - (n - first)
}

#[test]
fn the_break_stays_on_the_table_without_overlaps_and_symmetric() {
    break_stays_on_the_table_without_overlaps_and_symmetric(&[]);
}

/// Regression: a rack whose balls touch exactly, as a rack is set up, failed with
/// `IDA_TOO_MUCH_WORK` at 0.18 s: its contacts exist from the start, and the contact law gave
/// such contacts the damping of a plastic impact for their whole life. The same checks hold.
#[test]
fn a_touching_rack_breaks_like_a_rack_with_gaps() {
    break_stays_on_the_table_without_overlaps_and_symmetric(&[("gap", 0.0)]);
}

fn break_stays_on_the_table_without_overlaps_and_symmetric(parameters: &[(&str, f64)]) {
    let stop = 5.0;
    let run = simulate(load("billiard16", parameters), 1e-6, stop, 1e-4);
    let (r, length, width, v_cue) = (
        run.parameter("r"),
        run.parameter("L"),
        run.parameter("W"),
        run.parameter("v_cue"),
    );
    // [NO19b] Table 1: ball E = 5.4e9 Pa, ν = 0.34; table (and cushion) E = 1.1e10 Pa, ν = 0.4.
    let ball_modulus = plane_strain(5.4e9, 0.34);
    let table_modulus = plane_strain(1.1e10, 0.4);
    let mass = 1768.0 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let energy = 0.5 * mass * v_cue * v_cue;
    let ball_ball = 4.0 / 3.0 * (r / 2.0).sqrt() * series(ball_modulus, ball_modulus);
    let ball_flat = 4.0 / 3.0 * r.sqrt() * series(ball_modulus, table_modulus);
    let deepest_ball = hertz_depth(ball_ball, energy);
    let deepest_cushion = hertz_depth(ball_flat, energy);
    // Resting on the table: k δ^(3/2) = m g.
    let sinking = (mass * 9.81 / ball_flat).powf(2.0 / 3.0);

    let names: Vec<String> = std::iter::once("cue".to_string())
        .chain((1..=15).map(|n| format!("ball[{n}]")))
        .collect();
    let columns: Vec<[&[f64]; 3]> = names
        .iter()
        .map(|b| [1, 2, 3].map(|i| run.column(&format!("{b}.r[{i}]"))))
        .collect();
    let position = |ball: usize, k: usize| columns[ball].map(|c| c[k]);

    let (mut closest, mut asymmetry, mut reach_x, mut reach_z) = (f64::MAX, 0.0f64, 0.0, 0.0);
    let (mut lowest, mut highest) = (f64::MAX, f64::MIN);
    for k in 0..run.time.len() {
        for a in 0..names.len() {
            let p = position(a, k);
            reach_x = p[0].abs().max(reach_x);
            reach_z = p[2].abs().max(reach_z);
            lowest = lowest.min(p[1] - r);
            highest = highest.max(p[1] - r);
            for b in a + 1..names.len() {
                let q = position(b, k);
                let d =
                    ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
                closest = closest.min(d);
            }
            // Index 0 is the cue ball, which stays on the line; rack ball n is index n.
            let image = if a == 0 { 0 } else { mirror(a) };
            let q = position(image, k);
            asymmetry = asymmetry
                .max((p[0] - q[0]).abs())
                .max((p[1] - q[1]).abs())
                .max((p[2] + q[2]).abs());
        }
    }
    eprintln!(
        "billiard16 {parameters:?} over {stop} s: {} events, {} IDA steps; reach |x| {reach_x:.5} m (cushion \
         at {:.5}), |z| {reach_z:.5} m (cushion at {:.5}); height - r in [{lowest:.3e}, \
         {highest:.3e}] m (static sinking {sinking:.3e}); closest centres 2r - {:.3e} m (bound \
         {deepest_ball:.3e}); asymmetry {asymmetry:.3e} m",
        run.simulation.events(),
        run.simulation.stats().steps,
        length / 2.0 - r,
        width / 2.0 - r,
        2.0 * r - closest
    );
    // (a) On the table: inside the cushions up to a cushion contact's depth, on the bed.
    assert!(
        reach_x <= length / 2.0 - r + deepest_cushion,
        "a ball leaves the table along x: {reach_x}"
    );
    assert!(
        reach_z <= width / 2.0 - r + deepest_cushion,
        "a ball leaves the table along z: {reach_z}"
    );
    assert!(
        lowest >= -3.0 * sinking && highest <= 3.0 * sinking,
        "a ball leaves the bed: height - r in [{lowest}, {highest}] m"
    );
    // The break spreads: balls reach the foot cushion and the side cushions.
    assert!(
        reach_x > length / 2.0 - r,
        "no ball reaches the foot cushion"
    );
    assert!(reach_z > width / 2.0 - r, "no ball reaches a side cushion");
    // (b) No ball passes through another.
    assert!(
        closest >= 2.0 * r - deepest_ball,
        "two balls overlap by {} m",
        2.0 * r - closest
    );
    // (c) The break is symmetric about the cue line.
    assert!(
        asymmetry <= 5e-6,
        "the break is asymmetric by {asymmetry} m"
    );
}

#[test]
fn rack_balls_pair_with_their_mirror_images() {
    // Row by row: 1 | 2 3 | 4 5 6 | 7 8 9 10 | 11 12 13 14 15.
    let images: Vec<usize> = (1..=15).map(mirror).collect();
    assert_eq!(images, [1, 3, 2, 6, 5, 4, 10, 9, 8, 7, 15, 14, 13, 12, 11]);
}

/// The mirror image z → −z of a state-shaped vector (y, ẏ or the residual) of the billiard:
/// ball blocks swapped with their images; per block, position (x, y, −z), quaternion imaginary
/// part (−q1, −q2, q3) and real part kept (the rotation M·R·M), velocity (vx, vy, −vz) and the
/// angular velocity in body axes (−wx, −wy, wz), a pseudovector. Residual rows transform like
/// the states they belong to.
fn mirrored(mechanism: &fmu_runtime::dynamics::Mechanism, values: &[f64]) -> Vec<f64> {
    let index_of = |name: &str| {
        mechanism
            .bodies
            .iter()
            .position(|b| b.name == name)
            .unwrap_or_else(|| panic!("no body {name}"))
    };
    let mut out = values.to_vec();
    for body in &mechanism.bodies[1..] {
        let image = match body.name.strip_prefix("ball[") {
            Some(rest) => format!(
                "ball[{}]",
                mirror(rest.trim_end_matches(']').parse().unwrap())
            ),
            None => body.name.clone(),
        };
        let from = mechanism.bodies[index_of(&image)].joint.as_ref().unwrap();
        let to = body.joint.as_ref().unwrap();
        let (s, t) = (from.states.unwrap(), to.states.unwrap());
        let q_signs = [1.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0];
        let v_signs = [1.0, 1.0, -1.0, -1.0, -1.0, 1.0];
        for (i, sign) in q_signs.iter().enumerate() {
            out[t.q + i] = sign * values[s.q + i];
        }
        for (i, sign) in v_signs.iter().enumerate() {
            out[t.v + i] = sign * values[s.v + i];
        }
    }
    out
}

/// Regression: the residual is mirror-exact. A rack ball pressed by several neighbours gets
/// their contact forces in the order of the collision pairs, which is not the order its mirror
/// image gets the mirrored forces in; summed as they come, the two differ in the last bits, and
/// the break's chaos grows that. Contact loads are therefore summed exactly (order-independent):
/// at every instant of the break's first milliseconds, the residual of the mirrored state is the
/// mirrored residual, bit for bit.
#[test]
fn the_residual_of_the_mirrored_state_is_the_mirrored_residual() {
    use fmu_runtime::dynamics::{residual, FlangeInputs, Workspace};
    use fmu_runtime::simulation::{Simulation, SimulationOptions};

    let mut simulation = Simulation::new(load("billiard16", &[]), SimulationOptions::default())
        .expect("the simulation starts");
    let mechanism = simulation.mechanism().clone();
    let inputs = FlangeInputs::new(&mechanism);
    let mut workspace = Workspace::new(&mechanism);
    let n = mechanism.len();
    let (mut res, mut res_image) = (vec![0.0; n], vec![0.0; n]);
    let (mut checked, mut most_contacts) = (0, 0);
    // The cue ball reaches the apex ball at about 0.3884 s; the pulse runs through the rack in
    // about 1 ms.
    simulation.advance_to(0.388).expect("the cue ball rolls");
    for k in 0..=60 {
        simulation
            .advance_to(0.388 + k as f64 * 2e-5)
            .expect("the break runs");
        let snapshot = simulation.snapshot().expect("a snapshot");
        let (y, yp) = (&snapshot.y[..n], &snapshot.yp[..n]);
        let (y_image, yp_image) = (mirrored(&mechanism, y), mirrored(&mechanism, yp));
        // The contact law's discrete state (approach speed at contact start) left out on both
        // sides: every contact takes its present approach speed.
        residual(&mechanism, &inputs, &mut workspace, y, yp, &mut res);
        let contacts = (0..workspace.pairs.len())
            .filter(|&p| {
                fmu_runtime::dynamics::contacts::pair_response(&mechanism, &workspace, p).is_some()
            })
            .count();
        most_contacts = most_contacts.max(contacts);
        residual(
            &mechanism,
            &inputs,
            &mut workspace,
            &y_image,
            &yp_image,
            &mut res_image,
        );
        let expected = mirrored(&mechanism, &res);
        for i in 0..n {
            assert!(
                res_image[i] == expected[i],
                "t = {}: residual {i} of the mirrored state is {:e}, the mirrored residual {:e}",
                snapshot.t,
                res_image[i],
                expected[i]
            );
        }
        checked += 1;
    }
    eprintln!(
        "mirror-exact residual at {checked} instants, up to {most_contacts} contacts at once"
    );
    assert!(
        most_contacts >= 16 + 4,
        "the instants checked include the compressed rack: {most_contacts} contacts"
    );
}
