//! Fuzzing the model file: every shipped model, edited at random (characters deleted or
//! inserted, numbers replaced by extreme values, lines duplicated, the file truncated), goes
//! through the parser and evaluator; what loads is built into a simulation and stepped 10 ms.
//! Nothing may panic: every outcome is a model or an error message. The number of cases is
//! proptest's (`PROPTEST_CASES`, 64 here by default; `docs/reliability.md` has the long runs);
//! a failing input is kept by proptest in `proptest-regressions/fuzz_model.txt` and replayed
//! first from then on.

use fmu3d_tests::model_path;
use fmu_runtime::model::load_str;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use proptest::prelude::*;

const SHIPPED: [&str; 18] = [
    "billiard16",
    "bouncing_ball",
    "bouncing_box",
    "chain",
    "clock",
    "crank_drive",
    "double_pendulum",
    "engine",
    "fourbar",
    "fourbar_prismatic",
    "gearbox_mount",
    "newtons_cradle",
    "pendulum",
    "rolling_ball",
    "slider_crank",
    "spring_body",
    "tumbling_body",
    "two_balls",
];

/// Values that break naive code: zero, signs, the ends of the f64 range, huge counts.
const EXTREMES: [&str; 10] = [
    "0",
    "-1",
    "1e308",
    "-1e308",
    "1e-308",
    "1e400",
    "100000",
    "-0",
    "0.0000001",
    "3e38",
];

/// Text a typo or a careless edit brings in.
const INSERTIONS: [&str; 12] = [
    "{", "}", "[", "]", ";", "=", " deg", " m", "world", "\n", "(", "1:3",
];

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Insert(usize, usize),
    ExtremeNumber(usize, usize),
    DuplicateLine(usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), 0..INSERTIONS.len()).prop_map(|(at, i)| Edit::Insert(at, i)),
        (any::<usize>(), 0..EXTREMES.len()).prop_map(|(n, i)| Edit::ExtremeNumber(n, i)),
        any::<usize>().prop_map(Edit::DuplicateLine),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

/// Applies `edit` to `source` (positions taken modulo the length, on character boundaries).
fn apply(source: &str, edit: &Edit) -> String {
    let chars: Vec<char> = source.chars().collect();
    let n = chars.len().max(1);
    let text = |range: &[char]| range.iter().collect::<String>();
    match *edit {
        Edit::Delete(at) => {
            let at = at % n;
            format!(
                "{}{}",
                text(&chars[..at]),
                text(&chars[(at + 1).min(chars.len())..])
            )
        }
        Edit::Insert(at, i) => {
            let at = at % n;
            format!(
                "{}{}{}",
                text(&chars[..at]),
                INSERTIONS[i],
                text(&chars[at..])
            )
        }
        Edit::ExtremeNumber(which, i) => {
            // The `which`-th run of digits (modulo their count) becomes an extreme value.
            let mut runs = Vec::new();
            let mut start = None;
            for (k, c) in chars.iter().enumerate() {
                match (c.is_ascii_digit(), start) {
                    (true, None) => start = Some(k),
                    (false, Some(s)) => {
                        runs.push((s, k));
                        start = None;
                    }
                    _ => {}
                }
            }
            if runs.is_empty() {
                return source.to_string();
            }
            let (s, e) = runs[which % runs.len()];
            format!("{}{}{}", text(&chars[..s]), EXTREMES[i], text(&chars[e..]))
        }
        Edit::DuplicateLine(which) => {
            let lines: Vec<&str> = source.lines().collect();
            if lines.is_empty() {
                return source.to_string();
            }
            let k = which % lines.len();
            let mut out: Vec<&str> = lines[..=k].to_vec();
            out.push(lines[k]);
            out.extend_from_slice(&lines[k + 1..]);
            out.join("\n")
        }
        Edit::Truncate(at) => text(&chars[..at % n]),
    }
}

proptest! {
    #![proptest_config(fmu3d_tests::fuzz_config())]

    #[test]
    fn an_edited_model_is_a_model_or_an_error_never_a_panic(
        model in 0..SHIPPED.len(),
        edits in proptest::collection::vec(edit(), 1..4),
    ) {
        let path = model_path(SHIPPED[model]);
        let mut source = std::fs::read_to_string(&path).expect("a shipped model");
        for e in &edits {
            source = apply(&source, e);
        }
        let mut outcome = "refused";
        if let Ok(spec) = load_str(&source, "fuzzed.m3d") {
            outcome = "loaded";
            if let Ok(mut simulation) = Simulation::new(spec, SimulationOptions::default()) {
                outcome = "simulated";
                let t = simulation.time();
                let _ = simulation.advance_to(t + 0.01);
                let _ = simulation.values();
            }
        }
        if std::env::var_os("FUZZ_TRACE").is_some() {
            eprintln!("case: {outcome} {} {edits:?}", SHIPPED[model]);
        }
    }
}
