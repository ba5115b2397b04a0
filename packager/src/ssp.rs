//! `fmu3d ssp`: a mechanism and the FMUs it is coupled with, as one system in an SSP 1.0 archive
//! (System Structure and Parameterization, Modelica Association, 2019): `SystemStructure.ssd`
//! and the FMUs under `resources/`.
//!
//! The mechanism's FMU is built from its model file as `fmu3d build` builds it. Every component
//! lists its inputs, outputs and parameters as connectors (`ssd:Connector` with `kind` and an
//! `ssc:Real`, `ssc:Integer`, `ssc:Boolean` or `ssc:String` type); each `--connect` becomes an
//! `ssd:Connection` from the output to the input, each `--param` an entry of the component's
//! inline parameter set (`ssd:ParameterBinding` / `ssd:ParameterValues` / `ssv:ParameterSet`).
//! The experiment's start and stop time go into `ssd:DefaultExperiment`; SSP 1.0 has no field
//! for a communication step, so it is written as the annotation libcosim reads
//! (`com.opensimulationplatform`, `osp:FixedStepAlgorithm baseStepSize`), which other importers
//! ignore.

use crate::build;
use crate::cli::SspArgs;
use crate::fmu_archive::{self, Entry};
use crate::fmu_import;
use crate::model_description::real;
use fmu_runtime::assembly::declaration::declaration;
use fmu_runtime::fmu::GENERATION_TOOL;
use quick_xml::events::{BytesDecl, Event};
use quick_xml::Writer;
use std::io;
use std::path::PathBuf;

const NAMESPACES: [(&str, &str); 4] = [
    (
        "xmlns:ssd",
        "http://ssp-standard.org/SSP1/SystemStructureDescription",
    ),
    (
        "xmlns:ssc",
        "http://ssp-standard.org/SSP1/SystemStructureCommon",
    ),
    (
        "xmlns:ssv",
        "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
    ),
    (
        "xmlns:osp",
        "http://opensimulationplatform.com/SSP/OSPAnnotations",
    ),
];

/// A variable of a component as the system sees it.
#[derive(Debug, Clone, PartialEq)]
struct Connector {
    name: String,
    /// The FMI causality: `input`, `output`, `parameter` or `calculatedParameter`.
    kind: String,
    /// `Real`, `Integer`, `Boolean` or `String`.
    type_name: String,
}

/// One FMU of the system under its name.
#[derive(Debug)]
struct Component {
    name: String,
    fmu: Vec<u8>,
    connectors: Vec<Connector>,
    /// Parameter values set by `--param`, in the order given.
    parameters: Vec<(String, ParameterValue)>,
}

/// A `--param` value, typed by the parameter it sets.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ParameterValue {
    Real(f64),
    Integer(i64),
    Boolean(bool),
}

