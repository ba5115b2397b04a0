//! `modelDescription.xml` (FMI 2.0 Model Exchange and Co-Simulation) from the runtime's variable
//! table.
//!
//! The value reference of a variable is its index in the table, and the variables are written in
//! table order, so a variable's position in `<ModelVariables>` is its value reference + 1.
//!
//! Causality, variability, initial, start and the dependencies of outputs on inputs and states
//! (`<ModelStructure>`) are the runtime's declaration of each variable
//! (`fmu_runtime::assembly::declaration`), written here as they are.

use fmu_runtime::assembly::declaration::{
    declaration, dependencies, input_indices, output_dependencies,
};
use fmu_runtime::assembly::Variable;
use fmu_runtime::fmu::{self, Capabilities, CAPABILITIES, FMI_VERSION, GENERATION_TOOL};
use fmu_runtime::model::units::Kind;
use fmu_runtime::simulation::Simulation;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use quick_xml::Writer;
use std::io;

/// Writes modelDescription.xml for the simulation made from `source` (the model file's text),
/// generated at `generated` (ISO 8601, UTC).
pub fn write(sim: &Simulation, source: &str, generated: &str) -> Result<Vec<u8>, String> {
    // One definition per kind of quantity the variables measure, in order of appearance.
    let mut unit_definitions: Vec<Kind> = Vec::new();
    for kind in sim.variables.variables.iter().filter_map(|v| v.unit) {
        if !unit_definitions.contains(&kind) {
            unit_definitions.push(kind);
        }
    }
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    write_document(&mut writer, sim, source, generated, &unit_definitions)
        .map_err(|e| format!("cannot write modelDescription.xml: {e}"))?;
    let mut xml = writer.into_inner();
    xml.push(b'\n');
    Ok(xml)
}

fn write_document(
    w: &mut Writer<Vec<u8>>,
    sim: &Simulation,
    source: &str,
    generated: &str,
    unit_definitions: &[Kind],
) -> io::Result<()> {
    let spec = &sim.spec;
    let identifier = fmu::model_identifier(spec);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut root = BytesStart::new("fmiModelDescription");
    root.push_attribute(("fmiVersion", FMI_VERSION));
    root.push_attribute(("modelName", spec.name.as_str()));
    root.push_attribute((
        "guid",
        fmu::guid_with(source, &sim.spec, sim.pose_outputs()).as_str(),
    ));
    if let Some(description) = &spec.description {
        root.push_attribute(("description", description.as_str()));
    }
    root.push_attribute(("generationTool", GENERATION_TOOL));
    root.push_attribute(("generationDateAndTime", generated));
    root.push_attribute(("variableNamingConvention", "structured"));
    let indicators = sim.event_indicator_count().to_string();
    root.push_attribute(("numberOfEventIndicators", indicators.as_str()));
    w.write_event(Event::Start(root))?;

    interfaces(w, &identifier, !sim.mechanism().rows.is_empty())?;

    if !unit_definitions.is_empty() {
        w.create_element("UnitDefinitions")
            .write_inner_content(|w| {
                for kind in unit_definitions {
                    w.create_element("Unit")
                        .with_attribute(("name", kind.si_unit()))
                        .write_inner_content(|w| {
                            let exponents: Vec<(&str, String)> = kind
                                .base_units()
                                .nonzero()
                                .map(|(unit, e)| (unit, e.to_string()))
                                .collect();
                            w.create_element("BaseUnit")
                                .with_attributes(exponents.iter().map(|(u, e)| (*u, e.as_str())))
                                .write_empty()?;
                            Ok(())
                        })?;
                }
                Ok(())
            })?;
    }

    w.create_element("LogCategories").write_inner_content(|w| {
        for (name, description) in fmu::LOG_CATEGORIES {
            w.create_element("Category")
                .with_attribute(("name", name))
                .with_attribute(("description", description))
                .write_empty()?;
        }
        Ok(())
    })?;

    let e = &spec.experiment;
    w.create_element("DefaultExperiment")
        .with_attribute(("startTime", real(e.start_time).as_str()))
        .with_attribute(("stopTime", real(e.stop_time).as_str()))
        .with_attribute(("tolerance", real(e.tolerance).as_str()))
        .with_attribute(("stepSize", real(e.interval).as_str()))
        .write_empty()?;

    w.create_element("ModelVariables")
        .write_inner_content(|w| {
            // The state each derivative is the derivative of, by variable: found once (a search
            // per variable would be quadratic in the model's size).
            let mut state_of = vec![None; sim.variables.variables.len()];
            for state in &sim.variables.states {
                state_of[state.derivative] = Some(state.value);
            }
            for (index, variable) in sim.variables.variables.iter().enumerate() {
                scalar_variable(w, sim, index, variable, state_of[index])?;
            }
            Ok(())
        })?;

    model_structure(w, sim)?;

    w.write_event(Event::End(BytesEnd::new("fmiModelDescription")))?;
    Ok(())
}

