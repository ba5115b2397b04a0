//! SNAP on a chain of N parts, each bolted to the one before by two rigid mates (the second one
//! redundant), written from the far end of the chain to the world so that no mate can be
//! applied in the order it is written.
//!
//! `cargo bench -p fmu-runtime --bench snap` prints a Markdown table: the time to evaluate the
//! model (parsing, expansion, SNAP and the whole-model checks) and the time per mate.

use fmu_runtime::model;
use std::time::Instant;

/// The chain as model text: `link[0]` fixed in the world, `link[N]` at the far end.
fn bolted_chain(n: usize) -> String {
    let connectors = "mate base_a { position = [0, 0.01, 0] m; main_axis = x; normal = y }; \
                      mate base_b { position = [0, -0.01, 0] m; main_axis = x; normal = y }; \
                      mate tip_a { position = [0.1, 0.01, 0] m; main_axis = x; normal = y }; \
                      mate tip_b { position = [0.1, -0.01, 0] m; main_axis = x; normal = y }";
    format!(
        "parameters {{ N = {n} }}
object link[0] {{ parent = world; {connectors} }}
for k in 1:N {{
  object link[N + 1 - k] {{ mass {{ m = 1 kg }}; {connectors} }}
  joint bolt_a[N + 1 - k] fixed {{ from = link[N - k].tip_a; to = link[N + 1 - k].base_a }}
  joint bolt_b[N + 1 - k] fixed {{ from = link[N - k].tip_b; to = link[N + 1 - k].base_b }}
}}
"
    )
}

fn main() {
    println!("| parts N | mates | redundant | evaluation [ms] | per mate [µs] |");
    println!("|---|---|---|---|---|");
    let mut points = Vec::new();
    for n in [100, 1000, 10000] {
        let text = bolted_chain(n);
        let mut times = Vec::new();
        let mut redundant = 0;
        for _ in 0..5 {
            let start = Instant::now();
            let spec = model::load_str(&text, "bolted_chain.m3d").expect("the chain loads");
            times.push(start.elapsed().as_secs_f64());
            assert_eq!(spec.snapped.len(), n);
            redundant = spec.redundant_mates.len();
        }
        times.sort_by(f64::total_cmp);
        let median = times[2];
        points.push(((n as f64).ln(), median.ln()));
        println!(
            "| {n} | {} | {redundant} | {:.2} | {:.2} |",
            2 * n,
            median * 1e3,
            median / (2 * n) as f64 * 1e6
        );
    }
    let count = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / count, b + y / count));
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(a, b), (x, y)| {
        (a + (x - mx) * (y - my), b + (x - mx) * (x - mx))
    });
    println!("\nexponent of the evaluation time in N: {:.2}", sxy / sxx);
}
