//! `fmu3d ssp` as a user runs it: the archive's entries, the SystemStructure.ssd (namespaces,
//! connectors as the FMUs declare them, connections from output to input, the inline parameter
//! set, the experiment), the mechanism's FMU identical to `fmu3d build`'s, and mistakes on the
//! command line that fail with a message and leave no file.

mod common;

use common::{build, fmu3d, folder, read_entry, repository, zip_names};
use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An element of the .ssd: its name and attributes, and the names of the elements it is in.
#[derive(Debug, Clone)]
struct Element {
    name: String,
    attributes: BTreeMap<String, String>,
    path: Vec<String>,
}

fn elements(xml: &str) -> Vec<Element> {
    let mut reader = Reader::from_str(xml);
    let mut stack: Vec<String> = Vec::new();
    let mut found = Vec::new();
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let (e, opens) = match &event {
            Event::Eof => break,
            Event::End(_) => {
                stack.pop();
                continue;
            }
            Event::Start(e) => (e, true),
            Event::Empty(e) => (e, false),
            _ => continue,
        };
        let name = String::from_utf8_lossy(e.name().as_ref().as_bytes()).into_owned();
        let attributes = e
            .attributes()
            .map(|a| {
                let a = a.expect("attribute");
                (
                    String::from_utf8_lossy(a.key.as_ref().as_bytes()).into_owned(),
                    a.normalized_value(XmlVersion::Implicit1_0)
                        .expect("value")
                        .into_owned(),
                )
            })
            .collect();
        found.push(Element {
            name: name.clone(),
            attributes,
            path: stack.clone(),
        });
        if opens {
            stack.push(name);
        }
    }
    found
}

/// Two FMUs made by fmu3d: the crank of the co-simulation example, and a second crank as the
/// "drive" (any FMU with inputs and outputs will do).
fn system(out: &Path) -> (PathBuf, PathBuf) {
    let crank = repository().join("examples/cosimulation/crank.m3d");
    let other = out.join("other.fmu");
    build(&crank, &other);
    (crank, other)
}

fn ssp(out: &Path, args: &[String]) -> std::process::Output {
    fmu3d()
        .arg("ssp")
        .args(args)
        .current_dir(out)
        .output()
        .expect("fmu3d runs")
}

