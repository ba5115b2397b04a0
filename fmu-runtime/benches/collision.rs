//! Cost of the narrow phase per pair and of the broad phase per scene, and whole simulations of
//! the shipped contact models, as Markdown tables.
//! `cargo bench -p fmu-runtime --bench collision` (`-- --quick`: without the simulations)

use std::hint::black_box;
use std::time::Instant;

use fmu_runtime::collision::{candidate_pairs, distance, Aabb, Shape};
use fmu_runtime::model::ShapeSpec;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use nalgebra::{Isometry3, Translation3, UnitQuaternion, Vector3};
use std::path::Path;

/// A small deterministic generator (xorshift), so runs are comparable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn pose(&mut self, extent: f64) -> Isometry3<f64> {
        let axis = Vector3::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        );
        let rotation = UnitQuaternion::from_scaled_axis(axis * 3.0);
        let t = Translation3::new(
            self.range(-extent, extent),
            self.range(-extent, extent),
            self.range(-extent, extent),
        );
        Isometry3::from_parts(t, rotation)
    }
}

fn time_per_call(mut f: impl FnMut(usize), calls: usize) -> f64 {
    for i in 0..calls.min(1000) {
        f(i);
    }
    let start = Instant::now();
    for i in 0..calls {
        f(i);
    }
    start.elapsed().as_nanos() as f64 / calls as f64
}

/// The shipped contact models, each over its default experiment (stop time, output interval,
/// tolerance), and how many times each is run (the median wall time is printed).
const SIMULATIONS: &[(&str, usize)] = &[
    ("bouncing_ball", 5),
    ("rolling_ball", 5),
    ("two_balls", 5),
    ("bouncing_box", 5),
    ("newtons_cradle", 5),
    ("billiard16", 3),
];

/// Whole simulations: start-up excluded, stepping from output to output as an importer does.
fn simulations() {
    println!();
    println!("| model | simulated [s] | states | colliders | wall [s] | wall per simulated s [ms] | IDA steps | events | root evals | residual evals | +for Jacobians | Jacobians |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &(name, runs) in SIMULATIONS {
        let path = format!("{}/../models/{name}.m3d", env!("CARGO_MANIFEST_DIR"));
        let mut walls = Vec::new();
        let mut last = None;
        for _ in 0..runs {
            let mut sim = Simulation::from_file(Path::new(&path), SimulationOptions::default())
                .expect("the model starts");
            let experiment = sim.spec.experiment.clone();
            let start = Instant::now();
            let mut k = 0;
            while sim.time() < experiment.stop_time {
                k += 1;
                let t = (experiment.start_time + k as f64 * experiment.interval)
                    .min(experiment.stop_time);
                sim.advance_to(t).expect("the integrator reaches the time");
            }
            walls.push(start.elapsed().as_secs_f64());
            last = Some((experiment.stop_time - experiment.start_time, sim));
        }
        walls.sort_by(f64::total_cmp);
        let wall = walls[walls.len() / 2];
        let (simulated, sim) = last.expect("ran");
        let s = sim.stats();
        println!(
            "| {name} | {simulated} | {} | {} | {wall:.2} | {:.1} | {} | {} | {} | {} | {} | {} |",
            sim.state_count(),
            sim.mechanism().collisions.colliders.len(),
            wall / simulated * 1e3,
            s.steps,
            sim.events(),
            s.root_evals,
            s.residual_evals,
            s.jacobian_residual_evals,
            s.jacobian_evals
        );
    }
}

/// The hull of `n` points spread evenly (a Fibonacci lattice) over an ellipsoid of the bench's
/// box size, as a mesh shape.
fn mesh_hull(n: usize) -> Shape {
    use fmu_runtime::mesh::TriangleMesh;
    use fmu_runtime::model::{MeshCollision, MeshSpec};
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let vertices = (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let r = (1.0 - z * z).sqrt();
            let phi = golden * i as f64;
            nalgebra::Point3::new(0.25 * r * phi.cos(), 0.15 * r * phi.sin(), 0.2 * z)
        })
        .collect();
    Shape::new(&ShapeSpec::Mesh(std::sync::Arc::new(MeshSpec {
        files: Vec::new(),
        digests: Vec::new(),
        scale: Vector3::repeat(1.0),
        collision: MeshCollision::Hull,
        pieces: vec![TriangleMesh {
            vertices,
            triangles: Vec::new(),
        }],
        open_edges: 0,
    })))
    .expect("a hull")
}

