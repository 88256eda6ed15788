//! The scene browser's contents: the scene files grouped by what they show, each with the
//! description its file opens with.

use std::path::{Path, PathBuf};

/// The groups of the scene browser, in order, and the shipped scenes in each (file stems in
/// `scenes/`). A file the table does not name goes under [`OTHER`]; the files in
/// `scenes/bench/` under [`BENCHMARKS`].
const GROUPS: [(&str, &[&str]); 4] = [
    (
        "Stacking",
        &[
            "stack",
            "pyramid",
            "card_house",
            "dominoes",
            "mass_ratio",
            "pile",
        ],
    ),
    (
        "Joints",
        &["chain", "bridge", "door", "ragdoll", "newtons_cradle"],
    ),
    (
        "Collision",
        &[
            "default",
            "shapes",
            "compound",
            "bounce",
            "friction_ramp",
            "bullets",
            "sensors",
            "filtering",
            "funnel",
            "launcher",
        ],
    ),
    ("2D and character", &["planar_boxes", "topdown"]),
];

/// The group of `scenes/bench/`: large scenes for `impulse bench`, slow to step.
pub const BENCHMARKS: &str = "Benchmarks";

/// The group of the files in `scenes/` that no other group names.
pub const OTHER: &str = "Other scenes";

/// The group of the files in the folder Save as writes to.
pub const YOURS: &str = "Your scenes";

/// One scene file in the browser.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The file.
    pub path: PathBuf,
    /// Its stem, the button's label.
    pub name: String,
    /// What its leading comment says ([`description`]); empty when it has none.
    pub description: String,
}

/// The browser's groups, in order, each with its files; empty groups left out.
#[derive(Clone, Debug, Default)]
pub struct Catalogue {
    pub groups: Vec<(&'static str, Vec<Entry>)>,
}

impl Catalogue {
    /// The `.ron` files in `dir` and in `dir/bench`, and in `saved` (the save folder),
    /// grouped. Unreadable files keep their place with no description.
    pub fn scan(dir: &Path, saved: Option<&Path>) -> Self {
        let mut other = Vec::new();
        let mut named: Vec<Vec<Entry>> = vec![Vec::new(); GROUPS.len()];
        for entry in ron_files(dir) {
            match GROUPS
                .iter()
                .position(|(_, names)| names.contains(&entry.name.as_str()))
            {
                Some(g) => named[g].push(entry),
                None => other.push(entry),
            }
        }
        let mut groups: Vec<(&'static str, Vec<Entry>)> = Vec::new();
        for ((title, order), mut entries) in GROUPS.iter().zip(named) {
            entries.sort_by_key(|e| order.iter().position(|n| *n == e.name));
            groups.push((title, entries));
        }
        groups.push((OTHER, other));
        if let Some(saved) = saved.filter(|s| *s != dir) {
            groups.push((YOURS, ron_files(saved)));
        }
        groups.push((BENCHMARKS, ron_files(&dir.join("bench"))));
        groups.retain(|(_, entries)| !entries.is_empty());
        Self { groups }
    }
}

/// The `.ron` files directly in `dir`, sorted by name, with their descriptions.
fn ron_files(dir: &Path) -> Vec<Entry> {
    let mut files = scene_files(dir);
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
        .into_iter()
        .map(|(path, text)| Entry {
            name: path
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_default(),
            description: text.map(|t| description(&t)).unwrap_or_default(),
            path,
        })
        .collect()
}

/// The `.ron` files directly in `dir` with their text (`None` when unreadable).
#[cfg(not(target_arch = "wasm32"))]
fn scene_files(dir: &Path) -> Vec<(PathBuf, Option<String>)> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "ron"))
                .map(|p| {
                    let text = std::fs::read_to_string(&p).ok();
                    (p, text)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The shipped scenes directly in `dir` (`scenes` or `scenes/bench`), compiled in: a
/// browser has no folders to list.
#[cfg(target_arch = "wasm32")]
fn scene_files(dir: &Path) -> Vec<(PathBuf, Option<String>)> {
    crate::scene::shipped::SHIPPED
        .iter()
        .map(|(p, text)| (PathBuf::from(p), Some(text.to_string())))
        .filter(|(p, _)| p.parent() == Some(dir))
        .collect()
}

pub use crate::scene::description;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_is_the_leading_comment_in_paragraphs() {
        let text =
            "// A stack of\n//   ten cubes.\n//\n// It stands.\nScene(// not this\n)\n// nor this";
        assert_eq!(description(text), "A stack of ten cubes.\n\nIt stands.");
        assert_eq!(description("Scene()\n// late"), "");
    }

    #[test]
    fn every_shipped_scene_is_in_a_named_group_with_a_description() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
        let catalogue = Catalogue::scan(&dir, None);
        for (group, entries) in &catalogue.groups {
            assert_ne!(*group, OTHER, "not in a group: {entries:?}");
            for e in entries {
                assert!(
                    e.description.len() > 40,
                    "{}: no description ({:?})",
                    e.path.display(),
                    e.description
                );
            }
        }
        let listed: usize = catalogue.groups.iter().map(|(_, e)| e.len()).sum();
        let files = ron_files(&dir).len() + ron_files(&dir.join("bench")).len();
        assert_eq!(listed, files, "every file listed once");
        // Every name in the table exists: a renamed scene must be renamed here too.
        for (_, names) in GROUPS {
            for name in names {
                assert!(dir.join(format!("{name}.ron")).is_file(), "{name}.ron");
            }
        }
    }
}
