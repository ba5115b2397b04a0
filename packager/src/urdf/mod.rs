//! Robots from URDF: `fmu3d convert robot.urdf -o robot.m3d` writes a model file a person can
//! read and edit, and `fmu3d build robot.urdf` builds its FMU (through such a file in a
//! temporary folder). docs/urdf.md says what is read and how names map.
//!
//! - [`xml`]: the file as elements with their lines.
//! - [`robot`]: the links, joints and materials, checked, and notes on what is not converted.
//! - [`model_file`]: the `.m3d` text.
//!
//! Here: the conversion's settings, mesh files found (`package://`, relative, `file://`) and
//! copied next to the model file, since a model's meshes travel with it inside its folder.

mod model_file;
mod robot;
mod xml;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use model_file::Settings;
use robot::{Geometry, Note};

/// A converted robot: the model file's text, the mesh files to copy (source, and path relative
/// to the model file), and what was not converted.
#[derive(Debug)]
pub struct Converted {
    pub text: String,
    pub meshes: Vec<(PathBuf, String)>,
    pub notes: Vec<String>,
}

/// Converts the URDF file `urdf`; meshes go to `mesh_folder` (relative to the model file),
/// found from the URDF's folder upwards and in `package_paths`.
pub fn convert(
    urdf: &Path,
    mesh_folder: &str,
    package_paths: &[PathBuf],
    settings: &Settings,
) -> Result<Converted, String> {
    let name = urdf.display().to_string();
    let text = std::fs::read_to_string(urdf).map_err(|e| format!("{name}: cannot be read: {e}"))?;
    let root = xml::parse(&text).map_err(|e| format!("{name}: {e}"))?;
    let mut robot = robot::Robot::read(&root).map_err(|e| format!("{name}: {e}"))?;
    if !settings.floating_base
        && robot
            .joints
            .iter()
            .all(|j| j.kind == robot::JointKind::Fixed)
    {
        return Err(format!(
            "{name}: robot `{}` has no joint that moves and its root link is fixed to the world, \
             so nothing in it would move: give --floating-base to let it move freely (an object \
             or a mobile robot)",
            robot.name
        ));
    }
    let folder = urdf.parent().unwrap_or(Path::new("."));
    // Every mesh found first: its path beside the model file, or a note why it is left out.
    let mut meshes: Vec<(PathBuf, String)> = Vec::new();
    let mut relative_of: HashMap<String, String> = HashMap::new();
    let geometries = robot
        .links
        .iter()
        .flat_map(|l| l.visuals.iter().chain(&l.collisions));
    for shape in geometries {
        let Geometry::Mesh { filename, .. } = &shape.geometry else {
            continue;
        };
        if relative_of.contains_key(filename) {
            continue;
        }
        let readable = [".stl", ".obj"]
            .iter()
            .any(|ext| filename.to_ascii_lowercase().ends_with(ext));
        if !readable {
            robot.notes.push(Note {
                line: shape.line,
                text: format!(
                    "mesh `{filename}` is left out: fmu3d reads STL and OBJ meshes (convert it, \
                     e.g. with trimesh or Blender)"
                ),
            });
            continue;
        }
        let path = find_mesh(filename, folder, package_paths).ok_or_else(|| {
            format!(
                "{name}: line {}: mesh `{filename}` not found (looked from {} upwards{}): give \
                 the folder that holds its package with --package-path DIR",
                shape.line,
                folder.display(),
                if package_paths.is_empty() {
                    ""
                } else {
                    " and in the package paths"
                }
            )
        })?;
        let relative = match meshes.iter().find(|(p, _)| *p == path) {
            Some((_, relative)) => relative.clone(),
            None => {
                let file_name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let mut relative = format!("{mesh_folder}/{file_name}");
                let mut k = 2;
                while meshes.iter().any(|(_, r)| *r == relative) {
                    relative = format!("{mesh_folder}/{k}_{file_name}");
                    k += 1;
                }
                meshes.push((path, relative.clone()));
                relative
            }
        };
        relative_of.insert(filename.clone(), relative);
    }
    let source_name = urdf
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.clone());
    let mut mesh_file = |filename: &str| relative_of.get(filename).cloned();
    let (text, notes) = model_file::write(&robot, &source_name, settings, &mut mesh_file);
    Ok(Converted {
        text,
        meshes,
        notes: notes
            .iter()
            .map(|n| format!("{name}: line {}: {}", n.line, n.text))
            .collect(),
    })
}

