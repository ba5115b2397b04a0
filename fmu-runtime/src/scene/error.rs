use crate::model::Location;

/// A structural problem of the assembly (a name that does not resolve, a part that hangs in the
/// air, a loop the engine cannot close), with the place in the model file it comes from.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneError {
    pub location: Location,
    pub message: String,
}

impl SceneError {
    pub fn new(location: &Location, message: impl Into<String>) -> SceneError {
        SceneError {
            location: location.clone(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for SceneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: error: {}", self.location, self.message)
    }
}

impl std::error::Error for SceneError {}