impl ParameterValue {
    /// Reads `text` as a value of the FMI type `type_name`; `None` when it is not one.
    fn parse(type_name: &str, text: &str) -> Option<ParameterValue> {
        match type_name {
            "Real" => text
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .map(ParameterValue::Real),
            "Integer" => text.parse().ok().map(ParameterValue::Integer),
            "Boolean" => match text {
                "true" | "1" => Some(ParameterValue::Boolean(true)),
                "false" | "0" => Some(ParameterValue::Boolean(false)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The SSV element and its `value` attribute.
    fn element(&self) -> (&'static str, String) {
        match self {
            ParameterValue::Real(v) => ("ssv:Real", real(*v)),
            ParameterValue::Integer(v) => ("ssv:Integer", v.to_string()),
            ParameterValue::Boolean(v) => ("ssv:Boolean", v.to_string()),
        }
    }
}

impl Component {
    fn source(&self) -> String {
        format!("resources/{}.fmu", self.name)
    }

    fn connector(&self, name: &str) -> Result<&Connector, String> {
        self.connectors
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| {
                let list = |kind: &str| {
                    let names: Vec<&str> = self
                        .connectors
                        .iter()
                        .filter(|c| c.kind == kind)
                        .map(|c| c.name.as_str())
                        .collect();
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                };
                format!(
                "component `{}` has no input, output or parameter `{name}` (inputs: {}; outputs: \
                 {}; parameters: {})",
                self.name,
                list("input"),
                list("output"),
                list("parameter")
            )
            })
    }
}

/// An output connected to an input: (component, connector) at each end.
#[derive(Debug, Clone, PartialEq)]
struct Connection {
    start: (String, String),
    end: (String, String),
}

pub fn run(args: &SspArgs) -> Result<(), String> {
    let packaged = build::package(&args.model, false, &[])?;
    let spec = &packaged.sim.spec;
    let mechanism_name = args.name.clone().unwrap_or_else(|| spec.name.clone());
    let mut components = vec![Component {
        name: mechanism_name,
        fmu: fmu_archive::to_bytes(&packaged.entries, packaged.time)?,
        connectors: (0..packaged.sim.variables.variables.len())
            .filter_map(|index| {
                let kind =
                    declaration(&packaged.sim.variables, &packaged.sim.scene, index).causality;
                (kind != "local").then(|| Connector {
                    name: packaged.sim.variables.variables[index].name.clone(),
                    kind: kind.to_string(),
                    type_name: "Real".into(),
                })
            })
            .collect(),
        parameters: Vec::new(),
    }];
    for text in &args.fmus {
        let (name, path) = split_once(text, '=', "--fmu", "NAME=PATH.fmu")?;
        let path = PathBuf::from(path);
        let description = fmu_import::read_description(&path)?;
        let fmu = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let connectors = description
            .get_model_variables()
            .map(|v| Connector {
                name: v.name.clone(),
                kind: v.causality.to_string(),
                type_name: fmu_import::type_name(&v.elem).to_string(),
            })
            .filter(|c| {
                matches!(
                    c.kind.as_str(),
                    "input" | "output" | "parameter" | "calculatedParameter"
                ) && matches!(
                    c.type_name.as_str(),
                    "Real" | "Integer" | "Boolean" | "String"
                )
            })
            .collect();
        components.push(Component {
            name: name.to_string(),
            fmu,
            connectors,
            parameters: Vec::new(),
        });
    }
    check_names(&components)?;
    for text in &args.parameters {
        let (reference, value) = split_once(text, '=', "--param", "COMPONENT.PARAMETER=VALUE")?;
        let (component, parameter) = split_reference(reference, "--param")?;
        let index = find_component(&components, component)?;
        let connector = components[index].connector(parameter)?;
        if connector.kind != "parameter" || connector.type_name == "String" {
            return Err(format!(
                "--param {text}: `{parameter}` of `{component}` is a {} {}, not a Real, Integer \
                 or Boolean parameter that can be set",
                connector.type_name, connector.kind
            ));
        }
        let value = ParameterValue::parse(&connector.type_name, value).ok_or_else(|| {
            format!(
                "--param {text}: `{value}` is not a {} value (Real: a finite number; Integer: a \
                 whole number; Boolean: true or false)",
                connector.type_name
            )
        })?;
        components[index]
            .parameters
            .push((parameter.to_string(), value));
    }
    let connections = args
        .connections
        .iter()
        .map(|text| connection(&components, text))
        .collect::<Result<Vec<_>, _>>()?;
    for (k, connection) in connections.iter().enumerate() {
        if connections[..k].iter().any(|c| c.end == connection.end) {
            return Err(format!(
                "the input `{}.{}` is connected twice: an input takes one output",
                connection.end.0, connection.end.1
            ));
        }
    }

    let experiment = Experiment {
        start_time: spec.experiment.start_time,
        stop_time: args.stop_time.unwrap_or(spec.experiment.stop_time),
        step: args.step.unwrap_or(spec.experiment.interval),
    };
    let valid = experiment.step > 0.0
        && experiment.step.is_finite()
        && experiment.stop_time > experiment.start_time;
    if !valid {
        return Err(format!(
            "the experiment must have a positive step and a stop time after the start time \
             {} s (step {} s, stop time {} s)",
            experiment.start_time, experiment.step, experiment.stop_time
        ));
    }
    let system_name = format!("{}_system", spec.name);
    let ssd = write_ssd(
        &system_name,
        &components,
        &connections,
        &experiment,
        &packaged.time.iso8601(),
    )
    .map_err(|e| format!("cannot write SystemStructure.ssd: {e}"))?;
    let destination = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.ssp", spec.name)));
    let mut entries = vec![Entry {
        name: "SystemStructure.ssd".into(),
        bytes: ssd,
        executable: false,
    }];
    for component in &mut components {
        entries.push(Entry {
            name: component.source(),
            bytes: std::mem::take(&mut component.fmu),
            executable: false,
        });
    }
    fmu_archive::write(&destination, &entries, packaged.time)?;
    eprintln!(
        "{system_name}: wrote {} ({} components, {} connections, {} parameter values)",
        destination.display(),
        components.len(),
        connections.len(),
        components.iter().map(|c| c.parameters.len()).sum::<usize>()
    );
    Ok(())
}

/// `left<separator>right`, both non-empty.
fn split_once<'a>(
    text: &'a str,
    separator: char,
    option: &str,
    form: &str,
) -> Result<(&'a str, &'a str), String> {
    text.split_once(separator)
        .filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| format!("{option} {text}: expected {form}"))
}

/// `component.variable`: the component's name is up to the first dot (component names have no
/// dot), the variable's the rest (`crank.crank.tau` is `crank.tau` of component `crank`).
fn split_reference<'a>(text: &'a str, option: &str) -> Result<(&'a str, &'a str), String> {
    split_once(text, '.', option, "COMPONENT.VARIABLE")
}