/// The file a URDF mesh `filename` names: `package://PKG/REST` in a folder PKG found from
/// `folder` upwards or inside one of `package_paths` (or one of them itself named PKG);
/// `file://PATH`; or a path relative to `folder`, or else to one of `package_paths`.
fn find_mesh(filename: &str, folder: &Path, package_paths: &[PathBuf]) -> Option<PathBuf> {
    if let Some(rest) = filename.strip_prefix("package://") {
        let (package, inside) = rest.split_once('/')?;
        let bases = folder
            .ancestors()
            .chain(package_paths.iter().map(|p| p.as_path()));
        for base in bases {
            let candidates = [
                base.join(package).join(inside),
                if base.file_name().is_some_and(|n| n == package) {
                    base.join(inside)
                } else {
                    PathBuf::new()
                },
            ];
            if let Some(found) = candidates.into_iter().find(|c| c.is_file()) {
                return Some(found);
            }
        }
        return None;
    }
    if let Some(absolute) = filename.strip_prefix("file://") {
        let path = PathBuf::from(absolute);
        return path.is_file().then_some(path);
    }
    std::iter::once(folder)
        .chain(package_paths.iter().map(|p| p.as_path()))
        .map(|base| base.join(filename))
        .find(|path| path.is_file())
}

/// Converts `urdf` into the model file `output`, copying its meshes into the folder
/// `<output's stem>_meshes` beside it; returns the notes (also written into the file).
pub fn write_model(
    urdf: &Path,
    output: &Path,
    package_paths: &[PathBuf],
    settings: &Settings,
) -> Result<Vec<String>, String> {
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "robot".to_string());
    let mesh_folder = format!("{stem}_meshes");
    let converted = convert(urdf, &mesh_folder, package_paths, settings)?;
    let target = output.parent().unwrap_or(Path::new("."));
    if !converted.meshes.is_empty() {
        let folder = target.join(&mesh_folder);
        std::fs::create_dir_all(&folder)
            .map_err(|e| format!("{}: cannot be created: {e}", folder.display()))?;
    }
    for (source, relative) in &converted.meshes {
        let destination = target.join(relative);
        std::fs::copy(source, &destination).map_err(|e| {
            format!(
                "{} cannot be copied to {}: {e}",
                source.display(),
                destination.display()
            )
        })?;
    }
    std::fs::write(output, &converted.text)
        .map_err(|e| format!("{}: cannot be written: {e}", output.display()))?;
    Ok(converted.notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_paths_are_found_from_the_urdf_upwards_and_in_the_given_folders() {
        let root = std::env::temp_dir().join(format!("fmu3d-urdf-{}", std::process::id()));
        let urdf_folder = root.join("my_robot").join("urdf");
        let mesh = root.join("my_robot").join("meshes").join("arm.stl");
        let elsewhere = root.join("other").join("tool_pkg").join("tip.obj");
        for file in [&mesh, &elsewhere] {
            std::fs::create_dir_all(file.parent().expect("folder")).expect("folder");
            std::fs::write(file, "solid x\nendsolid x\n").expect("file");
        }
        std::fs::create_dir_all(&urdf_folder).expect("folder");
        assert_eq!(
            find_mesh("package://my_robot/meshes/arm.stl", &urdf_folder, &[]),
            Some(mesh.clone())
        );
        assert_eq!(
            find_mesh("../meshes/arm.stl", &urdf_folder, &[]),
            Some(urdf_folder.join("../meshes/arm.stl"))
        );
        assert_eq!(
            find_mesh("package://tool_pkg/tip.obj", &urdf_folder, &[]),
            None
        );
        assert_eq!(
            find_mesh(
                "package://tool_pkg/tip.obj",
                &urdf_folder,
                &[root.join("other")]
            ),
            Some(elsewhere.clone())
        );
        std::fs::remove_dir_all(&root).ok();
    }
}
