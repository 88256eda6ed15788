//! Scene files in the sandbox: where a scene came from, loading (the command line's file
//! or the default scene), Reset, hot reload and Save as.

use super::*;

/// Where a scene came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The compiled-in default scene.
    Default,
    /// A file on disk (watched for changes).
    File(PathBuf),
}

impl Source {
    /// A short name for the title and panel.
    pub fn label(&self) -> String {
        match self {
            Source::Default => "default scene".into(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// A file's modification time, if it can be read.
pub(super) fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Loads what the command line asked for (a file or the default scene).
pub fn load_initial(path: Option<&Path>) -> Result<(Scene, Source, String), SceneError> {
    match path {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| SceneError {
                file: p.display().to_string(),
                position: None,
                message: format!("cannot read the file: {e}"),
            })?;
            let scene = scene::load_str(&text, &p.display().to_string())?;
            Ok((scene, Source::File(p.to_path_buf()), text))
        }
        None => Ok((
            scene::load_default()?,
            Source::Default,
            scene::DEFAULT_SCENE.to_string(),
        )),
    }
}

impl Sandbox {
    /// Loads a scene file; on failure the current scene keeps running and the error shows.
    /// Returns true when a new scene was installed.
    pub fn load(&mut self, path: &Path) -> bool {
        if path.as_os_str().is_empty() {
            self.error = Some("Load: type a scene file's path first, or browse with Open…".into());
            return false;
        }
        if path.is_dir() {
            self.error = Some(format!(
                "{}: is a folder; give a scene file's path (a .ron file), or browse with Open…",
                path.display()
            ));
            return false;
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                self.error = Some(format!("{}: cannot read the file: {e}", path.display()));
                return false;
            }
        };
        match scene::load_str(&text, &path.display().to_string()) {
            Ok(scene) => {
                self.install(scene, Source::File(path.to_path_buf()), text);
                self.notify(format!("loaded {}", path.display()));
                true
            }
            Err(e) => {
                self.error = Some(e.to_string());
                // A broken version of the watched file is not retried every half second; a
                // broken other file leaves the running scene and its watch alone.
                if self.source == Source::File(path.to_path_buf()) {
                    self.watched_mtime = modified(path);
                }
                false
            }
        }
    }

    /// Rebuilds the scene from the text it was loaded from.
    pub fn reset(&mut self) {
        let label = self.source.label();
        match scene::load_str(&self.source_text, &label) {
            Ok(scene) => {
                let source = self.source.clone();
                let text = std::mem::take(&mut self.source_text);
                self.install(scene, source, text);
            }
            Err(e) => self.error = Some(e.to_string()),
        }
    }

    /// Checks the watched file and reloads it if it changed. Returns true on reload.
    pub fn hot_reload(&mut self) -> bool {
        let Source::File(path) = &self.source else {
            return false;
        };
        let now = modified(path);
        if now.is_none() || now == self.watched_mtime {
            return false;
        }
        let path = path.clone();
        let reloaded = self.load(&path);
        if reloaded {
            self.notify(format!("reloaded {} (changed on disk)", path.display()));
        }
        reloaded
    }

    /// Writes the world to `path`.
    pub fn save_as(&mut self, path: &Path, camera: &CameraDesc) {
        let note = save::saved_note(&self.world, &self.source.label());
        let result = save::save_scene(
            &self.world,
            &self.meta,
            Some(camera),
            self.timestep,
            Some(&self.source_text),
            &note,
        )
        .and_then(|text| {
            std::fs::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
        });
        match result {
            Ok(()) => {
                self.notify(format!("saved {}", path.display()));
                self.error = None;
            }
            Err(e) => self.error = Some(e),
        }
    }
}
