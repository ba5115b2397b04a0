//! (2) The scene: Object3D arena, joints and force elements, built from a [`crate::model::ModelSpec`].