/// `<ModelExchange>` and `<CoSimulation>`: one library, one variable table, both interfaces.
fn interfaces(w: &mut Writer<Vec<u8>>, identifier: &str, has_loops: bool) -> io::Result<()> {
    // Every field by name: a new capability cannot be forgotten here.
    let Capabilities {
        needs_execution_tool,
        can_handle_variable_communication_step_size,
        can_interpolate_inputs,
        max_output_derivative_order,
        can_run_asynchronuously,
        can_be_instantiated_only_once_per_process,
        can_not_use_memory_management_functions,
        can_get_and_set_fmu_state,
        can_serialize_fmu_state,
        provides_directional_derivative,
    } = CAPABILITIES;
    let flags = [
        ("needsExecutionTool", needs_execution_tool),
        (
            "canHandleVariableCommunicationStepSize",
            can_handle_variable_communication_step_size,
        ),
        ("canInterpolateInputs", can_interpolate_inputs),
    ];
    let more_flags = [
        ("canRunAsynchronuously", can_run_asynchronuously),
        (
            "canBeInstantiatedOnlyOncePerProcess",
            can_be_instantiated_only_once_per_process,
        ),
        (
            "canNotUseMemoryManagementFunctions",
            can_not_use_memory_management_functions,
        ),
        ("canGetAndSetFMUstate", can_get_and_set_fmu_state),
        ("canSerializeFMUstate", can_serialize_fmu_state),
        (
            "providesDirectionalDerivative",
            provides_directional_derivative,
        ),
    ];
    // Model Exchange has the flags that are not about communication steps. Its
    // `fmi2CompletedIntegratorStep` is needed with kinematic loops only: it asks for an event
    // when a loop's closure drifts.
    let mut element = BytesStart::new("ModelExchange");
    element.push_attribute(("modelIdentifier", identifier));
    element.push_attribute(("needsExecutionTool", boolean(needs_execution_tool)));
    element.push_attribute(("completedIntegratorStepNotNeeded", boolean(!has_loops)));
    for (name, value) in &more_flags[1..] {
        element.push_attribute((*name, boolean(*value)));
    }
    w.write_event(Event::Empty(element))?;

    let order = max_output_derivative_order.to_string();
    let mut element = BytesStart::new("CoSimulation");
    element.push_attribute(("modelIdentifier", identifier));
    for (name, value) in flags {
        element.push_attribute((name, boolean(value)));
    }
    element.push_attribute(("maxOutputDerivativeOrder", order.as_str()));
    for (name, value) in more_flags {
        element.push_attribute((name, boolean(value)));
    }
    w.write_event(Event::Empty(element))
}

fn scalar_variable(
    w: &mut Writer<Vec<u8>>,
    sim: &Simulation,
    index: usize,
    variable: &Variable,
    derivative_of: Option<usize>,
) -> io::Result<()> {
    let declaration = declaration(&sim.variables, &sim.scene, index);
    let mut element = BytesStart::new("ScalarVariable");
    element.push_attribute(("name", variable.name.as_str()));
    element.push_attribute(("valueReference", index.to_string().as_str()));
    if !variable.description.is_empty() {
        element.push_attribute(("description", variable.description.as_str()));
    }
    element.push_attribute(("causality", declaration.causality));
    element.push_attribute(("variability", declaration.variability));
    if let Some(initial) = declaration.initial {
        element.push_attribute(("initial", initial));
    }
    w.write_event(Event::Start(element))?;
    let mut real_element = BytesStart::new("Real");
    if let Some(kind) = variable.unit {
        real_element.push_attribute(("unit", kind.si_unit()));
    }
    if let Some(state) = derivative_of {
        real_element.push_attribute(("derivative", (state + 1).to_string().as_str()));
    }
    if declaration.start {
        // A parameter or input always has a start value in the table; 0 if it ever had none.
        real_element.push_attribute(("start", real(variable.start.unwrap_or(0.0)).as_str()));
    }
    w.write_event(Event::Empty(real_element))?;
    w.write_event(Event::End(BytesEnd::new("ScalarVariable")))
}