fn main() {
    let sphere = Shape::new(&ShapeSpec::Sphere { diameter: 0.4 }).unwrap();
    let cuboid = Shape::new(&ShapeSpec::Box {
        lengths: Vector3::new(0.5, 0.3, 0.4),
    })
    .unwrap();
    let cylinder = Shape::new(&ShapeSpec::Cylinder {
        diameter: 0.3,
        length: 0.5,
    })
    .unwrap();
    let cone = Shape::new(&ShapeSpec::Cone {
        diameter: 0.4,
        length: 0.5,
    })
    .unwrap();
    let ellipsoid = Shape::new(&ShapeSpec::Ellipsoid {
        lengths: Vector3::new(0.5, 0.3, 0.4),
    })
    .unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let poses: Vec<(Isometry3<f64>, Isometry3<f64>)> =
        (0..1024).map(|_| (rng.pose(0.5), rng.pose(0.5))).collect();

    println!("| case | ns per call |");
    println!("| --- | ---: |");
    for (name, a, b) in [
        ("distance sphere–sphere", &sphere, &sphere),
        ("distance sphere–box", &sphere, &cuboid),
        ("distance box–box", &cuboid, &cuboid),
        ("distance cylinder–box", &cylinder, &cuboid),
        ("distance cylinder–cylinder", &cylinder, &cylinder),
        ("distance cone–ellipsoid", &cone, &ellipsoid),
        ("distance ellipsoid–ellipsoid", &ellipsoid, &ellipsoid),
    ] {
        let ns = time_per_call(
            |i| {
                let (pa, pb) = &poses[i % poses.len()];
                black_box(distance(a, pa, b, pb).ok());
            },
            200_000,
        );
        println!("| {name} | {ns:.0} |");
    }
    // Mesh hulls of n vertices (points spread over an ellipsoid of the box's size) against the
    // box: the cost of a contact query by hull size, and of one support point.
    let support_ns = |shape: &Shape| {
        time_per_call(
            |i| {
                let (pa, _) = &poses[i % poses.len()];
                black_box(shape.support(&(pa.rotation * Vector3::x())));
            },
            400_000,
        )
    };
    println!("| support point, box | {:.0} |", support_ns(&cuboid));
    for n in [8usize, 100, 1000, 10_000] {
        let hull = mesh_hull(n);
        let ns = time_per_call(
            |i| {
                let (pa, pb) = &poses[i % poses.len()];
                black_box(distance(&hull, pa, &cuboid, pb).ok());
            },
            100_000,
        );
        println!("| distance mesh hull of {n} vertices–box | {ns:.0} |");
        println!(
            "| support point, mesh hull of {n} vertices | {:.0} |",
            support_ns(&hull)
        );
    }
    for n in [16usize, 100, 1000] {
        // Spheres of 5 cm in a cube whose side grows with n, about 0.1 overlaps per sphere.
        let side = 0.1 * (n as f64).cbrt() * 4.0;
        let centres: Vec<Isometry3<f64>> = (0..n).map(|_| rng.pose(side / 2.0)).collect();
        let ball = Shape::new(&ShapeSpec::Sphere { diameter: 0.1 }).unwrap();
        let calls = (200_000 / n).max(20);
        let mut found = 0;
        let ns = time_per_call(
            |_| {
                let aabbs: Vec<Aabb> = centres
                    .iter()
                    .map(|p| ball.aabb(p).loosened(0.005))
                    .collect();
                found = candidate_pairs(&aabbs, |_, _| false).len();
                black_box(found);
            },
            calls,
        );
        println!("| broad phase, {n} spheres (AABBs + sweep and prune, {found} pairs) | {ns:.0} |");
    }
    // `-- --quick`: the query tables only, without the whole simulations.
    if !std::env::args().any(|a| a == "--quick") {
        simulations();
    }
}
