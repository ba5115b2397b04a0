//! Facts about an FMU that the packager writes and the runtime checks: one place for each.

use crate::model::{ModelSpec, ShapeSpec};
use crate::simulation::MAX_OUTPUT_DERIVATIVE_ORDER;

/// Name of the model file inside the FMU's `resources/` folder.
pub const MODEL_FILE: &str = "model.m3d";

/// The FMI version implemented (`fmiVersion` in modelDescription.xml).
pub const FMI_VERSION: &str = "2.0";
/// The same, as `fmi2GetVersion` returns it (a test checks that both agree).
pub const FMI_VERSION_C: &std::ffi::CStr = c"2.0";

/// Name and version of the generating tool, as written into modelDescription.xml.
pub const GENERATION_TOOL: &str = concat!("fmu3d ", env!("CARGO_PKG_VERSION"));

/// What the runtime's FMI 2.0 Co-Simulation implementation supports: the capability flags of
/// `<CoSimulation>` in modelDescription.xml are written from this, so they are true only where
/// the function works.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub needs_execution_tool: bool,
    pub can_handle_variable_communication_step_size: bool,
    pub can_interpolate_inputs: bool,
    pub max_output_derivative_order: u32,
    pub can_run_asynchronuously: bool,
    pub can_be_instantiated_only_once_per_process: bool,
    pub can_not_use_memory_management_functions: bool,
    pub can_get_and_set_fmu_state: bool,
    pub can_serialize_fmu_state: bool,
    pub provides_directional_derivative: bool,
}

pub const CAPABILITIES: Capabilities = Capabilities {
    needs_execution_tool: false,
    can_handle_variable_communication_step_size: true,
    can_interpolate_inputs: true,
    // `fmi2GetRealOutputDerivatives` serves the orders the simulation computes.
    max_output_derivative_order: MAX_OUTPUT_DERIVATIVE_ORDER as u32,
    can_run_asynchronuously: false,
    can_be_instantiated_only_once_per_process: false,
    can_not_use_memory_management_functions: true,
    can_get_and_set_fmu_state: true,
    can_serialize_fmu_state: true,
    provides_directional_derivative: false,
};

/// The log categories the runtime can filter by (declared in modelDescription.xml).
pub const LOG_CATEGORIES: [(&str, &str); 4] = [
    (
        "logStatusError",
        "Errors: a call failed and the instance may be unusable",
    ),
    (
        "logStatusWarning",
        "Warnings: something the user should know, the call succeeded",
    ),
    ("logCalls", "Every FMI call with its arguments"),
    (
        "logSolverStats",
        "Integrator statistics after every fmi2DoStep",
    ),
];

/// The C identifier of an FMU: the model name as an [`identifier`].
pub fn model_identifier(spec: &ModelSpec) -> String {
    identifier(&spec.name)
}

/// `text` as a C identifier, which is also a model-format name: every character that is not an
/// ASCII letter, digit or `_` replaced by `_`, and a leading `_` if it starts with a digit (or
/// is empty).
pub fn identifier(text: &str) -> String {
    let mut id: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    id
}

/// The GUID of an FMU made from `model_source` by this version of fmu3d: a hash of both, written
/// as a UUID. An FMU whose `resources/model.m3d` was edited after packaging no longer matches
/// the GUID in its modelDescription.xml, and instantiation says so.
pub fn guid(model_source: &str) -> String {
    let text = format!("{GENERATION_TOOL}\n{model_source}");
    let a = fnv1a64(text.as_bytes(), 0xcbf2_9ce4_8422_2325);
    let b = fnv1a64(text.as_bytes(), 0x6c62_272e_07bb_0142);
    format!(
        "{{{:08x}-{:04x}-{:04x}-{:04x}-{:012x}}}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

/// The GUID of an FMU made from `model_source` (evaluated to `spec`), built with every moving
/// body's pose as an output (`fmu3d build --animation-outputs`) or not: the variable lists
/// differ, so do the GUIDs, and the runtime learns from the GUID it is given which list the FMU
/// declares. Each mesh file's name and digest enter it too, so that a changed mesh in
/// `resources/` no longer matches.
pub fn guid_with(model_source: &str, spec: &ModelSpec, pose_outputs: bool) -> String {
    let mut text = model_source.to_string();
    for object in &spec.objects {
        if let Some(ShapeSpec::Mesh(mesh)) = &object.shape {
            for (file, digest) in mesh.files.iter().zip(&mesh.digests) {
                text.push_str(&format!("\nmesh {file} {digest:016x}"));
            }
        }
    }
    if pose_outputs {
        text.push_str(&format!("\n{POSE_OUTPUTS_MARK}"));
    }
    guid(&text)
}

/// What [`guid_with`] adds to the model's text for an FMU with pose outputs.
const POSE_OUTPUTS_MARK: &str = "pose outputs";

/// Name of the visual description inside the FMU's `resources/` folder (see
/// `docs/animation.md`).
pub const VISUAL_FILE: &str = "visual.json";

/// FNV-1a, 64 bit, from the given offset basis.
/// FNV-1a (64 bits) of `bytes` from the offset `basis`.
pub(crate) fn fnv1a64(bytes: &[u8], basis: u64) -> u64 {
    bytes.iter().fold(basis, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_version_strings_agree() {
        assert_eq!(FMI_VERSION_C.to_str().ok(), Some(FMI_VERSION));
    }

    #[test]
    fn guid_changes_with_the_model_and_has_uuid_form() {
        let a = guid("model a");
        let b = guid("model b");
        assert_ne!(a, b);
        assert_eq!(a, guid("model a"));
        assert_eq!(a.len(), 38);
        let parts: Vec<usize> = a
            .trim_matches(['{', '}'])
            .split('-')
            .map(str::len)
            .collect();
        assert_eq!(parts, [8, 4, 4, 4, 12]);
        let spec = crate::model::load_str("model m\n", "m.m3d").expect("loads");
        assert_eq!(guid_with("model a", &spec, false), a);
        assert_ne!(guid_with("model a", &spec, true), a);
    }
}