fn model_structure(w: &mut Writer<Vec<u8>>, sim: &Simulation) -> io::Result<()> {
    let table = &sim.variables.variables;
    let outputs: Vec<usize> = sim.variables.outputs().map(|(i, _)| i).collect();
    let inputs = input_indices(&sim.variables);
    let structure = sim.structure();
    // Initial unknowns (FMI 2.0.4 §2.2.8): outputs with initial "approx" or "calculated" and
    // calculated parameters, in variable order. What is known at initialization: the parameters
    // with initial "exact" and the inputs.
    let exact_parameters: Vec<usize> = (0..table.len())
        .filter(|&i| declaration(&sim.variables, &sim.scene, i).causality == "parameter")
        .collect();
    let initial_unknowns: Vec<(usize, Option<Vec<usize>>)> = (0..table.len())
        .filter_map(
            |i| match declaration(&sim.variables, &sim.scene, i).causality {
                // Fixed by the build: depends on nothing that can be set.
                "calculatedParameter" => Some((i, Some(Vec::new()))),
                // Start values and geometry come from the parameters (a start angle, a length), the
                // rest as during a step.
                "output" => {
                    let mut known = exact_parameters.clone();
                    known.extend(dependencies(&structure, &inputs, i));
                    known.sort_unstable();
                    known.dedup();
                    Some((i, Some(known)))
                }
                // A continuous state or derivative no output reports: on every known.
                "local" => Some((i, None)),
                _ => None,
            },
        )
        .collect();
    w.create_element("ModelStructure")
        .write_inner_content(|w| {
            if !outputs.is_empty() {
                w.create_element("Outputs").write_inner_content(|w| {
                    for &i in &outputs {
                        let known = output_dependencies(&structure, &inputs, i);
                        unknown(w, i, known.as_deref())?;
                    }
                    Ok(())
                })?;
            }
            // The state derivatives of Model Exchange, in the order of the states; each depends
            // on the states and inputs (no `dependencies`: on all of them).
            if !sim.variables.states.is_empty() {
                w.create_element("Derivatives").write_inner_content(|w| {
                    for state in &sim.variables.states {
                        unknown(w, state.derivative, None)?;
                    }
                    Ok(())
                })?;
            }
            if !initial_unknowns.is_empty() {
                w.create_element("InitialUnknowns")
                    .write_inner_content(|w| {
                        for (i, known) in &initial_unknowns {
                            unknown(w, *i, known.as_deref())?;
                        }
                        Ok(())
                    })?;
            }
            Ok(())
        })?;
    Ok(())
}

/// `<Unknown index="..." dependencies="..."/>` with 1-based indices into `<ModelVariables>`;
/// without `dependencies` (`None`) the unknown depends on every known.
fn unknown(
    w: &mut Writer<Vec<u8>>,
    index: usize,
    dependencies: Option<&[usize]>,
) -> io::Result<()> {
    let index = (index + 1).to_string();
    let element = w
        .create_element("Unknown")
        .with_attribute(("index", index.as_str()));
    match dependencies {
        Some(dependencies) => {
            let list: Vec<String> = dependencies.iter().map(|d| (d + 1).to_string()).collect();
            element
                .with_attribute(("dependencies", list.join(" ").as_str()))
                .write_empty()?;
        }
        None => {
            element.write_empty()?;
        }
    }
    Ok(())
}

fn boolean(value: bool) -> &'static str {
    if value {
        "true"
    } else {
        "false"
    }
}