fn find_component(components: &[Component], name: &str) -> Result<usize, String> {
    components
        .iter()
        .position(|c| c.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = components.iter().map(|c| c.name.as_str()).collect();
            format!(
                "there is no component `{name}` (the components are {})",
                names.join(", ")
            )
        })
}

/// Component names are unique and usable in a `COMPONENT.VARIABLE` reference.
fn check_names(components: &[Component]) -> Result<(), String> {
    for (k, component) in components.iter().enumerate() {
        let name = &component.name;
        if name.is_empty() || name.contains(['.', '=', '/']) {
            return Err(format!(
                "`{name}` cannot name a component: use letters, digits and `_`"
            ));
        }
        if components[..k].iter().any(|c| &c.name == name) {
            return Err(format!(
                "two components are named `{name}`: give the FMU another name (--fmu NAME=PATH; \
                 --name for the mechanism)"
            ));
        }
    }
    Ok(())
}

/// `--connect A.x=B.y`: one side an output, the other an input of the same type, in either
/// order; the connection runs from the output to the input.
fn connection(components: &[Component], text: &str) -> Result<Connection, String> {
    let (left, right) = split_once(text, '=', "--connect", "COMPONENT.OUTPUT=COMPONENT.INPUT")?;
    let resolve = |reference: &str| -> Result<(String, Connector), String> {
        let (component, variable) = split_reference(reference, "--connect")?;
        let index = find_component(components, component)?;
        let connector = components[index]
            .connector(variable)
            .map_err(|e| format!("--connect {text}: {e}"))?;
        Ok((component.to_string(), connector.clone()))
    };
    let (a, b) = (resolve(left)?, resolve(right)?);
    let (start, end) = match (a.1.kind.as_str(), b.1.kind.as_str()) {
        ("output", "input") => (a, b),
        ("input", "output") => (b, a),
        (x, y) => {
            return Err(format!(
                "--connect {text}: a connection joins an output and an input, but `{left}` is \
                 {} {x} and `{right}` {} {y}",
                article(x),
                article(y)
            ))
        }
    };
    if start.1.type_name != end.1.type_name {
        return Err(format!(
            "--connect {text}: the output is a {} and the input a {}",
            start.1.type_name, end.1.type_name
        ));
    }
    Ok(Connection {
        start: (start.0, start.1.name),
        end: (end.0, end.1.name),
    })
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[derive(Debug, Clone, Copy)]
struct Experiment {
    start_time: f64,
    stop_time: f64,
    /// The communication step, for masters with a fixed step (libcosim's annotation).
    step: f64,
}

fn write_ssd(
    system_name: &str,
    components: &[Component],
    connections: &[Connection],
    experiment: &Experiment,
    generated: &str,
) -> io::Result<Vec<u8>> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("ssd:SystemStructureDescription")
        .with_attributes(NAMESPACES)
        .with_attribute(("version", "1.0"))
        .with_attribute(("name", system_name))
        .with_attribute(("generationTool", GENERATION_TOOL))
        .with_attribute(("generationDateAndTime", generated))
        .write_inner_content(|w| {
            w.create_element("ssd:System")
                .with_attribute(("name", system_name))
                .write_inner_content(|w| {
                    w.create_element("ssd:Elements").write_inner_content(|w| {
                        for component in components {
                            write_component(w, component)?;
                        }
                        Ok(())
                    })?;
                    if !connections.is_empty() {
                        w.create_element("ssd:Connections")
                            .write_inner_content(|w| {
                                for c in connections {
                                    w.create_element("ssd:Connection")
                                        .with_attribute(("startElement", c.start.0.as_str()))
                                        .with_attribute(("startConnector", c.start.1.as_str()))
                                        .with_attribute(("endElement", c.end.0.as_str()))
                                        .with_attribute(("endConnector", c.end.1.as_str()))
                                        .write_empty()?;
                                }
                                Ok(())
                            })?;
                    }
                    Ok(())
                })?;
            w.create_element("ssd:DefaultExperiment")
                .with_attribute(("startTime", real(experiment.start_time).as_str()))
                .with_attribute(("stopTime", real(experiment.stop_time).as_str()))
                .write_inner_content(|w| {
                    w.create_element("ssd:Annotations")
                        .write_inner_content(|w| {
                            w.create_element("ssc:Annotation")
                                .with_attribute(("type", "com.opensimulationplatform"))
                                .write_inner_content(|w| {
                                    w.create_element("osp:Algorithm").write_inner_content(|w| {
                                        w.create_element("osp:FixedStepAlgorithm")
                                            .with_attribute((
                                                "baseStepSize",
                                                real(experiment.step).as_str(),
                                            ))
                                            .write_empty()?;
                                        Ok(())
                                    })?;
                                    Ok(())
                                })?;
                            Ok(())
                        })?;
                    Ok(())
                })?;
            Ok(())
        })?;
    let mut xml = w.into_inner();
    xml.push(b'\n');
    Ok(xml)
}

