//! Scene files: RON descriptions of worlds that people write by hand, load, and save back.
//!
//! `load_file` / `load_str` parse and validate a scene and build its world; `save` writes a
//! world back as RON that loads to the same state bit for bit. Errors name the file, line
//! and column (syntax) or the body and field (values), and never panic.

pub mod build;
pub mod generators;
pub mod save;
pub mod schema;
pub mod shipped;

use std::fmt;
use std::path::Path;

pub use build::{BodyMeta, Scene};
pub use schema::SceneFile;

/// The default scene, compiled in so `impulse` works from any directory.
pub const DEFAULT_SCENE: &str = include_str!("../../scenes/default.ron");

/// Why a scene could not be loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneError {
    /// The file (or a stand-in such as `<default scene>`).
    pub file: String,
    /// 1-based line and column, when the error has a place.
    pub position: Option<(usize, usize)>,
    /// What went wrong, or what was expected.
    pub message: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, col)) => write!(f, "{}:{}:{}: {}", self.file, line, col, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for SceneError {}

/// A scene's description: the `//` comment lines its text opens with, their lines joined
/// into paragraphs (an empty comment line starts a new one, paragraphs are separated by an
/// empty line). Empty when the text opens with anything else.
pub fn description(text: &str) -> String {
    let mut paragraphs: Vec<String> = vec![String::new()];
    for line in text.lines() {
        let Some(comment) = line.trim_start().strip_prefix("//") else {
            break;
        };
        let words = comment.trim();
        let last = paragraphs.last_mut().expect("one paragraph at least");
        if words.is_empty() {
            if !last.is_empty() {
                paragraphs.push(String::new());
            }
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(words);
        }
    }
    paragraphs.retain(|p| !p.is_empty());
    paragraphs.join("\n\n")
}

/// RON options shared by loading and saving: `Some` is implicit, so optional fields are
/// written plainly (`name: "box"`).
fn ron_options() -> ron::Options {
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

/// Parses a broad phase as the command line gives it: `tree`, `brute`, `quadtree`, `grid`,
/// or the scene syntax (`DynamicTree`, `Quadtree(max_depth: 6, capacity: 4)`,
/// `Grid(cell_size: 2.0)`, ...). The parameters are checked.
pub fn parse_broad_phase(text: &str) -> Result<crate::physics::BroadPhaseKind, String> {
    use crate::physics::BroadPhaseKind;
    let kind = match text.trim() {
        "tree" => BroadPhaseKind::DynamicTree,
        "brute" => BroadPhaseKind::BruteForce,
        "quadtree" => BroadPhaseKind::QUADTREE,
        "grid" => BroadPhaseKind::GRID,
        other => ron_options()
            .from_str::<schema::BroadPhaseDesc>(other)
            .map_err(|e| {
                format!(
                    "expected tree, brute, quadtree, grid or a scene's broad_phase value such as \
                     Quadtree(max_depth: 6, capacity: 4), got {other:?} ({})",
                    e.code
                )
            })?
            .kind(),
    };
    kind.validate()?;
    Ok(kind)
}

/// Parses a scene text without building it. `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<SceneFile, SceneError> {
    ron_options()
        .from_str::<SceneFile>(text)
        .map_err(|e| SceneError {
            file: file.to_string(),
            position: (e.position.line > 0).then_some((e.position.line, e.position.col)),
            message: describe_ron_error(&e.code),
        })
}

/// A friendlier wording of RON's error codes: lower case like the rest of our messages, a
/// missing space restored, and a hint for an unclosed bracket.
fn describe_ron_error(code: &ron::Error) -> String {
    if let ron::Error::Eof = code {
        return "unexpected end of file (a bracket or parenthesis is not closed?)".into();
    }
    // RON writes "`Torus`in enum `ShapeDesc`" and "`x`in `Body`": restore the space.
    let text = code.to_string().replace("`in ", "` in ");
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// Parses, validates and builds a scene from text.
pub fn load_str(text: &str, file: &str) -> Result<Scene, SceneError> {
    let parsed = parse(text, file)?;
    build::build(&parsed).map_err(|invalid| SceneError {
        file: file.to_string(),
        position: invalid
            .anchor
            .as_deref()
            .and_then(|name| locate_name(text, name)),
        message: invalid.message,
    })
}

/// Reads, parses, validates and builds a scene file.
pub fn load_file(path: &Path) -> Result<Scene, SceneError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| SceneError {
        file: file.clone(),
        position: None,
        message: format!("cannot read the file: {e}"),
    })?;
    load_str(&text, &file)
}

/// The default scene (compiled in).
pub fn load_default() -> Result<Scene, SceneError> {
    load_str(DEFAULT_SCENE, "scenes/default.ron")
}

/// Line and column (1-based) of `name: "<name>"` in the text, to point at a body.
fn locate_name(text: &str, name: &str) -> Option<(usize, usize)> {
    let needle = format!("\"{name}\"");
    let offset = text
        .match_indices(&needle)
        .map(|(i, _)| i)
        .find(|&i| text[..i].trim_end().ends_with(':'))?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    Some((line, col))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_have_line_and_column() {
        let err = load_str(
            "Scene(\n  bodies: [\n    (position: (1.0, 2.0)),\n  ],\n)",
            "x.ron",
        )
        .err()
        .unwrap();
        let (line, _) = err.position.expect("position");
        assert_eq!(line, 3);
        assert!(err.to_string().starts_with("x.ron:3:"), "{err}");
    }

    #[test]
    fn value_errors_point_at_the_named_body() {
        let text = "Scene(bodies: [\n (name: \"a\", colliders: [(shape: Sphere(radius: 1.0))]),\n (name: \"b\", colliders: [(shape: Sphere(radius: -1.0))]),\n])";
        let err = load_str(text, "y.ron").err().unwrap();
        assert_eq!(err.position.map(|p| p.0), Some(3));
        assert!(err.message.contains("body \"b\""), "{err}");
        assert!(err.message.contains("radius"), "{err}");
    }
}