/// A real number as xs:double: the shortest text that reads back to the same value, with an
/// exponent for very small and very large magnitudes.
pub fn real(value: f64) -> String {
    let magnitude = value.abs();
    if value != 0.0 && !(1e-5..1e16).contains(&magnitude) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::{dependencies, input_indices, output_dependencies, real};
    use fmu_runtime::assembly::Causality;
    use fmu_runtime::model;
    use fmu_runtime::simulation::{Simulation, SimulationOptions};

    /// Drive trains of every kind: a motor through a gear and a spring (states of its own), a
    /// force source with a mass and a damper, a torque input on a bare joint, a motor rigidly
    /// geared to its joint.
    const DRIVES: &str = r#"
model drives
gravity none
object body { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.02) kg.m2 }; output = true }
joint shaft revolute { from = world; to = body; axis = z; w = 1 }
drive D {
  joint = shaft
  motor { R = 1 Ohm; L = 2 mH; k = 0.1 N.m/A; J = 1e-4 kg.m2; i = 0.5 }
  gear { ratio = 5 }
  spring { c = 20 N.m/rad; phi_rel0 = 0.1 }
  inertia { J = 0.005 kg.m2 }
}
object slider { mass { m = 1 kg } }
joint rail prismatic { from = world; to = slider; axis = x }
drive F { joint = rail; force { }; mass { m = 2 kg; v = 1 m/s }; damper { d = 3 N.s/m } }
object wheel { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.02) kg.m2 } }
joint spin revolute { from = world; to = wheel; axis = z; flange = force }
object rotor { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.02) kg.m2 } }
joint turn revolute { from = world; to = rotor; axis = z; w = 2 }
drive G { joint = turn; motor { R = 1 Ohm; L = 2 mH; k = 0.1 N.m/A; J = 1e-4 kg.m2 }; gear { ratio = 3 } }
"#;

    /// For each of `outputs`, the `inputs` that change it at once (by more than 1e-12
    /// relative): each input is moved by `delta` alone, the outputs read again without a step,
    /// and the input set back.
    fn changed_by_inputs(
        sim: &mut Simulation,
        inputs: &[usize],
        outputs: &[usize],
        delta: f64,
    ) -> Vec<Vec<usize>> {
        let before = sim.values_of(outputs);
        let mut changed_by = vec![Vec::new(); outputs.len()];
        for &input in inputs {
            let value = sim.input(input).expect("an input");
            sim.set_input(input, value + delta).expect("sets");
            for (k, after) in sim.values_of(outputs).iter().enumerate() {
                if (after - before[k]).abs() > 1e-12 * (1.0 + before[k].abs()) {
                    changed_by[k].push(input);
                }
            }
            sim.set_input(input, value).expect("sets back");
        }
        changed_by
    }

    /// The declared direct dependencies of every output include every input that changes it at
    /// once (each input is changed alone, and the outputs are read again without a step); for
    /// the drives' states and motor quantities they are exactly those inputs. (Accelerations and
    /// flange torques declare every input: through the mass matrix they may depend on any.)
    #[test]
    fn outputs_declare_every_input_that_changes_them_at_once() {
        let spec = model::load_str_with(DRIVES, "drives.m3d", &[]).expect("loads");
        let mut sim = Simulation::new(spec, SimulationOptions::default()).expect("starts");
        sim.advance_to(0.01).expect("steps");
        let inputs: Vec<usize> = (0..sim.variables.variables.len())
            .filter(|&i| sim.variables.variables[i].causality == Causality::Input)
            .collect();
        let outputs: Vec<usize> = sim.variables.outputs().map(|(i, _)| i).collect();
        assert_eq!(inputs.len(), 4, "D.v, F.f, spin.tau and G.v");
        let changed_by = changed_by_inputs(&mut sim, &inputs, &outputs, 1.0);
        for (k, &output) in outputs.iter().enumerate() {
            let name = &sim.variables.variables[output].name;
            let declared = dependencies(&sim.structure(), &input_indices(&sim.variables), output);
            assert!(
                changed_by[k].iter().all(|i| declared.contains(i)),
                "{name}: declared {declared:?}, changed by {:?}",
                changed_by[k]
            );
            let drive_quantity = ["D.", "F.", "G."].iter().any(|p| name.starts_with(p));
            if drive_quantity && !name.contains("_flange") {
                assert_eq!(declared, changed_by[k], "{name}");
            }
        }
        let power = sim.variables.find("D.P_el").expect("the power output");
        assert_eq!(
            changed_by[outputs.iter().position(|&o| o == power).unwrap_or(0)].len(),
            1
        );
    }

    /// Every output declares every continuous state that changes it (Model Exchange: each
    /// state is moved alone, the outputs read again at the same time), or no `dependencies` at
    /// all. Over models with free bodies, contact outputs, a cut-joint's outputs and drives
    /// with their own states.
    #[test]
    fn outputs_declare_every_state_that_changes_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut sources = vec![("drives.m3d".to_string(), DRIVES.to_string())];
        for name in ["two_balls", "newtons_cradle", "fourbar", "bouncing_ball"] {
            let path = root.join(format!("models/{name}.m3d"));
            let text = std::fs::read_to_string(&path).expect("a shipped model");
            sources.push((format!("{name}.m3d"), text));
        }
        let mut checked = 0;
        for (file, source) in sources {
            let spec = model::load_str_with(&source, &file, &[]).expect("loads");
            let mut sim = Simulation::new(spec, SimulationOptions::default()).expect("starts");
            sim.enter_model_exchange();
            let inputs = input_indices(&sim.variables);
            let outputs: Vec<usize> = sim.variables.outputs().map(|(i, _)| i).collect();
            let declared: Vec<Option<Vec<usize>>> = outputs
                .iter()
                .map(|&o| output_dependencies(&sim.structure(), &inputs, o))
                .collect();
            let x0 = sim.continuous_states().to_vec();
            let before = sim.values_of(&outputs);
            for k in 0..x0.len() {
                let state = sim.variables.states[k].value;
                let mut x = x0.clone();
                x[k] += 1e-6 * (1.0 + x[k].abs());
                sim.set_continuous_states(&x).expect("sets");
                for (j, after) in sim.values_of(&outputs).iter().enumerate() {
                    let changed = (after - before[j]).abs() > 1e-12 * (1.0 + before[j].abs());
                    let Some(known) = &declared[j] else { continue };
                    assert!(
                        !changed || known.contains(&state),
                        "{file}: {} changes with the state {} but declares {:?}",
                        sim.variables.variables[outputs[j]].name,
                        sim.variables.variables[state].name,
                        known
                            .iter()
                            .map(|&i| sim.variables.variables[i].name.as_str())
                            .collect::<Vec<_>>()
                    );
                    checked += usize::from(changed);
                }
            }
            sim.set_continuous_states(&x0).expect("sets back");
        }
        println!("{checked} (output, state) dependencies seen, every one declared");
        assert!(checked > 100, "{checked}");
    }

    /// A contact's outputs declare the prescribed motions that move its bodies, and no other
    /// (the normal force the speeds too, which its damping may read):
    /// a ball pressed onto a pad that a motion input lifts, beside an arm that another motion
    /// input swings. Each input is changed alone and the outputs are read again at once.
    #[test]
    fn contact_outputs_declare_the_motions_that_move_their_bodies() {
        const PAD: &str = r#"
model pad
object pad { shape box { lengths = [0.2, 0.02, 0.2] }; mass { material = steel }; contact { material = steel } }
joint lift prismatic { from = world; to = pad; axis = y; flange = motion }
object ball { shape sphere { diameter = 0.05 }; mass { material = steel }; contact { material = steel } }
joint fall free { from = world; to = ball; position = [0, 0.03499, 0]; v = [0, -0.1, 0] }
object arm { shape box { lengths = [0.1, 0.01, 0.01] }; mass { material = steel } }
joint swing revolute { from = world; to = arm; axis = z; flange = motion }
contact_output touch { from = ball; to = pad }
"#;
        let spec = model::load_str_with(PAD, "pad.m3d", &[]).expect("loads");
        let mut sim = Simulation::new(spec, SimulationOptions::default()).expect("starts");
        let inputs = input_indices(&sim.variables);
        let names: Vec<String> = sim
            .variables
            .variables
            .iter()
            .map(|v| v.name.clone())
            .collect();
        let name = |i: usize| names[i].clone();
        let contact: Vec<usize> = ["touch.distance", "touch.penetration", "touch.f_n"]
            .iter()
            .map(|n| sim.variables.find(n).expect("a contact output"))
            .collect();
        let f_n = sim.values_of(&contact)[2];
        assert!(f_n > 0.0, "the ball presses on the pad: f_n = {f_n}");
        let changed_by: Vec<Vec<String>> = changed_by_inputs(&mut sim, &inputs, &contact, 1e-4)
            .into_iter()
            .map(|by| by.into_iter().map(name).collect())
            .collect();
        let structure = sim.structure();
        for (k, &output) in contact.iter().enumerate() {
            let declared: Vec<String> = dependencies(&structure, &inputs, output)
                .into_iter()
                .map(name)
                .collect();
            println!(
                "{}: changed by {:?}, declares {declared:?}",
                name(output),
                changed_by[k]
            );
            assert!(
                changed_by[k].iter().all(|i| declared.contains(i)),
                "{}: declares {declared:?}, changed by {:?}",
                name(output),
                changed_by[k]
            );
            assert!(
                declared.iter().all(|i| i.starts_with("lift.")),
                "{}: declares {declared:?}; the arm's motion moves neither body",
                name(output)
            );
        }
        assert_eq!(
            changed_by[0],
            ["lift.s"],
            "the pad's lift moves the contact"
        );
    }

    #[test]
    fn reals_read_back_exactly() {
        for value in [
            0.0,
            1.0,
            -2.5,
            0.1,
            1e-6,
            3.986e14,
            1e300,
            0.17453292519943295,
        ] {
            let text = real(value);
            assert_eq!(text.parse::<f64>().expect(&text), value, "{text}");
        }
        assert_eq!(real(1.0), "1");
        assert_eq!(real(1e-6), "1e-6");
        assert_eq!(real(0.01), "0.01");
    }
}
