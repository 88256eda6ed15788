//! The `impulse` binary.

fn main() {
    println!("Impulse: the sandbox window is not built yet; run `cargo test` to exercise the engine.");
}
