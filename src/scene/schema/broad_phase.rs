//! The broad phase in a scene file, with its optional parameters: `Quadtree` or
//! `Quadtree(max_depth: 8, capacity: 8)`, `Grid` or `Grid(cell_size: 2.0)`.

use super::*;

/// Which broad phase to use. The parameters of `Quadtree` and `Grid` are optional:
/// `Quadtree`, `Quadtree(max_depth: 8, capacity: 8)`, `Grid`, `Grid(cell_size: 2.0)` (read
/// by the `Deserialize` below, which accepts both the bare and the struct form).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub enum BroadPhaseDesc {
    /// Dynamic AABB tree.
    #[default]
    DynamicTree,
    /// All pairs (reference; slow beyond a few hundred bodies).
    BruteForce,
    /// A quadtree over the ground plane.
    Quadtree {
        /// The deepest level (root 0); default 8.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_depth: Option<u32>,
        /// Proxies per node before it splits; default 8.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        capacity: Option<u32>,
    },
    /// A uniform grid (spatial hash).
    Grid {
        /// Cell size, m; chosen from the bodies when left out.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cell_size: Option<f32>,
    },
}

/// The variant names of [`BroadPhaseDesc`].
#[derive(Deserialize)]
#[serde(rename = "BroadPhase")]
enum BroadPhaseName {
    DynamicTree,
    BruteForce,
    Quadtree,
    Grid,
}

impl<'de> Deserialize<'de> for BroadPhaseDesc {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_enum(
            "BroadPhaseDesc",
            &["DynamicTree", "BruteForce", "Quadtree", "Grid"],
            BroadPhaseVisitor,
        )
    }
}

impl BroadPhaseDesc {
    /// The engine's kind, with defaults for what was left out.
    pub fn kind(self) -> crate::physics::BroadPhaseKind {
        use crate::physics::broad_phase::quadtree;
        use crate::physics::BroadPhaseKind;
        match self {
            BroadPhaseDesc::DynamicTree => BroadPhaseKind::DynamicTree,
            BroadPhaseDesc::BruteForce => BroadPhaseKind::BruteForce,
            BroadPhaseDesc::Quadtree {
                max_depth,
                capacity,
            } => BroadPhaseKind::Quadtree {
                max_depth: max_depth.unwrap_or(quadtree::DEFAULT_MAX_DEPTH),
                capacity: capacity.unwrap_or(quadtree::DEFAULT_CAPACITY),
            },
            BroadPhaseDesc::Grid { cell_size } => BroadPhaseKind::Grid { cell_size },
        }
    }

    /// The description of an engine kind (parameters always written out).
    pub fn from_kind(kind: crate::physics::BroadPhaseKind) -> Self {
        use crate::physics::BroadPhaseKind;
        match kind {
            BroadPhaseKind::DynamicTree => BroadPhaseDesc::DynamicTree,
            BroadPhaseKind::BruteForce => BroadPhaseDesc::BruteForce,
            BroadPhaseKind::Quadtree {
                max_depth,
                capacity,
            } => BroadPhaseDesc::Quadtree {
                max_depth: Some(max_depth),
                capacity: Some(capacity),
            },
            BroadPhaseKind::Grid { cell_size } => BroadPhaseDesc::Grid { cell_size },
        }
    }
}

/// Reads a broad phase: a unit variant, or `Quadtree` / `Grid` with or without parameters.
struct BroadPhaseVisitor;

impl<'de> serde::de::Visitor<'de> for BroadPhaseVisitor {
    type Value = BroadPhaseDesc;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("DynamicTree, BruteForce, Quadtree(max_depth, capacity) or Grid(cell_size)")
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        use serde::de::VariantAccess;
        let (name, variant) = data.variant::<BroadPhaseName>()?;
        let (bare, fields): (BroadPhaseDesc, &'static [&'static str]) = match name {
            BroadPhaseName::DynamicTree => {
                variant.unit_variant()?;
                return Ok(BroadPhaseDesc::DynamicTree);
            }
            BroadPhaseName::BruteForce => {
                variant.unit_variant()?;
                return Ok(BroadPhaseDesc::BruteForce);
            }
            BroadPhaseName::Quadtree => (
                BroadPhaseDesc::Quadtree {
                    max_depth: None,
                    capacity: None,
                },
                &["max_depth", "capacity"],
            ),
            BroadPhaseName::Grid => (BroadPhaseDesc::Grid { cell_size: None }, &["cell_size"]),
        };
        // RON has no way to peek for the parenthesis: ask for the struct form, and if it fails
        // before the parameters were entered, nothing was consumed and the bare name stands.
        let entered = std::cell::Cell::new(false);
        let params = BroadPhaseParams {
            bare,
            fields,
            entered: &entered,
        };
        match variant.struct_variant(fields, params) {
            Ok(desc) => Ok(desc),
            Err(_) if !entered.get() => Ok(bare),
            Err(e) => Err(e),
        }
    }
}

/// A struct field's name (RON reads it as an identifier, not a string).
struct FieldName(String);

impl<'de> Deserialize<'de> for FieldName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = FieldName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<FieldName, E> {
                Ok(FieldName(v.to_owned()))
            }
        }
        d.deserialize_identifier(Name)
    }
}

/// The parameters in `Quadtree(...)` or `Grid(...)`.
struct BroadPhaseParams<'a> {
    bare: BroadPhaseDesc,
    fields: &'static [&'static str],
    entered: &'a std::cell::Cell<bool>,
}

impl<'de> serde::de::Visitor<'de> for BroadPhaseParams<'_> {
    type Value = BroadPhaseDesc;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "the fields {}", self.fields.join(", "))
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        use serde::de::Error;
        self.entered.set(true);
        let mut desc = self.bare;
        while let Some(FieldName(key)) = map.next_key()? {
            let duplicate = || M::Error::custom(format!("duplicate field `{key}`"));
            match (&mut desc, key.as_str()) {
                (BroadPhaseDesc::Quadtree { max_depth, .. }, "max_depth") => {
                    if max_depth.replace(map.next_value()?).is_some() {
                        return Err(duplicate());
                    }
                }
                (BroadPhaseDesc::Quadtree { capacity, .. }, "capacity") => {
                    if capacity.replace(map.next_value()?).is_some() {
                        return Err(duplicate());
                    }
                }
                (BroadPhaseDesc::Grid { cell_size }, "cell_size") => {
                    if cell_size.replace(map.next_value()?).is_some() {
                        return Err(duplicate());
                    }
                }
                _ => return Err(M::Error::unknown_field(&key, self.fields)),
            }
        }
        Ok(desc)
    }
}