#[test]
fn the_system_holds_the_fmus_their_connections_parameters_and_experiment() {
    let out = folder("ssp-system");
    let (crank, other) = system(&out);
    let target = out.join("system.ssp");
    let args: Vec<String> = vec![
        crank.display().to_string(),
        "--fmu".into(),
        format!("drive={}", other.display()),
        // The input first: the connection still runs from the output.
        "--connect".into(),
        "crank.crank.tau=drive.crank.a".into(),
        "--connect".into(),
        "crank.crank.w=drive.crank.tau".into(),
        "--param".into(),
        "crank.J_drive=0.003".into(),
        "--param".into(),
        "drive.m_e=0.25".into(),
        "--step".into(),
        "0.002".into(),
        "--stop-time".into(),
        "1.5".into(),
        "-o".into(),
        target.display().to_string(),
    ];
    let run = ssp(&out, &args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut names = zip_names(&target);
    names.sort();
    assert_eq!(
        names,
        [
            "SystemStructure.ssd",
            "resources/crank.fmu",
            "resources/drive.fmu"
        ]
    );
    // The other FMU byte for byte; the mechanism's as `fmu3d build` makes it.
    assert_eq!(
        read_entry(&target, "resources/drive.fmu"),
        std::fs::read(&other).expect("other.fmu")
    );
    std::fs::write(
        out.join("inner.fmu"),
        read_entry(&target, "resources/crank.fmu"),
    )
    .expect("written");
    for entry in ["modelDescription.xml", "resources/model.m3d"] {
        assert_eq!(
            read_entry(&out.join("inner.fmu"), entry),
            read_entry(&other, entry),
            "{entry}"
        );
    }

    let ssd = String::from_utf8(read_entry(&target, "SystemStructure.ssd")).expect("UTF-8");
    let all = elements(&ssd);
    let root = &all[0];
    assert_eq!(root.name, "ssd:SystemStructureDescription");
    assert_eq!(root.attributes["version"], "1.0");
    for (prefix, uri) in [
        (
            "ssd",
            "http://ssp-standard.org/SSP1/SystemStructureDescription",
        ),
        ("ssc", "http://ssp-standard.org/SSP1/SystemStructureCommon"),
        (
            "ssv",
            "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
        ),
    ] {
        assert_eq!(root.attributes[&format!("xmlns:{prefix}")], uri);
    }
    let named = |name: &str| -> Vec<&Element> { all.iter().filter(|e| e.name == name).collect() };
    let components: Vec<(&str, &str, &str)> = named("ssd:Component")
        .iter()
        .map(|e| {
            (
                e.attributes["name"].as_str(),
                e.attributes["source"].as_str(),
                e.attributes["type"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        components,
        [
            (
                "crank",
                "resources/crank.fmu",
                "application/x-fmu-sharedlibrary"
            ),
            (
                "drive",
                "resources/drive.fmu",
                "application/x-fmu-sharedlibrary"
            ),
        ]
    );
    // Each component's connectors are its FMU's inputs, outputs and parameters, with their
    // causality as kind, each with a Real type: compared with the FMU's own description.
    let md = String::from_utf8(read_entry(&other, "modelDescription.xml")).expect("UTF-8");
    let declared: Vec<(String, String)> = elements(&md)
        .into_iter()
        .filter(|e| e.name == "ScalarVariable")
        .map(|e| {
            (
                e.attributes["name"].clone(),
                e.attributes["causality"].clone(),
            )
        })
        .collect();
    let connectors: Vec<(String, String)> = named("ssd:Connector")
        .iter()
        .map(|e| (e.attributes["name"].clone(), e.attributes["kind"].clone()))
        .collect();
    assert_eq!(connectors.len(), 2 * declared.len());
    assert_eq!(&connectors[..declared.len()], declared.as_slice());
    assert_eq!(named("ssc:Real").len(), connectors.len());
    assert!(named("ssc:Real")
        .iter()
        .all(|e| e.path.last().map(String::as_str) == Some("ssd:Connector")));

    let connections: Vec<[&str; 4]> = named("ssd:Connection")
        .iter()
        .map(|e| {
            [
                "startElement",
                "startConnector",
                "endElement",
                "endConnector",
            ]
            .map(|k| e.attributes[k].as_str())
        })
        .collect();
    assert_eq!(
        connections,
        [
            ["drive", "crank.a", "crank", "crank.tau"],
            ["crank", "crank.w", "drive", "crank.tau"],
        ]
    );
    // Inline parameter sets, one per component, inside ParameterBinding/ParameterValues.
    let inline = [
        "ssd:ParameterBindings",
        "ssd:ParameterBinding",
        "ssd:ParameterValues",
        "ssv:ParameterSet",
        "ssv:Parameters",
        "ssv:Parameter",
    ]
    .map(String::from);
    let values: Vec<&str> = named("ssv:Real")
        .iter()
        .map(|e| {
            assert!(e.path.ends_with(&inline), "{:?}", e.path);
            e.attributes["value"].as_str()
        })
        .collect();
    assert_eq!(values, ["0.003", "0.25"]);
    let parameter_names: Vec<&str> = named("ssv:Parameter")
        .iter()
        .map(|e| e.attributes["name"].as_str())
        .collect();
    assert_eq!(parameter_names, ["J_drive", "m_e"]);
    let sets: Vec<&str> = named("ssv:ParameterSet")
        .iter()
        .map(|e| e.attributes["name"].as_str())
        .collect();
    assert_eq!(sets, ["crank", "drive"]);
    assert!(named("ssv:ParameterSet")
        .iter()
        .all(|e| e.attributes["version"] == "1.0"));

    let experiment = named("ssd:DefaultExperiment")[0];
    assert_eq!(experiment.path, ["ssd:SystemStructureDescription"]);
    assert_eq!(experiment.attributes["startTime"], "0");
    assert_eq!(experiment.attributes["stopTime"], "1.5");
    let algorithm = named("osp:FixedStepAlgorithm")[0];
    assert_eq!(algorithm.attributes["baseStepSize"], "0.002");
    // The System comes before the DefaultExperiment (the order of the SSD schema).
    let position = |name: &str| all.iter().position(|e| e.name == name).expect(name);
    assert!(position("ssd:System") < position("ssd:DefaultExperiment"));
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn mistakes_fail_with_a_message_and_leave_no_file() {
    let out = folder("ssp-mistakes");
    let (crank, other) = system(&out);
    let target = out.join("bad.ssp");
    let base = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            crank.display().to_string(),
            "--fmu".into(),
            format!("drive={}", other.display()),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend(["-o".to_string(), target.display().to_string()]);
        args
    };
    let cases: [(&[&str], &str); 8] = [
        (
            &["--connect", "motor.tau=crank.crank.tau"],
            "there is no component `motor` (the components are crank, drive)",
        ),
        (
            &["--connect", "drive.tau=crank.crank.tau"],
            "component `drive` has no input, output or parameter `tau` (inputs: crank.tau;",
        ),
        (
            &["--connect", "drive.crank.w=crank.crank.w"],
            "a connection joins an output and an input, but `drive.crank.w` is an output",
        ),
        (
            &[
                "--connect",
                "drive.crank.w=crank.crank.tau",
                "--connect",
                "drive.crank.a=crank.crank.tau",
            ],
            "the input `crank.crank.tau` is connected twice",
        ),
        (
            &["--param", "crank.crank.w=1"],
            "`crank.w` of `crank` is a Real output, not a Real, Integer or Boolean parameter",
        ),
        (
            &["--param", "crank.J_drive=heavy"],
            "`heavy` is not a Real value (Real: a finite number;",
        ),
        (
            &["--connect", "crank.crank.w"],
            "expected COMPONENT.OUTPUT=COMPONENT.INPUT",
        ),
        (&["--name", "drive"], "two components are named `drive`"),
    ];
    for (extra, message) in cases {
        let run = ssp(&out, &base(extra));
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{extra:?}: {stderr}");
        assert!(stderr.contains(message), "{extra:?}: {stderr}");
        assert!(!target.exists(), "{extra:?} left a file");
    }
    std::fs::remove_dir_all(&out).ok();
}
