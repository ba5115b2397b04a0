//! The `fmu3d` command line as a user runs it: every shipped model checks and simulates; every
//! malformed model in `tests/malformed/` fails with its own message at the right place, and
//! never with a panic.
//!
//! Each malformed file ends with `# expect: LINE:COLUMN: MESSAGE` and, where the error gives a
//! suggestion, `# help: TEXT`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn fmu3d() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fmu3d"))
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .expect("folder exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "m3d"))
        .collect();
    files.sort();
    files
}

#[test]
fn malformed_models_fail_with_their_own_message() {
    let folder = repository().join("packager/tests/malformed");
    let cases = files(&folder);
    assert!(cases.len() >= 10, "at least ten malformed models");
    let mut messages = std::collections::HashSet::new();
    for case in &cases {
        let text = std::fs::read_to_string(case).expect("readable");
        let expect = text
            .lines()
            .find_map(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{}: no `# expect:` line", case.display()));
        let help = text.lines().find_map(|l| l.strip_prefix("# help: "));
        let output = fmu3d().arg("check").arg(case).output().expect("fmu3d runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}: exit status, stderr: {stderr}",
            case.display()
        );
        assert!(
            !stderr.contains("panicked"),
            "{}: panicked: {stderr}",
            case.display()
        );
        let first = stderr.lines().next().unwrap_or_default();
        let expected = format!(
            "{}:{}",
            case.display(),
            expect.replacen(": ", ": error: ", 1)
        );
        assert_eq!(first, expected, "{}", case.display());
        if let Some(help) = help {
            assert!(
                stderr.contains(&format!("help: {help}")),
                "{}: help missing in {stderr}",
                case.display()
            );
        }
        messages.insert(expect.split_once(": ").map(|(_, m)| m.to_string()));
    }
    assert_eq!(
        messages.len(),
        cases.len(),
        "every malformed model has its own message"
    );
}

#[test]
fn every_shipped_model_checks_and_simulates() {
    let out = std::env::temp_dir().join(format!("fmu3d-cli-{}", std::process::id()));
    std::fs::create_dir_all(&out).expect("temp folder");
    for model in files(&repository().join("models")) {
        let check = fmu3d()
            .arg("check")
            .arg(&model)
            .output()
            .expect("fmu3d runs");
        assert!(
            check.status.success(),
            "{}: {}",
            model.display(),
            String::from_utf8_lossy(&check.stderr)
        );
        let stdout = String::from_utf8_lossy(&check.stdout);
        assert!(stdout.contains("super-objects:") && stdout.contains("variables:"));

        let csv = out.join("result.csv");
        let run = fmu3d()
            .args(["simulate", "--stop-time", "0.5", "--step", "0.1", "-o"])
            .arg(&csv)
            .arg(&model)
            .output()
            .expect("fmu3d runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{}: {stderr}", model.display());
        assert!(
            stderr.contains("steps") && stderr.contains("residual evaluations"),
            "statistics line: {stderr}"
        );
        let text = std::fs::read_to_string(&csv).expect("csv written");
        let (header, columns) = common::result_columns(&text);
        assert_eq!(header[0], "time");
        let rows: Vec<Vec<f64>> = (0..columns[0].len())
            .map(|row| columns.iter().map(|column| column[row]).collect())
            .collect();
        assert_eq!(
            rows.len(),
            6,
            "{}: rows at 0, 0.1, …, 0.5 s",
            model.display()
        );
        assert!((rows[5][0] - 0.5).abs() < 1e-12);
        assert!(rows
            .iter()
            .all(|r| r.len() == header.len() && r.iter().all(|v| v.is_finite())));
    }
}

/// `check` lists the parts that rigid mates placed and the mates that were already satisfied;
/// moving one supplier's bolt hole turns the redundant bolt into a contradiction.
#[test]
fn check_reports_the_placements_of_mates_and_the_redundant_ones() {
    let model = repository().join("models/gearbox_mount.m3d");
    let text = std::fs::read_to_string(&model).expect("readable");
    let line_of = |start: &str| {
        1 + text
            .lines()
            .position(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line starts with {start}"))
    };
    let check = fmu3d().arg("check").arg(&model).output().expect("runs");
    assert!(check.status.success());
    let stdout = String::from_utf8_lossy(&check.stdout);
    for line in [
        "  `bolt_a` places `motor.housing`".to_string(),
        "  `key` places `pulley.wheel`".to_string(),
        format!(
            "  `bolt_b` (line {}) is redundant: already placed by fixed joint `bolt_a` (line {})",
            line_of("joint bolt_b"),
            line_of("joint bolt_a")
        ),
        "  parts placed by mates: 2; redundant mates (not used): 1".to_string(),
    ] {
        assert!(stdout.contains(&line), "{line:?} missing in:\n{stdout}");
    }

    let hole = "mate hole_b { position = [a/2, t/2, 0]";
    assert!(text.contains(hole));
    let moved = std::env::temp_dir().join(format!("gearbox_moved_{}.m3d", std::process::id()));
    std::fs::write(
        &moved,
        text.replace(hole, "mate hole_b { position = [a/2 + 0.001, t/2, 0]"),
    )
    .expect("written");
    let check = fmu3d().arg("check").arg(&moved).output().expect("runs");
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            ":{}:7: error: fixed joint `bolt_b` contradicts the placement given by fixed joint `bolt_a` (line {}): `plate.hole_b` and `motor.housing.hole_b` are 0.001 m apart",
            line_of("joint bolt_b"),
            line_of("joint bolt_a")
        )),
        "{stderr}"
    );
    std::fs::remove_file(&moved).ok();
}

