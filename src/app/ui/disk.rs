//! Scene files on the desktop: the save folder, the file dialog of Open… and Save as…, and
//! loading and saving by a typed path.

use super::files::scenes_dir;
use super::*;

/// What the file dialog is open for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    Open,
    Save,
}

/// Where Save as puts scenes: the folder `IMPULSE_SAVE_DIR` names when it is set, else
/// "Impulse" in the user's documents folder (in the home folder when there is none, in the
/// working directory when there is no home either). Saved scenes stay out of the project's
/// `scenes/`, whose files the browser lists as shipped; the browser lists this folder's as
/// "Your scenes".
pub fn save_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("IMPULSE_SAVE_DIR") {
        return PathBuf::from(dir);
    }
    let user = directories::UserDirs::new();
    let documents = user
        .as_ref()
        .and_then(|u| u.document_dir().map(Path::to_path_buf));
    let home = user.as_ref().map(|u| u.home_dir().to_path_buf());
    documents
        .or(home)
        .unwrap_or_else(|| PathBuf::from("."))
        .join("Impulse")
}

/// A file name for Save as that does not exist yet: in [`save_dir`], named after the open
/// scene with the first free number.
pub fn suggested_save_path(source: &Source) -> PathBuf {
    let stem = source.stem();
    let dir = save_dir();
    (2..)
        .map(|n| dir.join(format!("{stem}-{n}.ron")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}-saved.ron")))
}

/// The file dialog of Open… and Save as… and what it was opened for.
pub struct FileBrowser {
    dialog: egui_file_dialog::FileDialog,
    purpose: Option<Purpose>,
}

impl Default for FileBrowser {
    fn default() -> Self {
        let ron = |p: &Path| p.extension().is_some_and(|x| x == "ron");
        Self {
            dialog: egui_file_dialog::FileDialog::new()
                .add_file_filter("Scenes (.ron)", std::sync::Arc::new(ron))
                .default_file_filter("Scenes (.ron)")
                .add_save_extension("Scene", "ron")
                .default_save_extension("Scene")
                .default_size([680.0, 420.0])
                .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
                .as_modal(true),
            purpose: None,
        }
    }
}

impl FileBrowser {
    /// Opens the dialog to pick a scene to load, in `dir`.
    pub(super) fn open(&mut self, dir: PathBuf) {
        self.dialog.config_mut().initial_directory = dir;
        self.dialog.config_mut().title = Some("Open a scene".into());
        self.purpose = Some(Purpose::Open);
        self.dialog.pick_file();
    }

    /// Opens the dialog to pick where to save, starting at `suggested`.
    pub(super) fn save(&mut self, suggested: &Path) {
        let config = self.dialog.config_mut();
        config.initial_directory = suggested
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        config.default_file_name = suggested
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        config.title = Some("Save the scene as".into());
        self.purpose = Some(Purpose::Save);
        self.dialog.save_file();
    }

    /// Shows the dialog while it is open; what the user picked in it, once.
    pub(super) fn update(&mut self, ctx: &egui::Context) -> Option<(Purpose, PathBuf)> {
        self.dialog.update(ctx);
        let picked = self.dialog.take_picked()?;
        Some((self.purpose.take()?, picked))
    }
}

/// Open…, Save as…, Load and Save by a typed path (asking before replacing a file), and
/// where saved scenes go.
pub(super) fn file_buttons(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    ui.horizontal(|ui| {
        if ui
            .button("Open…")
            .on_hover_text("Browse for a scene file to load")
            .clicked()
        {
            let dir = match &sandbox.source {
                Source::File(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
                Source::Default => scenes_dir(),
            };
            view.files.open(dir);
        }
        if ui
            .button("Save as…")
            .on_hover_text("Browse for where to save the world as it is now")
            .clicked()
        {
            // The save folder is made the first time it is needed; if that fails,
            // the dialog says it cannot open it and another can be picked.
            let _ = std::fs::create_dir_all(save_dir());
            view.files.save(&suggested_save_path(&sandbox.source));
        }
    });
    ui.horizontal(|ui| {
        let load = ui
            .button("Load")
            .on_hover_text("Load the scene file whose path is typed on the right");
        mark("load", &load);
        if load.clicked() {
            let path = PathBuf::from(view.load_path.trim());
            sandbox.load(&path);
        }
        let field = ui.add(
            egui::TextEdit::singleline(&mut view.load_path)
                .hint_text("path/to/scene.ron")
                .desired_width(f32::INFINITY),
        );
        mark("load path", &field);
    });
    // Save: the field starts as a new name in the save folder; an existing file is
    // only replaced after asking.
    if view.save_path.is_empty() {
        view.save_path = suggested_save_path(&sandbox.source).display().to_string();
    }
    ui.horizontal(|ui| {
        let save = ui
            .button("Save")
            .on_hover_text("Write the world as it is now to the path typed on the right");
        mark("save", &save);
        if save.clicked() {
            let path = PathBuf::from(view.save_path.trim());
            if path.parent() == Some(save_dir().as_path()) {
                // Made the first time it is needed; a failure shows as the save's.
                let _ = std::fs::create_dir_all(save_dir());
            }
            if path.exists() {
                view.confirm_overwrite = Some(path);
            } else {
                sandbox.save_as(&path, &view.camera.to_desc());
                view.save_path.clear();
            }
        }
        let field =
            ui.add(egui::TextEdit::singleline(&mut view.save_path).desired_width(f32::INFINITY));
        mark("save path", &field);
    });
    if let Some(path) = view.confirm_overwrite.clone() {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                Color32::from_rgb(230, 160, 60),
                format!("{} exists. Replace it?", path.display()),
            );
            if ui.small_button("Replace").clicked() {
                sandbox.save_as(&path, &view.camera.to_desc());
                view.confirm_overwrite = None;
                view.save_path.clear();
            }
            if ui.small_button("Cancel").clicked() {
                view.confirm_overwrite = None;
            }
        });
    }
    ui.label(
        RichText::new(format!(
            "Saved scenes go to {} (listed above as Your scenes). The open file \
             reloads when it changes on disk.",
            save_dir().display()
        ))
        .small()
        .weak(),
    );
}

/// Shows the file dialog while it is open, and loads or saves what was picked in it.
pub(super) fn file_dialog(ctx: &egui::Context, sandbox: &mut Sandbox, view: &mut View) {
    match view.files.update(ctx) {
        Some((Purpose::Open, path)) => {
            sandbox.load(&path);
        }
        Some((Purpose::Save, path)) => sandbox.save_as(&path, &view.camera.to_desc()),
        None => {}
    }
}
