//! The sandbox window (macroquad + egui). STUB: replaced by the window issue.

use std::path::PathBuf;

use crate::headless::CliError;

/// What the command line asked of the window.
pub struct AppOptions;

impl AppOptions {
    /// Checks the window options.
    pub fn new(
        _scene: Option<PathBuf>,
        _frames: Option<u64>,
        _screenshot: Option<PathBuf>,
        _draw: &[String],
        _stress: bool,
    ) -> Result<Self, String> {
        Ok(AppOptions)
    }
}

/// Opens the window.
pub fn run(_options: AppOptions) -> Result<(), CliError> {
    println!("Impulse: the sandbox window is not built yet; try `impulse run scenes/default.ron --steps 600`.");
    Ok(())
}
