//! Hostile input for the scene loader: the inputs that once broke it (`tests/corpus/`), random
//! bytes, and shipped scenes with random numbers swapped for hostile values. Nothing may panic;
//! a scene that loads must step 60 times and stay finite.

use impulse::scene;
use proptest::prelude::*;

/// Loads `text`; if it loads, steps it 60 times and checks every body stays finite.
fn load_and_step(text: &str, name: &str) -> Result<(), String> {
    let mut scene = match scene::load_str(text, name) {
        Ok(s) => s,
        Err(e) => {
            let message = e.to_string();
            assert!(message.starts_with(name), "{message}");
            return Err(message);
        }
    };
    for step in 0..60 {
        scene.world.step(scene.timestep);
        for (h, b) in scene.world.bodies() {
            assert!(
                b.position().is_finite()
                    && b.rotation().is_finite()
                    && b.linear_velocity().is_finite()
                    && b.angular_velocity().is_finite(),
                "{name}: body {} not finite at step {step}",
                h.index()
            );
        }
    }
    Ok(())
}

#[test]
fn the_corpus_of_inputs_that_once_failed_loads_or_is_refused_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // `joints/` holds valid jointed scenes for `joint_fuzz`.
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let outcome = load_and_step(&text, &name);
        // Which of them must be refused: each names the field at fault.
        let expected = match path.file_name().unwrap().to_str().unwrap() {
            "flat_pyramid.ron" => Some("Pyramid is too flat"),
            "flat_prism_in_generator.ron" => Some("Prism is too flat"),
            "tiny_density.ron" => Some("density 1e-40"),
            "duplicate_material.ron" => Some("defined twice"),
            "zero_spacing_grid.ron" => Some("spacing.x"),
            "fast_spin.ron" => Some("angular_velocity"),
            _ => None,
        };
        match (expected, outcome) {
            (Some(part), Err(message)) => assert!(message.contains(part), "{message}"),
            (None, Ok(())) => {}
            (expected, outcome) => panic!("{name}: expected {expected:?}, got {outcome:?}"),
        }
        count += 1;
    }
    assert!(count >= 8, "corpus not found in {}", dir.display());
}

/// Small shipped scenes to mutate (the big piles would make each case slow).
const SEEDS: [&str; 5] = [
    include_str!("../../scenes/default.ron"),
    include_str!("../../scenes/shapes.ron"),
    include_str!("../../scenes/bounce.ron"),
    include_str!("../../scenes/card_house.ron"),
    include_str!("../../scenes/mass_ratio.ron"),
];

/// Values that broke loaders before: zero, negatives, huge, tiny, subnormal, non-finite.
const HOSTILE: [&str; 12] = [
    "0.0", "-1.0", "1e30", "1e-40", "NaN", "inf", "-inf", "1e20", "100000.0", "3e38", "1e-7", "0",
];

/// The byte ranges of the numbers in `text`.
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            || (bytes[i] == b'-' && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()));
        if starts && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || b".eE-+".contains(&bytes[i])) {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = load_and_step(&text, "random.ron");
    }

    #[test]
    fn shipped_scenes_with_hostile_numbers_never_panic(
        seed in 0..SEEDS.len(),
        swaps in proptest::collection::vec((any::<prop::sample::Index>(), 0..HOSTILE.len()), 1..4),
    ) {
        let mut text = SEEDS[seed].to_string();
        for (which, value) in swaps {
            let spans = numbers(&text);
            prop_assume!(!spans.is_empty());
            let (start, end) = spans[which.index(spans.len())];
            text.replace_range(start..end, HOSTILE[value]);
        }
        let _ = load_and_step(&text, "mutated.ron");
    }
}