fn write_component(w: &mut Writer<Vec<u8>>, component: &Component) -> io::Result<()> {
    let source = component.source();
    w.create_element("ssd:Component")
        .with_attribute(("name", component.name.as_str()))
        .with_attribute(("type", "application/x-fmu-sharedlibrary"))
        .with_attribute(("source", source.as_str()))
        .write_inner_content(|w| {
            w.create_element("ssd:Connectors")
                .write_inner_content(|w| {
                    for connector in &component.connectors {
                        w.create_element("ssd:Connector")
                            .with_attribute(("name", connector.name.as_str()))
                            .with_attribute(("kind", connector.kind.as_str()))
                            .write_inner_content(|w| {
                                w.create_element(format!("ssc:{}", connector.type_name))
                                    .write_empty()?;
                                Ok(())
                            })?;
                    }
                    Ok(())
                })?;
            if !component.parameters.is_empty() {
                write_parameter_bindings(w, component)?;
            }
            Ok(())
        })?;
    Ok(())
}

/// The component's `--param` values as one inline parameter set named after the component.
fn write_parameter_bindings(w: &mut Writer<Vec<u8>>, component: &Component) -> io::Result<()> {
    w.create_element("ssd:ParameterBindings")
        .write_inner_content(|w| {
            w.create_element("ssd:ParameterBinding")
                .write_inner_content(|w| {
                    w.create_element("ssd:ParameterValues")
                        .write_inner_content(|w| {
                            w.create_element("ssv:ParameterSet")
                                .with_attribute(("version", "1.0"))
                                .with_attribute(("name", component.name.as_str()))
                                .write_inner_content(|w| {
                                    w.create_element("ssv:Parameters").write_inner_content(
                                        |w| {
                                            for (name, value) in &component.parameters {
                                                w.create_element("ssv:Parameter")
                                                    .with_attribute(("name", name.as_str()))
                                                    .write_inner_content(|w| {
                                                        let (element, text) = value.element();
                                                        w.create_element(element)
                                                            .with_attribute((
                                                                "value",
                                                                text.as_str(),
                                                            ))
                                                            .write_empty()?;
                                                        Ok(())
                                                    })?;
                                            }
                                            Ok(())
                                        },
                                    )?;
                                    Ok(())
                                })?;
                            Ok(())
                        })?;
                    Ok(())
                })?;
            Ok(())
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::ParameterValue;

    #[test]
    fn parameter_values_take_the_type_of_their_parameter() {
        let parse = ParameterValue::parse;
        assert_eq!(parse("Real", "0.25"), Some(ParameterValue::Real(0.25)));
        assert_eq!(parse("Real", "inf"), None);
        assert_eq!(parse("Integer", "-3"), Some(ParameterValue::Integer(-3)));
        assert_eq!(parse("Integer", "2.5"), None);
        assert_eq!(
            parse("Boolean", "true"),
            Some(ParameterValue::Boolean(true))
        );
        assert_eq!(parse("Boolean", "0"), Some(ParameterValue::Boolean(false)));
        assert_eq!(parse("Boolean", "yes"), None);
        assert_eq!(parse("String", "x"), None);
        assert_eq!(
            ParameterValue::Integer(7).element(),
            ("ssv:Integer", "7".to_string())
        );
        assert_eq!(
            ParameterValue::Boolean(false).element(),
            ("ssv:Boolean", "false".to_string())
        );
    }
}
