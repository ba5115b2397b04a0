//! Closed-form signed distances for the pairs where they are cheap and exact. [`super::distance`]
//! uses them automatically; each agrees with [`super::mpr::signed_distance`] within its
//! tolerance (property tests in `super::tests`). [`contact_on_box_face`] makes the portal
//! algorithm's answer exact where a shape touches a box's face.

mod box_face;
mod segment_segment;
mod sphere_box;
mod sphere_sphere;

pub use box_face::contact_on_box_face;
pub use segment_segment::{closest_parameters, distance_segment_segment};
pub use sphere_box::distance_sphere_box;
pub use sphere_sphere::distance_sphere_sphere;
