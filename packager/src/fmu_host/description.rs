//! What `fmu3d simulate X.fmu` needs from a modelDescription.xml: the identifier, the GUID,
//! the default experiment and the variables with their value references and causalities.

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

#[derive(Debug, Clone, PartialEq)]
pub struct ScalarVariable {
    pub name: String,
    pub value_reference: u32,
    pub causality: String,
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
    loop {
        match reader
            .read_event()
            .map_err(|e| format!("modelDescription.xml: {e}"))?
        {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                "fmiModelDescription" => {
                    description.model_name = attribute(&e, "modelName")?.unwrap_or_default();
                    description.guid =
                        attribute(&e, "guid")?.ok_or("modelDescription.xml has no guid")?;
                }
                "CoSimulation" => {
                    co_simulation = true;
                    description.model_identifier = attribute(&e, "modelIdentifier")?
                        .ok_or("<CoSimulation> has no modelIdentifier")?;
                }
                "DefaultExperiment" => {
                    description.start_time = number(&e, "startTime")?;
                    description.stop_time = number(&e, "stopTime")?;
                    description.step_size = number(&e, "stepSize")?;
                    description.tolerance = number(&e, "tolerance")?;
                }
                "ScalarVariable" => {
                    let name = attribute(&e, "name")?.ok_or("a ScalarVariable has no name")?;
                    let reference = attribute(&e, "valueReference")?
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| format!("variable `{name}` has no valid valueReference"))?;
                    let causality = attribute(&e, "causality")?.unwrap_or_else(|| "local".into());
                    description.variables.push(ScalarVariable {
                        name,
                        value_reference: reference,
                        causality,
                    });
                }
                _ => {}
            },
            _ => {}
        }
    }
    if !co_simulation {
        return Err("the FMU does not support Co-Simulation (no <CoSimulation> element)".into());
    }
    Ok(description)
}
