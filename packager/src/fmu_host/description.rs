//! What `fmu3d simulate X.fmu` needs from a modelDescription.xml: the identifier, the GUID,
//! the default experiment and the variables with their value references and causalities.

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

#[derive(Debug, Clone, PartialEq)]
pub struct ScalarVariable {
    pub name: String,
    pub value_reference: u32,
    pub causality: String,
    /// `Real`, `Integer`, `Boolean`, `String` or `Enumeration` (empty if none was given).
    pub type_name: String,
    /// The `unit` attribute of its type element (empty if none was given).
    pub unit: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Description {
    pub model_name: String,
    pub guid: String,
    pub model_identifier: String,
    pub start_time: Option<f64>,
    pub stop_time: Option<f64>,
    pub step_size: Option<f64>,
    pub tolerance: Option<f64>,
    pub variables: Vec<ScalarVariable>,
    /// `canInterpolateInputs` of `<CoSimulation>`: the FMU takes input derivatives.
    pub can_interpolate_inputs: bool,
}

fn attribute(element: &BytesStart, name: &str) -> Result<Option<String>, String> {
    for a in element.attributes() {
        let a = a.map_err(|e| format!("modelDescription.xml: {e}"))?;
        if a.key.as_ref() == name {
            let value = a
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| format!("modelDescription.xml: {e}"))?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

fn number(element: &BytesStart, name: &str) -> Result<Option<f64>, String> {
    attribute(element, name)?
        .map(|v| {
            v.parse::<f64>()
                .map_err(|_| format!("modelDescription.xml: {name}=\"{v}\" is not a number"))
        })
        .transpose()
}

pub fn parse(xml: &str) -> Result<Description, String> {
    let mut reader = Reader::from_str(xml);
    let mut description = Description::default();
    let mut co_simulation = false;
    // Inside a <ScalarVariable> element: its type element follows.
    let mut in_variable = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("modelDescription.xml: {e}"))?;
        let (e, opens) = match &event {
            Event::Eof => break,
            Event::End(e) => {
                if e.name().as_ref() == "ScalarVariable" {
                    in_variable = false;
                }
                continue;
            }
            Event::Start(e) => (e, true),
            Event::Empty(e) => (e, false),
            _ => continue,
        };
        {
            match e.name().as_ref() {
                "fmiModelDescription" => {
                    description.model_name = attribute(e, "modelName")?.unwrap_or_default();
                    description.guid =
                        attribute(e, "guid")?.ok_or("modelDescription.xml has no guid")?;
                }
                "CoSimulation" => {
                    co_simulation = true;
                    description.model_identifier = attribute(e, "modelIdentifier")?
                        .ok_or("<CoSimulation> has no modelIdentifier")?;
                    description.can_interpolate_inputs =
                        attribute(e, "canInterpolateInputs")?.as_deref() == Some("true");
                }
                "DefaultExperiment" => {
                    description.start_time = number(e, "startTime")?;
                    description.stop_time = number(e, "stopTime")?;
                    description.step_size = number(e, "stepSize")?;
                    description.tolerance = number(e, "tolerance")?;
                }
                "ScalarVariable" => {
                    let name = attribute(e, "name")?.ok_or("a ScalarVariable has no name")?;
                    let reference = attribute(e, "valueReference")?
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| format!("variable `{name}` has no valid valueReference"))?;
                    let causality = attribute(e, "causality")?.unwrap_or_else(|| "local".into());
                    description.variables.push(ScalarVariable {
                        name,
                        value_reference: reference,
                        causality,
                        type_name: String::new(),
                        unit: String::new(),
                    });
                    in_variable = opens;
                }
                type_name @ ("Real" | "Integer" | "Boolean" | "String" | "Enumeration")
                    if in_variable =>
                {
                    if let Some(variable) = description.variables.last_mut() {
                        variable.type_name = type_name.to_string();
                        variable.unit = attribute(e, "unit")?.unwrap_or_default();
                    }
                }
                _ => {}
            }
        }
    }
    if !co_simulation {
        return Err("the FMU does not support Co-Simulation (no <CoSimulation> element)".into());
    }
    Ok(description)
}

/// The modelDescription.xml of an FMU file, read from the archive without unpacking it.
pub fn read_from_fmu(path: &std::path::Path) -> Result<Description, String> {
    use std::io::Read;
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: cannot open: {e}"))?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| format!("{shown}: not an FMU (zip): {e}"))?;
    let mut xml = String::new();
    archive
        .by_name("modelDescription.xml")
        .map_err(|e| format!("{shown}: no modelDescription.xml: {e}"))?
        .read_to_string(&mut xml)
        .map_err(|e| format!("{shown}: modelDescription.xml is not readable text: {e}"))?;
    parse(&xml).map_err(|e| format!("{shown}: {e}"))
}
