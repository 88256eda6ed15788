//! Every scene the sandbox lists as shipped (`scenes/*.ron` and `scenes/bench/*.ron`),
//! compiled in: a browser has no files to read them from, so the web build opens them from
//! here. A test checks the table against the folders.

/// One entry: the path relative to the project (`scenes/pyramid.ron`) and its text.
macro_rules! shipped {
    ($path:literal) => {
        ($path, include_str!(concat!("../../", $path)))
    };
}

/// The shipped scenes, (path relative to the project, text), sorted by path within each
/// folder.
pub const SHIPPED: &[(&str, &str)] = &[
    shipped!("scenes/bounce.ron"),
    shipped!("scenes/bridge.ron"),
    shipped!("scenes/bullets.ron"),
    shipped!("scenes/card_house.ron"),
    shipped!("scenes/chain.ron"),
    shipped!("scenes/compound.ron"),
    shipped!("scenes/default.ron"),
    shipped!("scenes/dominoes.ron"),
    shipped!("scenes/door.ron"),
    shipped!("scenes/filtering.ron"),
    shipped!("scenes/friction_ramp.ron"),
    shipped!("scenes/funnel.ron"),
    shipped!("scenes/launcher.ron"),
    shipped!("scenes/mass_ratio.ron"),
    shipped!("scenes/newtons_cradle.ron"),
    shipped!("scenes/pile.ron"),
    shipped!("scenes/planar_boxes.ron"),
    shipped!("scenes/pyramid.ron"),
    shipped!("scenes/ragdoll.ron"),
    shipped!("scenes/sensors.ron"),
    shipped!("scenes/shapes.ron"),
    shipped!("scenes/stack.ron"),
    shipped!("scenes/topdown.ron"),
    shipped!("scenes/bench/convex_pile.ron"),
    shipped!("scenes/bench/joint_grid.ron"),
    shipped!("scenes/bench/large_pyramid.ron"),
    shipped!("scenes/bench/many_pyramids.ron"),
    shipped!("scenes/bench/pile1000.ron"),
    shipped!("scenes/bench/pile4000.ron"),
    shipped!("scenes/bench/pile4000_sleep.ron"),
    shipped!("scenes/bench/pyramid20.ron"),
    shipped!("scenes/bench/pyramid40.ron"),
    shipped!("scenes/bench/ragdolls.ron"),
    shipped!("scenes/bench/spheres1000.ron"),
];

/// The text of the shipped scene at `path` (`scenes/NAME.ron` or `scenes/bench/NAME.ron`,
/// with `/` or the platform's separator), if there is one.
pub fn shipped_text(path: &std::path::Path) -> Option<&'static str> {
    let wanted: Vec<_> = path.components().map(|c| c.as_os_str()).collect();
    SHIPPED.iter().find_map(|(p, text)| {
        let parts: Vec<_> = std::path::Path::new(p)
            .components()
            .map(|c| c.as_os_str())
            .collect();
        (parts == wanted).then_some(*text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_scene_in_the_folders_and_finds_each_by_path() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut on_disk = Vec::new();
        for dir in ["scenes", "scenes/bench"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|x| x == "ron") {
                    let name = path.file_name().unwrap().to_string_lossy().to_string();
                    on_disk.push(format!("{dir}/{name}"));
                }
            }
        }
        on_disk.sort();
        let mut listed: Vec<String> = SHIPPED.iter().map(|(p, _)| p.to_string()).collect();
        listed.sort();
        assert_eq!(listed, on_disk);
        for (path, text) in SHIPPED {
            assert_eq!(shipped_text(std::path::Path::new(path)), Some(*text));
        }
        assert_eq!(
            shipped_text(std::path::Path::new("scenes/nothing.ron")),
            None
        );
    }
}