#[test]
fn bad_command_line_values_are_refused() {
    let model = repository().join("models/pendulum.m3d");
    let run = fmu3d()
        .args(["simulate", "--step", "0"])
        .arg(&model)
        .output()
        .expect("runs");
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--step must be a positive number"));
    let missing = fmu3d()
        .args(["check", "no/such/model.m3d"])
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read the model file"));
}

/// The statistics line counts the contact events the integrator located: each start and end of
/// a contact, so as many as the sign changes of the contact distance the CSV shows (sampled
/// every 0.5 ms, finer than the shortest bounce of the first 1.5 s).
#[test]
fn simulate_reports_the_contact_events() {
    let csv = std::env::temp_dir().join(format!("fmu3d-events-{}.csv", std::process::id()));
    let run = fmu3d()
        .args(["simulate", "--stop-time", "1.5", "--step", "0.0005", "-o"])
        .arg(&csv)
        .arg(repository().join("models/bouncing_ball.m3d"))
        .output()
        .expect("fmu3d runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let reported: usize = stderr
        .split("; ")
        .find_map(|part| part.split_once(" contact events").map(|(count, _)| count))
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no contact event count in: {stderr}"));

    let text = std::fs::read_to_string(&csv).expect("csv written");
    std::fs::remove_file(&csv).ok();
    let (header, columns) = common::result_columns(&text);
    let column = header
        .iter()
        .position(|name| name == "impact.distance")
        .expect("the contact output's distance");
    let apart: Vec<bool> = columns[column].iter().map(|d| *d > 0.0).collect();
    let crossings = apart.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(
        crossings >= 4,
        "at least two bounces, not {crossings} crossings"
    );
    assert_eq!(reported, crossings, "{stderr}");
}

/// Regression: `fmu3d check MODEL | head -1` used to panic ("failed printing to stdout: Broken
/// pipe") when the reader closed the pipe early. Now a closed pipe ends the program quietly, as
/// it ends `cat`. The reader here closes its end before `check` has parsed the model.
#[test]
fn a_closed_stdout_pipe_ends_check_without_a_panic() {
    use std::process::Stdio;
    let mut child = fmu3d()
        .arg("check")
        .arg(repository().join("models/engine.m3d"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("exits");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
}
