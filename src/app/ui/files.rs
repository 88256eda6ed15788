//! The Scene section: the browser of the shipped and saved scenes, then the file buttons
//! (`disk.rs` on the desktop, `browser.rs` in a browser).

use super::*;
use catalogue::Entry;

#[cfg(target_arch = "wasm32")]
use super::browser::file_buttons;
#[cfg(not(target_arch = "wasm32"))]
use super::disk::{file_buttons, save_dir};

/// The scenes/ folder: next to the working directory if there is one, else the source tree
/// (in a browser, the compiled-in shipped scenes' `scenes`).
pub(super) fn scenes_dir() -> PathBuf {
    if cfg!(target_arch = "wasm32") {
        return PathBuf::from("scenes");
    }
    let local = PathBuf::from("scenes");
    if local.is_dir() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
    }
}

/// The scene browser's groups, read again every [`CATALOGUE_REFRESH`] seconds.
#[derive(Default)]
pub struct SceneBrowser {
    catalogue: Catalogue,
    read_at: Option<Instant>,
    /// The file the groups were last opened for: a newly loaded scene opens its group.
    opened_for: Option<Source>,
}

impl SceneBrowser {
    pub(super) fn catalogue(&mut self) -> &Catalogue {
        let stale = self
            .read_at
            .is_none_or(|t| t.elapsed().as_secs_f64() > CATALOGUE_REFRESH);
        if stale {
            #[cfg(not(target_arch = "wasm32"))]
            let saved = Some(save_dir());
            #[cfg(target_arch = "wasm32")]
            let saved: Option<PathBuf> = None;
            self.catalogue = Catalogue::scan(&scenes_dir(), saved.as_deref());
            self.read_at = Some(Instant::now());
        }
        &self.catalogue
    }
}

/// The scene browser (the scene files grouped, the open one's group open, each file's
/// description on hover), then load by path and save as.
pub(super) fn scene(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    egui::CollapsingHeader::new("Scene")
        .default_open(true)
        .show(ui, |ui| {
            let open_file = match &sandbox.source {
                Source::File(p) => Some(p.clone()),
                Source::Default => Some(scenes_dir().join("default.ron")),
            };
            let same = |a: &Path, b: &Path| {
                a == b
                    || a.canonicalize()
                        .ok()
                        .is_some_and(|a| Some(a) == b.canonicalize().ok())
            };
            let catalogue = view.browser.catalogue().clone();
            let listed = |e: &Entry| open_file.as_deref().is_some_and(|f| same(&e.path, f));
            // A newly loaded scene opens its own group (once; the user may close it) and
            // closes none: what the user opened stays open, and nothing under the list
            // moves away from the cursor that just clicked a scene or a file button.
            let reopen = view.browser.opened_for.as_ref() != Some(&sandbox.source);
            view.browser.opened_for = Some(sandbox.source.clone());
            let mut pick = None;
            for (group, entries) in &catalogue.groups {
                let holds_open = entries.iter().any(listed);
                let mut header =
                    egui::CollapsingHeader::new(format!("{group} ({})", entries.len()))
                        .id_salt(("scene group", *group));
                if reopen && holds_open {
                    header = header.open(Some(true));
                }
                header.show(ui, |ui| {
                    ui.horizontal_wrapped(|ui| {
                        for entry in entries {
                            let is_open = listed(entry);
                            let first = entry.description.split("\n\n").next().unwrap_or("");
                            let button = ui.selectable_label(is_open, &entry.name);
                            let button = if first.is_empty() {
                                button
                            } else {
                                button.on_hover_ui(|ui| {
                                    ui.set_max_width(320.0);
                                    ui.label(first);
                                })
                            };
                            if button.clicked() {
                                pick = Some(entry.path.clone());
                            }
                        }
                    });
                });
            }
            if let Some(path) = pick {
                sandbox.load(&path);
            }
            ui.add_space(4.0);
            file_buttons(ui, sandbox, view);
        });
}
