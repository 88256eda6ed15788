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

    /// The file name without its extension ("default" for the default scene), for the
    /// names of saved scenes and recordings.
    pub fn stem(&self) -> String {
        match self {
            Source::File(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| "scene".into()),
            Source::Default => "default".into(),
        }
    }
}

/// A file's modification time, if it can be read (never in a browser, which has no files
/// to watch).
pub(super) fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The text of the scene file at `path`: from the disk, or in a browser (which has no
/// files) the compiled-in text of a shipped scene (`scenes/NAME.ron`).
pub(crate) fn read_scene(path: &Path) -> Result<String, String> {
    #[cfg(target_arch = "wasm32")]
    {
        scene::shipped::shipped_text(path)
            .map(str::to_string)
            .ok_or_else(|| "not a shipped scene; open your own files with Open file…".to_string())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read the file: {e}"))
    }
}

/// Loads what the command line asked for (a file or the default scene).
pub fn load_initial(path: Option<&Path>) -> Result<(Scene, Source, String), SceneError> {
    match path {
        Some(p) => {
            let text = read_scene(p).map_err(|message| SceneError {
                file: p.display().to_string(),
                position: None,
                message,
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
        let text = match read_scene(path) {
            Ok(t) => t,
            Err(e) => {
                self.error = Some(format!("{}: {e}", path.display()));
                return false;
            }
        };
        self.load_text(path, text)
    }

    /// Loads a scene from `text`, read from `path`; on failure the current scene keeps
    /// running and the error shows. Returns true when a new scene was installed.
    pub fn load_text(&mut self, path: &Path, text: String) -> bool {
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

    /// The world as a scene file's text, seen from `camera` (what Save as writes).
    pub fn scene_text(&self, camera: &CameraDesc) -> Result<String, String> {
        let note = save::saved_note(&self.world, &self.source.label());
        save::save_scene(
            &self.world,
            &self.meta,
            Some(camera),
            self.timestep,
            Some(&self.source_text),
            &note,
        )
    }

    /// Writes the world to `path`.
    pub fn save_as(&mut self, path: &Path, camera: &CameraDesc) {
        let result = self.scene_text(camera).and_then(|text| {
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
