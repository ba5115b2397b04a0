//! `fmu3d build` as a user runs it: the FMU's entries, its modelDescription.xml (against a golden
//! file and against the runtime's variable table), reproducible builds, and failures that leave
//! no file behind.

use fmu_runtime::simulation::{Simulation, SimulationOptions};
use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::process::Command;

mod common;

use common::{
    build, entries_of, fmu3d, folder, read_entry, repository, runtime_library, zip_names,
};

fn models() -> Vec<PathBuf> {
    let mut models: Vec<PathBuf> = std::fs::read_dir(repository().join("models"))
        .expect("models folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "m3d"))
        .collect();
    models.sort();
    models
}

#[test]
fn the_fmu_holds_exactly_the_expected_entries() {
    let out = folder("entries");
    // Without -o: `<model name>.fmu` in the current folder.
    let model = repository().join("models/pendulum.m3d");
    let run = fmu3d()
        .arg("build")
        .arg(&model)
        .current_dir(&out)
        .output()
        .expect("fmu3d runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(entries_of(&out), ["pendulum.fmu"]);
    let fmu = out.join("pendulum.fmu");
    let names: BTreeSet<String> = zip_names(&fmu).into_iter().collect();
    let expected: BTreeSet<String> = [
        "modelDescription.xml",
        "binaries/linux64/pendulum.so",
        "resources/model.m3d",
        "resources/visual.json",
        "documentation/index.html",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    assert_eq!(names, expected);
    assert_eq!(
        read_entry(&fmu, "resources/model.m3d"),
        std::fs::read(&model).expect("model"),
        "the model file's exact bytes"
    );
    assert_eq!(
        read_entry(&fmu, "binaries/linux64/pendulum.so"),
        std::fs::read(runtime_library()).expect("runtime library"),
        "the runtime library, unchanged"
    );
    let html = String::from_utf8(read_entry(&fmu, "documentation/index.html")).expect("UTF-8");
    assert!(html.starts_with("<!DOCTYPE html>"));
    for text in [
        "<h1>pendulum</h1>",
        "Damped pendulum",
        "rev.phi",
        "N.m.s/rad",
    ] {
        assert!(html.contains(text), "{text} in {html}");
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn the_library_is_named_after_the_model_identifier() {
    let out = folder("identifier");
    // Without a `model` statement the name comes from the file's stem, here not a C identifier.
    let model = out.join("2 arms.m3d");
    std::fs::write(
        &model,
        "object body { mass { m = 1 kg; center = [0.5, 0, 0] m } }\njoint j revolute { from = world; to = body }\n",
    )
    .expect("model written");
    let run = fmu3d()
        .arg("build")
        .arg(&model)
        .current_dir(&out)
        .output()
        .expect("fmu3d runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let fmus: Vec<String> = entries_of(&out)
        .into_iter()
        .filter(|n| n.ends_with(".fmu"))
        .collect();
    let spec = fmu_runtime::model::load_file(&model).expect("model loads");
    assert_eq!(fmus, [format!("{}.fmu", spec.name)]);
    let fmu = out.join(&fmus[0]);
    let identifier = fmu_runtime::fmu::model_identifier(&spec);
    assert!(identifier.starts_with('_'), "{identifier}");
    assert!(zip_names(&fmu).contains(&format!("binaries/linux64/{identifier}.so")));
    let xml = String::from_utf8(read_entry(&fmu, "modelDescription.xml")).expect("UTF-8");
    assert!(xml.contains(&format!("modelIdentifier=\"{identifier}\"")));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn pendulum_model_description_matches_the_golden_file() {
    let out = folder("golden");
    let fmu = out.join("pendulum.fmu");
    build(&repository().join("models/pendulum.m3d"), &fmu);
    let actual = String::from_utf8(read_entry(&fmu, "modelDescription.xml")).expect("UTF-8");
    let golden_path = repository().join("packager/tests/golden/pendulum.modelDescription.xml");
    let golden = std::fs::read_to_string(&golden_path).expect("golden file");
    if actual != golden {
        let written = std::env::temp_dir().join("pendulum.modelDescription.xml");
        std::fs::write(&written, &actual).expect("written");
        for (i, (a, g)) in actual.lines().zip(golden.lines()).enumerate() {
            assert_eq!(
                a,
                g,
                "line {} differs from {} (the whole output is in {}; the GUID changes with \
                 the fmu3d version, so a version bump needs a reviewed new golden file)",
                i + 1,
                golden_path.display(),
                written.display()
            );
        }
        panic!(
            "{} differs in length from the output {}",
            golden_path.display(),
            written.display()
        );
    }
    std::fs::remove_dir_all(&out).ok();
}

/// What a test reads back from modelDescription.xml.
#[derive(Debug, Default)]
struct Description {
    /// (name, value reference, causality, unit, has start) in document order.
    variables: Vec<(String, u32, String, Option<String>, bool)>,
    units: Vec<String>,
    outputs: Vec<usize>,
    /// `dependencies` of each output, by output name; `None` without the attribute (the output
    /// depends on every input and state).
    dependencies: BTreeMap<String, Option<String>>,
    /// ModelStructure/Derivatives: the indices (1-based) of the state derivatives.
    derivatives: Vec<usize>,
    /// (index of a variable, index of the state it is the derivative of), both 1-based.
    derivative_of: Vec<(usize, usize)>,
    fmi_version: String,
    guid: String,
}

impl Description {
    /// The ModelStructure index (1-based position in ModelVariables) of a variable, as text.
    fn index_of(&self, name: &str) -> String {
        self.variables
            .iter()
            .position(|v| v.0 == name)
            .map(|i| (i + 1).to_string())
            .unwrap_or_else(|| panic!("{name} described"))
    }
}

fn parse(xml: &str) -> Description {
    let mut reader = Reader::from_str(xml);
    let mut description = Description::default();
    let mut section = String::new();
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let element = match &event {
            Event::Start(e) | Event::Empty(e) => e.clone(),
            Event::Eof => break,
            _ => continue,
        };
        let name = element.name().as_ref().to_string();
        let attributes: BTreeMap<String, String> = element
            .attributes()
            .map(|a| {
                let a = a.expect("attribute");
                (
                    a.key.as_ref().to_string(),
                    a.normalized_value(XmlVersion::Implicit1_0)
                        .expect("value")
                        .into_owned(),
                )
            })
            .collect();
        match name.as_str() {
            "fmiModelDescription" => {
                description.fmi_version = attributes["fmiVersion"].clone();
                description.guid = attributes["guid"].clone();
            }
            "ScalarVariable" => description.variables.push((
                attributes["name"].clone(),
                attributes["valueReference"].parse().expect("integer"),
                attributes["causality"].clone(),
                None,
                false,
            )),
            "Real" => {
                let last = description.variables.last_mut().expect("in a variable");
                last.3 = attributes.get("unit").cloned();
                last.4 = attributes.contains_key("start");
                if let Some(state) = attributes.get("derivative") {
                    let index = description.variables.len();
                    description
                        .derivative_of
                        .push((index, state.parse().expect("integer")));
                }
            }
            "Unit" => description.units.push(attributes["name"].clone()),
            "Outputs" | "Derivatives" | "InitialUnknowns" => section = name.clone(),
            "Unknown" if section == "Derivatives" => {
                description
                    .derivatives
                    .push(attributes["index"].parse().expect("integer"));
            }
            "Unknown" if section == "Outputs" => {
                let index: usize = attributes["index"].parse().expect("integer");
                description.outputs.push(index);
                let name = description.variables[index - 1].0.clone();
                description
                    .dependencies
                    .insert(name, attributes.get("dependencies").cloned());
            }
            _ => {}
        }
    }
    description
}

#[test]
fn every_variable_of_the_table_is_described_once_with_consecutive_value_references() {
    let out = folder("variables");
    for model in models() {
        let fmu = out.join("model.fmu");
        build(&model, &fmu);
        let xml = String::from_utf8(read_entry(&fmu, "modelDescription.xml")).expect("UTF-8");
        let description = parse(&xml);
        let sim = Simulation::from_file(&model, SimulationOptions::default()).expect("model");
        let table = &sim.variables.variables;
        let shown = model.display();
        assert_eq!(description.fmi_version, "2.0");
        let source = std::fs::read_to_string(&model).expect("model");
        assert_eq!(
            description.guid,
            fmu_runtime::fmu::guid_with(&source, &sim.spec, false),
            "{shown}"
        );

        let names: Vec<&str> = description.variables.iter().map(|v| v.0.as_str()).collect();
        let expected: Vec<&str> = table.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, expected, "{shown}: the table's variables in order");
        assert_eq!(
            names.iter().collect::<HashSet<_>>().len(),
            names.len(),
            "{shown}: each variable once"
        );
        let references: Vec<u32> = description.variables.iter().map(|v| v.1).collect();
        let consecutive: Vec<u32> = (0..table.len() as u32).collect();
        assert_eq!(references, consecutive, "{shown}: value reference = index");

        // Units: every unit used is defined, once, and every definition is used.
        let used: BTreeSet<&str> = description
            .variables
            .iter()
            .filter_map(|v| v.3.as_deref())
            .collect();
        let defined: BTreeSet<&str> = description.units.iter().map(String::as_str).collect();
        assert_eq!(
            defined.len(),
            description.units.len(),
            "{shown}: units once"
        );
        assert_eq!(used, defined, "{shown}: unit definitions");
        for (variable, described) in table.iter().zip(&description.variables) {
            let unit = variable.unit.map(|kind| kind.si_unit().to_string());
            assert_eq!(described.3, unit, "{shown}: {}", variable.name);
        }

        // Start values exactly where FMI 2.0 requires them: parameters (initial exact) and
        // inputs; never on outputs or calculated parameters (initial calculated).
        for (name, _, causality, _, start) in &description.variables {
            let required = matches!(causality.as_str(), "parameter" | "input");
            assert_eq!(*start, required, "{shown}: start of {name} ({causality})");
        }
        let outputs: Vec<usize> = description
            .variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.2 == "output")
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(
            description.outputs, outputs,
            "{shown}: ModelStructure/Outputs"
        );

        // Model Exchange: one derivative per continuous state of the simulation, in the order of
        // its states, each declaring its state.
        let states = &sim.variables.states;
        assert_eq!(states.len(), sim.continuous_state_count(), "{shown}");
        let derivatives: Vec<usize> = states.iter().map(|s| s.derivative + 1).collect();
        assert_eq!(description.derivatives, derivatives, "{shown}: Derivatives");
        let mut declared: Vec<(usize, usize)> = states
            .iter()
            .map(|s| (s.derivative + 1, s.value + 1))
            .collect();
        declared.sort_unstable();
        assert_eq!(description.derivative_of, declared, "{shown}: derivative=");
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn building_twice_gives_identical_files() {
    let out = folder("reproducible");
    let model = repository().join("models/double_pendulum.m3d");
    build(&model, &out.join("a.fmu"));
    build(&model, &out.join("b.fmu"));
    assert_eq!(
        read_entry(&out.join("a.fmu"), "modelDescription.xml"),
        read_entry(&out.join("b.fmu"), "modelDescription.xml")
    );
    assert_eq!(
        std::fs::read(out.join("a.fmu")).expect("a"),
        std::fs::read(out.join("b.fmu")).expect("b"),
        "the whole FMU, timestamps included"
    );
    std::fs::remove_dir_all(&out).ok();
}

/// Runs `fmu3d build ARGS` in an empty folder, expects exit status 1 with `message` in the
/// error, and no file at all left in the folder.
fn refused(name: &str, args: &[&str], runtime: Option<&str>, message: &str) {
    let out = folder(name);
    let mut command = fmu3d();
    command.arg("build").args(args).current_dir(&out);
    if let Some(runtime) = runtime {
        command.env("FMU3D_RUNTIME", runtime);
    }
    let run = command.output().expect("fmu3d runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{name}: {stderr}");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    assert!(stderr.contains(message), "{name}: `{message}` in {stderr}");
    assert_eq!(entries_of(&out), Vec::<String>::new(), "{name}: files left");
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn failures_exit_1_with_a_message_and_leave_no_file() {
    let pendulum = repository().join("models/pendulum.m3d");
    let pendulum = pendulum.to_str().expect("UTF-8 path");
    refused(
        "unknown-model",
        &["no/such/model.m3d"],
        None,
        "no/such/model.m3d: error: cannot read the model file",
    );
    let malformed = repository().join("packager/tests/malformed/01_typo_kind.m3d");
    let malformed = malformed.to_str().expect("UTF-8 path");
    let check = Command::new(env!("CARGO_BIN_EXE_fmu3d"))
        .arg("check")
        .arg(malformed)
        .output()
        .expect("fmu3d runs");
    let check_message = String::from_utf8_lossy(&check.stderr).into_owned();
    assert!(check_message.starts_with(&format!("{malformed}:")));
    refused("malformed", &[malformed], None, &check_message);
    refused(
        "no-folder",
        &[pendulum, "-o", "missing/folder/pendulum.fmu"],
        None,
        "cannot write missing/folder/pendulum.fmu: the folder missing/folder does not exist",
    );
    // Regression: an empty file, or one of frames and fixed parts only, made an FMU that
    // computes nothing.
    let models = folder("bodiless-models");
    for (name, source) in [
        ("empty", ""),
        ("frames", "model frames\nobject a { parent = world; shape box { lengths = [1, 1, 1] m } }\n"),
        ("fixed", "model fixed\nobject a { parent = world; mass { m = 1 kg; inertia = diag(1, 1, 1) kg.m2 } }\n"),
    ] {
        let path = models.join(format!("{name}.m3d"));
        std::fs::write(&path, source).expect("written");
        let path = path.to_str().expect("UTF-8 path");
        refused(
            name,
            &[path],
            None,
            &format!("{path}: error: the model `{name}` has no bodies: no object with a mass moves"),
        );
    }
    // Regression: `for i in 1:100000` in chain.m3d aborted on an 80 GB allocation. A model
    // above the documented size is refused before any large allocation.
    let chain = std::fs::read_to_string(repository().join("models/chain.m3d")).expect("chain");
    let big = models.join("chain.m3d");
    let links = chain
        .lines()
        .map(|line| {
            if line.trim_start().starts_with("N = ") {
                "  N = 2600 \"number of links\"".to_string()
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&big, links).expect("written");
    let big = big.to_str().expect("UTF-8 path");
    refused(
        "too-big",
        &[big],
        None,
        "has 5200 states, more than the 5000 this engine supports",
    );
    // Regression: a 100 000-ball cradle hung in the quadratic collision-pair set, using GBs.
    let cradle = std::fs::read_to_string(repository().join("models/newtons_cradle.m3d"))
        .expect("cradle")
        .replace("for i in 1:5", "for i in 1:100000");
    let huge = models.join("cradle.m3d");
    std::fs::write(&huge, cradle).expect("written");
    let huge = huge.to_str().expect("UTF-8 path");
    refused(
        "too-many-objects",
        &[huge],
        None,
        "the model declares more than 20000 objects",
    );
    refused(
        "no-runtime",
        &[pendulum],
        Some("/no/such/libfmu_runtime.so"),
        "the runtime library /no/such/libfmu_runtime.so (from FMU3D_RUNTIME) does not exist",
    );
}

#[test]
fn an_existing_fmu_is_replaced_only_by_a_complete_one() {
    let out = folder("replace");
    let fmu = out.join("pendulum.fmu");
    std::fs::write(&fmu, b"old").expect("written");
    // A failing build leaves the old file as it was.
    let run = fmu3d()
        .arg("build")
        .arg(repository().join("packager/tests/malformed/01_typo_kind.m3d"))
        .arg("-o")
        .arg(&fmu)
        .output()
        .expect("fmu3d runs");
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(std::fs::read(&fmu).expect("still there"), b"old");
    // A successful one replaces it.
    build(&repository().join("models/pendulum.m3d"), &fmu);
    assert_eq!(entries_of(&out), ["pendulum.fmu"]);
    assert_eq!(zip_names(&fmu).len(), 5);
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn outputs_depend_on_the_inputs_that_act_on_them_within_a_step_and_on_their_states() {
    let out = folder("dependencies");
    let model = out.join("drive.m3d");
    std::fs::write(
        &model,
        "model drive\n\
         object a { mass { m = 1 kg; center = [0.2, 0, 0] m } }\n\
         object b { mass { m = 1 kg; center = [0.5, 0, 0] m }; output = true }\n\
         joint j1 revolute { from = world; to = a; flange = motion }\n\
         joint j2 revolute { from = a; to = b; flange = force }\n",
    )
    .expect("model written");
    let fmu = out.join("drive.fmu");
    build(&model, &fmu);
    let description =
        parse(&String::from_utf8(read_entry(&fmu, "modelDescription.xml")).expect("UTF-8"));
    let index = |name: &str| description.index_of(name);
    let known = |names: &[&str]| Some(names.iter().map(|n| index(n)).collect::<Vec<_>>().join(" "));
    let expected = [
        // The torque the motion drive needs and the acceleration of the force-driven joint
        // depend on every input and state, through the mass matrix: no attribute.
        ("j1.tau", None),
        ("j2.a", None),
        // States of the integrator: each is its own known.
        ("j2.phi", known(&["j2.phi"])),
        ("j2.w", known(&["j2.w"])),
        // The frame moves with the prescribed angle (and speed) of j1 and the state of j2.
        ("b.r[1]", known(&["j1.phi", "j2.phi"])),
        ("b.Q[4]", known(&["j1.phi", "j2.phi"])),
        ("b.v[2]", known(&["j1.phi", "j1.w", "j2.phi", "j2.w"])),
        ("b.w[3]", known(&["j1.phi", "j1.w", "j2.phi", "j2.w"])),
    ];
    for (output, dependencies) in expected {
        assert_eq!(description.dependencies[output], dependencies, "{output}");
    }
    std::fs::remove_dir_all(&out).ok();
}

/// The co-simulation example's crank, torque-driven: its angle and speed are integrator states,
/// each its own known and independent of the input within a step; its acceleration depends on
/// every known (the torque and the states). The whole
/// `<ModelStructure>` is compared with a golden file (a change in it is a change of the FMU's
/// contract with masters, to be reviewed).
#[test]
fn torque_driven_crank_declares_its_dependencies_as_the_golden_file() {
    let out = folder("crank-structure");
    let fmu = out.join("crank.fmu");
    build(&repository().join("examples/cosimulation/crank.m3d"), &fmu);
    let xml = String::from_utf8(read_entry(&fmu, "modelDescription.xml")).expect("UTF-8");
    let description = parse(&xml);
    let index = |name: &str| description.index_of(name);
    assert_eq!(
        description.dependencies["crank.phi"],
        Some(index("crank.phi"))
    );
    assert_eq!(description.dependencies["crank.w"], Some(index("crank.w")));
    assert_eq!(description.dependencies["crank.a"], None);
    let start = xml.find("  <ModelStructure>").expect("a ModelStructure");
    let end = xml.find("</ModelStructure>").expect("its end") + "</ModelStructure>\n".len();
    let actual = &xml[start..end];
    let golden_path = repository().join("packager/tests/golden/crank.ModelStructure.xml");
    let golden = std::fs::read_to_string(&golden_path).expect("golden file");
    assert_eq!(
        actual,
        golden,
        "the crank's <ModelStructure> differs from {}",
        golden_path.display()
    );
    std::fs::remove_dir_all(&out).ok();
}

/// `fmu3d simulate X.fmu` runs the FMU's own library through the FMI C API (the `fmi` crate's
/// importer); for every shipped model it must give the same CSV, to the last digit, as `fmu3d
/// simulate` on the model file (both run the same engine; any difference is a fault of the FMI
/// layer), and its summary counts the fmi2DoStep calls, one per communication step.
#[test]
fn simulating_the_fmu_gives_the_same_csv_as_the_model() {
    let out = folder("simulate-fmu");
    for model in models() {
        let stem = model
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("model")
            .to_string();
        let fmu = out.join(format!("{stem}.fmu"));
        let built = build(&model, &fmu);
        assert!(
            built.status.success(),
            "{stem}: {}",
            String::from_utf8_lossy(&built.stderr)
        );
        let mut csv = Vec::new();
        for (input, name) in [(&fmu, "fmu.csv"), (&model, "model.csv")] {
            let path = out.join(format!("{stem}-{name}"));
            let run = fmu3d()
                .args(["simulate", "--stop-time", "1", "--step", "0.05", "-o"])
                .arg(&path)
                .arg(input)
                .output()
                .expect("fmu3d runs");
            let summary = String::from_utf8_lossy(&run.stderr);
            assert!(run.status.success(), "{stem} {name}: {summary}");
            if input == &fmu {
                assert!(
                    summary.contains("; 20 fmi2DoStep calls through the FMU's C API; wrote "),
                    "{stem}: {summary}"
                );
            }
            csv.push(std::fs::read_to_string(&path).expect("csv written"));
        }
        assert_eq!(csv[0], csv[1], "{stem}: the FMU and the model differ");
        assert_eq!(csv[0].lines().count(), 22, "{stem}: header and 21 rows");
    }
}

/// Regression: Ctrl-C or a kill during `fmu3d build` left `.<name>.<pid>.partial` next to the
/// output. SIGINT and SIGTERM at any moment of a build leave no temporary file (the process
/// still dies of the signal), and one left by a SIGKILL is removed by the next build.
#[test]
fn a_signal_or_a_kill_leaves_no_partial_file() {
    use std::os::unix::process::ExitStatusExt;
    let out = folder("signals");
    let pendulum = repository().join("models/pendulum.m3d");
    let fmu = out.join("pendulum.fmu");
    let partials = || -> Vec<String> {
        std::fs::read_dir(&out)
            .expect("folder")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".partial"))
            .collect()
    };
    let mut killed = 0;
    for (k, signal) in [libc::SIGINT, libc::SIGTERM]
        .iter()
        .cycle()
        .take(40)
        .enumerate()
    {
        let _ = std::fs::remove_file(&fmu);
        let mut child = fmu3d()
            .arg("build")
            .arg(&pendulum)
            .arg("-o")
            .arg(&fmu)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("fmu3d runs");
        // A build takes about 0.15 s: the signals land all over it.
        std::thread::sleep(std::time::Duration::from_millis(5 * k as u64));
        let pid = libc::pid_t::try_from(child.id()).expect("a pid");
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(pid, *signal) };
        let status = child.wait().expect("fmu3d ends");
        if status.signal() == Some(*signal) {
            killed += 1;
        }
        assert_eq!(
            partials(),
            Vec::<String>::new(),
            "after signal {signal} at {} ms",
            5 * k
        );
    }
    eprintln!("signals: {killed} of 40 builds died of the signal, none left a partial file");
    assert!(killed > 0, "the signals arrived during the builds");

    // A temporary file of a process that no longer exists (SIGKILL) goes with the next build;
    // one of a process that runs (this one) is another build's and stays.
    let dead = out.join(".pendulum.fmu.2147483646.partial");
    let alive = out.join(format!(".pendulum.fmu.{}.partial", std::process::id()));
    std::fs::write(&dead, b"half").expect("written");
    std::fs::write(&alive, b"half").expect("written");
    build(&pendulum, &fmu);
    assert!(!dead.exists(), "the stale temporary file is removed");
    assert!(alive.exists(), "a running build's file stays");
    std::fs::remove_file(&alive).expect("removed");
}

/// `--platforms`: the FMU carries the binaries named, each under `binaries/<platform>/`; the
/// Windows runtime named by `FMU3D_RUNTIME_WIN64` is packaged byte for byte, and a missing one
/// is an error that says how to build it when asked for, a warning when it is the default.
#[test]
fn the_platforms_are_chosen_and_a_missing_windows_runtime_is_reported() {
    let pendulum = repository().join("models/pendulum.m3d");
    let out = folder("platforms");
    let dll = out.join("fmu_runtime.dll");
    std::fs::write(&dll, b"MZ not really a DLL").expect("written");
    let build = |platforms: Option<&str>, windows_runtime: &std::path::Path, fmu: &str| {
        let mut command = fmu3d();
        command
            .arg("build")
            .arg(&pendulum)
            .arg("-o")
            .arg(out.join(fmu))
            .env("FMU3D_RUNTIME_WIN64", windows_runtime);
        if let Some(platforms) = platforms {
            command.args(["--platforms", platforms]);
        }
        command.output().expect("fmu3d runs")
    };
    let run = build(None, &dll, "both.fmu");
    assert!(run.status.success(), "{run:?}");
    let entries = zip_names(&out.join("both.fmu"));
    assert!(
        entries.contains(&"binaries/linux64/pendulum.so".to_string()),
        "{entries:?}"
    );
    assert!(
        entries.contains(&"binaries/win64/pendulum.dll".to_string()),
        "{entries:?}"
    );
    assert_eq!(
        read_entry(&out.join("both.fmu"), "binaries/win64/pendulum.dll"),
        b"MZ not really a DLL".to_vec()
    );
    let run = build(Some("linux64"), &dll, "linux.fmu");
    assert!(run.status.success(), "{run:?}");
    let entries = zip_names(&out.join("linux.fmu"));
    assert!(
        !entries.iter().any(|e| e.starts_with("binaries/win64/")),
        "{entries:?}"
    );
    let missing = out.join("no-such.dll");
    let run = build(Some("linux64,win64"), &missing, "refused.fmu");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("(from FMU3D_RUNTIME_WIN64) does not exist"),
        "{stderr}"
    );
    assert!(!out.join("refused.fmu").exists());
    let run = build(None, &missing, "default.fmu");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(stderr.contains("the FMU carries linux64 only"), "{stderr}");
    std::fs::remove_dir_all(&out).ok();
}

/// Mesh files travel in the FMU: under `resources/` by the names the model gives them, byte for
/// byte, so that the FMU runs where the original files are not (its CSV equals the model's, in
/// `simulating_the_fmu_gives_the_same_csv_as_the_model`). A changed mesh file changes the GUID,
/// and an FMU whose packed mesh was changed afterwards refuses to instantiate.
#[test]
fn meshes_travel_in_the_fmu_and_enter_its_guid() {
    let out = folder("meshes");
    let source = repository().join("models");
    std::fs::create_dir_all(out.join("meshes")).expect("folder");
    std::fs::copy(source.join("parts_drop.m3d"), out.join("parts_drop.m3d")).expect("model");
    for file in ["bracket.obj", "nut.stl"] {
        std::fs::copy(
            source.join("meshes").join(file),
            out.join("meshes").join(file),
        )
        .expect("mesh");
    }
    let model = out.join("parts_drop.m3d");
    let fmu = out.join("parts_drop.fmu");
    build(&model, &fmu);
    for file in ["meshes/bracket.obj", "meshes/nut.stl"] {
        assert_eq!(
            read_entry(&fmu, &format!("resources/{file}")),
            std::fs::read(out.join(file)).expect("mesh"),
            "{file}"
        );
    }
    let guid = |fmu: &std::path::Path| {
        let xml = String::from_utf8(read_entry(fmu, "modelDescription.xml")).expect("UTF-8");
        parse(&xml).guid
    };
    let before = guid(&fmu);
    // The bracket's upright 1 mm taller.
    let bracket = std::fs::read_to_string(out.join("meshes/bracket.obj")).expect("obj");
    let taller = bracket.replace("v 0 60 -20", "v 0 61 -20");
    assert_ne!(bracket, taller);
    std::fs::write(out.join("meshes/bracket.obj"), &taller).expect("written");
    let changed = out.join("changed.fmu");
    build(&model, &changed);
    assert_ne!(guid(&changed), before);

    // The first FMU with the changed mesh put into its resources: refused at instantiation.
    let tampered = out.join("tampered.fmu");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&tampered).expect("tampered file"));
    let mut archive =
        zip::ZipArchive::new(std::fs::File::open(&fmu).expect("fmu")).expect("a zip archive");
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).expect("entry");
        let name = entry.name().expect("a file name").to_string();
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes).expect("readable");
        if name == "resources/meshes/bracket.obj" {
            bytes = taller.clone().into_bytes();
        }
        let options = zip::write::SimpleFileOptions::default()
            .unix_permissions(entry.unix_mode().unwrap_or(0o644));
        writer.start_file(name, options).expect("entry");
        std::io::Write::write_all(&mut writer, &bytes).expect("written");
    }
    writer.finish().expect("zip finished");
    let run = fmu3d()
        .args(["simulate", "--stop-time", "0.1", "-o"])
        .arg(out.join("tampered.csv"))
        .arg(&tampered)
        .output()
        .expect("fmu3d runs");
    let message = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{message}");
    assert!(message.contains("does not match this FMU"), "{message}");
    assert!(message.contains("mesh file"), "{message}");
}
