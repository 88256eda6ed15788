//! The `impulse` binary: on the desktop, the command line (`cli.rs`: the sandbox window or a
//! headless run); in a browser (wasm32), the sandbox alone, on the scene the page's address
//! names.

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(all(target_arch = "wasm32", feature = "app"))]
fn main() {
    impulse::app::run_web();
}

/// A browser build without the sandbox has nothing to run: the engine alone is a library.
#[cfg(all(target_arch = "wasm32", not(feature = "app")))]
fn main() {}
